// The tile-count tuning of overlapped steps (src/runtime/executor/OverlapTuning.h): the
// tuner's sequence of counts and its decision on its own, then programs with
// an overlapped collective, an overlapped fused pass and an overlapped
// all_to_all (with its direct candidate) called repeatedly on
// one communicator per rank: every call equals the reference whatever the
// count, the ranks settle on the same count after the stated number of calls,
// and COCONET_OVERLAP_TUNING=off keeps the schedule's.
#include <cmath>
#include <cstdlib>

#include "Apps.h"
#include "TestUtil.h"
#include "executor/OverlapTuning.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_rt::OverlapTuner;
using coconet_test::thread_rank_outcomes;
using coconet_test::ThreadOutcome;

namespace {

// Drives a tuner as the executor does on one rank: each timed call starts
// with the ranks' agreement on the call before (the maximum of what every
// rank brings), the last is agreed on at once. call()'s `slowest_other` is
// the slowest other rank's seconds for this call; `others` keeps it until
// the agreement.
struct Rank {
    OverlapTuner &t;
    double others = 0;
    bool call(double mine, double slowest_other) {
        if (t.timing()) {
            t.agree(std::max(t.unagreed(), others));
        }
        others = slowest_other;
        const bool last = t.record(mine);
        if (last) {
            t.agree(std::max(t.unagreed(), others));
        }
        return last;
    }
};

} // namespace

TEST_CASE("the tuner times every count kSamples times, then keeps the fewest tiles within the "
          "margin of the fastest",
          "[runtime][overlap]") {
    static_assert(OverlapTuner::kSamples == 4, "the sequence below is written for four samples");
    OverlapTuner t(4, true);
    Rank rank{t};
    CHECK_FALSE(t.settled());
    CHECK(t.scheduled() == 4);
    // The first call warms up in the schedule's count, untimed.
    CHECK(t.chunks() == 4);
    CHECK_FALSE(t.timing());
    // Its times are never agreed on (the executor's ranks bring 0 to the first
    // timed call's start; here the others' 200 checks that it is ignored).
    CHECK_FALSE(rank.call(100.0, 200.0));
    CHECK(t.unagreed() == 0.0);
    // Then 4, 2, 1 in turn, four times, timed; the last is agreed on at once.
    // A call takes its slowest rank's time: with 2 tiles this rank and the
    // others take turns being slow, so 2 tiles' best call took 4 ms, though
    // each rank's own best is 1.5 ms.
    const std::vector<int> order = {4, 2, 1, 4, 2, 1, 4, 2, 1, 4, 2, 1};
    const std::vector<double> mine = {3.0, 1.5, 5.0, 3.1, 4.0, 6.0, 3.5, 1.5, 7.0, 3.2, 4.0, 5.5};
    const std::vector<double> others = {3.2, 4.0, 5.0, 3.0, 1.5, 6.0, 3.3, 4.0, 7.0, 3.4, 1.5, 5.2};
    for (size_t k = 0; k < order.size(); k++) {
        INFO("call " << k + 1);
        CHECK(t.timing());
        CHECK(t.chunks() == order[k]);
        CHECK_FALSE(t.settled());
        CHECK(rank.call(mine[k] * 1e-3, others[k] * 1e-3) == (k + 1 == order.size()));
        if (k + 1 < order.size()) {
            CHECK(t.unagreed() == mine[k] * 1e-3);
        }
    }
    CHECK(t.settled());
    CHECK(t.best() == std::vector<double>{3.1 * 1e-3, 4.0 * 1e-3, 5.0 * 1e-3});
    CHECK(t.chunks() == 4);
    CHECK_FALSE(t.record(9.0));
    CHECK(t.describe() == "4 of 4, 2, 1 tiles (3.1, 4, 5 ms)");

    // More tiles must beat fewer by more than 5% to be kept.
    auto tuned = [](int scheduled, bool direct, const std::vector<double> &times) {
        OverlapTuner t(scheduled, true, direct);
        Rank rank{t};
        const int calls = 1 + OverlapTuner::kSamples * (int)times.size();
        for (int k = 0; k < calls; k++) {
            const double s = k == 0 ? 1.0 : times[(k - 1) % times.size()];
            CHECK(rank.call(s, s) == (k + 1 == calls));
        }
        CHECK(t.settled());
        return t;
    };
    CHECK(tuned(4, false, {0.96, 0.95, 0.99}).chunks() == 1);
    CHECK(tuned(4, false, {0.90, 0.96, 1.0}).chunks() == 4);
    CHECK(tuned(4, false, {0.99, 0.90, 1.0}).chunks() == 2);
    // A time that is not a number is never a count's best: the others decide.
    const OverlapTuner odd = tuned(4, false, {std::nan(""), 1.0, 1.0});
    CHECK(odd.chunks() == 1);
    CHECK_THAT(odd.describe(), Contains("(inf, 1e+03, 1e+03 ms)"));

    // An all_to_all whose ranks reach each other's memory tries `direct`
    // first, and keeps it as the fewest tiles where it is within the margin.
    OverlapTuner direct(4, true, true);
    CHECK(direct.chunks() == OverlapTuner::kDirect);
    for (int k = 0; k <= 4 * OverlapTuner::kSamples; k++) {
        INFO("call " << k);
        CHECK(direct.chunks() == (k == 0 ? 0 : std::vector<int>{0, 4, 2, 1}[(k - 1) % 4]));
        direct.record(1.0);
    }
    const OverlapTuner kept = tuned(4, true, {1.0e-3, 0.97e-3, 0.96e-3, 1.2e-3});
    CHECK(kept.chunks() == OverlapTuner::kDirect);
    CHECK(kept.describe() == "direct of direct, 4, 2, 1 tiles (1, 0.97, 0.96, 1.2 ms)");
    CHECK(tuned(4, true, {1.2, 1.0, 1.0, 1.0}).chunks() == 1);
    CHECK(OverlapTuner(4, false, true).chunks() == 4);

    OverlapTuner off(4, false);
    CHECK(off.settled());
    CHECK(off.chunks() == 4);
    CHECK(off.describe() == "4 tiles (not tuned)");
    OverlapTuner three(3, true);
    three.record(0);
    CHECK(three.chunks() == 3);
    three.record(0);
    CHECK(three.chunks() == 1);
    CHECK(OverlapTuner(1, true).settled());
}

namespace {

// q = all_reduce(p), p = x * 2 + i overlapped in 4 tiles; and the Megatron
// block fused, its MatMul overlapped with the pass in 4 tiles.
std::vector<Program> overlapped_programs() {
    DFunc x = input("x", Halide::Float(32), {13, 7}, Local());
    Halide::Var i("i"), j("j");
    DFunc p("p");
    p(i, j) = x(i, j) * 2.0f + Halide::cast<float>(i);
    DFunc q = all_reduce(p, ReduceOp::Sum, "q");
    q.overlap(p, 4);
    Program collective("overlapped_all_reduce");
    collective.output(q, Replicated());
    apps::MlpConfig mlp;
    mlp.schedule = apps::Schedule::Fused;
    mlp.overlap = 4;
    return {collective, apps::megatron_mlp(mlp)};
}

// Runs `program` `calls` times on every rank of one threads world (one
// communicator per rank for all calls), checking each call against the
// reference; returns each rank's overlap report after the last call.
std::vector<std::string> run_calls(const Program &program, int ranks, int calls,
                                   std::vector<int> *settled_after = nullptr) {
    JitProgram jit(program);
    const std::vector<RankBuffers> inputs = make_inputs(program, ranks, 3);
    const std::vector<RankBuffers> expected = Reference(program).run(ranks, inputs);
    std::vector<std::string> reports(ranks);
    std::vector<std::vector<RankBuffers>> outputs(calls, std::vector<RankBuffers>(ranks));
    std::vector<int> settled(ranks, -1);
    const std::vector<ThreadOutcome> outcomes =
        thread_rank_outcomes(ranks, 20.0, [&](int r, coconet_comm *comm) {
            for (int c = 0; c < calls; c++) {
                outputs[c][r] = jit.run_rank(comm, inputs[r]);
                if (settled[r] < 0 && coconet_comm_overlap_settled(comm)) {
                    settled[r] = c + 1;
                }
            }
            reports[r] = coconet_comm_overlap_report(comm);
        });
    for (int r = 0; r < ranks; r++) {
        INFO("rank " << r);
        REQUIRE(outcomes[r].error.empty());
    }
    for (int c = 0; c < calls; c++) {
        INFO("call " << c + 1);
        CHECK(max_abs_diff(outputs[c], expected) == 0.0);
    }
    if (settled_after) {
        *settled_after = settled;
    }
    return reports;
}

} // namespace

TEST_CASE("overlapped steps settle on one tile count per communicator", "[runtime][overlap]") {
    for (const Program &program : overlapped_programs()) {
        for (int ranks : {1, 3}) {
            INFO(program.name() << " on " << ranks << " ranks");
            // 1 warm-up call, then 4, 2, 1 tiles four times each: settled
            // after 13.
            std::vector<int> settled;
            const std::vector<std::string> reports = run_calls(program, ranks, 15, &settled);
            for (int r = 0; r < ranks; r++) {
                INFO("rank " << r << ": " << reports[r]);
                CHECK(settled[r] == 1 + 3 * OverlapTuner::kSamples);
                CHECK_THAT(reports[r], Contains(" step "));
                CHECK_THAT(reports[r], Contains(" of 4, 2, 1 tiles ("));
                // Every rank keeps the same count from the same agreed times.
                CHECK(reports[r] == reports[0]);
            }
        }
    }
}

TEST_CASE("an overlapped all_to_all on thread ranks also times computing into the outputs",
          "[runtime][overlap]") {
    DFunc x = input("x", Halide::Float(32), {3, 5, 7, 8}, Sliced(2));
    Halide::Var i("i"), j("j"), k("k"), t("t");
    DFunc p("p");
    p(i, j, k, t) = x(i, j, k, t) * 3.0f - Halide::cast<float>(t);
    DFunc a = all_to_all(p, 1, 2, "a");
    a.overlap(p, 4);
    Program program("overlapped_all_to_all");
    program.output(a, Sliced(1));
    for (int ranks : {1, 3}) {
        INFO(ranks << " ranks");
        // 1 warm-up call (direct), then direct, 4, 2, 1 tiles four times each.
        std::vector<int> settled;
        const std::vector<std::string> reports = run_calls(program, ranks, 18, &settled);
        for (int r = 0; r < ranks; r++) {
            INFO("rank " << r << ": " << reports[r]);
            CHECK(settled[r] == 1 + 4 * OverlapTuner::kSamples);
            CHECK_THAT(reports[r], Contains(" of direct, 4, 2, 1 tiles ("));
            CHECK(reports[r] == reports[0]);
        }
    }
}

TEST_CASE("COCONET_OVERLAP_TUNING=off keeps the schedule's count", "[runtime][overlap]") {
    setenv("COCONET_OVERLAP_TUNING", "off", 1);
    const std::vector<std::string> reports = run_calls(overlapped_programs()[0], 2, 3);
    for (const std::string &report : reports) {
        CHECK_THAT(report, Contains("overlapped_all_reduce step "));
        CHECK_THAT(report, Contains(": 4 tiles (not tuned)"));
    }
    // Another value warns and tunes, as unset does.
    setenv("COCONET_OVERLAP_TUNING", "sometimes", 1);
    CHECK(coconet_rt::overlap_tuning_enabled());
    unsetenv("COCONET_OVERLAP_TUNING");
    CHECK(coconet_rt::overlap_tuning_enabled());
}
