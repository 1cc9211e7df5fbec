// fuse_with: every app's fused schedule equals the unscheduled reference bit
// for bit (the direct path reduces in rank order), the plan shows one pass,
// the fused Adam moves no more memory than the performance model's bound, a
// large pass runs in a task per thread of the rank, and every illegal use is
// refused with a message naming the Funcs.
#include "Apps.h"
#include "FusedKernel.h"
#include "Lower.h"
#include "TestUtil.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_test::check_matches_reference;
using coconet_test::message_of;
using Halide::Var;

namespace {

// Chunks of a few elements, so that every rank's slice takes several steps.
FuseOptions small_chunks() {
    FuseOptions o;
    o.chunk_elements = 5;
    return o;
}

// The message lowering a program with the single output `out` refuses with.
std::string lowering_error(const DFunc &out, const Layout &layout) {
    Program p("refused");
    p.output(out, layout);
    return message_of<UserError>([&] { lower(p); });
}

} // namespace

TEST_CASE("fused schedules keep every app's result", "[schedules][fused]") {
    for (FuseOptions fuse : {FuseOptions(), small_chunks()}) {
        INFO("chunk elements " << fuse.chunk_elements);
        apps::OptimizerConfig opt;
        opt.n = 37;
        opt.schedule = apps::Schedule::Fused;
        opt.fuse = fuse;
        check_matches_reference(apps::adam(opt), coconet_test::rank_counts(), 0.0, 1,
                                apps::optimizer_inputs);
        check_matches_reference(apps::lamb(opt), coconet_test::rank_counts(), 0.0, 1,
                                apps::optimizer_inputs);
        apps::MlpConfig mlp;
        mlp.batch = 3;
        mlp.hidden = 7;
        mlp.ffn = 9;
        mlp.schedule = apps::Schedule::Fused;
        mlp.fuse = fuse;
        check_matches_reference(apps::megatron_mlp(mlp));
        apps::PipelineConfig pipe;
        pipe.hidden = 5;
        pipe.schedule = apps::Schedule::Fused;
        pipe.fuse = fuse;
        check_matches_reference(apps::two_stage_pipeline(pipe), coconet_test::rank_counts(), 0.0,
                                2);
    }
}

TEST_CASE("fused schedules on the ring path", "[schedules][fused]") {
    // The ring adds the gradients up in a rotation of rank order, so results
    // may differ from the reference in the last bits: 1e-5 on values of order 1.
    FuseOptions ring{FusedPath::Ring, 3};
    apps::OptimizerConfig opt;
    opt.n = 29;
    opt.schedule = apps::Schedule::Fused;
    opt.fuse = ring;
    check_matches_reference(apps::adam(opt), coconet_test::rank_counts(), 1e-5, 1,
                            apps::optimizer_inputs);
    check_matches_reference(apps::lamb(opt), coconet_test::rank_counts(), 1e-5, 1,
                            apps::optimizer_inputs);
    apps::MlpConfig mlp;
    mlp.batch = 3;
    mlp.hidden = 7;
    mlp.ffn = 9;
    mlp.schedule = apps::Schedule::Fused;
    mlp.fuse = ring;
    check_matches_reference(apps::megatron_mlp(mlp), coconet_test::rank_counts(), 1e-5);
}

TEST_CASE("the plan of fused Adam is a single pass with no gather of gradients",
          "[schedules][fused]") {
    apps::OptimizerConfig opt;
    opt.n = 10;
    opt.schedule = apps::Schedule::Fused;
    LoweredProgram lowered = lower(apps::adam(opt));
    REQUIRE(lowered.spmd.segments.size() == 1);
    CHECK(lowered.spmd.segments[0].fused_pass == 0);
    const std::string plan = print_plan(lowered, 3);
    CHECK_THAT(plan, Contains("fused pass 0 of g_sum_rs (one pass over memory"));
    CHECK_THAT(plan, Contains("computes m_new v_new w_slice in the same pass"));
    CHECK_THAT(plan, Contains("w_new = all_gather(w_slice)  Replicated"));
    CHECK_THAT(plan, Contains("[written into every rank's copy by the fused pass of g_sum_rs, "
                              "no separate all_gather]"));
    CHECK_THAT(plan, Contains("g_sum_ag = all_gather(g_sum_rs)  Replicated  r0:[0..10] "
                              "r1:[0..10] r2:[0..10]  [dead: no consumer reads it, not emitted]"));
    CHECK_THAT(plan, !Contains("Halide pipeline"));
}

TEST_CASE("fused Adam moves no more memory than the bound b N", "[schedules][fused][traffic]") {
    apps::OptimizerConfig opt;
    opt.n = 1000;
    opt.schedule = apps::Schedule::Fused;
    Program p = apps::adam(opt);
    for (int ranks : {1, 2, 3, 4, 8}) {
        INFO(ranks << " ranks");
        std::vector<RankTraffic> traffic;
        JitProgram(p).run_threads(ranks, apps::optimizer_inputs(p, ranks, 3), 5.0, &traffic);
        uint64_t bytes = 0, fused_ops = 0, other_ops = 0;
        for (const RankTraffic &t : traffic) {
            bytes += t.bytes[COCONET_FUSED];
            fused_ops += t.ops[COCONET_FUSED];
            for (int k = 0; k < COCONET_FUSED; k++) {
                other_ops += t.ops[k];
            }
        }
        // North star: every rank's gradient (4R), the parameter, m and v read
        // once (12), m and v written (8), R copies of the new parameter (4R).
        const uint64_t bound = (uint64_t)(8 * ranks + 20) * opt.n;
        CHECK(bytes <= bound + 64);
        CHECK(bytes >= bound); // the count is not vacuous
        CHECK(fused_ops == (uint64_t)ranks);
        CHECK(other_ops == 0); // no separate collective at all
    }
}

TEST_CASE("a large fused pass runs in a task per thread of the rank", "[schedules][fused]") {
    apps::OptimizerConfig opt;
    opt.n = 300007; // past the work that tasks pay for; no rank or thread count divides it
    opt.schedule = apps::Schedule::Fused;
    Program p = apps::adam(opt);
    // Each output of the CPU kernel: a parallel loop where the rank has more
    // than one thread, none where it has one.
    const LoweredProgram l = lower(p);
    REQUIRE(l.spmd.passes.size() == 1);
    const FusedKernelPipeline kernel =
        build_fused_kernel(l.spmd.passes[0], l.analysis, 2, Halide::get_host_target());
    REQUIRE(!kernel.pipeline.outputs().empty());
    for (const Halide::Func &f : kernel.pipeline.outputs()) {
        INFO(f.name());
        const Halide::Internal::Definition &d = f.function().definition();
        REQUIRE(d.specializations().size() == 1);
        auto parallel = [](const Halide::Internal::Definition &s) {
            int loops = 0;
            for (const Halide::Internal::Dim &dim : s.schedule().dims()) {
                loops += dim.for_type == Halide::Internal::ForType::Parallel;
            }
            return loops;
        };
        CHECK(parallel(d.specializations()[0].definition) == 1);
        CHECK(parallel(d) == 0);
    }
    // Bit for bit the reference, however many tasks.
    for (const char *threads : {"1", "2", "3"}) {
        INFO("COCONET_RANK_THREADS=" << threads);
        coconet_test::ScopedEnv env("COCONET_RANK_THREADS", threads);
        check_matches_reference(p, {1, 3}, 0.0, 1, apps::optimizer_inputs);
    }
}

TEST_CASE("fused LAMB: two passes with the norms between them", "[schedules][fused]") {
    apps::OptimizerConfig opt;
    opt.n = 10;
    opt.schedule = apps::Schedule::Fused;
    LoweredProgram lowered = lower(apps::lamb(opt));
    const std::string plan = print_plan(lowered, 2);
    CHECK_THAT(plan, Contains("computes m_new v_new update in the same pass"));
    CHECK_THAT(plan, Contains("fused pass 3 of w_new"));
    CHECK_THAT(plan, Contains("[fused pass: computes w_slice on each rank's slice and writes "
                              "w_slice into every rank's copy]"));
    CHECK_THAT(plan, Contains("collective u_norm2 = all_reduce<sum>(u_norm2_part)"));
    // ||w|| needs nothing from the passes and may come first; the update's
    // norm (a Halide pipeline) runs between the two passes.
    std::vector<bool> fused;
    for (const SpmdSegment &seg : lowered.spmd.segments) {
        if (fused.empty() || fused.back() != (seg.fused_pass >= 0) || seg.fused_pass >= 0) {
            fused.push_back(seg.fused_pass >= 0);
        }
    }
    CHECK(fused == std::vector<bool>{false, true, false, true});
}

TEST_CASE("fuse_with refuses what it cannot fuse", "[schedules][fused][error]") {
    DFunc g = input("g", Halide::Float(32), {12, 3}, Local());
    DFunc s = input("s", Halide::Float(32), {12, 3}, Sliced(0));
    DFunc w = input("w", Halide::Float(32), {12, 3}, Replicated());
    Var i("i"), j("j");
    DFunc t = all_reduce(g, ReduceOp::Sum, "t");
    DFunc a("a");
    a(i, j) = s(i, j) + t(i, j);
    CHECK_THAT(message_of<UserError>([&] { a.fuse_with(t); }),
               Contains("fuse_with(a, t): t is an all_reduce that is not split; only a "
                        "reduce_scatter (or an all_reduce split with split_collective) or an "
                        "all_gather has a pass to fuse a computation into."));
    DFunc gathered = all_gather(s, "gathered");
    CHECK_THAT(message_of<UserError>([&] { a.fuse_with(gathered); }),
               Contains("fuse_with(a, gathered): gathered gathers s, which is not computed "
                        "from a; only s and the Funcs it is computed from run in the pass of "
                        "gathered."));
    CHECK_THAT(message_of<UserError>([&] { a.fuse_with(broadcast(g, 0, "b")); }),
               Contains("fuse_with(a, b): b is a broadcast; only a reduce_scatter"));
    CHECK_THAT(message_of<UserError>([&] { a.fuse_with(w); }),
               Contains("fuse_with(a, w): w is not a collective"));
    t.split_collective(0);
    CHECK_THAT(message_of<UserError>([&] { t.fuse_with(t); }),
               Contains("fuse_with(t, t): t is not a computed Func"));

    DFunc shifted("shifted");
    shifted(i, j) = s(i, j) + t(11 - i, j);
    CHECK_THAT(message_of<UserError>([&] { shifted.fuse_with(t); }),
               Contains("fuse_with(shifted, t): shifted reads t((11 - i), j), not at its own "
                        "indices t(i, j)"));
    DFunc updated("updated");
    updated(i, j) = t(i, j);
    updated(i, j) += 1.0f;
    CHECK_THAT(message_of<UserError>([&] { updated.fuse_with(t); }),
               Contains("fuse_with(updated, t): updated has update definitions"));
    DFunc unrelated("unrelated");
    unrelated(i, j) = s(i, j) * 2.0f;
    CHECK_THAT(message_of<UserError>([&] { unrelated.fuse_with(t); }),
               Contains("fuse_with(unrelated, t): unrelated reads neither t nor a Func fused "
                        "with it"));
    DFunc ring("ring"), direct("direct");
    ring(i, j) = t(i, j) + 1.0f;
    direct(i, j) = t(i, j) + 2.0f;
    ring.fuse_with(t, FuseOptions{FusedPath::Ring, 0});
    CHECK_THAT(message_of<UserError>([&] {
                   direct.fuse_with(t, FuseOptions{FusedPath::Direct, 0});
               }),
               Contains("fuse_with(direct, t): another Func fused with t asked for another path"));
    a.fuse_with(t);
    CHECK_THAT(message_of<UserError>([&] { a.fuse_with(t); }),
               Contains("fuse_with(a, t): a is already fused with t_rs"));
}

TEST_CASE("fuse_with checks layouts when the program is lowered", "[schedules][fused][error]") {
    DFunc g = input("g", Halide::Float(32), {12}, Local());
    DFunc w = input("w", Halide::Float(32), {12}, Replicated());
    Var i("i");
    {
        // A Replicated consumer must be computed on slices first.
        DFunc t = all_reduce(g, ReduceOp::Sum, "t");
        t.split_collective(0);
        DFunc r("r");
        r(i) = w(i) + t(i);
        r.fuse_with(t);
        CHECK_THAT(lowering_error(r, Replicated()),
                   Contains("fuse_with(r, t_rs): r is Replicated, but the pass computes t_rs "
                            "(Sliced(0)) slice by slice; a fused Func must be sliced like it "
                            "(compute it on slices first with compute_sliced)."));
    }
    {
        // Fused Funcs read each other element-wise only.
        DFunc t = all_reduce(g, ReduceOp::Sum, "t");
        t.split_collective(0);
        DFunc g2 = input("g2", Halide::Float(32), {12, 3}, Local());
        DFunc m = input("m", Halide::Float(32), {12, 3}, Sliced(0));
        DFunc t2 = all_reduce(g2, ReduceOp::Sum, "t");
        t2.split_collective(0);
        Var j("j");
        DFunc a("a"), b("b");
        a(i, j) = m(i, j) + t2(i, j);
        b(i, j) = a(i, 2 - j) * t2(i, j);
        a.fuse_with(t2);
        b.fuse_with(t2);
        CHECK_THAT(lowering_error(b, Sliced(0)),
                   Contains("fuse_with(b, t_rs): b reads a, which is fused too, at other indices "
                            "than its own"));
    }
    {
        // A fused Func cannot read a value that needs the pass's own result.
        DFunc t = all_reduce(g, ReduceOp::Sum, "t");
        t.split_collective(0);
        DFunc m = input("m", Halide::Float(32), {12}, Sliced(0));
        DFunc a("a"), total("total"), b("b");
        a(i) = m(i) + t(i);
        Halide::RDom k(0, 12, "k");
        total() = 0.0f;
        total() += a(k);
        DFunc sum = all_reduce(total, ReduceOp::Sum, "sum");
        b(i) = m(i) * t(i) * sum();
        a.fuse_with(t);
        b.fuse_with(t);
        CHECK_THAT(
            lowering_error(b, Sliced(0)),
            Contains("fuse_with(..., t_rs): the Funcs fused into the pass of t_rs read a value "
                     "that needs the pass's result (through "));
    }
}

TEST_CASE("overlapped collectives keep the result", "[schedules][overlap]") {
    // A reduction over a Local producer, chunked along its outer dimension.
    DFunc x = input("x", Halide::Float(32), {6, 5}, Local());
    Var i("i"), j("j");
    DFunc p("p");
    p(i, j) = x(i, j) * 2.0f + 1.0f;
    DFunc total = all_reduce(p, ReduceOp::Sum, "total");
    total.overlap(p, 2);
    Program plain("overlap_all_reduce");
    plain.output(total, Replicated());
    check_matches_reference(plain);

    for (int chunks : {1, 2, 3, 5}) {
        INFO(chunks << " chunks");
        for (apps::Schedule sched :
             {apps::Schedule::None, apps::Schedule::Split, apps::Schedule::Fused}) {
            apps::MlpConfig mlp;
            mlp.batch = 4;
            mlp.hidden = 7;
            mlp.ffn = 9;
            mlp.schedule = sched;
            mlp.overlap = chunks;
            check_matches_reference(apps::megatron_mlp(mlp));
        }
        // Groups: a fused pass of a stage overlaps with its MatMul.
        apps::PipelineConfig pipe;
        pipe.hidden = 5;
        pipe.batch = 3;
        pipe.schedule = apps::Schedule::Fused;
        pipe.overlap = chunks;
        check_matches_reference(apps::two_stage_pipeline(pipe), coconet_test::rank_counts(), 0.0,
                                2);
    }
    apps::MlpConfig mlp;
    mlp.schedule = apps::Schedule::Split;
    mlp.overlap = 4;
    CHECK_THAT(print_plan(lower(apps::megatron_mlp(mlp)), 2),
               Contains("collective summed_rs = reduce_scatter<sum>(partial)  Sliced(0)  "
                        "r0:[0..8,0..8] r1:[8..16,0..8]  [overlapped with partial: 4 tiles of "
                        "2 along dimension 1, the next tile computed while this one moves]"));
    mlp.schedule = apps::Schedule::Fused;
    const std::string fused = print_plan(lower(apps::megatron_mlp(mlp)), 2);
    CHECK_THAT(fused, Contains("computes y_sliced in the same pass; overlapped with partial: 4 "
                               "tiles of 2 along dimension 1"));
    CHECK_THAT(fused, Contains("kernel     partial  Local  r0:[0..16,0..8] r1:[0..16,0..8]  "
                               "[computed chunk by chunk, overlapped with the fused pass of "
                               "summed_rs; in tiles of 16 x 6 of (h, b), its updates "
                               "accumulated in registers]"));
}

TEST_CASE("overlap refuses what it cannot overlap", "[schedules][overlap][error]") {
    DFunc x = input("x", Halide::Float(32), {6, 5}, Local());
    DFunc s = input("s", Halide::Float(32), {6, 5}, Sliced(0));
    Var i("i"), j("j");
    DFunc p("p"), q("q");
    p(i, j) = x(i, j) * 2.0f;
    q(i, j) = x(i, j) + 1.0f;
    DFunc total = all_reduce(p, ReduceOp::Sum, "total");
    CHECK_THAT(message_of<UserError>([&] { p.overlap(p, 2); }),
               Contains("overlap(p, p, 2): p is not a collective; only an all_reduce, a "
                        "reduce_scatter or an all_to_all is overlapped with its producer."));
    CHECK_THAT(message_of<UserError>([&] { all_gather(s, "g").overlap(p, 2); }),
               Contains("overlap(g, p, 2): g is an all_gather"));
    CHECK_THAT(message_of<UserError>([&] { total.overlap(q, 2); }),
               Contains("overlap(total, q, 2): total reads p, not q"));
    CHECK_THAT(message_of<UserError>([&] { all_reduce(x, ReduceOp::Sum, "t2").overlap(x, 2); }),
               Contains("overlap(t2, x, 2): x is not computed"));
    CHECK_THAT(message_of<UserError>([&] { total.overlap(p, 0); }),
               Contains("chunks must be at least 1"));
    {
        // The dimension is checked when the directive is given.
        DFunc scattered = reduce_scatter(p, 1, ReduceOp::Sum, "scattered");
        CHECK_THAT(message_of<UserError>([&] { scattered.overlap(p, 2, 2); }),
                   Contains("overlap(scattered, p, 2, 2): dimension 2 is not a dimension of "
                            "scattered (2 dimensions; -1: the default)."));
        // An all_to_all whose input is sliced along the chunks' dimension:
        // each chunk would be computed by the few ranks owning it.
        DFunc s1 = input("s1", Halide::Float(32), {6, 5}, Sliced(1));
        DFunc ps("ps");
        ps(i, j) = s1(i, j) * 2.0f;
        DFunc moved = all_to_all(ps, 0, 1, "moved");
        CHECK_THAT(message_of<UserError>([&] { moved.overlap(ps, 2, 1); }),
                   Contains("overlap(moved, ps, 2, 1): ps is Sliced(1), so its ranks hold "
                            "different ranges of dimension 1; chunk along another dimension (0, "
                            "the default, works)."));
    }
    {
        // A producer that others read too cannot be computed in chunks.
        DFunc t = all_reduce(p, ReduceOp::Sum, "t");
        t.overlap(p, 2);
        DFunc both("both");
        both(i, j) = t(i, j) + p(i, j);
        CHECK_THAT(lowering_error(both, Local()),
                   Contains("overlap(t, p, 2): p is also read by both"));
    }
    {
        // The producer of an overlapped pass must be read by the pass alone.
        DFunc t = all_reduce(p, ReduceOp::Sum, "t");
        t.split_collective(0);
        t.overlap(p, 2);
        DFunc a("a");
        a(i, j) = s(i, j) + t(i, j);
        a.fuse_with(t);
        Program prog("fused_overlap");
        prog.output(a, Sliced(0)).output(p, Local());
        CHECK_THAT(message_of<UserError>([&] { lower(prog); }),
                   Contains("overlap(t_rs, p, 2): p is a program output"));
    }
    {
        // Collectives of a group are not overlapped yet.
        std::vector<Group> halves = Group::world().split(2);
        DFunc xg = input("xg", Halide::Float(32), {6, 5}, Local(halves[0]));
        DFunc pg("pg");
        pg(i, j) = xg(i, j) * 3.0f;
        DFunc tg = all_reduce(pg, ReduceOp::Sum, "tg");
        tg.overlap(pg, 2);
        CHECK_THAT(lowering_error(tg, Replicated(halves[0])),
                   Contains("overlap(tg, pg, 2): tg lives on group 0 of world.split(2); only "
                            "collectives of the whole world are overlapped so far."));
    }
}
