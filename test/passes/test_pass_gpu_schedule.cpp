// The GPU schedule pass (schedule_for_gpu, gpu_tile_func) on tiny Halide
// pipelines: which Funcs become GPU kernels, which stay on the host and why,
// asserted on the placement, and that the scheduled pipeline lowers for an
// OpenCL target.
#include <functional>
#include <optional>

#include "Apps.h"
#include "Compile.h"
#include "FusedKernel.h"
#include "GpuSchedule.h"
#include "Lower.h"
#include "Rebuild.h"
#include "TestUtil.h"
#include "UserAttention.h"
#include "UserBlock.h"
#include "UserMlp.h"

using namespace coconet;
using Halide::Expr;
using Halide::Func;
using Halide::RDom;
using Halide::Var;
using Halide::Internal::Function;

namespace {

// Every Func has a non-empty box (no rank condition).
const NonEmptyBox always = coconet::every_box_nonempty();

// A host function of the user context, the runtime's coconet_rank as the
// lowering calls it (pure: Halide may lift it out of loops).
Expr host_rank(Halide::Internal::Call::CallType type = Halide::Internal::Call::PureExtern) {
    return Halide::Internal::Call::make(Halide::Int(32), "coconet_rank",
                                        {Halide::user_context_value()}, type);
}

// The kernel launches in a lowered pipeline's host code (calls of the
// device interface's halide_*_run): how many, and how many of them a loop
// around them repeats.
struct Launches {
    int launches = 0, in_loops = 0;
};

Launches launches_of(const Halide::Module &m) {
    class Count : public Halide::Internal::IRVisitor {
    public:
        Launches l;

    private:
        using IRVisitor::visit;
        int loops = 0;
        void visit(const Halide::Internal::For *op) override {
            const bool repeats = !Halide::Internal::is_const_one(op->extent);
            loops += repeats;
            IRVisitor::visit(op);
            loops -= repeats;
        }
        void visit(const Halide::Internal::Call *op) override {
            const std::string &n = op->name;
            if (n.rfind("halide_", 0) == 0 && n.size() > 4 && n.substr(n.size() - 4) == "_run") {
                l.launches++;
                l.in_loops += loops > 0;
            }
            IRVisitor::visit(op);
        }
    } count;
    for (const Halide::Internal::LoweredFunc &f : m.functions()) {
        f.body.accept(&count);
    }
    return count.l;
}

} // namespace

TEST_CASE("gpu_tile_func: elementwise Funcs and in-place reductions become kernels",
          "[passes][gpu]") {
    Var x("x"), y("y");
    RDom k(0, 8, "k");
    Func in("in"), mm("mm");
    in(x, y) = x + y;
    mm(x, y) = 0;
    mm(x, y) += in(k, y) * in(x, k);
    in.compute_root();
    CHECK(gpu_tile_func(in) == "");
    CHECK(gpu_tile_func(mm) == "");
    // The reduction runs inside each GPU thread, its loop unrolled by eight
    // so that eight loads are in flight.
    bool unrolled = false;
    for (const Halide::Internal::Dim &d : mm.function().update(0).schedule().dims()) {
        unrolled = unrolled ||
                   (d.for_type == Halide::Internal::ForType::Unrolled && d.var.rfind("k", 0) == 0);
    }
    CHECK(unrolled);
    bool split_by_eight = false;
    for (const Halide::Internal::Split &sp : mm.function().update(0).schedule().splits()) {
        split_by_eight = split_by_eight || (sp.old_var == "k$x" && is_const(sp.factor, 8));
    }
    CHECK(split_by_eight);
    // The pipeline lowers for a GPU target: every loop it mapped has a kernel.
    const Halide::Target t = Halide::get_host_target().with_feature(Halide::Target::OpenCL);
    CHECK_NOTHROW(Halide::Pipeline(mm).compile_to_module({}, "mm", t));
}

TEST_CASE("gpu_tile_func: dimensions beyond two are GPU blocks, not host loops", "[passes][gpu]") {
    // Four dimensions, elementwise: one launch, no host loop around it.
    Var x("x"), y("y"), z("z"), w("w");
    Func e("e");
    e(x, y, z, w) = x + y * z - w;
    CHECK(gpu_tile_func(e) == "");
    const Halide::Target t = Halide::get_host_target().with_feature(Halide::Target::OpenCL);
    const Launches elementwise = launches_of(Halide::Pipeline(e).compile_to_module({}, "e", t));
    CHECK(elementwise.launches == 1);
    CHECK(elementwise.in_loops == 0);
    // A batch of MatMuls (the default schedule's register tiles over its
    // first two dimensions) and its 3-D consumer: one launch each.
    DFunc a = input("a", Halide::Float(32), {64, 16}, Replicated());
    DFunc c = input("c", Halide::Float(32), {16, 32, 6}, Replicated());
    RDom r(0, 16, "r");
    DFunc batched("batched"), scaled("scaled");
    batched(x, y, z) = 0.0f;
    batched(x, y, z) += a(x, r) * c(r, y, z);
    scaled(x, y, z) = batched(x, y, z) * 2.0f;
    Program p("batched");
    p.output(scaled, Replicated());
    const LoweredProgram l = lower(p, LowerOptions{Halide::DeviceAPI::OpenCL, t, ""});
    REQUIRE(l.spmd.segments.size() == 1);
    const HalideSegment &h = l.spmd.segments[0].halide;
    schedule_segment_for_gpu(h, l.analysis, l.spmd);
    Halide::Pipeline pipeline = h.pipeline;
    const Launches batch = launches_of(pipeline.compile_to_module(
        std::vector<Halide::Argument>(h.params.begin(), h.params.end()), "batched", t));
    CHECK(batch.launches == 2);
    CHECK(batch.in_loops == 0);
}

TEST_CASE("gpu_tile_func: says why a Func stays on the host", "[passes][gpu]") {
    Var x("x");
    RDom k(0, 8, "k");
    Func scalar("scalar"), scatter("scatter"), calls("calls"), inlined("inlined"), reader("reader");
    scalar() = Halide::cast<float>(host_rank());
    CHECK(gpu_tile_func(scalar) == "a scalar calling a host function");

    scatter(x) = 0;
    scatter(k % 3) += 1;
    CHECK(gpu_tile_func(scatter) == "an update writes elsewhere than at its pure variables");

    calls(x) = x + host_rank();
    CHECK(gpu_tile_func(calls) == "calls a host function");

    // Also through an inlined Func.
    inlined(x) = host_rank() * x;
    reader(x) = inlined(x) + 1;
    CHECK(gpu_tile_func(reader) == "calls a host function");
}

TEST_CASE("gpu_tile_func: scalar reductions add interleaved parts on the device", "[passes][gpu]") {
    // A rank's part of a norm: a sum over its slice of an input (a value of
    // an earlier step), whose bounds the host computes. Its parts become a
    // Func of their own on the device, their sum one GPU thread (test_device
    // runs it).
    Halide::ImageParam in(Halide::Int(32), 1, "in");
    Func total("total");
    RDom k(host_rank() * 4, 20011, "k");
    total() = 0;
    total() += in(k)*in(k);
    total.compute_root();
    const GpuPlacement p = schedule_for_gpu(Halide::Pipeline(total), always);
    CHECK(p.gpu == std::vector<std::string>{"total"});
    CHECK(p.host.empty());
    const Halide::Target t = Halide::get_host_target()
                                 .with_feature(Halide::Target::OpenCL)
                                 .with_feature(Halide::Target::UserContext);
    CHECK_NOTHROW(Halide::Pipeline(total).compile_to_module({in}, "total", t));

    // A kernel per level (parts, parts of parts, then the sum's initial value
    // and its update), however many elements a part adds: a part's loop runs
    // inside its kernel, not around it.
    Func big("big");
    RDom many(0, 3 * 65536 + 5, "many");
    big() = 0.0f;
    big() += Halide::cast<float>(in(many));
    big.compute_root();
    schedule_for_gpu(Halide::Pipeline(big), always);
    const Launches launched = launches_of(Halide::Pipeline(big).compile_to_module({in}, "big", t));
    CHECK(launched.launches == 4);
    CHECK(launched.in_loops == 0);

    // Two reduction variables, a value or bounds calling the host impurely,
    // or an update Halide cannot split into parts stay on the host.
    RDom kk(0, 4, 0, 4, "kk");
    Func grid("grid"), ranked("ranked"), bounded("bounded"), chained("chained");
    grid() = 0;
    grid() += in(kk.x + kk.y);
    CHECK(gpu_tile_func(grid) == "a scalar reduction over more than one variable or update");
    ranked() = 0;
    ranked() += in(k)*host_rank();
    CHECK(gpu_tile_func(ranked) == "a scalar calling a host function");
    RDom impure(host_rank(Halide::Internal::Call::Extern), 8, "impure");
    bounded() = 0;
    bounded() += in(impure);
    CHECK(gpu_tile_func(bounded) == "a scalar reduction whose bounds call a host function");
    // An update Halide cannot split into parts runs on one GPU thread, in
    // order; so does a pure scalar (a clip factor).
    chained() = 1;
    chained() = chained() * 3 + in(k);
    Func factor("factor");
    factor() = Halide::select(in(0) > 1, 1.0f / in(0), 1.0f);
    for (Func f : {chained, factor}) {
        INFO(f.name());
        f.compute_root();
        CHECK(gpu_tile_func(f) == "");
        const Launches l = launches_of(Halide::Pipeline(f).compile_to_module({in}, f.name(), t));
        CHECK(l.launches == (int)f.function().updates().size() + 1);
        CHECK(l.in_loops == 0);
    }
}

namespace {

// A NonEmptyBox whose every box has `elements` elements.
NonEmptyBox boxes_of(int64_t elements) {
    return [=](const std::string &) {
        return GpuCondition{Halide::Internal::const_true(), "", elements};
    };
}

// The Func of pipeline p the GPU pass made for f's parts (rfactor's, stored
// by a wrapper at root), or nullptr.
std::optional<Halide::Internal::Function> parts_of(const Halide::Pipeline &p, const Func &f) {
    for (const auto &[name, fn] : pipeline_functions(p)) {
        if (name.rfind(f.name() + "_intm", 0) == 0 && name.find("wrapper") != std::string::npos) {
            return fn;
        }
    }
    return std::nullopt;
}

} // namespace

TEST_CASE("gpu_tile_func: a reduction into few elements adds its rows in parts", "[passes][gpu]") {
    const Halide::Target t = Halide::get_host_target()
                                 .with_feature(Halide::Target::OpenCL)
                                 .with_feature(Halide::Target::UserContext);
    Halide::ImageParam w(Halide::Float(32), 2, "w"), v(Halide::Float(32), 1, "v");
    Var x("x");
    RDom r(0, 4096, "r");
    // `along`: the weight's rows are contiguous along r (a LayerNorm's
    // tokens), else its columns (a GEMV over a weight stored by columns).
    auto gemv = [&](bool along, const std::string &name) {
        Func f(name);
        f(x) = 0.0f;
        f(x) += (along ? w(r, x) : w(x, r)) * v(r);
        f.compute_root();
        return f;
    };
    for (bool along : {true, false}) {
        INFO("along rows: " << along);
        // 64 rows of 4096: parts of 16 elements, 64 a row (2^18 threads); the
        // parts' kernel then the sum's initial value and its update, none
        // launched from a host loop.
        Func few = gemv(along, along ? "few_along" : "few_across");
        schedule_for_gpu(Halide::Pipeline(few), boxes_of(64));
        const std::optional<Halide::Internal::Function> parts =
            parts_of(Halide::Pipeline(few), few);
        REQUIRE(parts);
        const std::vector<Halide::Internal::Split> &splits =
            parts->definition().schedule().splits();
        REQUIRE(!splits.empty());
        // The threads of a warp along the parts where they read adjacent
        // elements, else along the rows.
        CHECK(splits[0].old_var == (along ? "rows_u" : "x"));
        const Launches l =
            launches_of(Halide::Pipeline(few).compile_to_module({w, v}, few.name(), t));
        CHECK(l.launches == 3);
        CHECK(l.in_loops == 0);
    }

    // Lanes of a vector, each a sum over every sixteenth element: the lanes
    // are adjacent in memory, so the warp runs along them, 16 wide.
    Func lanes("lanes");
    RDom j(0, 4096, "j");
    lanes(x) = 0.0f;
    lanes(x) += v(j * 16 + x);
    lanes.compute_root();
    schedule_for_gpu(Halide::Pipeline(lanes), boxes_of(16));
    const std::optional<Halide::Internal::Function> lane_parts =
        parts_of(Halide::Pipeline(lanes), lanes);
    REQUIRE(lane_parts);
    const Halide::Internal::Split &first = lane_parts->definition().schedule().splits().at(0);
    CHECK(first.old_var == "x");
    CHECK(Halide::Internal::is_const(first.factor, 16));

    // Many rows, or rows too short to split, keep a GPU thread per row.
    Func many = gemv(true, "many");
    schedule_for_gpu(Halide::Pipeline(many), boxes_of(1 << 20));
    CHECK(!parts_of(Halide::Pipeline(many), many));
    Func unknown = gemv(true, "unknown");
    schedule_for_gpu(Halide::Pipeline(unknown), always);
    CHECK(!parts_of(Halide::Pipeline(unknown), unknown));
    Func shorter("shorter");
    RDom k(0, 32, "k");
    shorter(x) = 0.0f;
    shorter(x) += w(k, x);
    shorter.compute_root();
    schedule_for_gpu(Halide::Pipeline(shorter), boxes_of(64));
    CHECK(!parts_of(Halide::Pipeline(shorter), shorter));

    // An update Halide cannot split into parts adds in order, on the GPU.
    Func chained("chained");
    chained(x) = 0.0f;
    chained(x) = chained(x) * 0.5f + w(r, x);
    chained.compute_root();
    const GpuPlacement p = schedule_for_gpu(Halide::Pipeline(chained), boxes_of(64));
    CHECK(p.gpu == std::vector<std::string>{"chained"});
    CHECK(p.row_parts.empty());
    CHECK(!parts_of(Halide::Pipeline(chained), chained));
    const Launches l = launches_of(Halide::Pipeline(chained).compile_to_module({w}, "chained", t));
    CHECK(l.launches == 2);
    CHECK(l.in_loops == 0);
}

TEST_CASE("schedule_for_gpu: no host scalar reads a scalar a device stage writes",
          "[passes][gpu]") {
    // Halide copies around the statements touching a buffer, loop-free ones
    // together: the host scalar would read the copy from before the stage.
    // The lowering keeps such stages on the host; a pipeline that has one
    // anyway is an internal error, not a wrong result.
    Halide::ImageParam in(Halide::Float(32), 0, "in");
    Func stage("stage"), host_scalar("host_scalar");
    stage.define_extern("device_stage", {in}, Halide::Float(32), 0, Halide::NameMangling::C,
                        Halide::DeviceAPI::OpenCL);
    stage.compute_root();
    host_scalar() = stage() * Halide::cast<float>(host_rank());
    host_scalar.compute_root();
    CHECK_THROWS_AS(schedule_for_gpu(Halide::Pipeline(host_scalar), always), InternalError);
}

TEST_CASE("gpu_tile_func: reduction bounds may call host functions", "[passes][gpu]") {
    // A rank's slice of a sliced contraction: Halide computes the bounds on
    // the host and hands them to the kernel.
    Var x("x");
    Func in("in"), part("part");
    in(x) = x;
    in.compute_root();
    RDom k(host_rank() * 4, 4, "k");
    part(x) = 0;
    part(x) += in(k)*x;
    CHECK(gpu_tile_func(part) == "");
    const Halide::Target t = Halide::get_host_target()
                                 .with_feature(Halide::Target::OpenCL)
                                 .with_feature(Halide::Target::UserContext);
    CHECK_NOTHROW(Halide::Pipeline(part).compile_to_module({}, "part", t));
}

TEST_CASE("schedule_for_gpu: the placement and its text", "[passes][gpu]") {
    Var x("x");
    Func a("a"), user("user"), total("total");
    a(x) = x * 2;
    user(x) = a(x) + 1;
    total() = 0;
    RDom r(0, 16, "r");
    total() += user(r);
    a.compute_root();
    user.compute_root().vectorize(x, 4); // the user's schedule stays
    total.compute_root();

    const GpuPlacement p = schedule_for_gpu(Halide::Pipeline(total), always);
    CHECK(p.gpu == std::vector<std::string>{"a", "total"}); // a scalar reduction too
    REQUIRE(p.host.size() == 1);
    CHECK(p.host[0] == std::make_pair(std::string("user"), std::string("scheduled by the user")));
    CHECK(placement_text(p) ==
          "GPU kernels for a, total; on the host: user (scheduled by the user)");
    CHECK(placement_text(GpuPlacement{}) == "no computation");

    // A Func whose box may be empty is not mapped where nonempty says "never".
    Func b("b");
    b(x) = x;
    b.compute_root();
    const NonEmptyBox never = [](const std::string &) { return GpuCondition{Expr(), "why"}; };
    const GpuPlacement q = schedule_for_gpu(Halide::Pipeline(b), never);
    CHECK(q.gpu.empty());
    REQUIRE(q.host.size() == 1);
    CHECK(q.host[0].second == "why");
}

TEST_CASE("schedule_segment_for_gpu: slices and groups under their condition", "[passes][gpu]") {
    // Megatron's MatMuls are slices and Local sums of the world: kernels.
    apps::MlpConfig mlp;
    mlp.gpu = true;
    LoweredProgram m = lower(apps::megatron_mlp(mlp));
    std::vector<std::string> gpu;
    for (SpmdSegment &seg : m.spmd.segments) {
        if (seg.halide.pipeline.defined()) {
            const GpuPlacement p = schedule_segment_for_gpu(seg.halide, m.analysis, m.spmd);
            gpu.insert(gpu.end(), p.gpu.begin(), p.gpu.end());
        }
    }
    CHECK(std::count(gpu.begin(), gpu.end(), "hidden") == 1);
    CHECK(std::count(gpu.begin(), gpu.end(), "partial") == 1);

    // The pipeline's stages live on groups of world.split(2): kernels where
    // the rank is in the group. On the other groups' ranks, the buffers the
    // segment allocates for them are stand-ins of one element (Halide's GPU
    // runtimes abort on an empty one), and a collective's result that a
    // kernel reads is read through a copy stored so; outputs are the
    // executor's.
    apps::PipelineConfig pipe;
    pipe.gpu = true;
    LoweredProgram p = lower(apps::two_stage_pipeline(pipe));
    gpu.clear();
    std::map<std::string, Function> funcs;
    for (SpmdSegment &seg : p.spmd.segments) {
        if (seg.halide.pipeline.defined()) {
            const GpuPlacement g = schedule_segment_for_gpu(seg.halide, p.analysis, p.spmd);
            CHECK(g.host.empty());
            gpu.insert(gpu.end(), g.gpu.begin(), g.gpu.end());
            const std::map<std::string, Function> more = pipeline_functions(seg.halide.pipeline);
            funcs.insert(more.begin(), more.end());
        }
    }
    for (const char *f : {"p0", "a0", "p1", "y"}) {
        CHECK(std::count(gpu.begin(), gpu.end(), f) == 1);
    }
    std::map<std::string, bool> stand_in;
    for (const auto &[name, fn] : funcs) {
        bool bounded = fn.dimensions() > 0;
        for (const Halide::Internal::StorageDim &d : fn.schedule().storage_dims()) {
            bounded = bounded && d.bound.defined();
        }
        stand_in[plain_name(name) + (name.find("wrapper") != std::string::npos ? " copy" : "")] =
            bounded;
    }
    CHECK(stand_in.at("p0"));
    CHECK(stand_in.at("a0"));
    CHECK(stand_in.at("s0 copy"));
    CHECK_FALSE(stand_in.at("s0")); // the collective's own result: the rank's box
    CHECK_FALSE(stand_in.at("y"));  // an output
}

TEST_CASE("schedule_for_gpu: readers of extern stages are kernels, returned or not",
          "[passes][gpu]") {
    // t is an extern stage (as a collective is). Where the pipeline also
    // returns it, Halide launches its readers' kernels without copying it to
    // the device, so the executor gives such a result a device allocation
    // before the call (test_device's fused clipped SGD runs that case).
    Var x("x");
    Func in("in"), t("t"), reader("reader"), other("other");
    in(x) = x * 2;
    in.compute_root();
    t.define_extern("coconet_test_stage", {in}, Halide::Float(32), 1);
    t.compute_root();
    reader(x) = t(x) + 1.0f;
    other(x) = Halide::cast<float>(in(x)) * 3.0f;
    reader.compute_root();
    other.compute_root();
    const GpuPlacement returned = schedule_for_gpu(Halide::Pipeline({t, reader, other}), always);
    CHECK(returned.host.empty());
    for (const char *f : {"in", "reader", "other"}) {
        CHECK(std::count(returned.gpu.begin(), returned.gpu.end(), f) == 1);
    }
}

namespace {

// The fused pass of b = a * t, a = m + t (t an all_reduce split in two and
// fused with both), with b and a's slices as outputs; `schedule` may touch a.
FusedKernelPipeline fused_kernel_of(const Halide::Target &target,
                                    const std::function<void(DFunc &)> &schedule = {}) {
    auto [g, m, t] = coconet_test::split_sum();
    Var i("i");
    DFunc a("a"), b("b");
    a(i) = m(i) + t(i);
    b(i) = a(i) * t(i);
    b.fuse_with(t);
    a.fuse_with(t);
    if (schedule) {
        schedule(a);
    }
    Program p("fusion");
    p.output(a, Sliced(0));
    p.output(b, Sliced(0));
    const LoweredProgram lowered = lower(p);
    REQUIRE(lowered.spmd.passes.size() == 1);
    REQUIRE(lowered.spmd.passes[0].outputs.size() == 2);
    return build_fused_kernel(lowered.spmd.passes[0], lowered.analysis, 3, target);
}

} // namespace

TEST_CASE("build_fused_kernel: one GPU kernel computes every output of a pass", "[passes][gpu]") {
    const Halide::Target opencl = Halide::get_host_target().with_feature(Halide::Target::OpenCL);
    // On a GPU: one Tuple-valued kernel, its elements the outputs in order
    // (a, b), so each source element is read once and nothing in between is
    // written.
    FusedKernelPipeline k = fused_kernel_of(opencl);
    CHECK(k.on_gpu);
    CHECK(k.one_kernel);
    REQUIRE(k.pipeline.outputs().size() == 1);
    CHECK(k.pipeline.outputs()[0].outputs() == 2);
    CHECK(k.arguments.size() == 3 + 1 + 2); // sources, m, rank and size
    k.pipeline.compile_to_module(k.arguments, "one_kernel", opencl);
    // On the CPU: a vectorized loop per output.
    k = fused_kernel_of(Halide::get_host_target());
    CHECK_FALSE(k.on_gpu);
    CHECK_FALSE(k.one_kernel);
    CHECK(k.pipeline.outputs().size() == 2);
    // A member the user scheduled keeps its schedule: a kernel per output.
    k = fused_kernel_of(opencl, [](DFunc &a) { a.func().vectorize(a.func().args()[0], 4); });
    CHECK_FALSE(k.one_kernel);
    CHECK(k.pipeline.outputs().size() == 2);
}

TEST_CASE("every app's GPU build launches its kernels outside host loops", "[passes][gpu]") {
    // A launch inside a host loop runs the kernel once per element of that
    // loop, as a norm's parts and a batch's MatMuls once did: every function
    // of every app's OpenCL build (segments and fused kernels), lowered.
    CompileOptions o;
    o.target = Halide::get_host_target()
                   .with_feature(Halide::Target::OpenCL)
                   .with_feature(Halide::Target::CLDoubles)
                   .with_feature(Halide::Target::UserContext)
                   .with_feature(Halide::Target::StrictFloat);
    // A fused pass's kernel for two ranks' sources (one that gathers only: none).
    o.kernel_sources = [](const FusedPass &g, const Analysis &) {
        return std::set<int>{g.reduces() ? 2 : 0};
    };
    std::vector<std::pair<std::string, std::function<Program()>>> programs = {
        {"user_block", [] { return user_block(64, 96); }},
        {"user_attention", [] { return user_attention(16, 4, 48); }},
        {"user_mlp", [] { return user_mlp(64, 256, 48); }}};
    for (const apps::AppCase &c : apps::all_apps(false, true)) {
        programs.emplace_back(c.name, c.make);
    }
    for (const auto &[name, make] : programs) {
        INFO(name);
        int launches = 0;
        compile_program(make(), o, [&](ProgramFunction &f) {
            INFO(f.name);
            const Launches l =
                launches_of(f.pipeline.compile_to_module(f.arguments, f.name, o.target));
            CHECK(l.in_loops == 0);
            launches += l.launches;
        });
        // The pipeline's stages are on groups of world.split, on the host.
        if (name.rfind("two_stage_pipeline", 0) != 0) {
            CHECK(launches > 0);
        }
    }
}
