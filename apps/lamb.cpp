// Data-parallel LAMB: Adam's moments on sliced state, and a layer-wise trust
// ratio from global norms of the parameters and of the update.
#include "Apps.h"

namespace coconet {
namespace apps {

using Halide::Expr;
using Halide::Float;
using Halide::RDom;
using Halide::Var;

Program lamb(const OptimizerConfig &c) {
    AdamState s = adam_state(c);
    DFunc w = s.w;
    Var i("i");

    DFunc update("update");
    update(i) = adam_direction(c, s, i) + c.weight_decay * w(i);
    if (c.schedule == Schedule::Fused) {
        // Phase 1 in one pass: reduce the gradients, new moments, the update.
        s.m_new.fuse_with(s.g_sum, c.fuse);
        s.v_new.fuse_with(s.g_sum, c.fuse);
        update.fuse_with(s.g_sum, c.fuse);
    }

    // The squared norms add up in double: a float sum of millions of terms
    // loses most of its digits.
    auto square = [](Expr x) {
        Expr d = Halide::cast<double>(x);
        return d * d;
    };
    // ||update||^2: each rank sums its slice (a Local partial), then all_reduce.
    RDom k(0, s.n, "k");
    DFunc u_norm2_part("u_norm2_part");
    u_norm2_part() = Halide::Expr(0.0);
    u_norm2_part() += square(update(k));
    DFunc u_norm2 = all_reduce(u_norm2_part, ReduceOp::Sum, "u_norm2");

    // ||w||^2 from the replicated parameters: the same on every rank, no
    // communication. Summed in 8 interleaved lanes, then the lanes (the order
    // a vectorized loop adds in), so Halide can vectorize it.
    const int lanes = 8;
    Var l("l");
    RDom j(0, (s.n + lanes - 1) / lanes, "j");
    Expr at = j * lanes + l;
    DFunc w_lanes("w_lanes", {lanes});
    w_lanes(l) = Halide::Expr(0.0);
    w_lanes(l) += Halide::select(at < s.n, square(w(Halide::min(at, s.n - 1))), Halide::Expr(0.0));
    if (!c.gpu && c.hand_schedule) {
        w_lanes.func().vectorize(l, lanes, Halide::TailStrategy::GuardWithIf);
        w_lanes.func().update().reorder(l, j).vectorize(l, lanes,
                                                        Halide::TailStrategy::GuardWithIf);
    }
    RDom q(0, lanes, "q");
    DFunc w_norm2("w_norm2");
    w_norm2() = Halide::Expr(0.0);
    w_norm2() += w_lanes(q);

    DFunc trust("trust");
    Expr wn = Halide::sqrt(w_norm2()), un = Halide::sqrt(u_norm2());
    trust() = Halide::cast<float>(Halide::select(wn > 0 && un > 0, wn / un, Halide::Expr(1.0)));

    DFunc w_slice("w_slice");
    w_slice(i) = w(i) - c.lr * trust() * update(i);
    DFunc w_new = all_gather(w_slice, "w_new");
    if (c.schedule == Schedule::Fused) {
        // Phase 2 in one pass: the step on each slice, written into every rank's w_new.
        w_slice.fuse_with(w_new, c.fuse);
    }

    Program p("lamb");
    p.output(w_new, Replicated()).output(s.m_new, Sliced(0)).output(s.v_new, Sliced(0));
    return p;
}

} // namespace apps
} // namespace coconet
