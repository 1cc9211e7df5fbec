// Data-parallel Adam with ZeRO-style sliced optimizer state, as an algorithm.
#include "Apps.h"

#include <cmath>

namespace coconet {
namespace apps {

using Halide::Expr;
using Halide::Float;
using Halide::Var;

Program adam(const OptimizerConfig &c) {
    DFunc g = input("g", Float(32), {c.n}, Local());
    DFunc w = input("w", Float(32), {c.n}, Replicated());
    DFunc m = input("m", Float(32), {c.n}, Sliced(0));
    DFunc v = input("v", Float(32), {c.n}, Sliced(0));
    Var i("i");

    // Sum the gradients of all ranks.
    DFunc g_sum = all_reduce(g, ReduceOp::Sum, "g_sum");

    // Moments, on each rank's slice of the state.
    DFunc m_new("m_new"), v_new("v_new");
    m_new(i) = c.beta1 * m(i) + (1 - c.beta1) * g_sum(i);
    v_new(i) = c.beta2 * v(i) + (1 - c.beta2) * g_sum(i) * g_sum(i);

    // Bias-corrected step on the slice, then every rank gets all parameters.
    const float bc1 = 1 - std::pow(c.beta1, (float)c.step);
    const float bc2 = 1 - std::pow(c.beta2, (float)c.step);
    DFunc w_slice("w_slice");
    w_slice(i) = w(i) - c.lr * (m_new(i) / bc1) / (Halide::sqrt(v_new(i) / bc2) + c.eps);
    DFunc w_new = all_gather(w_slice, "w_new");

    Program p("adam");
    p.output(w_new, Replicated()).output(m_new, Sliced(0)).output(v_new, Sliced(0));
    return p;
}

} // namespace apps
} // namespace coconet
