// Schedules that chunk along the sliced dimension: a Megatron-style
// sequence-parallel block (row-parallel MatMul, reduce_scatter along the
// tokens, bias + residual + a per-token normalization on slices, all_gather)
// overlapped along the tokens, which is both the outermost and the sliced
// dimension: chunk j is piece j of every rank's slice. Every schedule equals
// the single-process reference on 1 to 5 ranks at sizes no count divides.
#include "TestUtil.h"

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
    // A per-token normalization by the mean square (RMSNorm without a gain).
    DFunc ms("ms");
    Halide::RDom k(0, c.hidden, "k");
    ms(t) = 0.0f;
    ms(t) += y(k, t) * y(k, t);
    DFunc normed("normed");
    normed(h, t) = y(h, t) / Halide::sqrt(ms(t) / c.hidden + 1e-5f);
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
}
