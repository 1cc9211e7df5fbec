// The fused computation-collective operators of Punniyamurthy et al. (SC24),
// written as ordinary algorithms: a producer (embedding pooling, GEMV, GEMM)
// followed by the collective that consumes it. Their schedules overlap the
// two tile by tile: each tile is handed to the collective as soon as it is
// computed while the next one is computed.
//
// The row (or sample) dimension of each operator is written as two
// dimensions, (within tile, tile), a reshape of the usual one: the overlap
// chunks the outermost (tiles), and the collective distributes within tiles.
#include "Apps.h"

namespace coconet {
namespace apps {

using Halide::Expr;
using Halide::Float;
using Halide::Int;
using Halide::RDom;
using Halide::Var;

namespace {

const Halide::TailStrategy guard = Halide::TailStrategy::GuardWithIf;

// A producer sliced along dimension 2 (tables, experts) whose dimension 1
// (samples, token slots) goes back to its ranks by an all_to_all, computed
// in `overlap` chunks of tiles; or the producer alone, for a baseline.
Program routed(const std::string &name, const DFunc &producer, const std::string &collective,
               int overlap, bool producer_only) {
    Program p(name);
    if (producer_only) {
        p.output(producer, Sliced(2));
        return p;
    }
    DFunc out = all_to_all(producer, 1, 2, collective);
    if (overlap > 0) {
        out.overlap(producer, overlap);
    }
    p.output(out, Sliced(1));
    return p;
}

} // namespace

Program embedding_all_to_all(const EmbeddingConfig &c) {
    // Tables are sliced across ranks (model parallel); every rank has the
    // indices of the whole batch.
    DFunc tables = input("tables", Float(32), {c.dim, c.rows, c.tables}, Sliced(2));
    const Expr tiles = app_extent(c.tiles, c.runtime_size, "tiles");
    DFunc indices = input("indices", Int(32), {Expr(c.bag), c.tile, c.tables, tiles}, Replicated());
    Var e("e"), s("s"), t("t"), j("j");

    // Sum pooling of a bag of rows per sample and table; an index out of
    // range wraps around (Euclidean modulo), so any index is a row.
    RDom k(0, c.bag, "k");
    DFunc pooled("pooled");
    pooled(e, s, t, j) = 0.0f;
    pooled(e, s, t, j) += tables(e, indices(k, s, t, j) % c.rows, t);

    if (!c.gpu && c.hand_schedule) {
        pooled.func().vectorize(e, 8, guard);
        pooled.func().update().reorder(e, k, s, t, j).vectorize(e, 8, guard);
    }

    // Samples go back to their ranks (sliced within each tile), with every
    // table's pooled embedding.
    return routed("embedding_all_to_all", pooled, "pooled_a2a", c.overlap, c.producer_only);
}

Program gemv_all_reduce(const GemvConfig &c) {
    // Model-parallel decoding: the weight is sliced along the contraction,
    // so each rank's product is a partial sum. Output rows are (row within
    // tile, tile).
    const Expr tiles = app_extent(c.tiles, c.runtime_size, "tiles");
    DFunc w = input("w", Float(32), {Expr(c.tile), tiles, c.cols}, Sliced(2));
    DFunc x = input("x", Float(32), {c.cols}, Sliced(0));
    DFunc bias = input("bias", Float(32), {Expr(c.tile), tiles}, Replicated());
    Var o("o"), j("j");

    RDom k(0, c.cols, "k");
    DFunc partial("partial");
    partial(o, j) = 0.0f;
    partial(o, j) += w(o, j, k) * x(k);
    // A BLAS sgemv's loop order: all rows as vectors (their partial sums stay
    // in L1), eight columns of the weight per pass over them, the columns in
    // order outside: one contiguous pass over the weight, every sum in the
    // reference's order. Vectors of 16 (AVX-512) and eight columns per pass
    // halve the loads and stores of the sums against 8 and four: 0.95-1.02x
    // sgemv's time at 2^22 where those took 1.17-1.34x (CHANGELOG.md).
    if (!c.gpu && c.hand_schedule) {
        Halide::RVar ko("ko"), ki("ki");
        partial.func().vectorize(o, 16, guard);
        partial.func()
            .update()
            .split(k, ko, ki, 8, guard)
            .reorder(ki, o, j, ko)
            .vectorize(o, 16, guard)
            .unroll(ki);
    }
    Program p("gemv_all_reduce");
    if (c.producer_only) {
        p.output(partial, Local());
        return p;
    }

    DFunc summed = all_reduce(partial, ReduceOp::Sum, "summed");
    DFunc y("y");
    y(o, j) = summed(o, j) + bias(o, j);

    if (c.schedule != Schedule::None) {
        summed.split_collective(0);
        y.compute_sliced();
    }
    if (c.overlap > 0) {
        summed.overlap(partial, c.overlap);
    }
    if (c.schedule == Schedule::Fused) {
        // The bias is added in the reduce step, and the gather writes y.
        y.fuse_with(summed, c.fuse);
    }
    p.output(y, Replicated());
    return p;
}

Program gemm_all_to_all(const GemmConfig &c) {
    // Mixture of experts: experts are sliced across ranks, each with the
    // tokens dispatched to it (capacity slots, sliced within each tile by
    // the rank the token came from).
    const Expr tiles = app_extent(c.tiles, c.runtime_size, "tiles");
    DFunc tokens =
        input("tokens", Float(32), {Expr(c.hidden), c.capacity, c.experts, tiles}, Sliced(2));
    DFunc w = input("w", Float(32), {c.out, c.hidden, c.experts}, Sliced(2));
    Var h("h"), s("s"), x("x"), j("j");

    RDom k(0, c.hidden, "k");
    DFunc expert_out("expert_out");
    expert_out(h, s, x, j) = 0.0f;
    expert_out(h, s, x, j) += w(h, k, x) * tokens(k, s, x, j);
    // Register tiles c.register_cols slots wide: a direct all_to_all
    // computes each rank's part of a tile in its own call (capacity / R
    // slots: 64 at 2^20 on 4 ranks), which 8 divide and 6 leave a tail of
    // (CHANGELOG.md).
    if (!c.gpu && c.hand_schedule) {
        schedule_matmul(expert_out, h, s, c.register_cols);
    }

    // Expert outputs go back to their tokens' ranks.
    return routed("gemm_all_to_all", expert_out, "routed", c.overlap, c.producer_only);
}

} // namespace apps
} // namespace coconet
