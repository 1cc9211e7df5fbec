// The demo (Quickstart line 1): each example application written once, run
// unscheduled and under its schedule on thread ranks at sizes where the
// schedule matters, checked against the single-process reference, with a
// line on what the schedule did and why it wins or where it cannot.
//
//   ./scripts/demo.sh            (or build/apps/coconet_demo [ranks])
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "Apps.h"

using namespace coconet;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct DemoApp {
    std::string name, size;
    std::function<Program()> unscheduled, scheduled;
    std::string schedule; // what the schedule does
    std::string wins;     // why it is faster
    std::string cannot;   // where it cannot be (printed when it is not faster)
    int min_ranks = 1;
    apps::InputMaker inputs = make_inputs;
};

struct Timed {
    double ms = 0, error = 0;
    bool ok = true;
};

// One variant of an app, compiled, with its inputs, the thread ranks it runs
// on and its outputs (both kept across its calls, as a training loop keeps
// them) and call times.
struct Variant {
    Program program;
    JitProgram jit;
    ThreadWorld world;
    std::vector<RankBuffers> inputs, outputs;
    std::vector<double> times;

    Variant(const std::function<Program()> &make, const apps::InputMaker &make_inputs, int ranks)
        : program(make()), jit(program), world(ranks), inputs(make_inputs(program, ranks, 1)) {}

    double call() {
        auto t0 = std::chrono::steady_clock::now();
        jit.run_threads(world, inputs, outputs);
        return seconds_since(t0);
    }
};

// Both variants called in turn, so that a busy spell of the machine slows
// both: one call each that compiles the fused kernels, then pairs of calls for
// about a second (5 to 25 pairs), each timed as the median (an overlapped
// step tries its tile counts over its first 13 calls). The last calls are
// checked against the reference.
std::pair<Timed, Timed> run_pair(const DemoApp &app, int ranks) {
    Variant plain(app.unscheduled, app.inputs, ranks), sched(app.scheduled, app.inputs, ranks);
    const double first = plain.call() + sched.call();
    const int pairs = std::clamp((int)(1.0 / std::max(first, 1e-3)), 5, 25);
    for (int k = 0; k < pairs; k++) {
        plain.times.push_back(plain.call());
        sched.times.push_back(sched.call());
    }
    auto result = [&](Variant &v) {
        std::sort(v.times.begin(), v.times.end());
        Timed t;
        t.ms = v.times[v.times.size() / 2] * 1e3;
        t.error = max_abs_diff(v.outputs, Reference(v.program).run(ranks, v.inputs));
        t.ok = t.error == 0.0 && replicated_mismatches(v.program, v.outputs).empty();
        return t;
    };
    return {result(plain), result(sched)};
}

// Unscheduled: as a user first writes each app, with no schedule at all;
// scheduled: its CoCoNet schedule. Neither has the apps' hand schedules of the
// compute: the default schedule gives both the same loops, so the difference
// is the CoCoNet schedule's.
std::vector<DemoApp> demo_apps() {
    apps::OptimizerConfig opt;
    opt.n = 1 << 22;
    opt.hand_schedule = false;
    apps::OptimizerConfig fused_opt = opt;
    fused_opt.schedule = apps::Schedule::Fused;
    apps::MlpConfig mlp;
    mlp.batch = 1024;
    mlp.hidden = 256;
    mlp.ffn = 1024;
    mlp.hand_schedule = false;
    apps::MlpConfig seq = mlp;
    seq.schedule = apps::Schedule::Fused;
    seq.split_dim = 1;
    apps::PipelineConfig pipe;
    pipe.batch = 512;
    pipe.hidden = 512;
    pipe.hand_schedule = false;
    apps::PipelineConfig fused_pipe = pipe;
    fused_pipe.schedule = apps::Schedule::Fused;

    const std::string one_pass =
        "one pass over memory reads each rank's gradient once and writes the new parameters "
        "straight into every rank's copy, where all_reduce + update make several";
    std::vector<DemoApp> list;
    list.push_back({"adam", "2^22 parameters", [=] { return apps::adam(opt); },
                    [=] { return apps::adam(fused_opt); },
                    "split_collective + fuse_with: reduce_scatter, Adam's update on the slice "
                    "and all_gather in one pass",
                    one_pass, "the step is memory-bound and the ranks share one memory system", 1,
                    apps::optimizer_inputs});
    list.push_back({"lamb", "2^22 parameters", [=] { return apps::lamb(opt); },
                    [=] { return apps::lamb(fused_opt); },
                    "split_collective + fuse_with: the moments and the update computed inside "
                    "the reduce_scatter's pass",
                    one_pass, "the step is memory-bound and the ranks share one memory system", 1,
                    apps::optimizer_inputs});
    list.push_back({"sgd_clip", "2^22 parameters", [=] { return apps::sgd_clip(opt); },
                    [=] { return apps::sgd_clip(fused_opt); },
                    "fuse_with: the clipped update inside the new weights' all_gather pass",
                    one_pass, "the step is memory-bound and the ranks share one memory system"});
    list.push_back({"megatron_mlp", "1024 tokens x 256", [=] { return apps::megatron_mlp(mlp); },
                    [=] { return apps::megatron_mlp(seq); },
                    "split along the tokens (sequence parallel): bias, dropout and residual "
                    "fused into the reduce_scatter's pass on each rank's tokens",
                    "the epilogue runs on 1/R of the tokens and the reduction moves contiguous "
                    "runs, where the unscheduled block repeats it on every rank",
                    "the MatMuls dominate and are the same in both"});
    list.push_back({"two_stage_pipeline", "512 x 512 per stage",
                    [=] { return apps::two_stage_pipeline(pipe); },
                    [=] { return apps::two_stage_pipeline(fused_pipe); },
                    "each stage's activation fused into its reduce_scatter's pass; slices, not "
                    "whole activations, sent between stages",
                    "each stage computes its activation once per slice and sends 1/R of it",
                    "with two stages each stage has few ranks, so a slice is most of the "
                    "activation and the pass adds a meeting",
                    2});
    return list;
}

// A bar of `width` characters at most, for time ratio `x` of the slower.
std::string bar(double x, int width = 30) {
    return std::string(std::max(1, (int)(x * width + 0.5)), '#');
}

} // namespace

int main(int argc, char **argv) {
    const int cores = (int)std::max(1u, std::thread::hardware_concurrency());
    const int ranks = argc > 1 ? std::atoi(argv[1]) : std::min(4, std::max(2, cores));
    if (ranks < 1) {
        std::fprintf(stderr, "usage: %s [ranks >= 1]\n", argv[0]);
        return 2;
    }
    std::printf("CoCoNet for Halide demo: %d thread ranks (threads backend, %d cores here)\n",
                ranks, cores);
    std::printf("Each app is written once and run unscheduled and under its CoCoNet schedule, in "
                "turn (the compute of\nboth gets the default schedule); ms per call (median), "
                "results checked bit for bit against\nthe single-process reference.\n\n");
    int failures = 0;
    for (const DemoApp &app : demo_apps()) {
        if (ranks < app.min_ranks) {
            std::printf("%s: skipped, needs at least %d ranks\n\n", app.name.c_str(),
                        app.min_ranks);
            continue;
        }
        std::printf("%s (%s)\n", app.name.c_str(), app.size.c_str());
        std::fflush(stdout);
        try {
            const auto [plain, sched] = run_pair(app, ranks);
            const double slower = std::max(plain.ms, sched.ms);
            std::printf("  unscheduled %9.2f ms  %s\n", plain.ms, bar(plain.ms / slower).c_str());
            std::printf("  scheduled   %9.2f ms  %s  %.2fx\n", sched.ms,
                        bar(sched.ms / slower).c_str(), plain.ms / sched.ms);
            std::printf("  schedule: %s\n", app.schedule.c_str());
            if (plain.ms / sched.ms >= 1.05) {
                std::printf("  faster:   %s\n", app.wins.c_str());
            } else {
                std::printf("  here:     no faster at this size on this machine: %s\n",
                            app.cannot.c_str());
            }
            if (!plain.ok || !sched.ok) {
                failures++;
                std::printf("  MISMATCH with the reference (max error %g)\n",
                            std::max(plain.error, sched.error));
            }
        } catch (const std::exception &e) {
            failures++;
            std::printf("  failed: %s\n", e.what());
        }
        std::printf("\n");
    }
    std::printf("%s\n", failures ? "Some apps did not match the reference."
                                 : "Every app matches the single-process reference.");
    apps::OptimizerConfig small;
    small.n = 10;
    small.schedule = apps::Schedule::Fused;
    std::printf("\nWhat the schedule made of Adam (print_plan; the gradients are never "
                "gathered):\n%s",
                print_plan(apps::adam(small), std::min(ranks, 4)).c_str());
    return failures ? 1 : 0;
}
