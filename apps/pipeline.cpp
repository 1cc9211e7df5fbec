// Pipeline parallelism: two stages on the two groups of world.split(2), each a
// model-parallel layer inside its group, with activations sent across.
#include "Apps.h"

namespace coconet {
namespace apps {

using Halide::Expr;
using Halide::Float;
using Halide::RDom;
using Halide::Var;

Program two_stage_pipeline(const PipelineConfig &c) {
    std::vector<Group> stages = Group::world().split(2);
    DFunc x = input("x", Float(32), {Expr(c.hidden), app_extent(c.batch, c.runtime_size, "batch")},
                    Replicated(stages[0]));
    DFunc w0 = input("w0", Float(32), {c.hidden, c.hidden}, Sliced(1, stages[0]));
    DFunc w1 = input("w1", Float(32), {c.hidden, c.hidden}, Sliced(1, stages[1]));
    Var o("o"), b("b");
    RDom k(0, c.hidden, "k");

    // Stage 0: each rank multiplies its slice of the contraction, all_reduce in the stage.
    DFunc p0("p0");
    p0(o, b) = 0.0f;
    p0(o, b) += w0(o, k) * x(k, b);
    if (!c.gpu && c.hand_schedule) {
        schedule_matmul(p0, o, b);
    }
    DFunc s0 = all_reduce(p0, ReduceOp::Sum, "s0");
    DFunc a0("a0");
    a0(o, b) = Halide::max(s0(o, b), 0.0f);
    if (c.schedule != Schedule::None) {
        s0.split_collective(0);
        a0.compute_sliced();
    }
    if (c.schedule == Schedule::Fused) {
        a0.fuse_with(s0, c.fuse);
    }
    if (c.overlap > 0) {
        s0.overlap(p0, c.overlap);
    }

    // Across stages: stage 0's activations go to stage 1.
    DFunc a1 = send(a0, stages[1], "a1");
    if (c.schedule != Schedule::None) {
        // Each rank of stage 0 sends only its slice; stage 1 gathers them.
        a1.compute_sliced();
    }

    // Stage 1: the same layer, plus a residual connection.
    DFunc p1("p1");
    p1(o, b) = 0.0f;
    p1(o, b) += w1(o, k) * a1(k, b);
    if (!c.gpu && c.hand_schedule) {
        schedule_matmul(p1, o, b);
    }
    DFunc s1 = all_reduce(p1, ReduceOp::Sum, "s1");
    DFunc y("y");
    y(o, b) = Halide::max(s1(o, b), 0.0f) + a1(o, b);
    if (c.schedule != Schedule::None) {
        s1.split_collective(0);
        y.compute_sliced();
    }
    if (c.schedule == Schedule::Fused) {
        y.fuse_with(s1, c.fuse);
    }
    if (c.overlap > 0) {
        s1.overlap(p1, c.overlap);
    }

    Program p("two_stage_pipeline");
    p.output(y, Replicated(stages[1]));
    return p;
}

} // namespace apps
} // namespace coconet
