// The demo (Quickstart line 1): every example application on 4 thread ranks,
// each checked against the single-process reference.
//
//   ./scripts/demo.sh            (or build/apps/coconet_demo [ranks])
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "Apps.h"

using namespace coconet;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char **argv) {
    const int ranks = argc > 1 ? std::atoi(argv[1]) : 4;
    std::printf("CoCoNet for Halide demo: %d ranks on the threads backend\n", ranks);
    std::printf("%-28s %12s %12s %12s %12s\n", "app", "max error", "tolerance", "run (ms)",
                "compile (ms)");
    int failures = 0;
    for (const apps::AppCase &app : apps::all_apps(true)) {
        if (ranks < app.min_ranks) {
            std::printf("%-28s skipped: needs at least %d ranks\n", app.name.c_str(),
                        app.min_ranks);
            continue;
        }
        try {
            Program program = app.make();
            auto t0 = std::chrono::steady_clock::now();
            JitProgram jit(program);
            const double compile_s = seconds_since(t0);
            std::vector<RankBuffers> inputs = app.inputs(program, ranks, 1);
            std::vector<RankBuffers> outputs;
            std::vector<double> times;
            for (int rep = 0; rep < 5; rep++) {
                t0 = std::chrono::steady_clock::now();
                outputs = jit.run_threads(ranks, inputs);
                times.push_back(seconds_since(t0));
            }
            std::sort(times.begin(), times.end());
            std::vector<RankBuffers> expected = Reference(program).run(ranks, inputs);
            const double err = max_abs_diff(outputs, expected);
            const bool ok = err <= app.tolerance && replicated_mismatches(program, outputs).empty();
            failures += ok ? 0 : 1;
            std::printf("%-28s %12.3g %12.3g %12.3f %12.1f%s\n", app.name.c_str(), err,
                        app.tolerance, times[times.size() / 2] * 1e3, compile_s * 1e3,
                        ok ? "" : "  MISMATCH");
        } catch (const std::exception &e) {
            failures++;
            std::printf("%-28s failed: %s\n", app.name.c_str(), e.what());
        }
    }
    std::printf("%s\n", failures ? "Some apps did not match the reference."
                                 : "All apps match the single-process reference.");
    apps::OptimizerConfig small;
    small.n = 10;
    small.schedule = apps::Schedule::Fused;
    std::printf("\n%s", print_plan(lower(apps::adam(small)), std::min(ranks, 4)).c_str());
    return failures ? 1 : 0;
}
