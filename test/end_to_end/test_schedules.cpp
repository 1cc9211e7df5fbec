// Scheduling directives keep the program's meaning: every scheduled app equals
// the (unscheduled) reference bit for bit on 1..8 thread ranks, and the plan
// shows what the schedule did.
#include "Apps.h"
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

    // Unscheduled, the lowering computes the all_reduce as its reduce_scatter
    // all the same (every reader reads only its slice), and the plan says so.
    opt.schedule = apps::Schedule::None;
    std::string plain = print_plan(lower(apps::adam(opt)), 3);
    CHECK_THAT(plain, Contains("collective g_sum_rs = reduce_scatter<sum>(g)  Sliced(0)  "
                               "r0:[0..4] r1:[4..8] r2:[8..10]"));
    CHECK_THAT(plain, Contains("[reads its slice of g_sum_rs for g_sum]"));
    CHECK_THAT(plain, Contains("[computed as g_sum_rs: every reader reads only its slice]"));
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
    // The Funcs the directives made are named with them.
    const std::string msg = message_of<UserError>([&] { lower(p); });
    CHECK_THAT(msg, Contains("reversed_sliced (made by reversed.compute_sliced()) reads total_rs "
                             "(Sliced(0), made by total.split_collective(0)) at index"));
    CHECK_THAT(msg, Contains("Leave out reversed.compute_sliced() to read other indices."));
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
            // Unscheduled too, the moments read only their slices of the sum,
            // so the lowering computes it as the reduce_scatter.
            CHECK(reduced == scatter);
            CHECK(all_reduces == 0u);
            CHECK(scatters == (uint64_t)ranks);
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

namespace {

// c(x, y) = sum over the sliced contraction of a(x, k) * b(k, y), all-reduced,
// plus a bias: the MatMul shape accumulate_in_registers is for.
struct MatMulProgram {
    DFunc a, b, c, summed;
    Halide::Var x{"x"}, y{"y"};
    Program program{"register_tiles"};
};

// With `reduce` false the partial sums are the output (Local); with
// `a_out_in` a is stored as PyTorch stores a Linear's weight ([out, in]: the
// contraction innermost) and read as a(r, x).
MatMulProgram matmul_program(int m, int n, int k, bool reduce = true, bool a_out_in = false) {
    MatMulProgram p;
    p.a = a_out_in ? input("a", Halide::Float(32), {k, m}, Sliced(0))
                   : input("a", Halide::Float(32), {m, k}, Sliced(1));
    p.b = input("b", Halide::Float(32), {k, n}, Sliced(0));
    Halide::RDom r(0, k, "r");
    p.c = DFunc("c");
    p.c(p.x, p.y) = 0.5f;
    p.c(p.x, p.y) += (a_out_in ? p.a(r, p.x) : p.a(p.x, r)) * p.b(r, p.y);
    if (!reduce) {
        p.program.output(p.c, Local());
        return p;
    }
    p.summed = all_reduce(p.c, ReduceOp::Sum, "summed");
    p.program.output(p.summed, Replicated());
    return p;
}

} // namespace

TEST_CASE("accumulate_in_registers keeps the result, tails included", "[schedules]") {
    // 37 x 13: two full tiles of 16 and a tail of 5 along x, two of 6 and a
    // tail of 1 along y; the contraction of 11 sliced over up to 8 ranks.
    MatMulProgram p = matmul_program(37, 13, 11);
    p.c.accumulate_in_registers(p.x, p.y, 16, 6);
    check_matches_reference(p.program);
    // Tiles larger than the whole Func: only the guarded path.
    MatMulProgram q = matmul_program(5, 3, 4);
    q.c.accumulate_in_registers(q.y, q.x, 8, 8);
    check_matches_reference(q.program);
    // Overlapped with its all_reduce: each chunk's pipeline tiles its Func.
    MatMulProgram o = matmul_program(37, 13, 11);
    o.c.accumulate_in_registers(o.x, o.y, 16, 6);
    o.summed.overlap(o.c, 3);
    check_matches_reference(o.program);
}

TEST_CASE("accumulate_in_registers reads an operand stored with x outside through a copy",
          "[schedules]") {
    // a stored [out, in]: the tiles' vectors along x would load it at a stride.
    MatMulProgram p = matmul_program(37, 13, 11, true, true);
    p.c.accumulate_in_registers(p.x, p.y, 16, 6);
    const LoweredProgram lowered = lower(p.program);
    CHECK_THAT(print_plan(lowered, 2),
               Contains("its updates accumulated in registers, a read through a copy with x "
                        "innermost"));
    check_matches_reference(p.program);
    // Overlapped with its all_reduce: each chunk's pipeline copies what it reads.
    MatMulProgram o = matmul_program(37, 13, 11, true, true);
    o.c.accumulate_in_registers(o.x, o.y, 16, 6);
    o.summed.overlap(o.c, 3);
    check_matches_reference(o.program);
}

TEST_CASE("accumulate_in_registers stages the updates in a Func at each tile", "[schedules]") {
    MatMulProgram p = matmul_program(37, 13, 11, false);
    p.c.accumulate_in_registers(p.x, p.y, 16, 6);
    const LoweredProgram lowered = lower(p.program);
    std::vector<Halide::Func> outs = lowered.spmd.segments.at(0).halide.pipeline.outputs();
    REQUIRE(outs.size() == 1);
    // Halide names Funcs uniquely (c$10): match the prefix.
    auto named = [](const std::string &name, const std::string &prefix) {
        return name.compare(0, prefix.size() + 1, prefix + "$") == 0;
    };
    const Halide::Internal::Function c = outs[0].function();
    CHECK(named(c.name(), "c"));
    CHECK(c.updates().empty());
    // The staging Func: c's definitions, computed at each tile of c.
    std::optional<Halide::Internal::Function> staged;
    for (const auto &[name, f] : Halide::Internal::find_transitive_calls(c)) {
        if (named(name, "c_acc")) {
            staged = f;
        }
    }
    REQUIRE(staged);
    const Halide::Internal::Function acc = *staged;
    CHECK(acc.updates().size() == 1);
    Halide::LoopLevel at = acc.schedule().compute_level();
    at.lock();
    CHECK(at.func() == c.name());
    CHECK(at.var().name() == "x_o");
    // Its storage bounded to one tile, which is what lets LLVM keep it in registers.
    const auto &storage = acc.schedule().storage_dims();
    REQUIRE(storage.size() == 2);
    CHECK(Halide::Internal::is_const(storage[0].bound, 16));
    CHECK(Halide::Internal::is_const(storage[1].bound, 6));
    // Its update: the tile's x vectorized, y unrolled, the reduction outside.
    std::vector<std::string> loops;
    for (const auto &d : acc.update(0).schedule().dims()) {
        loops.push_back(d.var);
    }
    auto position = [&](const std::string &v) {
        return std::find(loops.begin(), loops.end(), v) - loops.begin();
    };
    INFO("loops of c_acc's update, innermost first: " << Catch::Detail::stringify(loops));
    CHECK(position("x.x") < position("y")); // x split by vectorize into x.x and x.v
    CHECK(position("y") < position("r$x"));
    CHECK(position("r$x") < (int)loops.size());
    CHECK_THAT(print_plan(lowered, 2),
               Contains("in tiles of 16 x 6 of (x, y), its updates accumulated in registers"));
    CHECK_THAT(print_plan(lowered, 2), !Contains("read through a copy"));
}

TEST_CASE("accumulate_in_registers refuses what it cannot tile", "[schedules][error]") {
    MatMulProgram p = matmul_program(7, 5, 3);
    Halide::Var z("z");
    CHECK_THAT(message_of<UserError>([&] { p.c.accumulate_in_registers(p.x, z, 4, 2); }),
               Contains("z is not a pure variable of c"));
    CHECK_THAT(message_of<UserError>([&] { p.c.accumulate_in_registers(p.x, p.x, 4, 2); }),
               Contains("x and y are the same variable"));
    CHECK_THAT(message_of<UserError>([&] { p.c.accumulate_in_registers(p.x, p.y, 0, 2); }),
               Contains("factors must be at least 1"));
    CHECK_THAT(message_of<UserError>([&] { p.summed.accumulate_in_registers(p.x, p.y, 4, 2); }),
               Contains("summed is not a computed Func"));
    DFunc plain("plain");
    plain(p.x, p.y) = p.a(p.x, p.y) * 2.0f;
    CHECK_THAT(message_of<UserError>([&] { plain.accumulate_in_registers(p.x, p.y, 4, 2); }),
               Contains("plain has no update definition"));
    Halide::RDom r(0, 7, "r");
    DFunc hist("hist");
    hist(p.x, p.y) = 0.0f;
    hist(r, p.y) += 1.0f;
    CHECK_THAT(message_of<UserError>([&] { hist.accumulate_in_registers(p.x, p.y, 4, 2); }),
               Contains("has an update writing at r$x, not at x"));
    p.c.accumulate_in_registers(p.x, p.y, 4, 2);
    CHECK_THAT(message_of<UserError>([&] { p.c.accumulate_in_registers(p.x, p.y, 4, 2); }),
               Contains("c already accumulates in tiles"));
    // Halide's directives on the same Func would fight the tiles: refused when lowered.
    p.c.func().update().vectorize(p.x, 4, Halide::TailStrategy::GuardWithIf);
    CHECK_THAT(message_of<UserError>([&] { lower(p.program); }),
               Contains("c accumulates in registers (accumulate_in_registers) and also has "
                        "Halide directives"));
}
