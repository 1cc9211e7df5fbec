// A Megatron-LM MLP block with tensor (model) parallelism: the first weight is
// sliced by columns, the second by rows, so each rank computes partial sums of
// the output that an all_reduce completes.
#include "Apps.h"

namespace coconet {
namespace apps {

using Halide::Expr;
using Halide::Float;
using Halide::RDom;
using Halide::Var;

namespace {

// GELU's tanh approximation, as PyTorch's gelu(approximate="tanh").
Expr gelu(Expr x) {
    return 0.5f * x * (1.0f + Halide::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
}

} // namespace

MlpParts megatron_partial(const MlpConfig &c) {
    MlpParts m;
    m.x = input("x", Float(32), {Expr(c.hidden), app_extent(c.batch, c.runtime_size, "batch")},
                Replicated());
    m.w1 = input("w1", Float(32), {c.ffn, c.hidden}, Sliced(0));
    m.w2 = input("w2", Float(32), {c.hidden, c.ffn}, Sliced(1));
    m.b2 = input("b2", Float(32), {c.hidden}, Replicated());
    Var f("f"), h("h"), b("b");

    // Column-parallel MatMul: rank r computes the FFN features of its slice of w1.
    RDom kh(0, c.hidden, "kh");
    DFunc hidden("hidden");
    hidden(f, b) = 0.0f;
    hidden(f, b) += m.w1(f, kh) * m.x(kh, b);
    DFunc act("act");
    act(f, b) = gelu(hidden(f, b));

    // Row-parallel MatMul: the contraction runs over the sliced FFN dimension,
    // so each rank holds partial sums (Local).
    RDom kf(0, c.ffn, "kf");
    m.partial = DFunc("partial");
    m.partial(h, b) = 0.0f;
    m.partial(h, b) += m.w2(h, kf) * act(kf, b);

    // Halide's schedule of the compute on a CPU: both MatMuls in register
    // tiles (every element still adds up in order), the activation as vectors.
    if (c.gpu || !c.hand_schedule) {
        return m;
    }
    schedule_matmul(hidden, f, b);
    act.func().vectorize(f, 8, Halide::TailStrategy::GuardWithIf);
    schedule_matmul(m.partial, h, b);
    return m;
}

DFunc megatron_epilogue(const MlpConfig &c, const DFunc &x, const DFunc &summed, const DFunc &b2) {
    Var h("h"), b("b");
    // Bias, dropout (the mask depends only on the seed and the global index) and residual.
    DFunc y("y");
    y(h, b) = x(h, b) + dropout(summed(h, b) + b2(h), c.dropout, c.seed, {h, b});
    return y;
}

Program megatron_mlp(const MlpConfig &c) {
    MlpParts m = megatron_partial(c);
    DFunc summed = all_reduce(m.partial, ReduceOp::Sum, "summed");
    DFunc y = megatron_epilogue(c, m.x, summed, m.b2);

    if (c.schedule != Schedule::None) {
        // The all_reduce becomes reduce_scatter + all_gather, and the
        // element-wise epilogue runs on each rank's slice before the gather.
        summed.split_collective(c.split_dim);
        y.compute_sliced();
    }
    if (c.overlap > 0) {
        // The MatMul computes a chunk of the batch while the previous one is reduced.
        summed.overlap(m.partial, c.overlap);
    }
    if (c.schedule == Schedule::Fused) {
        // Reduce, bias, dropout, residual and gather in one pass.
        y.fuse_with(summed, c.fuse);
    }

    Program p("megatron_mlp");
    p.output(y, Replicated());
    return p;
}

} // namespace apps
} // namespace coconet
