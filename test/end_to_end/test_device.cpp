// Every app and fused operator under every schedule (none, split, fused,
// overlapped) as JIT programs for an OpenCL target, on 1 to 4 thread ranks
// sharing one device (PoCL in CI: CTest pins the platform), at sizes that 3
// ranks do not divide: equal to the reference bit for bit, except the
// Megatron block, whose GELU calls the device's exp (it differs from the
// host's in the last place). COCONET_TEST_DEVICE=cuda runs the same cases on
// a CUDA GPU (test device_cuda, label gpu), to 1e-5: Halide's PTX backend
// contracts a * b + c into one rounding (aot_main.cpp says more). The GPU schedules put every Func
// they can on the device (test_pass_gpu_schedule says which cannot), so a wrong copy between host
// and device shows here as a wrong result.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "Apps.h"
#include "GpuSchedule.h"
#include "TestUtil.h"

using namespace coconet;
using coconet_test::check_matches_reference;

namespace {

struct Device {
    Halide::Target target;
    Halide::DeviceAPI api;
    double min_tolerance; // what the device's rounding adds to every comparison
};

Device device_under_test() {
    const char *name = std::getenv("COCONET_TEST_DEVICE");
    if (name && std::strcmp(name, "cuda") == 0) {
        return {Halide::get_host_target()
                    .with_feature(Halide::Target::CUDA)
                    .with_feature(Halide::Target::CUDACapability80),
                Halide::DeviceAPI::CUDA, 1e-5};
    }
    if (name && std::strcmp(name, "opencl") != 0) {
        std::fprintf(stderr, "COCONET_TEST_DEVICE=%s: expected opencl or cuda\n", name);
        std::exit(2);
    }
    return {Halide::get_host_target()
                .with_feature(Halide::Target::OpenCL)
                .with_feature(Halide::Target::CLDoubles),
            Halide::DeviceAPI::OpenCL, 0.0};
}

const Device device = device_under_test();
const Halide::Target &target = device.target;
const JitOptions device_options = [] {
    JitOptions o;
    o.target = target;
    return o;
}();

double within(double tolerance) {
    return std::max(tolerance, device.min_tolerance);
}

const std::vector<int> ranks = {1, 2, 3, 4};

// The all_apps cases of one app ("adam", "adam (split)", ...), on the device.
void check_app_on_device(const std::string &app, double tolerance = 0.0, int min_cases = 3) {
    int cases = 0;
    for (const apps::AppCase &c : apps::all_apps(false, true)) {
        if (c.name != app && c.name.rfind(app + " (", 0) != 0) {
            continue;
        }
        INFO(c.name);
        check_matches_reference(c.make(), ranks, within(tolerance), c.min_ranks, c.inputs,
                                device_options);
        cases++;
    }
    CHECK(cases >= min_cases);
}

const std::vector<apps::Schedule> schedules = {apps::Schedule::None, apps::Schedule::Split,
                                               apps::Schedule::Fused};

} // namespace

TEST_CASE("adam on the device", "[device][adam]") {
    check_app_on_device("adam");
    // A JIT program's plan says what its fused kernels will be, before they
    // are compiled at first use.
    apps::OptimizerConfig c;
    c.schedule = apps::Schedule::Fused;
    c.gpu = true;
    CHECK_THAT(JitProgram(apps::adam(c), target).plan(2),
               Catch::Matchers::Contains(": one GPU kernel for all outputs"));
}

TEST_CASE("a scalar reduction adds its parts on the device", "[device][lamb]") {
    // The GPU pass's three levels (parts, parts of parts, one thread) over
    // more elements than parts and not a multiple of them; integers, so any
    // order of addition gives the exact sum.
    for (int n : {1000, 70001, 300007}) {
        INFO(n << " elements");
        Halide::ImageParam in(Halide::Int(32), 1, "in");
        Halide::RDom k(0, n, "k");
        Halide::Func total("total");
        total() = Halide::cast<int64_t>(0);
        total() += Halide::cast<int64_t>(in(k)*in(k));
        total.compute_root();
        const GpuPlacement p = schedule_for_gpu(Halide::Pipeline(total), every_box_nonempty());
        CHECK(p.gpu == std::vector<std::string>{"total"});
        Halide::Buffer<int32_t> x(n);
        int64_t want = 0;
        for (int i = 0; i < n; i++) {
            x(i) = i % 1009 - 504;
            want += (int64_t)x(i) * x(i);
        }
        in.set(x);
        Halide::Buffer<int64_t> got = Halide::Pipeline(total).realize({}, target);
        got.copy_to_host();
        CHECK(got() == want);
    }
}

// The optimizers' scalars (norms, their all_reduce, the clip factor, the
// trust ratio) run on the device: no Func on the host, no collective through
// host memory, unscheduled and fused.
void check_scalars_on_device(Program (*app)(const apps::OptimizerConfig &)) {
    for (apps::Schedule s : {apps::Schedule::None, apps::Schedule::Fused}) {
        apps::OptimizerConfig c;
        c.schedule = s;
        c.gpu = true;
        const std::string plan = JitProgram(app(c), target).plan(2);
        INFO(plan);
        CHECK_THAT(plan, !Catch::Matchers::Contains("on the host:"));
        CHECK_THAT(plan, !Catch::Matchers::Contains("collectives through host memory"));
    }
}

TEST_CASE("lamb on the device", "[device][lamb]") {
    check_app_on_device("lamb");
    check_scalars_on_device(apps::lamb);
}

TEST_CASE("megatron_mlp on the device", "[device][megatron]") {
    check_app_on_device("megatron_mlp", 1e-5);
}

TEST_CASE("sgd_clip on the device", "[device][sgd_clip]") {
    check_app_on_device("sgd_clip", 0.0, 2);
    check_scalars_on_device(apps::sgd_clip);
    // Fused, the step returns the reduced gradients (the pass's source) and
    // computes their norm: a kernel on the device, not a copy to the host.
    apps::OptimizerConfig c;
    c.schedule = apps::Schedule::Fused;
    c.gpu = true;
    const std::string plan = JitProgram(apps::sgd_clip(c), target).plan(2);
    CHECK_THAT(plan, Catch::Matchers::Contains("GPU kernels for norm2_part"));
    CHECK_THAT(plan, !Catch::Matchers::Contains("on the host: norm2_part"));
}

TEST_CASE("scalar collectives stay on the device unless a host scalar reads them",
          "[device][scalars]") {
    // A clip of the gradient by its global norm: the norm's all_reduce, the
    // clip factor and the update on the device. A second scalar all_reduce
    // is read by a scalar that calls a host function (libc's abs), which
    // stays on the host: the all_reduce must stay a host stage, or that
    // scalar, the step's last statement, reads the host copy from before it.
    const int n = 37;
    DFunc g = input("g", Halide::Float(32), {n}, Local());
    Halide::Var i("i");
    Halide::RDom k(0, n, "k");
    DFunc part("part");
    part() = 0.0f;
    part() += g(k) * g(k);
    DFunc norm2 = all_reduce(part, ReduceOp::Sum, "norm2");
    DFunc factor("factor");
    factor() = Halide::select(norm2() > 1.0f, 1.0f / Halide::sqrt(norm2()), 1.0f);
    DFunc peak = all_reduce(part, ReduceOp::Max, "peak");
    DFunc shifted("shifted");
    const Halide::Expr two = Halide::Internal::Call::make(
        Halide::Int(32), "abs", {Halide::Expr(-2)}, Halide::Internal::Call::Extern);
    shifted() = peak() * Halide::cast<float>(two);
    DFunc clipped("clipped");
    clipped(i) = g(i) * factor();
    Program p("clip");
    p.output(clipped, Local()).output(shifted, Replicated());
    const std::string plan = JitProgram(p, target).plan(3);
    CHECK_THAT(plan, Catch::Matchers::Contains("GPU kernels for clipped, factor, part"));
    CHECK_THAT(
        plan, Catch::Matchers::Contains("on the host: shifted (a scalar calling a host function)"));
    CHECK_THAT(plan, Catch::Matchers::Contains("norm2 (all_reduce)"));
    CHECK_THAT(plan, Catch::Matchers::Contains("peak (all_reduce: a scalar, read by host code: "
                                               "shifted (a scalar calling a host function))"));
    check_matches_reference(p, ranks, within(1e-6), 1, make_inputs, device_options);
}

TEST_CASE("MatMuls in GPU register tiles equal the reference, tails and slices included",
          "[device][matmul]") {
    coconet_test::ScopedEnv kernels("COCONET_GPU_MATMUL", "kernels");
    // Sizes no tile divides: a MatMul of each rank's own operand, and the
    // Local partial sums of a contraction along a sliced dimension (each
    // rank's tiles add its slice, bounds from its rank), then all_reduced.
    DFunc a = input("a", Halide::Float(32), {37, 13}, Replicated());
    DFunc b = input("b", Halide::Float(32), {13, 11}, Local());
    DFunc as = input("as", Halide::Float(32), {37, 13}, Sliced(1));
    DFunc bs = input("bs", Halide::Float(32), {13, 11}, Sliced(0));
    Halide::Var x("x"), y("y");
    Halide::RDom r(0, 13, "r");
    DFunc own("own"), partial("partial");
    own(x, y) = 0.0f;
    own(x, y) += a(x, r) * b(r, y);
    partial(x, y) = 0.0f;
    partial(x, y) += as(x, r) * bs(r, y);
    DFunc summed = all_reduce(partial, ReduceOp::Sum, "summed");
    // A batch of MatMuls (a third dimension) contracting two variables.
    DFunc cube = input("cube", Halide::Float(32), {9, 5, 3}, Replicated());
    Halide::Var z("z");
    Halide::RDom rr(0, 3, 0, 5, "rr");
    DFunc batched("batched", {37, 9, 2});
    batched(x, y, z) = 0.0f;
    batched(x, y, z) += a(x, rr.y + rr.x) * cube(y, rr.y, rr.x) * Halide::cast<float>(z + 1);
    // A column-parallel MatMul: each rank's rows.
    DFunc rows("rows");
    rows(x, y) = 0.0f;
    rows(x, y) += as(r, x) * a(y, r);
    Program p("matmuls");
    p.output(own, Local()).output(summed, Replicated()).output(batched, Replicated());
    p.output(rows, Sliced(0));
    const std::string plan = JitProgram(p, target).plan(3);
    for (const char *f : {"own", "partial", "batched", "rows"}) {
        CHECK_THAT(plan, Catch::Matchers::Contains(std::string(f) +
                                                   ": a GPU thread per register tile of 4 x 8"));
    }
    check_matches_reference(p, ranks, within(0.0), 1, make_inputs, device_options);
}

TEST_CASE("embedding + all_to_all on the device", "[device][embedding]") {
    apps::EmbeddingConfig c;
    c.gpu = true;
    // Samples per tile that no rank count divides, and that leave every
    // rank some (the all_to_all's result is a slice on the device).
    c.tile = 7;
    for (int chunks : {0, 3}) {
        INFO("overlap " << chunks);
        c.overlap = chunks;
        check_matches_reference(apps::embedding_all_to_all(c), ranks, within(0.0), 1, make_inputs,
                                device_options);
    }
}

TEST_CASE("gemv + all_reduce on the device", "[device][gemv]") {
    apps::GemvConfig c;
    c.gpu = true;
    for (apps::Schedule s : schedules) {
        for (int chunks : {0, 3}) {
            INFO(apps::to_string(s) << ", overlap " << chunks);
            c.schedule = s;
            c.overlap = chunks;
            check_matches_reference(apps::gemv_all_reduce(c), ranks, within(0.0), 1, make_inputs,
                                    device_options);
        }
    }
}

TEST_CASE("reductions into few elements add their rows in parts on the device", "[device][gemv]") {
    // Few rows, long ones: a GEMV's partial sums along a long sliced
    // contraction (its weight's rows across the threads of a warp), and a
    // LayerNorm's statistics of a few tokens (each token's features along
    // them). The GPU pass adds each row in parts, a kernel of their own, so
    // the sums are the reference's within rounding, not bit for bit.
    apps::GemvConfig c;
    c.gpu = true;
    c.tiles = 2;
    c.cols = 3001;
    const Program gemv = apps::gemv_all_reduce(c);
    CHECK_THAT(JitProgram(gemv, target).plan(2),
               Catch::Matchers::Contains("partial (rows added in 64 parts)"));
    // Sums of 3001 products reach about 50, where the orders differ by up to
    // 3.8e-5 on PoCL; a part lost or added twice would differ by about 1.
    check_matches_reference(gemv, ranks, within(5e-4), 1, make_inputs, device_options);

    auto layer_norm = [](int tokens) {
        const int width = 512;
        DFunc x = input("x", Halide::Float(32), {width, tokens}, Sliced(1));
        Halide::Var h("h"), t("t");
        Halide::RDom k(0, width, "k");
        DFunc mean("mean"), var("var"), normed("normed");
        mean(t) = 0.0f;
        mean(t) += x(k, t) / width;
        var(t) = 0.0f;
        var(t) += (x(k, t) - mean(t)) * (x(k, t) - mean(t)) / width;
        normed(h, t) = (x(h, t) - mean(t)) / Halide::sqrt(var(t) + 1e-5f);
        Program norm("layer_norm");
        norm.output(normed, Sliced(1));
        return norm;
    };
    const Program norm = layer_norm(23);
    const std::string plan = JitProgram(norm, target).plan(2);
    CHECK_THAT(plan, Catch::Matchers::Contains("mean (rows added in 32 parts)"));
    CHECK_THAT(plan, Catch::Matchers::Contains("var (rows added in 32 parts)"));
    // Normalized outputs within 1e-6 on PoCL.
    check_matches_reference(norm, ranks, within(1e-5), 1, make_inputs, device_options);
    // A rank without tokens is refused, the parts' buffers as every other.
    const Program seven = layer_norm(7);
    const std::string message = coconet_test::message_of<RuntimeError>(
        [&] { JitProgram(seven, target).run_threads(8, make_inputs(seven, 8, 1), 5.0); });
    CHECK_THAT(message, Catch::Matchers::Contains("which leaves rank 7 none"));

    // A few tokens by a large weight: too few register tiles to fill a GPU,
    // so a MatMul too (test_pass_default_schedule), where no BLAS computes it.
    coconet_test::ScopedEnv kernels("COCONET_GPU_MATMUL", "kernels");
    DFunc wt = input("wt", Halide::Float(32), {64, 1500}, Replicated());
    DFunc tokens = input("tokens", Halide::Float(32), {1500, 7}, Sliced(1));
    Halide::Var i("i"), j("j");
    Halide::RDom f(0, 1500, "f");
    DFunc out("out");
    out(i, j) = 0.0f;
    out(i, j) += wt(i, f) * tokens(f, j);
    Program few("few_tokens");
    few.output(out, Sliced(1));
    CHECK_THAT(JitProgram(few, target).plan(2),
               Catch::Matchers::Contains("out (rows added in 64 parts)"));
    check_matches_reference(few, ranks, within(5e-4), 1, make_inputs, device_options);
}

TEST_CASE("gemm + all_to_all on the device", "[device][gemm]") {
    apps::GemmConfig c;
    c.gpu = true;
    c.capacity = 7; // as the embedding's tile
    for (int chunks : {0, 3}) {
        INFO("overlap " << chunks);
        c.overlap = chunks;
        check_matches_reference(apps::gemm_all_to_all(c), ranks, within(0.0), 1, make_inputs,
                                device_options);
    }
}

TEST_CASE("a rank without a slice is refused on a device, not aborted", "[device][adam]") {
    // 7 parameters in blocks of 1 on 8 ranks: rank 7 holds no slice.
    apps::OptimizerConfig c;
    c.n = 7;
    c.gpu = true;
    const Program p = apps::adam(c);
    const std::string message = coconet_test::message_of<RuntimeError>(
        [&] { JitProgram(p, target).run_threads(8, apps::optimizer_inputs(p, 8, 1), 5.0); });
    CHECK_THAT(message, Catch::Matchers::Contains("of 7 elements in blocks of 1 over 8 ranks, "
                                                  "which leaves rank 7 none"));
    // On the host the same world computes.
    check_matches_reference(p, {8}, 0.0, 1, apps::optimizer_inputs);
}

TEST_CASE("a rank without a slice of a device collective's result is refused", "[device][adam]") {
    // A reduce_scatter on the device whose result only the host reads: no
    // GPU kernel touches it, and Halide still allocates it on the device.
    DFunc g = input("g", Halide::Float(32), {5}, Local());
    DFunc s = reduce_scatter(g, 0, ReduceOp::Sum, "s");
    Program p("scatter");
    p.output(s, Sliced(0));
    JitProgram jit(p, target);
    const std::string message = coconet_test::message_of<RuntimeError>(
        [&] { jit.run_threads(6, make_inputs(p, 6, 1), 5.0); });
    CHECK_THAT(message, Catch::Matchers::Contains("'s' is sliced along dimension 0 of 5 elements "
                                                  "in blocks of 1 over 6 ranks, which leaves "
                                                  "rank 5 none; it is a collective's result on "
                                                  "the device"));
    // Where every rank has a slice, it runs on the device and is right.
    check_matches_reference(p, {1, 2, 3, 5}, 0.0, 1, make_inputs, device_options);

    // The same on a group of world.split: the message names the group's
    // ranks, and the world rank left without a slice.
    const Group second = Group::world().split(2)[1];
    DFunc h = input("h", Halide::Float(32), {2}, Local(second));
    DFunc t = reduce_scatter(h, 0, ReduceOp::Sum, "t");
    Program q("group_scatter");
    q.output(t, Sliced(0, second));
    const std::string in_group = coconet_test::message_of<RuntimeError>(
        [&] { JitProgram(q, target).run_threads(6, make_inputs(q, 6, 1), 5.0); });
    CHECK_THAT(in_group, Catch::Matchers::Contains("'t' is sliced along dimension 0 of 2 elements "
                                                   "in blocks of 1 over the 3 ranks of its group "
                                                   "(3 to 5), which leaves rank 5 none"));
}

namespace {

// Rank inputs copied to the device, as a caller keeping its data
// there passes them (the host copies then hold garbage, to show they are
// not read).
std::vector<RankBuffers> on_device(const std::vector<RankBuffers> &inputs) {
    std::vector<RankBuffers> out(inputs.size());
    for (size_t r = 0; r < inputs.size(); r++) {
        for (const auto &[name, b] : inputs[r]) {
            Halide::Buffer<> d = b.copy();
            if (d.number_of_elements() > 0) {
                d.copy_to_device(device.api, target);
                std::memset(d.data(), 0xff, d.size_in_bytes());
                d.set_device_dirty(true);
            }
            out[r][name] = d;
        }
    }
    return out;
}

// The program run on r ranks with its inputs and outputs on the device:
// outputs (copied back to the host for the comparison) and each rank's
// traffic.
std::vector<RankBuffers> run_resident(const JitProgram &jit, int r,
                                      const std::vector<RankBuffers> &inputs,
                                      std::vector<RankTraffic> &traffic) {
    std::vector<RankBuffers> outputs = jit.run_threads(r, on_device(inputs), 10.0, &traffic);
    for (RankBuffers &rank : outputs) {
        for (auto &[name, b] : rank) {
            INFO("output " << name);
            CHECK((b.number_of_elements() == 0 || b.raw_buffer()->device_dirty()));
            b.copy_to_host();
        }
    }
    return outputs;
}

// Programs whose steps are Halide pipelines, fused passes and collectives,
// all on the device: a call whose caller keeps its data on the device copies
// nothing between host and device, on every rank, and computes the reference.
void check_resident(const Program &p, double tolerance,
                    const coconet_test::InputMaker &make = make_inputs, int min_ranks = 1) {
    JitProgram jit(p, target);
    Reference reference(p);
    for (int r : ranks) {
        if (r < min_ranks) {
            continue;
        }
        INFO(p.name() << " on " << r << " ranks");
        const auto inputs = make(p, r, 11 + r);
        std::vector<RankTraffic> traffic;
        const auto outputs = run_resident(jit, r, inputs, traffic);
        CHECK(max_abs_diff(outputs, reference.run(r, inputs)) <= within(tolerance));
        for (int q = 0; q < r; q++) {
            INFO("rank " << q);
            CHECK(traffic[q].bytes[COCONET_HOST_DEVICE] == 0);
            uint64_t ops = 0; // collectives and passes: the call communicated
            for (int k = 0; k <= COCONET_FUSED; k++) {
                ops += traffic[q].ops[k];
            }
            CHECK(ops > 0);
        }
        // The counter counts: host buffers are copied in and out.
        jit.run_threads(r, inputs, 10.0, &traffic);
        for (int q = 0; q < r; q++) {
            CHECK(traffic[q].bytes[COCONET_HOST_DEVICE] > 0);
        }
    }
}

// Fused passes, whole and overlapped with their producer (pieces of every
// slice): Adam, the Megatron block and the GEMV, fused.
void check_fused_resident() {
    apps::OptimizerConfig adam;
    adam.gpu = true;
    adam.schedule = apps::Schedule::Fused;
    check_resident(apps::adam(adam), 0.0, apps::optimizer_inputs);
    apps::MlpConfig megatron;
    megatron.gpu = true;
    megatron.schedule = apps::Schedule::Fused;
    check_resident(apps::megatron_mlp(megatron), 1e-5);
    megatron.overlap = 3;
    check_resident(apps::megatron_mlp(megatron), 1e-5);
    apps::GemvConfig gemv;
    gemv.gpu = true;
    gemv.schedule = apps::Schedule::Fused;
    for (int chunks : {0, 3}) {
        INFO("gemv, overlap " << chunks);
        gemv.overlap = chunks;
        check_resident(apps::gemv_all_reduce(gemv), 0.0);
    }
}

} // namespace

TEST_CASE("device-resident calls copy nothing between host and device", "[device][resident]") {
    check_fused_resident();
}

TEST_CASE("unfused collectives among ranks sharing a device copy nothing to the host",
          "[device][resident]") {
    // all_reduce and reduce_scatter (the program's combiner kernel folds the
    // ranks' device buffers in rank order) and all_gather (device copies
    // between ranks).
    apps::OptimizerConfig adam;
    adam.gpu = true;
    check_resident(apps::adam(adam), 0.0, apps::optimizer_inputs);
    adam.schedule = apps::Schedule::Split; // a reduce_scatter, its consumers on slices
    check_resident(apps::adam(adam), 0.0, apps::optimizer_inputs);
    apps::MlpConfig megatron;
    megatron.gpu = true;
    check_resident(apps::megatron_mlp(megatron), 1e-5);
    apps::GemvConfig gemv;
    gemv.gpu = true;
    check_resident(apps::gemv_all_reduce(gemv), 0.0);
    // The combiner folds the inputs where they are, each rank's block
    // written into its output in place where the block starts a page (2 and
    // 4 ranks here: blocks of 8 and 4 rows of 256 floats) and through a copy
    // elsewhere (3 ranks); a reduce_scatter's slice always in place.
    DFunc x = input("x", Halide::Float(32), {256, 16}, Local());
    Program summed("summed");
    summed.output(all_reduce(x, ReduceOp::Sum, "all"), Replicated())
        .output(reduce_scatter(x, 1, ReduceOp::Sum, "some"), Sliced(1));
    check_resident(summed, 0.0);
}

TEST_CASE("two_stage_pipeline on the device", "[device][pipeline]") {
    check_app_on_device("two_stage_pipeline");
    // Each stage's Funcs are kernels on its group's ranks (stand-ins of one
    // element on the other group's: GpuSchedule.h), its MatMul in register
    // tiles at sizes no tile divides. Each group's all_reduce (or its fused
    // pass) and the send between the groups move device buffers, which the
    // other group's ranks leave alone: device-resident calls copy nothing to
    // the host.
    apps::PipelineConfig c;
    c.gpu = true;
    c.hidden = 37;
    c.batch = 11;
    for (apps::Schedule s : schedules) {
        INFO(apps::to_string(s));
        c.schedule = s;
        const Program p = apps::two_stage_pipeline(c);
        const std::string plan = JitProgram(p, target).plan(3);
        CHECK_THAT(plan, !Catch::Matchers::Contains("on the host:"));
        CHECK_THAT(plan, !Catch::Matchers::Contains("collectives through host memory"));
        CHECK_THAT(plan, Catch::Matchers::Contains("p0: a GPU thread per register tile of 4 x 8"));
        CHECK_THAT(plan, Catch::Matchers::Contains("p1: a GPU thread per register tile of 4 x 8"));
        check_matches_reference(p, ranks, within(0.0), 2, make_inputs, device_options);
        check_resident(p, 0.0, make_inputs, 2);
    }
}

TEST_CASE("a reduce among ranks sharing a device copies nothing to the host",
          "[device][resident]") {
    // The root folds the members' inputs with the combiner kernel (or the
    // library reduces them: COCONET_DEVICE_COLLECTIVES=library, as NCCL's
    // ncclReduce); the other ranks get the op's identity from the identity
    // kernel (infinities for a float max, an int's extremes for a min), as
    // the reference has them.
    for (const char *mode : {"device", "library"}) {
        coconet_test::ScopedEnv collectives("COCONET_DEVICE_COLLECTIVES", mode);
        for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min}) {
            for (const Halide::Type &t : {Halide::Float(32), Halide::Int(32)}) {
                for (int root : {0, 2}) {
                    INFO(mode << ": op " << (int)op << ", " << t << ", root " << root);
                    DFunc x = input("x", t, {7, 3}, Local());
                    Program p("reduce");
                    p.output(reduce(x, root, op), Local());
                    check_resident(p, 0.0, make_inputs, root + 1);
                }
            }
        }
    }
}

TEST_CASE("overlapped collectives among ranks sharing a device copy nothing to the host",
          "[device][resident]") {
    // The executor's chunk loop: each tile produced on the device, moved by
    // the device collective while the next one is computed.
    apps::GemvConfig gemv;
    gemv.gpu = true;
    gemv.overlap = 3;
    check_resident(apps::gemv_all_reduce(gemv), 0.0);
    apps::EmbeddingConfig embedding;
    embedding.gpu = true;
    embedding.tile = 7;
    for (int chunks : {0, 3}) {
        INFO("overlap " << chunks);
        embedding.overlap = chunks;
        check_resident(apps::embedding_all_to_all(embedding), 0.0);
    }
    apps::GemmConfig gemm;
    gemm.gpu = true;
    gemm.capacity = 7;
    gemm.overlap = 3;
    check_resident(apps::gemm_all_to_all(gemm), 0.0);
}

TEST_CASE("COCONET_DEVICE_COLLECTIVES=host stages device collectives through host memory",
          "[device][resident]") {
    apps::OptimizerConfig c;
    c.gpu = true;
    const Program p = apps::adam(c);
    JitProgram jit(p, target);
    const auto inputs = apps::optimizer_inputs(p, 3, 5);
    std::vector<RankTraffic> traffic;
    setenv("COCONET_DEVICE_COLLECTIVES", "host", 1);
    const auto outputs = run_resident(jit, 3, inputs, traffic);
    unsetenv("COCONET_DEVICE_COLLECTIVES");
    CHECK(max_abs_diff(outputs, Reference(p).run(3, inputs)) <= within(0.0));
    for (int q = 0; q < 3; q++) {
        // Each copy counted once (the runtime's, not again as Halide's): the
        // all_reduce's gradient down and sum up, and the all_gather's slice
        // of the new parameters both ways.
        int64_t begin = 0, end = 0;
        coconet_slice_range(c.n, 3, q, &begin, &end);
        CHECK(traffic[q].bytes[COCONET_HOST_DEVICE] ==
              2 * sizeof(float) * (uint64_t)(c.n + (end - begin)));
    }
}

TEST_CASE("COCONET_DEVICE_COLLECTIVES=library runs device collectives as NCCL does",
          "[device][resident]") {
    // The path the NCCL backend takes on CUDA buffers (LibraryCollective.h),
    // with the threads backend's device collectives standing in for the
    // library: every slice packed into a segment of the largest slice's size
    // (7 elements on 2-4 ranks leave short last slices), slices along an
    // inner dimension gathered from strided memory, chunks and pieces of
    // overlapped calls, all_to_all's pieces between every pair of ranks,
    // results unpacked, all on the device. With the
    // threads' own device collectives off, a collective that did not take the
    // library path would be staged through host memory, which check_resident
    // counts.
    coconet_test::ScopedEnv library("COCONET_DEVICE_COLLECTIVES", "library");
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max}) {
        DFunc x = input("x", Halide::Float(32), {7, 5}, Local());
        Program p("all_reduce");
        p.output(all_reduce(x, op), Replicated());
        check_resident(p, 0.0);
    }
    for (int dim : {0, 1}) {
        INFO("sliced along dimension " << dim);
        DFunc x = input("x", Halide::Float(32), {7, 7}, Local());
        Program rs("reduce_scatter");
        rs.output(reduce_scatter(x, dim, ReduceOp::Sum), Sliced(dim));
        check_resident(rs, 0.0);
        DFunc s = input("s", Halide::Int(32), {7, 7}, Sliced(dim));
        Program ag("all_gather");
        ag.output(all_gather(s), Replicated());
        check_resident(ag, 0.0);
        // Pieces of unequal size between every pair of ranks (some empty).
        DFunc t = input("t", Halide::Float(32), {7, 7}, Sliced(dim));
        Program a2a("all_to_all");
        a2a.output(all_to_all(t, 1 - dim, dim), Sliced(1 - dim));
        check_resident(a2a, 0.0);
    }
    for (int root : {0, 1}) {
        INFO("root " << root);
        DFunc x = input("x", Halide::Int(32), {4, 3}, Local());
        Program b("broadcast");
        b.output(broadcast(x, root), Replicated());
        check_resident(b, 0.0, make_inputs, root + 1);
    }
    apps::OptimizerConfig adam;
    adam.gpu = true;
    check_resident(apps::adam(adam), 0.0, apps::optimizer_inputs);
    adam.schedule = apps::Schedule::Split;
    check_resident(apps::adam(adam), 0.0, apps::optimizer_inputs);
    apps::MlpConfig megatron;
    megatron.gpu = true;
    megatron.schedule = apps::Schedule::Split; // split along the hidden features: strided slices
    check_resident(apps::megatron_mlp(megatron), 1e-5);
    megatron.split_dim = 1; // along the tokens, overlapped: pieces of every slice
    megatron.overlap = 3;
    check_resident(apps::megatron_mlp(megatron), 1e-5);
    apps::GemvConfig gemv;
    gemv.gpu = true;
    gemv.overlap = 3; // chunks of an all_reduce
    check_resident(apps::gemv_all_reduce(gemv), 0.0);
    apps::EmbeddingConfig embedding;
    embedding.gpu = true;
    embedding.tile = 7;
    embedding.overlap = 3; // chunks of an all_to_all
    check_resident(apps::embedding_all_to_all(embedding), 0.0);
}

TEST_CASE("COCONET_DEVICE_COLLECTIVES=library runs fused passes as NCCL does",
          "[device][resident]") {
    // The library path of a fused pass (COCONET_PATH_LIBRARY): the library
    // reduce-scatters the sources on the device, the pass's one-source kernel
    // computes the slice, the library gathers the outputs in place; slices
    // that 3 ranks leave unequal.
    coconet_test::ScopedEnv library("COCONET_DEVICE_COLLECTIVES", "library");
    check_fused_resident();
    apps::OptimizerConfig adam;
    adam.gpu = true;
    adam.schedule = apps::Schedule::Fused;
    // The passes took the library's path: its reduce-scatter and all-gather
    // moved the bytes (ranks sharing the device read peers' sources in the
    // kernel and count them as the pass's).
    const Program p = apps::adam(adam);
    JitProgram jit(p, target);
    for (int r : {2, 3}) {
        std::vector<RankTraffic> traffic;
        run_resident(jit, r, apps::optimizer_inputs(p, r, 1), traffic);
        for (int q = 0; q < r; q++) {
            INFO(r << " ranks, rank " << q);
            CHECK(traffic[q].ops[COCONET_FUSED] > 0);
            CHECK(traffic[q].bytes[COCONET_REDUCE_SCATTER] > 0);
            CHECK(traffic[q].bytes[COCONET_ALL_GATHER] > 0);
        }
    }
}

TEST_CASE("COCONET_DEVICE_COLLECTIVES=library: fused passes whose slice is empty on a rank",
          "[device][resident]") {
    // n = 2 on 3 ranks and 5 on 4 leave the last rank no slice of the pass's
    // output: it takes part in the library's calls with nothing of its own,
    // as on the device path; the next size leaves every rank one.
    coconet_test::ScopedEnv library("COCONET_DEVICE_COLLECTIVES", "library");
    Halide::Param<int32_t> n("n");
    Halide::Var i("i");
    DFunc x = input("x", Halide::Float(32), {n}, Local());
    DFunc rs = reduce_scatter(x, 0, ReduceOp::Sum, "rs");
    DFunc y("y");
    y(i) = rs(i) * 2.0f;
    y.fuse_with(rs);
    Program p("empty_slices");
    p.output(y, Sliced(0));
    JitProgram jit(p, target);
    Reference reference(p);
    for (auto [r, size] : {std::pair{3, 2}, std::pair{4, 5}, std::pair{3, 1001}}) {
        INFO(r << " ranks, n = " << size);
        ThreadWorld world(r, 10.0);
        const Sizes sizes{{"n", size}};
        const std::vector<RankBuffers> in = make_sized_inputs(p, r, sizes);
        std::vector<RankBuffers> out;
        REQUIRE_NOTHROW(out = jit.run_threads(world, in, sizes));
        CHECK(max_abs_diff(out, reference.run(r, in, sizes)) <= within(0));
    }
}

namespace {

// A training loop: `program` called five times on a kept ThreadWorld with
// the same host buffers, rewritten in place between calls, and the last
// call's outputs passed back; every call equals the reference and leaves no
// device allocation on the caller's buffers. Then five calls with the inputs
// on the device: the outputs stay on the device, in the same allocations;
// and one with those inputs and the host outputs passed back, which stay on
// the host. Then five with the same device inputs rewritten on the host and marked so
// (set_host_dirty, Halide's convention): every call reads the new data.
void check_five_calls(const Program &program, const coconet_test::InputMaker &make,
                      double tolerance) {
    JitProgram jit(program, target);
    Reference reference(program);
    for (int r : ranks) {
        INFO(program.name() << " on " << r << " ranks");
        ThreadWorld world(r, 10.0);
        std::vector<RankBuffers> inputs = make(program, r, 3), outputs;
        // New values every call, of the same magnitude (the BLAS tolerance is
        // absolute).
        auto rewrite_in = [](std::vector<RankBuffers> &buffers, int call) {
            for (RankBuffers &rank : buffers) {
                for (auto &[name, b] : rank) {
                    Halide::Buffer<float>(b).for_each_value(
                        [&](float &x) { x = 0.75f * x + 0.01f * (float)(call % 5); });
                }
            }
        };
        auto rewrite = [&](int call) { rewrite_in(inputs, call); };
        for (int call = 0; call < 5; call++) {
            INFO("call " << call);
            rewrite(call);
            jit.run_threads(world, inputs, outputs);
            CHECK(max_abs_diff(outputs, reference.run(r, inputs)) <= within(tolerance));
            for (const std::vector<RankBuffers> *buffers : {&inputs, &outputs}) {
                for (const RankBuffers &rank : *buffers) {
                    for (const auto &[name, b] : rank) {
                        INFO(name);
                        CHECK(b.raw_buffer()->device == 0);
                    }
                }
            }
        }
        // The same loop with the inputs on the device.
        std::vector<RankBuffers> on;
        std::vector<uint64_t> allocations;
        for (int call = 5; call < 10; call++) {
            INFO("call " << call << ", inputs on the device");
            rewrite(call);
            jit.run_threads(world, on_device(inputs), on);
            int i = 0;
            for (RankBuffers &rank : on) {
                for (auto &[name, b] : rank) {
                    INFO(name);
                    if (b.number_of_elements() == 0) {
                        continue;
                    }
                    CHECK(b.raw_buffer()->device_dirty());
                    if (call == 5) {
                        allocations.push_back(b.raw_buffer()->device);
                    }
                    CHECK(b.raw_buffer()->device == allocations[i++]);
                    b.copy_to_host(); // the device allocation stays
                }
            }
            CHECK(max_abs_diff(on, reference.run(r, inputs)) <= within(tolerance));
        }
        // Device inputs with the first loop's host outputs passed back: those
        // are written on the host and get no device allocation.
        jit.run_threads(world, on_device(inputs), outputs);
        for (const RankBuffers &rank : outputs) {
            for (const auto &[name, b] : rank) {
                INFO(name << ", host output passed back with device inputs");
                CHECK(b.raw_buffer()->device == 0);
            }
        }
        CHECK(max_abs_diff(outputs, reference.run(r, inputs)) <= within(tolerance));
        std::vector<RankBuffers> kept = on_device(inputs);
        for (RankBuffers &rank : kept) {
            for (auto &[name, b] : rank) {
                b.copy_to_host();
            }
        }
        for (int call = 10; call < 15; call++) {
            INFO("call " << call << ", device inputs rewritten on the host");
            rewrite_in(kept, call);
            for (RankBuffers &rank : kept) {
                for (auto &[name, b] : rank) {
                    b.set_host_dirty();
                }
            }
            jit.run_threads(world, kept, on);
            for (RankBuffers &rank : on) {
                for (auto &[name, b] : rank) {
                    b.copy_to_host();
                }
            }
            CHECK(max_abs_diff(on, reference.run(r, kept)) <= within(tolerance));
        }
    }
}

} // namespace

TEST_CASE("calls never depend on what an earlier call left on the caller's buffers",
          "[device][residency]") {
    for (apps::Schedule schedule : schedules) {
        INFO(apps::to_string(schedule));
        apps::OptimizerConfig opt;
        opt.n = 37;
        opt.schedule = schedule;
        opt.gpu = true;
        check_five_calls(apps::adam(opt), apps::optimizer_inputs, 0.0);
    }
}

TEST_CASE("MatMuls through the device's BLAS equal the reference", "[device][blas]") {
    // COCONET_GPU_MATMUL=library: a plain MatMul is one call of the device's
    // BLAS (CLBlast on OpenCL, cuBLAS on CUDA), its operands where they are,
    // transposed or not, sliced contractions included; other MatMul-like
    // Funcs keep their register tiles. BLAS adds in an order of its own:
    // within rounding of the reference, not bit for bit.
    coconet_test::ScopedEnv library("COCONET_GPU_MATMUL", "library");
    DFunc a = input("a", Halide::Float(32), {37, 13}, Replicated());
    DFunc b = input("b", Halide::Float(32), {13, 11}, Local());
    DFunc as = input("as", Halide::Float(32), {37, 13}, Sliced(1));
    DFunc bs = input("bs", Halide::Float(32), {13, 11}, Sliced(0));
    DFunc bias = input("bias", Halide::Float(32), {37}, Replicated());
    Halide::Var x("x"), y("y");
    Halide::RDom r(0, 13, "r");
    DFunc own("own"), partial("partial"), rows("rows"), biased("biased"), doubled("doubled"),
        scaled("scaled");
    // An operand a kernel computes.
    doubled(x, y) = a(x, y) * 2.0f;
    own(x, y) = 0.0f;
    own(x, y) += doubled(x, r) * b(r, y);
    partial(x, y) = 0.0f;
    partial(x, y) += as(x, r) * bs(r, y);
    DFunc summed = all_reduce(partial, ReduceOp::Sum, "summed");
    // Both operands transposed (the contraction outer in each), the product
    // written b * a, each rank its rows.
    rows(x, y) = 0.0f;
    rows(x, y) += a(y, r) * as(r, x);
    // A Linear layer's MatMul, which starts from its bias: the product, and
    // a kernel adding the bias to it.
    biased(x, y) = bias(x);
    biased(x, y) += a(x, r) * b(r, y);
    // Not a plain product: register tiles.
    scaled(x, y) = 0.0f;
    scaled(x, y) += 2.0f * a(x, r) * b(r, y);
    Program p("blas");
    p.output(own, Local()).output(summed, Replicated()).output(rows, Sliced(0));
    p.output(biased, Local()).output(scaled, Local());
    const std::string plan = JitProgram(p, target).plan(3);
    CHECK_THAT(plan, Catch::Matchers::Contains(
                         "the device's BLAS for biased_product, own, partial, rows"));
    CHECK_THAT(plan, Catch::Matchers::Contains("biased: one call of"));
    CHECK_THAT(plan, Catch::Matchers::Contains("(its initial value added after it)"));
    CHECK_THAT(plan, Catch::Matchers::Contains("scaled: a GPU thread per register tile"));
    check_matches_reference(p, ranks, within(1e-5), 1, make_inputs, device_options);

    // The Megatron block fused and overlapped, every buffer on the device:
    // the BLAS reads and writes the device only; and called five times with
    // host buffers rewritten in place.
    apps::MlpConfig megatron;
    megatron.gpu = true;
    megatron.schedule = apps::Schedule::Fused;
    megatron.overlap = 3;
    CHECK_THAT(JitProgram(apps::megatron_mlp(megatron), target).plan(2),
               Catch::Matchers::Contains("the device's BLAS for partial"));
    check_resident(apps::megatron_mlp(megatron), 1e-5);
    megatron.schedule = apps::Schedule::None;
    megatron.overlap = 0;
    check_five_calls(apps::megatron_mlp(megatron), make_inputs, 1e-5);

    // A batch whose first operand is the same matrix for every index: a
    // strided batch of stride 0 for it.
    DFunc tb = input("tb", Halide::Float(32), {13, 11, 3}, Local());
    Halide::Var e("e");
    DFunc shared("shared");
    shared(x, y, e) = 0.0f;
    shared(x, y, e) += a(x, r) * tb(r, y, e);
    Program batched("batched");
    batched.output(shared, Local());
    CHECK_THAT(JitProgram(batched, target).plan(2),
               Catch::Matchers::Contains("the device's BLAS for shared"));
    check_matches_reference(batched, ranks, within(1e-5), 1, make_inputs, device_options);

    // A batch of MatMuls: a mixture of experts, each rank its experts, one
    // product per expert and token tile, overlapped with its all_to_all too.
    apps::GemmConfig experts;
    experts.gpu = true;
    experts.capacity = 7;
    CHECK_THAT(JitProgram(apps::gemm_all_to_all(experts), target).plan(2),
               Catch::Matchers::Contains("the device's BLAS for expert_out"));
    for (int chunks : {0, 3}) {
        INFO("experts, overlap " << chunks);
        experts.overlap = chunks;
        check_matches_reference(apps::gemm_all_to_all(experts), ranks, within(1e-5), 1, make_inputs,
                                device_options);
    }

    // A pipeline's stages (a group of world.split): on the other group's
    // ranks the call leaves their stand-ins alone and reads nothing.
    apps::PipelineConfig pipeline;
    pipeline.gpu = true;
    CHECK_THAT(JitProgram(apps::two_stage_pipeline(pipeline), target).plan(2),
               Catch::Matchers::Contains("the device's BLAS for p0, p1"));
    check_app_on_device("two_stage_pipeline", 1e-5);
}
