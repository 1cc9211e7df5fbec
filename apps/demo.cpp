// The demo (Quickstart line 1): every example application on 4 thread ranks,
// each checked against the single-process reference.
//
//   ./scripts/demo.sh            (or build/apps/coconet_demo [ranks])
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

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
    std::printf("median ms per step of 5; speedup: unscheduled over the best schedule; every "
                "result checked against the single-process reference\n\n");
    std::printf("%-20s %12s %12s %12s %12s %9s %10s\n", "app", "unscheduled", "split", "fused",
                "overlapped", "speedup", "max error");
    // Variants are named "<app>" and "<app> (<schedule>)".
    const char *columns[] = {"", " (split)", " (fused)", " (overlapped)"};
    std::vector<apps::AppCase> cases = apps::all_apps(true);
    int failures = 0;
    for (const apps::AppCase &base : cases) {
        if (base.name.find(' ') != std::string::npos) {
            continue;
        }
        if (ranks < base.min_ranks) {
            std::printf("%-20s skipped: needs at least %d ranks\n", base.name.c_str(),
                        base.min_ranks);
            continue;
        }
        std::printf("%-20s", base.name.c_str());
        double err = 0, best = 0, unscheduled = 0;
        bool ok = true;
        for (const char *column : columns) {
            auto it = std::find_if(cases.begin(), cases.end(), [&](const apps::AppCase &c) {
                return c.name == base.name + column;
            });
            if (it == cases.end()) {
                std::printf(" %12s", "-");
                continue;
            }
            try {
                Result r = run(*it, ranks);
                err = std::max(err, r.error);
                ok &= r.ok;
                unscheduled = *column ? unscheduled : r.ms;
                best = *column && (best == 0 || r.ms < best) ? r.ms : best;
                std::printf(" %12.3f", r.ms);
            } catch (const std::exception &e) {
                ok = false;
                std::printf("\n  %s failed: %s\n%20s", it->name.c_str(), e.what(), "");
            }
            std::fflush(stdout);
        }
        failures += ok ? 0 : 1;
        std::printf(" %8.2fx %10.3g%s\n", unscheduled / best, err, ok ? "" : "  MISMATCH");
    }
    std::printf("\n%s\n", failures ? "Some apps did not match the reference."
                                   : "All apps match the single-process reference.");
    apps::OptimizerConfig small;
    small.n = 10;
    small.schedule = apps::Schedule::Fused;
    std::printf("\nThe fused schedule of Adam, lowered (a single pass; the gradients are never "
                "gathered):\n%s",
                print_plan(apps::adam(small), std::min(ranks, 4)).c_str());
    return failures ? 1 : 0;
}
