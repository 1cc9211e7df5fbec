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

struct Result {
    double error = 0, ms = 0;
    bool ok = true;
};

// Runs one app variant 5 times on `ranks` thread ranks (the first run also
// compiles its fused kernels) and checks the last run against the reference.
Result run(const apps::AppCase &app, int ranks) {
    Program program = app.make();
    JitProgram jit(program);
    std::vector<RankBuffers> inputs = app.inputs(program, ranks, 1);
    std::vector<RankBuffers> outputs;
    std::vector<double> times;
    for (int rep = 0; rep < 5; rep++) {
        auto t0 = std::chrono::steady_clock::now();
        outputs = jit.run_threads(ranks, inputs);
        times.push_back(seconds_since(t0));
    }
    std::sort(times.begin(), times.end());
    std::vector<RankBuffers> expected = Reference(program).run(ranks, inputs);
    Result r;
    r.error = max_abs_diff(outputs, expected);
    r.ok = r.error <= app.tolerance && replicated_mismatches(program, outputs).empty();
    r.ms = times[times.size() / 2] * 1e3;
    return r;
}

} // namespace

int main(int argc, char **argv) {
    const int ranks = argc > 1 ? std::atoi(argv[1]) : 4;
    std::printf("CoCoNet for Halide demo: %d ranks on the threads backend\n", ranks);
    std::printf("median ms per step of 5; every result checked against the single-process "
                "reference\n\n");
    std::printf("%-20s %13s %13s %13s %9s %10s\n", "app", "unscheduled", "split", "fused",
                "speedup", "max error");
    // all_apps lists each app unscheduled, then split, then fused.
    std::vector<apps::AppCase> cases = apps::all_apps(true);
    const size_t napps = cases.size() / 3;
    int failures = 0;
    for (size_t i = 0; i < napps; i++) {
        const apps::AppCase &base = cases[i];
        if (ranks < base.min_ranks) {
            std::printf("%-20s skipped: needs at least %d ranks\n", base.name.c_str(),
                        base.min_ranks);
            continue;
        }
        try {
            Result r[3];
            double err = 0;
            bool ok = true;
            for (int k = 0; k < 3; k++) {
                r[k] = run(cases[i + k * napps], ranks);
                err = std::max(err, r[k].error);
                ok &= r[k].ok;
            }
            failures += ok ? 0 : 1;
            std::printf("%-20s %13.3f %13.3f %13.3f %8.2fx %10.3g%s\n", base.name.c_str(),
                        r[0].ms, r[1].ms, r[2].ms, r[0].ms / r[2].ms, err,
                        ok ? "" : "  MISMATCH");
        } catch (const std::exception &e) {
            failures++;
            std::printf("%-20s failed: %s\n", base.name.c_str(), e.what());
        }
    }
    std::printf("\n%s\n", failures ? "Some apps did not match the reference."
                                   : "All apps match the single-process reference.");
    apps::OptimizerConfig small;
    small.n = 10;
    small.schedule = apps::Schedule::Fused;
    std::printf("\nThe fused schedule of Adam, lowered (a single pass; the gradients are never "
                "gathered):\n%s",
                print_plan(lower(apps::adam(small)), std::min(ranks, 4)).c_str());
    return failures ? 1 : 0;
}
