// The list of example applications at their default (small) sizes.
#include "Apps.h"

#include <cmath>

namespace coconet {
namespace apps {

std::vector<RankBuffers> optimizer_inputs(const Program &p, int world_size, uint32_t seed) {
    std::vector<RankBuffers> ranks = make_inputs(p, world_size, seed);
    for (RankBuffers &r : ranks) {
        Halide::Buffer<float> v(r.at("v"));
        v.for_each_value([](float &x) { x = std::fabs(x); });
    }
    return ranks;
}

std::vector<AppCase> all_apps() {
    // Every schedule keeps the reduction order, so results are bit-identical.
    return {
        {"adam", [] { return adam(OptimizerConfig{}); }, 0.0, 1, optimizer_inputs},
        {"lamb", [] { return lamb(OptimizerConfig{}); }, 0.0, 1, optimizer_inputs},
        {"megatron_mlp", [] { return megatron_mlp(MlpConfig{}); }, 0.0},
        {"two_stage_pipeline", [] { return two_stage_pipeline(PipelineConfig{}); }, 0.0, 2},
    };
}

} // namespace apps
} // namespace coconet
