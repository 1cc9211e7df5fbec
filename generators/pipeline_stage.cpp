// The two-stage pipeline (apps/pipeline.cpp) as a generator: each stage a
// model-parallel layer on its half of the ranks, activations sent across as
// slices. The default schedule fuses each stage's activation into its
// reduce-scatter and overlaps the stage's MatMul with it.
#include "AppParams.h"

namespace coconet {
namespace generators {

class PipelineStage : public Generator {
public:
    GeneratorParam<int> batch{"batch", 4, "tokens"};
    GeneratorParam<int> hidden{"hidden", 16, "layer width"};
    GeneratorParam<int> overlap{"overlap", 4, "chunks of each overlapped MatMul (0: none)"};
    ScheduleParams sched;
    ComputeParams compute;
    ShapeParams shape;

    void generate() override {
        apps::PipelineConfig c;
        c.batch = batch;
        c.hidden = hidden;
        sched.apply(c);
        c.overlap = overlap;
        compute.apply(c, target());
        shape.apply(c);
        set_program(apps::two_stage_pipeline(c));
    }
};

} // namespace generators
} // namespace coconet

COCONET_REGISTER_GENERATOR(coconet::generators::PipelineStage, pipeline_stage)
