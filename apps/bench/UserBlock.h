// A block a user writes from the docs: a row-parallel MatMul (width x width
// over the tokens), a reduce_scatter along the tokens, bias + residual +
// LayerNorm per token, an all_gather. Unscheduled by default; `fused` puts
// the bias and residual in the reduce_scatter's pass, `overlap` > 0 computes
// the MatMul in that many chunks overlapped with it. coconet_user_bench
// (CPU) and coconet_gpu_bench run it; apps/bench/torch_user_programs.py and
// torch_bench.py run it in PyTorch.
#ifndef COCONET_APPS_BENCH_USER_BLOCK_H
#define COCONET_APPS_BENCH_USER_BLOCK_H

#include "CoCoNet.h"

namespace coconet {

inline Program user_block(int width, int tokens, bool fused = false, int overlap = 0) {
    DFunc x = input("x", Halide::Float(32), {width, tokens}, Sliced(0));
    DFunc w = input("w", Halide::Float(32), {width, width}, Sliced(1));
    DFunc bias = input("bias", Halide::Float(32), {width}, Replicated());
    DFunc residual = input("residual", Halide::Float(32), {width, tokens}, Sliced(1));
    Halide::Var h("h"), t("t");
    Halide::RDom f(0, width, "f"), k(0, width, "k");
    DFunc partial("partial");
    partial(h, t) = 0.0f;
    partial(h, t) += w(h, f) * x(f, t);
    DFunc summed = reduce_scatter(partial, 1, ReduceOp::Sum, "summed");
    DFunc y("y");
    y(h, t) = summed(h, t) + bias(h) + residual(h, t);
    DFunc mean("mean"), var("var");
    mean(t) = 0.0f;
    mean(t) += y(k, t) / width;
    var(t) = 0.0f;
    var(t) += (y(k, t) - mean(t)) * (y(k, t) - mean(t)) / width;
    DFunc normed("normed");
    normed(h, t) = (y(h, t) - mean(t)) / Halide::sqrt(var(t) + 1e-5f);
    if (fused) {
        y.fuse_with(summed);
    }
    if (overlap > 0) {
        summed.overlap(partial, overlap);
    }
    Program p("user_block");
    p.output(all_gather(normed, "out"), Replicated());
    return p;
}

} // namespace coconet

#endif
