// A transformer's MLP as a user writes it from the docs, Megatron's way: the
// first Linear column-parallel (each rank a slice of the inner features and
// of their bias), GELU in PyTorch's tanh form, the second Linear row-parallel
// along those features, an all_reduce, then the second bias. The weights are
// stored as PyTorch's nn.Linear stores them ([out, in], the input features
// innermost). Unscheduled. coconet_user_bench runs it;
// apps/bench/torch_user_programs.py runs it in PyTorch.
#ifndef COCONET_APPS_BENCH_USER_MLP_H
#define COCONET_APPS_BENCH_USER_MLP_H

#include "CoCoNet.h"

namespace coconet {

// x: hidden x tokens (a token's features innermost); `inner` features between
// the two Linears.
inline Program user_mlp(int hidden, int inner, int tokens) {
    DFunc x = input("x", Halide::Float(32), {hidden, tokens}, Replicated());
    DFunc w1 = input("w1", Halide::Float(32), {hidden, inner}, Sliced(1));
    DFunc b1 = input("b1", Halide::Float(32), {inner}, Sliced(0));
    DFunc w2 = input("w2", Halide::Float(32), {inner, hidden}, Sliced(0));
    DFunc b2 = input("b2", Halide::Float(32), {hidden}, Replicated());
    Halide::Var f("f"), t("t"), o("o");
    Halide::RDom h(0, hidden, "h"), g(0, inner, "g");
    DFunc up("up");
    up(f, t) = b1(f);
    up(f, t) += w1(h, f) * x(h, t);
    DFunc act("act");
    Halide::Expr u = up(f, t);
    act(f, t) = 0.5f * u * (1.0f + Halide::tanh(0.7978845608f * (u + 0.044715f * u * u * u)));
    DFunc partial("partial");
    partial(o, t) = 0.0f;
    partial(o, t) += w2(g, o) * act(g, t);
    DFunc summed = all_reduce(partial, ReduceOp::Sum, "summed");
    DFunc out("out");
    out(o, t) = summed(o, t) + b2(o);
    Program p("user_mlp");
    p.output(out, Replicated());
    return p;
}

} // namespace coconet

#endif
