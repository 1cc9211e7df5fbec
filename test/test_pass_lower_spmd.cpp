// The lower_spmd pass on tiny programs: the segments, their parameters and
// outputs, and the structured plan steps (not the plan's words), and lower()'s
// COCONET_DEBUG dumps.
#include <cstdlib>
#include <sstream>

#include "ProgramPlan.h"
#include "TestUtil.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_test::contents;
using Halide::Var;

namespace {

using Funcs = std::vector<const DFuncContents *>;

const PlanStep &step_of(const SpmdPipeline &spmd, const DFunc &f) {
    for (const PlanStep &s : spmd.steps) {
        if (s.func == contents(f)) {
            return s;
        }
    }
    FAIL("no step for " << f.name());
    return spmd.steps.front();
}

std::set<const DFuncContents *> as_set(const Funcs &v) {
    return {v.begin(), v.end()};
}

} // namespace

TEST_CASE("lower_spmd: one Halide segment, a dead gather", "[passes][schedules]") {
    const coconet_test::SplitSumProgram s = coconet_test::split_sum_program();
    const DFunc &g = s.g, &m = s.m, &t = s.t, &u = s.u;
    const Program &p = s.program;
    const SpmdPipeline spmd = lower(p).spmd;
    REQUIRE(spmd.segments.size() == 1);
    const SpmdSegment &seg = spmd.segments[0];
    CHECK(seg.fused_pass == -1);
    CHECK(seg.halide.outputs == Funcs{contents(u)});
    CHECK(as_set(seg.halide.param_values) ==
          std::set<const DFuncContents *>{contents(g), contents(m)});
    CHECK(seg.halide.params.size() == 2);
    CHECK(seg.collective == nullptr);
    CHECK(spmd.output_values == Funcs{contents(u)});
    CHECK(spmd.steps.size() == 6);
    CHECK(step_of(spmd, g).role == StepRole::Input);
    CHECK(step_of(spmd, t).role == StepRole::Split);
    CHECK(step_of(spmd, DFunc(contents(t)->gathered)).role == StepRole::Dead);
    const PlanStep &rs = step_of(spmd, DFunc(contents(t)->sliced_part));
    CHECK(rs.role == StepRole::Computed);
    CHECK(rs.segment == 0);
    const PlanStep &us = step_of(spmd, u);
    CHECK(us.role == StepRole::Computed);
    CHECK(us.slice_reads == Funcs{contents(t)});
}

TEST_CASE("lower_spmd: a fused pass and the Halide segment after it", "[passes][schedules]") {
    auto [g, m, t] = coconet_test::split_sum();
    Var i("i");
    DFunc a("a"), b("b");
    a(i) = m(i) + t(i);
    b(i) = a(i) * 2.0f;
    a.fuse_with(t);
    Program p("fused");
    p.output(b, Sliced(0));
    const SpmdPipeline spmd = lower(p).spmd;
    REQUIRE(spmd.segments.size() == 2);
    CHECK(spmd.segments[0].fused_pass == 0);
    CHECK(spmd.segments[0].chunks == 0);
    CHECK(spmd.segments[1].fused_pass == -1);
    CHECK(spmd.segments[1].halide.param_values == Funcs{contents(a)});
    REQUIRE(spmd.passes.size() == 1);
    CHECK(spmd.passes[0].extra_inputs == Funcs{contents(m)});
    REQUIRE(spmd.passes[0].outputs.size() == 1);
    CHECK(spmd.passes[0].outputs[0].slice_value == contents(a));
    const PlanStep &rs = step_of(spmd, DFunc(contents(t)->sliced_part));
    CHECK(rs.role == StepRole::PassCollective);
    CHECK(rs.segment == 0);
    CHECK(rs.fused_pass == 0);
    CHECK(rs.overlapped_with == nullptr);
    CHECK(step_of(spmd, a).role == StepRole::FusedMember);
    // t's gather is not the pass's: no Func fused into t is gathered.
    CHECK(step_of(spmd, DFunc(contents(t)->gathered)).role == StepRole::Dead);
    CHECK(step_of(spmd, b).segment == 1);
}

TEST_CASE("lower_spmd: overlapped collectives", "[passes][schedules]") {
    DFunc x = input("x", Halide::Float(32), {8, 4}, Local());
    Var i("i"), j("j");
    DFunc partial("partial");
    partial(i, j) = x(i, j) * 2.0f;
    {
        // Unfused: a segment of its own, run by the executor chunk by chunk
        // after the segment computing what the source reads, its consumers
        // in the next one.
        DFunc total = all_reduce(partial, ReduceOp::Sum, "total");
        total.overlap(partial, 2);
        DFunc y("y");
        y(i, j) = total(i, j) + 1.0f;
        Program p("executor_overlap");
        p.output(y, Replicated());
        const SpmdPipeline spmd = lower(p).spmd;
        REQUIRE(spmd.segments.size() == 2);
        const SpmdSegment &seg = spmd.segments[0];
        CHECK(seg.collective == contents(total));
        CHECK(seg.fused_pass == -1);
        CHECK(seg.chunks == 2);
        CHECK(seg.halide.outputs == Funcs{contents(partial)});
        CHECK(seg.halide.param_values == Funcs{contents(x)});
        CHECK(spmd.segments[1].halide.outputs == Funcs{contents(y)});
        CHECK(spmd.segments[1].halide.param_values == Funcs{contents(total)});
        const PlanStep &s = step_of(spmd, total);
        CHECK(s.role == StepRole::Computed);
        CHECK(s.segment == 0);
        CHECK(s.chunks == 2);
        CHECK(s.chunk_dim == 1); // the default: the outermost dimension
        CHECK(s.overlapped_with == contents(partial));
        const PlanStep &src = step_of(spmd, partial);
        CHECK(src.role == StepRole::ChunkedSource);
        CHECK(src.segment == 0);
        CHECK(src.fused_pass == -1);
    }
    {
        // With a fused pass: the source in a pipeline of its own, run per chunk.
        DFunc s = all_reduce(partial, ReduceOp::Sum, "s");
        s.split_collective(0);
        s.overlap(partial, 2);
        DFunc y("y");
        y(i, j) = s(i, j) + 1.0f;
        y.compute_sliced();
        y.fuse_with(s);
        Program p("fused_overlap");
        p.output(y, Replicated());
        const SpmdPipeline spmd = lower(p).spmd;
        REQUIRE(spmd.segments.size() == 1);
        const SpmdSegment &seg = spmd.segments[0];
        CHECK(seg.fused_pass == 0);
        CHECK(seg.chunks == 2);
        CHECK(seg.halide.outputs == Funcs{contents(partial)});
        CHECK(seg.halide.param_values == Funcs{contents(x)});
        const PlanStep &src = step_of(spmd, partial);
        CHECK(src.role == StepRole::ChunkedSource);
        CHECK(src.segment == 0);
        const PlanStep &rs = step_of(spmd, DFunc(contents(s)->sliced_part));
        CHECK(rs.chunks == 2);
        CHECK(rs.chunk_dim == 1);
        CHECK(rs.overlapped_with == contents(partial));
    }
    {
        // Along the dimension the result is sliced along, as given: the step
        // and the executor's table say which one; the descriptor leaves the
        // piece to the executor.
        DFunc scattered = reduce_scatter(partial, 0, ReduceOp::Sum, "scattered");
        scattered.overlap(partial, 3, 0);
        Program p("sliced_overlap");
        p.output(scattered, Sliced(0));
        const LoweredProgram lowered = lower(p);
        const PlanStep &s = step_of(lowered.spmd, scattered);
        CHECK(s.chunks == 3);
        CHECK(s.chunk_dim == 0);
        const ProgramPlan plan = plan_program(lowered, "sliced_overlap");
        REQUIRE(plan.steps.size() == 1);
        CHECK(plan.steps[0].kind == COCONET_STEP_COLLECTIVE);
        CHECK(plan.steps[0].chunks == 3);
        CHECK(plan.steps[0].collective.chunk_dim == 0);
        CHECK(plan.steps[0].collective.dim == 0);
        CHECK(plan.steps[0].collective.chunks == 0);
    }
}

TEST_CASE("lower() dumps every pass under COCONET_DEBUG", "[passes]") {
    DFunc g = input("g", Halide::Float(32), {8}, Local());
    DFunc t = all_reduce(g, ReduceOp::Sum, "t");
    Program p("dumped");
    p.output(t, Replicated());
    std::ostringstream captured;
    {
        // Restores std::cerr however lower() returns.
        struct Capture {
            std::streambuf *old;
            ~Capture() { std::cerr.rdbuf(old); }
        } capture{std::cerr.rdbuf(captured.rdbuf())};
        setenv("COCONET_DEBUG", "1", 1);
        lower(p);
        unsetenv("COCONET_DEBUG");
        lower(p); // quiet again
    }
    const std::string dump = captured.str();
    for (const char *pass : {"collect_funcs", "infer_layouts", "find_fused_passes", "find_liveness",
                             "place", "lower_spmd"}) {
        CHECK_THAT(dump, Contains(std::string("coconet: dumped after ") + pass + ":\n"));
    }
    CHECK_THAT(dump, Contains("  t: Replicated [8]\n"));
    CHECK_THAT(dump, Contains("  t: halide, reads [g]\n"));
    CHECK_THAT(dump, Contains("  t: segment 0, exported\n"));
    CHECK_THAT(dump, Contains("  0: Halide pipeline of [t], params [g]\n"));
    CHECK(dump.find("after collect_funcs", dump.find("after lower_spmd")) == std::string::npos);
}
