// Scheduling directives keep the program's meaning: every scheduled app equals
// the (unscheduled) reference bit for bit on 1..8 thread ranks, and the plan
// shows what the schedule did.
#include "../apps/Apps.h"
#include "TestUtil.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_test::check_matches_reference;
using coconet_test::message_of;

TEST_CASE("split_collective keeps every app's result", "[schedules]") {
    apps::OptimizerConfig opt;
    opt.n = 37;
    opt.schedule = apps::Schedule::Split;
    check_matches_reference(apps::adam(opt), coconet_test::rank_counts(), 0.0, 1,
                            apps::optimizer_inputs);
    check_matches_reference(apps::lamb(opt), coconet_test::rank_counts(), 0.0, 1,
                            apps::optimizer_inputs);
    apps::MlpConfig mlp;
    mlp.batch = 2;
    mlp.hidden = 7;
    mlp.ffn = 9;
    mlp.schedule = apps::Schedule::Split;
    check_matches_reference(apps::megatron_mlp(mlp));
    apps::PipelineConfig pipe;
    pipe.hidden = 5;
    pipe.schedule = apps::Schedule::Split;
    check_matches_reference(apps::two_stage_pipeline(pipe), coconet_test::rank_counts(), 0.0, 2);
}

TEST_CASE("split Adam scatters the gradients and never gathers them", "[schedules]") {
    apps::OptimizerConfig opt;
    opt.n = 10;
    opt.schedule = apps::Schedule::Split;
    std::string plan = print_plan(lower(apps::adam(opt)), 3);
    CHECK_THAT(plan, Contains("collective g_sum_rs = reduce_scatter<sum>(g)  Sliced(0)  "
                              "r0:[0..4] r1:[4..8] r2:[8..10]"));
    CHECK_THAT(plan, Contains("g_sum_ag = all_gather(g_sum_rs)  Replicated"));
    CHECK_THAT(plan, Contains("[dead: no consumer reads it, not emitted]"));
    CHECK_THAT(plan, Contains("kernel     m_new  Sliced(0)"));
    CHECK_THAT(plan, Contains("[reads its slice of g_sum_rs for g_sum]"));
    CHECK_THAT(plan, Contains("[split into g_sum_rs + g_sum_ag]"));

    // Unscheduled, the all_reduce is one stage and nothing is dead.
    opt.schedule = apps::Schedule::None;
    std::string plain = print_plan(lower(apps::adam(opt)), 3);
    CHECK_THAT(plain, Contains("collective g_sum = all_reduce<sum>(g)"));
    CHECK_THAT(plain, !Contains("dead"));
}

TEST_CASE("a split whose consumers need the whole value keeps the all_gather", "[schedules]") {
    DFunc partial = input("partial", Halide::Float(32), {6, 2}, Local());
    DFunc summed = all_reduce(partial, ReduceOp::Sum, "summed");
    summed.split_collective(0);
    Halide::Var h, b;
    DFunc shifted("shifted"); // reads a neighbour: needs the gathered value
    shifted(h, b) = summed(h, b) + summed(5 - h, b);
    Program p("shifted");
    p.output(shifted, Replicated());
    std::string plan = print_plan(lower(p), 2);
    CHECK_THAT(plan, Contains("summed_ag = all_gather(summed_rs)  Replicated"));
    CHECK_THAT(plan, !Contains("dead"));
    check_matches_reference(p);
}

TEST_CASE("compute_sliced moves the gather to the output", "[schedules]") {
    apps::MlpConfig mlp;
    mlp.schedule = apps::Schedule::Split;
    std::string plan = print_plan(lower(apps::megatron_mlp(mlp)), 2);
    CHECK_THAT(plan, Contains("summed_ag = all_gather(summed_rs)  Replicated"));
    CHECK_THAT(plan, Contains("[dead: no consumer reads it, not emitted]"));
    CHECK_THAT(plan, Contains("kernel     y_sliced  Sliced(0)  r0:[0..8,0..8] r1:[8..16,0..8]"));
    CHECK_THAT(plan, Contains("collective y_ag = all_gather(y_sliced)  Replicated"));
    CHECK_THAT(plan, Contains("[computed on slices as y_sliced, gathered by y_ag]"));

    // A Func that reads nothing gathered has nothing to compute on slices.
    DFunc x = input("x", Halide::Float(32), {4}, Replicated());
    Halide::Var i;
    DFunc plain("plain");
    plain(i) = x(i) + 1.0f;
    CHECK_THAT(message_of<UserError>([&] { plain.compute_sliced(); }),
               Contains("compute_sliced(plain): plain reads no gathered value"));

    // Reading a gathered value at another index cannot run on slices.
    DFunc l = input("l", Halide::Float(32), {4}, Local());
    DFunc total = all_reduce(l, ReduceOp::Sum, "total");
    total.split_collective(0);
    DFunc reversed("reversed");
    reversed(i) = total(3 - i);
    reversed.compute_sliced();
    Program p("reversed");
    p.output(reversed, Replicated());
    CHECK_THAT(message_of<UserError>([&] { lower(p); }),
               Contains("reversed_sliced reads total_rs"));
}

TEST_CASE("split_collective refuses what it cannot split", "[schedules][error]") {
    DFunc x = input("x", Halide::Float(32), {8}, Sliced(0));
    DFunc gathered = all_gather(x, "gathered");
    CHECK_THAT(message_of<UserError>([&] { gathered.split_collective(); }),
               Contains("split_collective(gathered): gathered is an all_gather; only an "
                        "all_reduce splits"));
    DFunc y = input("y", Halide::Float(32), {8}, Local());
    Halide::Var i;
    DFunc twice("twice");
    twice(i) = y(i) * 2.0f;
    CHECK_THAT(message_of<UserError>([&] { twice.split_collective(); }),
               Contains("twice is not a collective"));
    DFunc summed = all_reduce(y, ReduceOp::Sum, "summed");
    CHECK_THAT(message_of<UserError>([&] { summed.split_collective(1); }),
               Contains("split_collective(summed, 1): summed has 1 dimensions"));
    summed.split_collective(0);
    CHECK_THAT(message_of<UserError>([&] { summed.split_collective(0); }),
               Contains("already split"));
}

TEST_CASE("collective traffic follows the schedule", "[schedules][traffic]") {
    apps::OptimizerConfig opt;
    opt.n = 1200; // divisible by every rank count below, so the blocks are exact
    for (int ranks : {2, 3, 4}) {
        INFO(ranks << " ranks");
        // Every rank's gradient goes to the R-1 others in slices: N floats in all.
        const uint64_t scatter = (uint64_t)(ranks - 1) * opt.n * 4;
        for (bool split : {false, true}) {
            opt.schedule = split ? apps::Schedule::Split : apps::Schedule::None;
            Program p = apps::adam(opt);
            std::vector<RankTraffic> traffic;
            JitProgram(p).run_threads(ranks, apps::optimizer_inputs(p, ranks, 2), 5.0, &traffic);
            uint64_t reduced = 0, gathered = 0, all_reduces = 0, scatters = 0;
            for (const RankTraffic &t : traffic) {
                reduced += t.bytes[COCONET_ALL_REDUCE] + t.bytes[COCONET_REDUCE_SCATTER];
                gathered += t.bytes[COCONET_ALL_GATHER];
                all_reduces += t.ops[COCONET_ALL_REDUCE];
                scatters += t.ops[COCONET_REDUCE_SCATTER];
            }
            // Unscheduled, the moments ask the all_reduce only for their slices
            // (Halide's bounds inference), so it moves no more than the reduce_scatter.
            CHECK(reduced == scatter);
            CHECK(all_reduces == (split ? 0u : (uint64_t)ranks));
            CHECK(scatters == (split ? (uint64_t)ranks : 0u));
            // The new parameters are gathered once: N floats in all.
            CHECK(gathered == scatter);
        }
    }
    // A consumer that needs the whole sum makes the all_reduce gather it too.
    DFunc g = input("g", Halide::Float(32), {1200}, Local());
    Program whole("whole");
    whole.output(all_reduce(g), Replicated());
    std::vector<RankTraffic> traffic;
    JitProgram(whole).run_threads(3, make_inputs(whole, 3), 5.0, &traffic);
    uint64_t bytes = 0;
    for (const RankTraffic &t : traffic) {
        bytes += t.total_bytes();
    }
    CHECK(bytes == 2u * 2 * 1200 * 4);
}

TEST_CASE("the scheduled pipeline sends 1/R of the cross-stage bytes", "[schedules][traffic]") {
    apps::PipelineConfig pipe;
    pipe.batch = 3;
    pipe.hidden = 24; // divisible by every stage size below
    for (int ranks : {2, 4, 8}) {
        INFO(ranks << " ranks");
        uint64_t sent[2] = {0, 0};
        for (bool split : {false, true}) {
            pipe.schedule = split ? apps::Schedule::Split : apps::Schedule::None;
            Program p = apps::two_stage_pipeline(pipe);
            std::vector<RankTraffic> traffic;
            JitProgram(p).run_threads(ranks, make_inputs(p, ranks), 5.0, &traffic);
            for (const RankTraffic &t : traffic) {
                sent[split] += t.bytes[COCONET_SEND_RECV];
            }
            if (split) {
                CHECK_THAT(print_plan(lower(p), ranks),
                           Contains("[sends slices as a1_sliced + a1_ag]"));
            }
        }
        const uint64_t activations = (uint64_t)pipe.hidden * pipe.batch * 4;
        const uint64_t stage = ranks / 2;
        CHECK(sent[false] == stage * activations); // every stage-0 rank sends all of it
        CHECK(sent[true] == activations);          // each sends its slice
    }
}

TEST_CASE("Halide's own directives still schedule the compute", "[schedules]") {
    DFunc g = input("g", Halide::Float(32), {37, 5}, Local());
    DFunc m = input("m", Halide::Float(32), {37, 5}, Sliced(1));
    Halide::Var i("i"), j("j"), io("io"), ii("ii");
    DFunc total = all_reduce(g, ReduceOp::Sum, "total");
    DFunc step("step");
    step(i, j) = m(i, j) * 0.5f + total(i, j);
    step.func().split(i, io, ii, 8, Halide::TailStrategy::GuardWithIf).vectorize(ii).parallel(j);
    Halide::RDom r(0, 37, "r");
    DFunc norm("norm"); // a reduction over a replicated dimension, its update vectorized
    norm(j) = 0.0f;
    norm(j) += step(r, j) * step(r, j);
    norm.func().vectorize(j, 4, Halide::TailStrategy::GuardWithIf);
    norm.func().update().vectorize(j, 4, Halide::TailStrategy::GuardWithIf);
    Program p("halide_directives");
    p.output(step, Sliced(1)).output(norm, Sliced(0));
    check_matches_reference(p);

    // The directives are on the lowered Funcs, not only on the user's.
    std::vector<Halide::Func> lowered = lower(p).spmd.segments.at(0).halide.pipeline.outputs();
    REQUIRE(lowered.size() == 2);
    auto for_type = [](const Halide::Internal::Definition &d, const std::string &var) {
        for (const auto &dim : d.schedule().dims()) {
            // Halide numbers the vars a vectorize splits off (j.v4, ...): match the prefix.
            if (dim.var.compare(0, var.size(), var) == 0) {
                return dim.for_type;
            }
        }
        return Halide::Internal::ForType::Extern;
    };
    CHECK(for_type(lowered[0].function().definition(), "i.ii") ==
          Halide::Internal::ForType::Vectorized);
    CHECK(for_type(lowered[0].function().definition(), "j") == Halide::Internal::ForType::Parallel);
    CHECK(for_type(lowered[1].function().update(0), "j.v") ==
          Halide::Internal::ForType::Vectorized);
}
