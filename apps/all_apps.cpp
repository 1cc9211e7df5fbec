// The list of example applications at their default (small) sizes.
#include "Apps.h"

#include <cmath>

namespace coconet {
namespace apps {

void make_second_moments_nonnegative(std::vector<RankBuffers> &inputs) {
    for (RankBuffers &r : inputs) {
        Halide::Buffer<float> v(r.at("v"));
        v.for_each_value([](float &x) { x = std::fabs(x); });
    }
}

std::vector<RankBuffers> optimizer_inputs(const Program &p, int world_size, uint32_t seed) {
    std::vector<RankBuffers> ranks = make_inputs(p, world_size, seed);
    make_second_moments_nonnegative(ranks);
    return ranks;
}

Halide::Expr app_extent(int value, bool runtime, const std::string &name) {
    if (!runtime) {
        return value;
    }
    Halide::Param<int32_t> size(name);
    size.set_estimate(value);
    return size;
}

const char *to_string(Schedule s) {
    switch (s) {
    case Schedule::Split: return "split";
    case Schedule::Fused: return "fused";
    default: return "unscheduled";
    }
}

std::vector<AppCase> all_apps(bool demo_sizes, bool gpu) {
    // Every schedule keeps the reduction order (the fused passes' direct path
    // too), so results are bit-identical; the ring path is checked elsewhere.
    std::vector<AppCase> cases;
    for (Schedule sched : {Schedule::None, Schedule::Split, Schedule::Fused}) {
        const std::string suffix =
            sched == Schedule::None ? "" : std::string(" (") + to_string(sched) + ")";
        OptimizerConfig opt;
        MlpConfig mlp;
        PipelineConfig pipe;
        if (demo_sizes) {
            opt.n = 1 << 20;
            mlp.batch = 16;
            mlp.hidden = 128;
            mlp.ffn = 512;
            pipe.batch = 16;
            pipe.hidden = 256;
        }
        opt.schedule = mlp.schedule = pipe.schedule = sched;
        opt.gpu = mlp.gpu = pipe.gpu = gpu;
        cases.push_back({"adam" + suffix, [=] { return adam(opt); }, 0.0, 1, optimizer_inputs});
        cases.push_back({"lamb" + suffix, [=] { return lamb(opt); }, 0.0, 1, optimizer_inputs});
        cases.push_back({"megatron_mlp" + suffix, [=] { return megatron_mlp(mlp); }, 0.0});
        cases.push_back(
            {"two_stage_pipeline" + suffix, [=] { return two_stage_pipeline(pipe); }, 0.0, 2});
        for (size_t k = cases.size() - 4; k < cases.size(); k++) {
            cases[k].fused = sched == Schedule::Fused;
        }
    }
    // The Megatron block fused, its second MatMul overlapped with the pass.
    MlpConfig mlp;
    if (demo_sizes) {
        mlp.batch = 16;
        mlp.hidden = 128;
        mlp.ffn = 512;
    }
    mlp.schedule = Schedule::Fused;
    mlp.overlap = 4;
    mlp.gpu = gpu;
    cases.push_back({"megatron_mlp (overlapped)", [=] { return megatron_mlp(mlp); }, 0.0});
    cases.back().fused = true;
    // Sequence parallelism: split along the tokens, the overlap's chunks
    // pieces of every rank's tokens.
    mlp.split_dim = 1;
    cases.push_back(
        {"megatron_mlp (sequence parallel, overlapped)", [=] { return megatron_mlp(mlp); }, 0.0});
    cases.back().fused = true;
    // The clipped optimizer: the update in the new weights' all_gather pass.
    for (Schedule sched : {Schedule::None, Schedule::Fused}) {
        OptimizerConfig opt;
        opt.n = demo_sizes ? 1 << 20 : 1000;
        opt.schedule = sched;
        opt.gpu = gpu;
        cases.push_back({std::string("sgd_clip") + (sched == Schedule::None ? "" : " (fused)"),
                         [=] { return sgd_clip(opt); }, 0.0});
        cases.back().fused = sched == Schedule::Fused;
    }
    // The pipeline's stages fused, each MatMul overlapped with its stage's pass.
    PipelineConfig pipe;
    if (demo_sizes) {
        pipe.batch = 16;
        pipe.hidden = 256;
    }
    pipe.schedule = Schedule::Fused;
    pipe.overlap = 4;
    pipe.gpu = gpu;
    cases.push_back(
        {"two_stage_pipeline (overlapped)", [=] { return two_stage_pipeline(pipe); }, 0.0, 2});
    cases.back().fused = true;
    return cases;
}

} // namespace apps
} // namespace coconet
