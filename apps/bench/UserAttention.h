// Attention as a user writes it from the docs, Megatron's way: the heads
// split over the ranks (column-parallel Q, K and V projections, each rank's
// heads computed whole), then the output projection row-parallel along the
// heads and an all_reduce. The weights are stored as PyTorch's nn.Linear
// stores them ([out, in], the input features innermost). Unscheduled;
// `overlap` > 0 computes the output projection in that many chunks overlapped
// with its all_reduce. coconet_user_bench (CPU) and coconet_gpu_bench run it;
// apps/bench/torch_user_programs.py and torch_bench.py run it in PyTorch
// (scaled_dot_product_attention).
#ifndef COCONET_APPS_BENCH_USER_ATTENTION_H
#define COCONET_APPS_BENCH_USER_ATTENTION_H

#include <cmath>
#include <string>

#include "CoCoNet.h"

namespace coconet {

// x: hidden x tokens (a token's features innermost), heads of head_dim features.
inline Program user_attention(int head_dim, int heads, int tokens, int overlap = 0) {
    const int hidden = head_dim * heads;
    DFunc x = input("x", Halide::Float(32), {hidden, tokens}, Replicated());
    auto weight = [&](const std::string &name) {
        return input(name, Halide::Float(32), {hidden, head_dim, heads}, Sliced(2));
    };
    DFunc wq = weight("wq"), wk = weight("wk"), wv = weight("wv");
    DFunc wo = input("wo", Halide::Float(32), {head_dim, heads, hidden}, Sliced(1));
    Halide::Var c("c"), i("i"), j("j"), h("h"), o("o");
    Halide::RDom f(0, hidden, "f"), r(0, head_dim, "r"), s(0, tokens, "s");
    Halide::RDom ch(0, head_dim, 0, heads, "ch");
    auto project = [&](const DFunc &w, const std::string &name) {
        DFunc p(name);
        p(c, i, h) = 0.0f;
        p(c, i, h) += w(f, c, h) * x(f, i);
        return p;
    };
    DFunc q = project(wq, "q"), k = project(wk, "k"), v = project(wv, "v");
    // scores(j, i, h): token i's query against token j's key.
    DFunc scores("scores");
    scores(j, i, h) = 0.0f;
    scores(j, i, h) += q(r, i, h) * k(r, j, h);
    DFunc top("top");
    top(i, h) = Halide::Float(32).min();
    top(i, h) = Halide::max(top(i, h), scores(s, i, h));
    const float scale = 1.0f / std::sqrt((float)head_dim);
    DFunc e("e");
    e(j, i, h) = Halide::exp((scores(j, i, h) - top(i, h)) * scale);
    DFunc total("total");
    total(i, h) = 0.0f;
    total(i, h) += e(s, i, h);
    DFunc weighted("weighted");
    weighted(c, i, h) = 0.0f;
    weighted(c, i, h) += e(s, i, h) * v(c, s, h);
    DFunc attended("attended");
    attended(c, i, h) = weighted(c, i, h) / total(i, h);
    DFunc partial("partial");
    partial(o, i) = 0.0f;
    partial(o, i) += wo(ch.x, ch.y, o) * attended(ch.x, i, ch.y);
    DFunc out = all_reduce(partial, ReduceOp::Sum, "out");
    if (overlap > 0) {
        out.overlap(partial, overlap);
    }
    Program p("user_attention");
    p.output(out, Replicated());
    return p;
}

} // namespace coconet

#endif
