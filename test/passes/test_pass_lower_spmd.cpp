// The lower_spmd pass on tiny programs: the segments, their parameters and
// outputs, and the structured plan steps (not the plan's words), and lower()'s
// COCONET_DEBUG dumps.
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "CollectiveStage.h"
#include "GpuSchedule.h"
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

TEST_CASE("plan_program: a fused pass is replicable only where any member may compute all of it",
          "[passes][schedules]") {
    Var i("i");
    DFunc x = input("x", Halide::Float(32), {10}, Local());
    DFunc whole = input("whole", Halide::Float(32), {10}, Replicated());
    DFunc sliced = input("sliced", Halide::Float(32), {10}, Sliced(0));
    auto fused_step = [](const Program &p) {
        const ProgramPlan plan = plan_program(lower(p), p.name());
        for (const ProgramStep &st : plan.steps) {
            if (st.kind == COCONET_STEP_FUSED) {
                CHECK(pass_call(st).replicable == (st.replicable ? 1 : 0));
                return st;
            }
        }
        FAIL("no fused step");
        return plan.steps.front();
    };
    {
        // A bias whole on every rank, the sum gathered (the GEMV operator's pass).
        DFunc s = all_reduce(x, ReduceOp::Sum, "s");
        s.split_collective(0);
        DFunc y("y");
        y(i) = s(i) + whole(i);
        y.compute_sliced();
        y.fuse_with(s);
        Program p("gathered");
        p.output(y, Replicated());
        const ProgramStep st = fused_step(p);
        CHECK(st.gathered == std::vector<int>{1});
        CHECK(st.replicable);
    }
    {
        // Each rank's slice of what it adds only (an optimizer's sliced state).
        DFunc s = all_reduce(x, ReduceOp::Sum, "s");
        s.split_collective(0);
        DFunc y("y");
        y(i) = s(i) + sliced(i);
        y.fuse_with(s);
        Program p("sliced_extra");
        p.output(all_gather(y, "y_all"), Replicated());
        const ProgramStep st = fused_step(p);
        CHECK(st.gathered == std::vector<int>{1});
        CHECK_FALSE(st.replicable);
    }
    {
        // The result left in slices: no member computes the others'.
        DFunc s = reduce_scatter(x, 0, ReduceOp::Sum, "s");
        DFunc y("y");
        y(i) = s(i) + whole(i);
        y.fuse_with(s);
        Program p("slices");
        p.output(y, Sliced(0));
        const ProgramStep st = fused_step(p);
        CHECK(st.gathered == std::vector<int>{0});
        CHECK_FALSE(st.replicable);
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

namespace {

// The extern stage of collective `name` in segment 0, with its descriptor.
struct Stage {
    Halide::DeviceAPI api;
    coconet_collective_desc desc;
};

Stage stage_of(const SpmdPipeline &spmd, const std::string &name) {
    for (const Halide::Func &out : spmd.segments[0].halide.pipeline.outputs()) {
        for (const auto &[n, fn] : Halide::Internal::find_transitive_calls(out.function())) {
            if (fn.name().rfind(name + "$", 0) == 0 && fn.has_extern_definition()) {
                Stage s{fn.extern_function_device_api(), {}};
                const Halide::Buffer<> &d = fn.extern_arguments()[2].buffer;
                REQUIRE(d.size_in_bytes() == sizeof(s.desc));
                std::memcpy(&s.desc, d.data(), sizeof(s.desc));
                return s;
            }
        }
    }
    std::string seen;
    for (const Halide::Func &out : spmd.segments[0].halide.pipeline.outputs()) {
        seen += out.name() + ": ";
        for (const auto &[n, fn] : Halide::Internal::find_transitive_calls(out.function())) {
            seen += n + " ";
        }
    }
    FAIL("no extern stage " << name << " in " << seen);
    return {};
}

} // namespace

TEST_CASE("lower_spmd: collective stages on a GPU target's device", "[passes][gpu]") {
    const int n = 10;
    DFunc g = input("g", Halide::Float(32), {n}, Local());
    DFunc h = input("h", Halide::Int(32), {n}, Local());
    DFunc sum = all_reduce(g, ReduceOp::Sum, "sum");
    DFunc biggest = all_reduce(h, ReduceOp::Max, "biggest");
    DFunc scattered = reduce_scatter(g, 0, ReduceOp::Prod, "scattered");
    DFunc rooted = reduce(g, 0, ReduceOp::Min, "rooted");
    Halide::RDom k(0, n);
    DFunc part("part");
    part() = 0.0f;
    part() += g(k);
    DFunc total = all_reduce(part, ReduceOp::Sum, "total");
    // A scalar read by a scalar that calls a host function (so is computed
    // on the host).
    DFunc peak_part("peak_part");
    peak_part() = 0.0f;
    peak_part() += g(k) * g(k);
    DFunc peak = all_reduce(peak_part, ReduceOp::Max, "peak");
    DFunc ranked("ranked");
    ranked() = peak() * Halide::cast<float>(Halide::Internal::Call::make(
                            Halide::Int(32), "host_fn", {}, Halide::Internal::Call::Extern));
    Var i;
    DFunc y("y");
    y(i) = sum(i) + Halide::cast<float>(biggest(i)) + total() + ranked();
    DFunc w("w");
    w(i) = rooted(i) + 1.0f;
    DFunc z("z");
    z(i) = scattered(i) * 2.0f;
    Program p("stages");
    p.output(y, Replicated()).output(z, Sliced(0)).output(w, Local());

    const LoweredProgram gpu = lower(p, LowerOptions{Halide::DeviceAPI::OpenCL, std::nullopt, ""});
    // Collectives of the world move on the device, a reduce and a scalar
    // read by kernels too; a scalar read by a host scalar stays on the host.
    for (const char *name : {"sum", "biggest", "scattered", "rooted", "total"}) {
        INFO(name);
        const Stage s = stage_of(gpu.spmd, name);
        CHECK(s.api == Halide::DeviceAPI::OpenCL);
        CHECK(s.desc.device == 1);
    }
    const Stage host_stage = stage_of(gpu.spmd, "peak");
    CHECK(host_stage.api == Halide::DeviceAPI::Host);
    CHECK(host_stage.desc.device == 0);
    CHECK(why_not_on_device(*contents(peak), gpu.analysis) ==
          "a scalar, read by host code: ranked (a scalar calling a host function)");
    CHECK(why_not_on_device(*contents(rooted), gpu.analysis).empty());
    // The executor refuses empty slices of the device stages' outputs.
    std::set<const DFuncContents *> stages(gpu.spmd.device_stages.begin(),
                                           gpu.spmd.device_stages.end());
    CHECK(stages == std::set<const DFuncContents *>{contents(sum), contents(biggest),
                                                    contents(scattered), contents(rooted),
                                                    contents(total)});
    // One combiner per op and type of a device reduction, the reduce's too.
    const std::vector<Combiner> combiners = device_combiners(gpu.analysis);
    REQUIRE(combiners.size() == 4);
    CHECK(combiners[0].op == ReduceOp::Sum);
    CHECK(combiners[0].type == Halide::Float(32));
    CHECK(combiners[1].op == ReduceOp::Prod);
    CHECK(combiners[2].op == ReduceOp::Max);
    CHECK(combiners[2].type == Halide::Int(32));
    CHECK(combiner_name(combiners[2]) == "max_int32");
    CHECK(combiners[3].op == ReduceOp::Min);
    CHECK(combiners[3].type == Halide::Float(32));
    const std::string text = device_collectives_text(gpu.analysis, gpu.spmd);
    CHECK_THAT(text, Contains("collectives on device buffers among ranks sharing the device"));
    CHECK_THAT(text, Contains("sum (all_reduce)"));
    CHECK_THAT(text, Contains("total (all_reduce)"));
    CHECK_THAT(
        text,
        Contains("peak (all_reduce: a scalar, read by host code: ranked (a scalar calling a host "
                 "function))"));

    // For the host, every stage is a host stage.
    const LoweredProgram host = lower(p);
    CHECK(host.spmd.device_stages.empty());
    for (const char *name : {"sum", "biggest", "scattered", "total", "rooted"}) {
        INFO(name);
        const Stage s = stage_of(host.spmd, name);
        CHECK(s.api == Halide::DeviceAPI::Host);
        CHECK(s.desc.device == 0);
    }
}
