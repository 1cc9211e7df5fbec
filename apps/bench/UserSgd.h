// A data-parallel optimizer step as a user writes it from the docs: the
// ranks' gradients summed by an all_reduce, their global norm, a clip of
// that norm to 1, then SGD with momentum and weight decay, every rank
// updating its whole copy. Unscheduled. coconet_user_bench runs it;
// apps/bench/torch_user_programs.py runs it in PyTorch.
#ifndef COCONET_APPS_BENCH_USER_SGD_H
#define COCONET_APPS_BENCH_USER_SGD_H

#include "CoCoNet.h"

namespace coconet {

inline Program user_sgd(int n) {
    DFunc g = input("g", Halide::Float(32), {n}, Local());
    DFunc w = input("w", Halide::Float(32), {n}, Replicated());
    DFunc m = input("m", Halide::Float(32), {n}, Replicated());
    DFunc summed = all_reduce(g, ReduceOp::Sum, "summed");
    // The norm's squares add up in double, as torch.nn.utils.clip_grad_norm_'s
    // float64 option does.
    Halide::RDom k(0, n, "k");
    DFunc norm2("norm2", {});
    norm2() = Halide::Expr(0.0);
    norm2() += Halide::cast<double>(summed(k)) * summed(k);
    DFunc scale("scale", {});
    scale() = Halide::cast<float>(
        Halide::min(Halide::Expr(1.0), Halide::Expr(1.0) / Halide::sqrt(norm2())));
    Halide::Var i("i");
    DFunc m_new("m_new"), w_new("w_new");
    m_new(i) = 0.9f * m(i) + scale() * summed(i);
    w_new(i) = w(i) - 0.01f * (m_new(i) + 1e-4f * w(i));
    Program p("user_sgd");
    p.output(w_new, Replicated()).output(m_new, Replicated());
    return p;
}

} // namespace coconet

#endif
