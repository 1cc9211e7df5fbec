// Two programs a new user writes, under the schedules they want (the second
// is also apps::sgd_clip, so that the MPI and device tests run it):
// - a Megatron-style sequence-parallel block (row-parallel MatMul,
//   reduce_scatter along the tokens, bias + residual + LayerNorm per token on
//   slices, all_gather) overlapped along the tokens, which is both the
//   outermost and the sliced dimension: chunk j is piece j of every rank's
//   slice;
// - a data-parallel optimizer whose update needs a global norm first
//   (gradient clipping): the momentum and the weights are computed in the
//   all_gather's pass.
// - attention as the GPU and CPU benchmarks run it (apps/bench/UserAttention.h):
//   heads split over the ranks, the output projection row-parallel.
// - an MLP as the CPU benchmark runs it (apps/bench/UserMlp.h): column- then
//   row-parallel Linears, GELU with tanh between them.
// - a clipped SGD step as the CPU benchmark runs it (apps/bench/UserSgd.h):
//   an all_reduce of the gradients, their norm, every rank's whole update.
// Every schedule equals the single-process reference on 1 to 5 ranks at sizes
// no count divides.
#include "Apps.h"
#include "DefaultSchedule.h"
#include "Lower.h"
#include "TestUtil.h"
#include "UserAttention.h"
#include "UserMlp.h"
#include "UserSgd.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_test::check_matches_reference;
using coconet_test::message_of;
using Halide::Var;

namespace {

const std::vector<int> kRanks = {1, 2, 3, 4, 5};

enum class Sp { None, Overlapped, Fused, FusedOverlapped };

struct SpConfig {
    int hidden = 6, ffn = 10, tokens = 13;
    Sp schedule = Sp::None;
    int chunks = 0;
    int chunk_dim = -1;
};

// out = all_gather(norm(reduce_scatter(w x, tokens) + bias + residual)): x is
// sliced along the ffn dimension (the row-parallel MatMul's contraction), the
// residual along the tokens.
Program sequence_parallel(const SpConfig &c) {
    DFunc x = input("x", Halide::Float(32), {c.ffn, c.tokens}, Sliced(0));
    DFunc w = input("w", Halide::Float(32), {c.hidden, c.ffn}, Sliced(1));
    DFunc bias = input("bias", Halide::Float(32), {c.hidden}, Replicated());
    DFunc residual = input("residual", Halide::Float(32), {c.hidden, c.tokens}, Sliced(1));
    Var h("h"), t("t");
    Halide::RDom f(0, c.ffn, "f");
    DFunc partial("partial");
    partial(h, t) = 0.0f;
    partial(h, t) += w(h, f) * x(f, t);
    DFunc summed = reduce_scatter(partial, 1, ReduceOp::Sum, "summed");
    DFunc y("y");
    y(h, t) = summed(h, t) + bias(h) + residual(h, t);
    // LayerNorm per token (without gain and bias).
    Halide::RDom k(0, c.hidden, "k");
    DFunc mean("mean"), var("var");
    mean(t) = 0.0f;
    mean(t) += y(k, t) / c.hidden;
    var(t) = 0.0f;
    var(t) += (y(k, t) - mean(t)) * (y(k, t) - mean(t)) / c.hidden;
    DFunc normed("normed");
    normed(h, t) = (y(h, t) - mean(t)) / Halide::sqrt(var(t) + 1e-5f);
    DFunc out = all_gather(normed, "out");
    if (c.schedule == Sp::Fused || c.schedule == Sp::FusedOverlapped) {
        y.fuse_with(summed);
    }
    if (c.schedule == Sp::Overlapped || c.schedule == Sp::FusedOverlapped) {
        summed.overlap(partial, c.chunks, c.chunk_dim);
    }
    Program p("sequence_parallel");
    p.output(out, Replicated());
    return p;
}

// Which Funcs of apps::sgd_clip run in w_new's pass: none, w_slice (the
// app's Split), update and w_slice, or all three (the app's Fused).
enum class Clip { None, Weights, UpdateAndWeights, All };

Program clipped(Clip schedule, int n = 29) {
    apps::OptimizerConfig c;
    c.n = n;
    apps::ClipParts p = apps::sgd_clip_parts(c);
    if (schedule != Clip::None) {
        p.w_slice.fuse_with(p.w_new);
    }
    if (schedule == Clip::UpdateAndWeights || schedule == Clip::All) {
        p.update.fuse_with(p.w_new);
    }
    if (schedule == Clip::All) {
        p.m_new.fuse_with(p.w_new);
    }
    return apps::sgd_clip_program(p);
}

} // namespace

TEST_CASE("sequence parallelism overlaps along the sliced tokens", "[schedules][overlap]") {
    for (Sp schedule : {Sp::None, Sp::Overlapped, Sp::Fused, Sp::FusedOverlapped}) {
        const bool overlapped = schedule == Sp::Overlapped || schedule == Sp::FusedOverlapped;
        for (int chunks : {1, 2, 3, 4}) {
            // -1: the default (the tokens, the sliced dimension); 0: hidden.
            for (int dim : {-1, 0}) {
                if (!overlapped && (chunks > 1 || dim >= 0)) {
                    continue;
                }
                INFO("schedule " << (int)schedule << ", " << chunks << " chunks along " << dim);
                SpConfig c;
                c.schedule = schedule;
                c.chunks = chunks;
                c.chunk_dim = dim;
                check_matches_reference(sequence_parallel(c), kRanks);
            }
        }
    }
    SpConfig c;
    c.schedule = Sp::FusedOverlapped;
    c.chunks = 3;
    const std::string plan = print_plan(lower(sequence_parallel(c)), 3);
    CHECK_THAT(plan, Contains("collective summed = reduce_scatter<sum>(partial)  Sliced(1)  "
                              "r0:[0..6,0..5] r1:[0..6,5..10] r2:[0..6,10..13]  [fused pass: "
                              "reduces each chunk of the rank's slice and computes y in the same "
                              "pass; overlapped with partial: each rank's slice in 3 pieces along "
                              "dimension 1 (piece j of every slice moves in step j)"));
    c.chunk_dim = 0;
    c.schedule = Sp::Overlapped;
    CHECK_THAT(print_plan(lower(sequence_parallel(c)), 3),
               Contains("[overlapped with partial: 3 tiles of 2 along dimension 0, the next tile "
                        "computed while this one moves]"));
}

TEST_CASE("sequence parallelism with its LayerNorm in row groups", "[schedules][overlap]") {
    // Tokens enough for the default's row groups (group_rows): each tile of
    // normed's tokens computes those rows of the mean and the variance
    // first, and of y where y is not in the reduce_scatter's pass.
    const int tile = Halide::get_host_target().natural_vector_size(Halide::Float(32));
    for (Sp schedule : {Sp::None, Sp::Overlapped, Sp::Fused, Sp::FusedOverlapped}) {
        INFO("schedule " << (int)schedule);
        SpConfig c;
        c.tokens = 32 * tile + 5;
        c.schedule = schedule;
        c.chunks = 3;
        const Program p = sequence_parallel(c);
        const LoweredProgram l =
            lower(p, LowerOptions{Halide::DeviceAPI::None, Halide::get_host_target(), ""});
        const bool fused = schedule == Sp::Fused || schedule == Sp::FusedOverlapped;
        CHECK_THAT(
            dump_default_schedules(l.defaults, l.analysis),
            Contains(std::string("each computing ") + (fused ? "" : "y, ") + "mean, var first"));
        check_matches_reference(p, kRanks);
    }
}

TEST_CASE("attention with its heads split over the ranks", "[schedules][overlap]") {
    // 5 heads: on 4 and 5 ranks some ranks hold none; 7 tokens, 3 features a head.
    for (bool default_schedule : {false, true}) {
        JitOptions options;
        options.default_schedule = default_schedule;
        for (int chunks : {0, 3}) {
            INFO("default schedule " << default_schedule << ", " << chunks << " chunks");
            check_matches_reference(user_attention(3, 5, 7, chunks), kRanks, 0.0, 1, make_inputs,
                                    options);
        }
    }
    // At a size worth tiles, the projections read nn.Linear's [out, in] weights
    // through transposed copies.
    CHECK_THAT(JitProgram(user_attention(64, 4, 256)).plan(2),
               Contains("q: register tiles of") &&
                   Contains("wq read through a copy with c innermost"));
}

TEST_CASE("an MLP with GELU between its column- and row-parallel Linears", "[schedules]") {
    // 11 inner features: on 4 and 5 ranks slices of 3 and 2 (the last ones
    // shorter); 9 tokens; inputs in [-1, 1) reach tanh's polynomial and its
    // exp form.
    for (bool default_schedule : {false, true}) {
        JitOptions options;
        options.default_schedule = default_schedule;
        INFO("default schedule " << default_schedule);
        check_matches_reference(user_mlp(6, 11, 9), kRanks, 0.0, 1, make_inputs, options);
    }
    CHECK_THAT(JitProgram(user_mlp(256, 1024, 128)).plan(2),
               Contains("up: register tiles of") && Contains("act: vectors of"));
}

TEST_CASE("a clipped SGD step whose norm the default adds in parts", "[schedules]") {
    // 1001 parameters: the norm in Halide's serial loop, the reference's bits
    // with the default on or off; 100003: in parts, within rounding.
    for (bool default_schedule : {false, true}) {
        JitOptions options;
        options.default_schedule = default_schedule;
        INFO("default schedule " << default_schedule);
        check_matches_reference(user_sgd(1001), kRanks, 0.0, 1, make_inputs, options);
    }
    const Program large = user_sgd(100003);
    CHECK_THAT(JitProgram(large).plan(2), Contains("norm2: added in parts of"));
    check_matches_reference(large, {1, 3, 4}, 1e-6, 1, make_inputs);
}

TEST_CASE("a step passed its state's memory for its outputs updates it in place", "[schedules]") {
    // The user SGD (m_new over m, w_new over w) and a sliced 2-D value, on
    // ranks no size divides: three calls in a loop, each in place and
    // each equal to the reference on the state the call began with; the
    // outputs are the inputs' own buffers.
    Halide::Var a("a"), b("b");
    DFunc x = input("x", Halide::Float(32), {37, 101}, Sliced(1));
    DFunc y("y");
    y(a, b) = x(a, b) * 0.5f + 1.0f;
    Program sliced("sliced");
    sliced.output(y, Sliced(1));
    const std::map<std::string, std::string> updates = {{"m_new", "m"}, {"w_new", "w"}, {"y", "x"}};
    for (const Program &program : {user_sgd(1001), sliced}) {
        const JitProgram jit(program);
        const Reference reference(program);
        for (int R : {1, 3, 4}) {
            INFO(program.name() << " on " << R << " ranks");
            std::vector<RankBuffers> state = make_inputs(program, R, 7 + R), outputs(R);
            for (int r = 0; r < R; r++) {
                for (const auto &[out, in] : updates) {
                    if (state[r].count(in)) {
                        outputs[r][out] = state[r].at(in);
                    }
                }
            }
            ThreadWorld world(R, 10.0);
            for (int call = 0; call < 3; call++) {
                std::vector<RankBuffers> before(R);
                for (int r = 0; r < R; r++) {
                    for (const auto &[name, buffer] : state[r]) {
                        before[r][name] = buffer.copy();
                    }
                }
                const std::vector<RankBuffers> expected = reference.run(R, before);
                jit.run_threads(world, state, outputs);
                CHECK(max_abs_diff(outputs, expected) == 0.0);
                for (int r = 0; r < R; r++) {
                    for (const auto &[out, in] : updates) {
                        if (state[r].count(in)) {
                            CHECK(outputs[r].at(out).data() == state[r].at(in).data());
                        }
                    }
                }
            }
        }
    }
}

TEST_CASE("collectives overlap along any dimension", "[schedules][overlap]") {
    // A reduce_scatter and an all_to_all over 3-D values whose middle
    // dimension is sliced: chunks along each dimension, pieces of every
    // slice along the sliced one.
    DFunc x = input("x", Halide::Float(32), {5, 7, 4}, Local());
    DFunc s = input("s", Halide::Float(32), {5, 7, 4}, Sliced(0));
    Var i("i"), j("j"), k("k");
    for (int dim : {-1, 0, 1, 2}) {
        INFO("chunks along " << dim);
        DFunc p("p");
        p(i, j, k) = x(i, j, k) * 2.0f + Halide::cast<float>(i + 3 * j);
        DFunc scattered = reduce_scatter(p, 1, ReduceOp::Sum, "scattered");
        scattered.overlap(p, 3, dim);
        Program rs("overlap_reduce_scatter");
        rs.output(scattered, Sliced(1));
        check_matches_reference(rs, kRanks);
        if (dim == 0) {
            continue; // the all_to_all's input is sliced along 0
        }
        DFunc q("q");
        q(i, j, k) = s(i, j, k) + 1.0f;
        DFunc moved = all_to_all(q, 1, 0, "moved");
        moved.overlap(q, 2, dim);
        Program a2a("overlap_all_to_all");
        a2a.output(moved, Sliced(1));
        check_matches_reference(a2a, kRanks);
    }
    // By default, the outermost dimension the producer is not sliced along.
    DFunc s2 = input("s2", Halide::Float(32), {5, 7, 4}, Sliced(2));
    DFunc q2("q2");
    q2(i, j, k) = s2(i, j, k) * 3.0f;
    DFunc moved2 = all_to_all(q2, 0, 2, "moved2");
    moved2.overlap(q2, 3);
    Program a2a("overlap_default_dim");
    a2a.output(moved2, Sliced(0));
    check_matches_reference(a2a, kRanks);
    CHECK_THAT(print_plan(lower(a2a), 3), Contains("3 tiles of 3 along dimension 1"));
}

TEST_CASE("a gather's pass computes the producers of the gathered Func", "[schedules][fused]") {
    for (Clip schedule : {Clip::None, Clip::Weights, Clip::UpdateAndWeights, Clip::All}) {
        INFO("schedule " << (int)schedule);
        check_matches_reference(clipped(schedule), kRanks);
    }
    const LoweredProgram lowered = lower(clipped(Clip::All));
    const std::string plan = print_plan(lowered, 3);
    CHECK_THAT(plan, Contains("[fused pass: computes m_new update w_slice on each rank's slice and "
                              "writes w_slice into every rank's copy]"));
    CHECK_THAT(plan, Contains("kernel     m_new  Sliced(0)  r0:[0..10] r1:[10..20] r2:[20..29]  "
                              "[computed inside the fused pass of w_new]"));
    int passes = 0;
    for (const SpmdSegment &seg : lowered.spmd.segments) {
        passes += seg.fused_pass >= 0 ? 1 : 0;
    }
    CHECK(passes == 1);
    for (const PlanStep &step : lowered.spmd.steps) {
        const std::string name = step.func->name;
        if (name == "m_new" || name == "update") {
            INFO(name);
            CHECK(step.role == StepRole::FusedMember);
        }
    }
}

TEST_CASE("the clipped update moves its memory once, in the gather's pass",
          "[schedules][fused][traffic]") {
    const int n = 1000;
    const Program p = clipped(Clip::All, n);
    for (int ranks : {1, 2, 3, 4}) {
        INFO(ranks << " ranks");
        std::vector<RankTraffic> traffic;
        JitProgram(p).run_threads(ranks, make_inputs(p, ranks, 5), 5.0, &traffic);
        uint64_t bytes = 0, fused_ops = 0, gathers = 0;
        for (const RankTraffic &t : traffic) {
            bytes += t.bytes[COCONET_FUSED];
            fused_ops += t.ops[COCONET_FUSED];
            gathers += t.ops[COCONET_ALL_GATHER];
        }
        // One pass per rank: the reduced gradient, m and w read once over the
        // slices (12 N), m_new written (4 N), R copies of the new weights
        // (4 R N); the scale, a scalar, once per chunk.
        const uint64_t bound = (uint64_t)(4 * ranks + 16) * n;
        CHECK(bytes <= bound + 64);
        CHECK(bytes >= bound);
        CHECK(fused_ops == (uint64_t)ranks);
        CHECK(gathers == 0);
    }
}

TEST_CASE("a gather's pass refuses Funcs it cannot compute", "[schedules][fused][error]") {
    apps::OptimizerConfig c;
    c.n = 29;
    // m_new without update between it and w_slice: update would need the
    // pass's m_new before the pass runs.
    apps::ClipParts skipped = apps::sgd_clip_parts(c);
    skipped.w_slice.fuse_with(skipped.w_new);
    skipped.m_new.fuse_with(skipped.w_new);
    CHECK_THAT(message_of<UserError>([&] { lower(apps::sgd_clip_program(skipped)); }),
               Contains("fuse_with(m_new, w_new): no Func fused with w_new reads m_new; fuse the "
                        "Funcs between m_new and w_slice with w_new too."));
    // A producer fused without the gathered Func.
    apps::ClipParts alone = apps::sgd_clip_parts(c);
    alone.update.fuse_with(alone.w_new);
    CHECK_THAT(message_of<UserError>([&] { lower(apps::sgd_clip_program(alone)); }),
               Contains("fuse_with(update, w_new): w_new gathers w_slice, which is not fused with "
                        "it; fuse w_slice too (its pass computes it last)."));
    // A Func that w_slice is not computed from.
    DFunc s = input("s", Halide::Float(32), {c.n}, Sliced(0));
    DFunc other("other");
    Var i("i");
    other(i) = s(i) * 2.0f;
    CHECK_THAT(message_of<UserError>([&] { other.fuse_with(alone.w_new); }),
               Contains("fuse_with(other, w_new): w_new gathers w_slice, which is not computed "
                        "from other; only w_slice and the Funcs it is computed from run in the "
                        "pass of w_new."));
}
