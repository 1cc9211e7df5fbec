// The list of example applications at their default (small) sizes.
#include "Apps.h"

namespace coconet {
namespace apps {

std::vector<AppCase> all_apps() {
    // Every schedule keeps the reduction order, so results are bit-identical.
    return {
        {"adam", [] { return adam(OptimizerConfig{}); }, 0.0},
        {"lamb", [] { return lamb(OptimizerConfig{}); }, 0.0},
        {"megatron_mlp", [] { return megatron_mlp(MlpConfig{}); }, 0.0},
        {"two_stage_pipeline", [] { return two_stage_pipeline(PipelineConfig{}); }, 0.0, 2},
    };
}

}  // namespace apps
}  // namespace coconet
