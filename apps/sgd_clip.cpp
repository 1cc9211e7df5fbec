// Data-parallel SGD with momentum, weight decay and a clip of the global
// gradient norm, as an algorithm: the update needs the norm first.
#include "Apps.h"

namespace coconet {
namespace apps {

using Halide::Expr;
using Halide::Float;
using Halide::Var;

ClipParts sgd_clip_parts(const OptimizerConfig &c) {
    const Expr n = app_extent(c.n, c.runtime_size, "n");
    DFunc g = input("g", Float(32), {n}, Local());
    DFunc w = input("w", Float(32), {n}, Replicated());
    DFunc m = input("m", Float(32), {n}, Sliced(0));
    Var i("i");
    DFunc gs = reduce_scatter(g, 0, ReduceOp::Sum, "gs");
    // ||g||^2 in double: each rank sums its slice (a Local partial), then all_reduce.
    Halide::RDom k(0, n, "k");
    DFunc norm2_part("norm2_part");
    norm2_part() = Expr(0.0);
    norm2_part() += Halide::cast<double>(gs(k)) * Halide::cast<double>(gs(k));
    DFunc norm2 = all_reduce(norm2_part, ReduceOp::Sum, "norm2");
    // Gradients whose norm exceeds 1 are scaled to norm 1.
    DFunc scale("scale");
    Expr norm = Halide::sqrt(norm2());
    const Expr one(1.0);
    scale() = Halide::cast<float>(Halide::select(norm > one, one / norm, one));
    ClipParts p{DFunc("m_new"), DFunc("update"), DFunc("w_slice"), DFunc()};
    p.m_new(i) = c.beta1 * m(i) + scale() * gs(i);
    p.update(i) = p.m_new(i) + c.weight_decay * w(i);
    p.w_slice(i) = w(i) - c.lr * p.update(i);
    p.w_new = all_gather(p.w_slice, "w_new");
    return p;
}

Program sgd_clip_program(const ClipParts &p) {
    Program program("sgd_clip");
    program.output(p.w_new, Replicated()).output(p.m_new, Sliced(0));
    return program;
}

Program sgd_clip(const OptimizerConfig &c) {
    ClipParts p = sgd_clip_parts(c);
    if (c.schedule != Schedule::None) {
        // The new weights computed in their all_gather's pass, each rank
        // writing its slice into every rank's copy.
        p.w_slice.fuse_with(p.w_new, c.fuse);
    }
    if (c.schedule == Schedule::Fused) {
        // The momentum and the update too: one pass over the state once the
        // norm is known.
        p.update.fuse_with(p.w_new, c.fuse);
        p.m_new.fuse_with(p.w_new, c.fuse);
    }
    return sgd_clip_program(p);
}

} // namespace apps
} // namespace coconet
