// Small helpers that several CoCoNet lessons share, kept here so that each
// lesson can stay about its topic (as Halide's tutorials share clock.h). They
// are header-only: a lesson is a single source file, built on its own.

#ifndef COCONET_TUTORIALS_LESSON_UTIL_H
#define COCONET_TUTORIALS_LESSON_UTIL_H

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "Apps.h"

// The median wall-clock time of a few runs of `jit` on `ranks` thread ranks,
// in milliseconds. The ranks are a ThreadWorld kept across the runs, as a
// training loop keeps them, and each run writes the last one's outputs again. The first runs are
// not timed: the first compiles the fused kernels for this rank count, and an overlapped step times
// its tile counts over its first calls on a world (until it has chosen one). `outputs` receives the
// last run's results.
inline double median_ms(const coconet::JitProgram &jit, int ranks,
                        const std::vector<coconet::RankBuffers> &inputs,
                        std::vector<coconet::RankBuffers> &outputs) {
    coconet::ThreadWorld world(ranks);
    auto settled = [&] {
        for (int r = 0; r < ranks; r++) {
            if (!coconet_comm_overlap_settled(world.comm(r))) {
                return false;
            }
        }
        return true;
    };
    for (int warmup = 0; warmup == 0 || (!settled() && warmup < 64); warmup++) {
        jit.run_threads(world, inputs, outputs);
    }
    std::vector<double> ms;
    for (int rep = 0; rep < 5; rep++) {
        auto t0 = std::chrono::steady_clock::now();
        jit.run_threads(world, inputs, outputs);
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

// Whether `outputs` equal `expected` bit for bit and every rank of a
// Replicated output's group holds the same copy; prints what differs otherwise.
inline bool matches(const std::string &what, const coconet::Program &p,
                    const std::vector<coconet::RankBuffers> &outputs,
                    const std::vector<coconet::RankBuffers> &expected) {
    const double err = coconet::max_abs_diff(outputs, expected);
    if (err != 0 || !coconet::replicated_mismatches(p, outputs).empty()) {
        printf("%s does not match the reference (max abs diff %g)\n", what.c_str(), err);
        return false;
    }
    return true;
}

// Runs `jit`, compiled from `p`, on each of `rank_counts` thread ranks with
// inputs from `make` (seed 2), checks every run against the reference run of
// `reference` (a program that computes the same outputs), and prints a line
// per rank count. One compiled program serves every rank count.
inline bool matches_on(const std::string &what, const coconet::JitProgram &jit,
                       const coconet::Program &p, const coconet::Program &reference,
                       std::initializer_list<int> rank_counts,
                       const coconet::apps::InputMaker &make) {
    for (int ranks : rank_counts) {
        const std::vector<coconet::RankBuffers> inputs = make(p, ranks, 2);
        if (!matches(what, p, jit.run_threads(ranks, inputs),
                     coconet::Reference(reference).run(ranks, inputs))) {
            return false;
        }
        printf("%s on %d rank%s: bit-identical to the reference\n", what.c_str(), ranks,
               ranks == 1 ? "" : "s");
    }
    return true;
}

#endif
