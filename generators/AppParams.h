// The GeneratorParams every app generator shares: which schedule, and how
// its fused passes run. Declared as a member of a generator, so the
// parameters register with it.
#ifndef COCONET_GENERATORS_APP_PARAMS_H
#define COCONET_GENERATORS_APP_PARAMS_H

#include "Apps.h"
#include "Generator.h"

namespace coconet {
namespace generators {

struct ScheduleParams {
    GeneratorParam<std::string> schedule{"schedule", "fused", "none, split or fused"};
    GeneratorParam<std::string> path{"path", "auto", "fused passes: auto, direct or ring"};
    GeneratorParam<int> chunk_elements{"chunk_elements", 0,
                                       "elements per fused kernel call (0: cache-sized)"};

    apps::Schedule parsed_schedule() const;
    FuseOptions fuse() const;
    // Sets an app config's schedule and fuse options.
    template<typename Config>
    void apply(Config &c) const {
        c.schedule = parsed_schedule();
        c.fuse = fuse();
    }
};

// The app's own Halide schedules of its compute (register tiles, vector
// loops), on CPU targets; GPU targets get the GPU pass instead.
struct ComputeParams {
    GeneratorParam<bool> hand_schedule{
        "hand_schedule", true,
        "the app's hand schedules of its compute (false: the default schedule's or an "
        "autoscheduler's)"};

    // Sets an app config's gpu and hand_schedule for `target`.
    template<typename Config>
    void apply(Config &c, const Halide::Target &target) const {
        c.gpu = target.has_gpu_feature();
        c.hand_schedule = hand_schedule;
    }
};

// Run-time shapes: the app's batch-like extent (the optimizers' n, the
// Megatron block's and the pipeline's batch, the fused operators' tiles) a
// run-time size of that name, which each call gives (one library serves every
// size); the GeneratorParam of that name is then the size's estimate.
struct ShapeParams {
    GeneratorParam<bool> runtime_size{
        "runtime_size", false,
        "the app's n, batch or tiles is a run-time size each call gives (its parameter: the "
        "estimate)"};
    template<typename Config>
    void apply(Config &c) const {
        c.runtime_size = runtime_size;
    }
};

// What Adam and LAMB share.
struct OptimizerParams {
    GeneratorParam<int> n{"n", 1 << 16, "parameters"};
    GeneratorParam<float> lr{"lr", 1e-3f, "learning rate"};
    ScheduleParams sched;

    apps::OptimizerConfig config() const;
};

// The Megatron block's shape and dropout.
struct MlpParams {
    GeneratorParam<int> batch{"batch", 8, "tokens"};
    GeneratorParam<int> hidden{"hidden", 16, "model width"};
    GeneratorParam<int> ffn{"ffn", 64, "feed-forward width"};
    GeneratorParam<float> dropout{"dropout", 0.1f, "dropout probability"};
    GeneratorParam<int> seed{"seed", 7, "dropout seed"};

    apps::MlpConfig config() const;
};

} // namespace generators
} // namespace coconet

#endif
