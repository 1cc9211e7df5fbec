// Data-parallel Adam with ZeRO-style sliced optimizer state, as an algorithm.
#include "Apps.h"

#include <cmath>

namespace coconet {
namespace apps {

using Halide::Expr;
using Halide::Float;
using Halide::Var;

AdamState adam_state(const OptimizerConfig &c) {
    AdamState s;
    s.n = app_extent(c.n, c.runtime_size, "n");
    s.g = input("g", Float(32), {s.n}, Local());
    s.w = input("w", Float(32), {s.n}, Replicated());
    s.m = input("m", Float(32), {s.n}, Sliced(0));
    s.v = input("v", Float(32), {s.n}, Sliced(0));
    Var i("i");

    // Sum the gradients of all ranks.
    s.g_sum = all_reduce(s.g, ReduceOp::Sum, "g_sum");
    if (c.schedule != Schedule::None) {
        // The moments are computed on slices, so they read the reduce_scatter
        // directly and the gradients are never gathered. (Unscheduled, the
        // lowering finds that itself; the fused pass needs it said.)
        s.g_sum.split_collective(0);
    }

    // Moments, on each rank's slice of the state.
    s.m_new = DFunc("m_new");
    s.v_new = DFunc("v_new");
    s.m_new(i) = c.beta1 * s.m(i) + (1 - c.beta1) * s.g_sum(i);
    s.v_new(i) = c.beta2 * s.v(i) + (1 - c.beta2) * s.g_sum(i) * s.g_sum(i);
    return s;
}

Expr adam_direction(const OptimizerConfig &c, const AdamState &s, Expr i) {
    const float bc1 = 1 - std::pow(c.beta1, (float)c.step);
    const float bc2 = 1 - std::pow(c.beta2, (float)c.step);
    return (s.m_new(i) / bc1) / (Halide::sqrt(s.v_new(i) / bc2) + c.eps);
}

Program adam(const OptimizerConfig &c) {
    AdamState s = adam_state(c);
    Var i("i");

    // The step on the slice, then every rank gets all parameters.
    DFunc w_slice("w_slice");
    w_slice(i) = s.w(i) - c.lr * adam_direction(c, s, i);
    DFunc w_new = all_gather(w_slice, "w_new");
    if (c.schedule == Schedule::Fused) {
        // One pass: each rank reduces a chunk of its slice of the gradients,
        // updates the moments and the parameters, and writes the new
        // parameters into every rank's w_new.
        s.m_new.fuse_with(s.g_sum, c.fuse);
        s.v_new.fuse_with(s.g_sum, c.fuse);
        w_slice.fuse_with(s.g_sum, c.fuse);
    }

    Program p("adam");
    p.output(w_new, Replicated()).output(s.m_new, Sliced(0)).output(s.v_new, Sliced(0));
    return p;
}

} // namespace apps
} // namespace coconet
