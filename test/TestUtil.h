// Shared checks for the tests: a program run on thread ranks must equal the
// single-process reference, and replicated outputs must agree across ranks.
// With ThreadRanks.h, the harness that runs ranks as threads.
#ifndef COCONET_TEST_UTIL_H
#define COCONET_TEST_UTIL_H

#include <cmath>
#include <cstdlib>
#include <functional>

#include <catch2/catch.hpp>

#include "CoCoNet.h"
// The compiler's internals the tests look into (lower, analyze, the passes,
// print_plan of a lowered program), which CoCoNet.h leaves out.
#include "InferLayouts.h"
#include "Lower.h"
#include "PrintPlan.h"
#include "ThreadRanks.h"

namespace coconet_test {

// The rank counts every correctness test covers: 1, a count that divides few
// sizes (3), and 8, which exceeds the smallest extents used.
inline const std::vector<int> &rank_counts() {
    static const std::vector<int> r = {1, 2, 3, 4, 8};
    return r;
}

// Whether every floating-point output is finite: equal infinities agree in the
// comparison with the reference (a max's identity), so a test whose results
// must be finite checks so itself.
inline bool all_finite(const std::vector<coconet::RankBuffers> &ranks) {
    for (const auto &r : ranks) {
        for (const auto &kv : r) {
            const Halide::Buffer<> &b = kv.second;
            if (b.type() != Halide::Float(32) || b.number_of_elements() == 0) {
                continue;
            }
            bool finite = true;
            Halide::Buffer<const float>(b).for_each_value(
                [&](float x) { finite &= std::isfinite(x); });
            if (!finite) {
                return false;
            }
        }
    }
    return true;
}

using InputMaker =
    std::function<std::vector<coconet::RankBuffers>(const coconet::Program &, int, uint32_t)>;

inline void check_matches_reference(const coconet::Program &program,
                                    const std::vector<int> &ranks = rank_counts(),
                                    double tolerance = 0.0, int min_ranks = 1,
                                    const InputMaker &make_inputs = coconet::make_inputs,
                                    const coconet::JitOptions &options = {}) {
    coconet::JitProgram jit(program, options);
    coconet::Reference reference(program);
    for (int r : ranks) {
        if (r < min_ranks) {
            continue;
        }
        INFO("program " << program.name() << " on " << r << " ranks");
        auto inputs = make_inputs(program, r, 11 + r);
        auto outputs = jit.run_threads(r, inputs, 5.0);
        auto expected = reference.run(r, inputs);
        CHECK(coconet::max_abs_diff(outputs, expected) <= tolerance);
        CHECK(all_finite(outputs));
        CHECK(coconet::replicated_mismatches(program, outputs).empty());
    }
}

// Runs `f` and returns the message of the exception of type E it throws.
template<typename E, typename F>
std::string message_of(F &&f) {
    try {
        f();
    } catch (const E &e) {
        return e.what();
    }
    FAIL("expected an exception");
    return "";
}

// An environment variable set for a scope (unset after it, even when a
// REQUIRE ends the test there); a null value leaves it alone.
struct ScopedEnv {
    ScopedEnv(const char *name, const char *value) : name(value ? name : nullptr) {
        if (value) {
            setenv(name, value, 1);
        }
    }
    ~ScopedEnv() {
        if (name) {
            unsetenv(name);
        }
    }
    ScopedEnv(const ScopedEnv &) = delete;
    ScopedEnv &operator=(const ScopedEnv &) = delete;
    const char *name;
};

// What a pass's data structures key Funcs by.
inline const coconet::DFuncContents *contents(const coconet::DFunc &f) {
    return f.get_contents().get();
}

// The start of most pass tests' programs: a Local gradient g and a Sliced(0)
// state m of 8 elements, and t, g's all_reduce split into a reduce_scatter
// and an all_gather.
struct SplitSum {
    coconet::DFunc g, m, t;
};

inline SplitSum split_sum() {
    using namespace coconet;
    DFunc g = input("g", Halide::Float(32), {8}, Local());
    DFunc m = input("m", Halide::Float(32), {8}, Sliced(0));
    DFunc t = all_reduce(g, ReduceOp::Sum, "t");
    t.split_collective(0);
    return SplitSum{g, m, t};
}

// split_sum's Funcs read by u = m + t, the output (Sliced(0)) of program
// "split": u reads its slice of t, so t's gather is dead.
struct SplitSumProgram : SplitSum {
    coconet::DFunc u;
    coconet::Program program;
};

inline SplitSumProgram split_sum_program() {
    SplitSum s = split_sum();
    Halide::Var i("i");
    coconet::DFunc u("u");
    u(i) = s.m(i) + s.t(i);
    coconet::Program p("split");
    p.output(u, coconet::Sliced(0));
    return SplitSumProgram{s, u, p};
}

} // namespace coconet_test

#endif
