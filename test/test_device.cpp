// Every app and fused operator under every schedule (none, split, fused,
// overlapped) as JIT programs for an OpenCL target, on 1 to 4 thread ranks
// sharing one device (PoCL in CI: CTest pins the platform), at sizes that 3
// ranks do not divide: equal to the reference bit for bit, except the
// Megatron block, whose GELU calls the device's tanh (it differs from the
// host's in the last place). The GPU schedules put every Func they can on the
// device (test_pass_gpu_schedule says which cannot), so a wrong copy between
// host and device shows here as a wrong result.
#include "../apps/Apps.h"
#include "TestUtil.h"

using namespace coconet;
using coconet_test::check_matches_reference;

namespace {

const Halide::Target opencl = Halide::get_host_target()
                                  .with_feature(Halide::Target::OpenCL)
                                  .with_feature(Halide::Target::CLDoubles);

const std::vector<int> ranks = {1, 2, 3, 4};

// The all_apps cases of one app ("adam", "adam (split)", ...), on the device.
void check_app_on_device(const std::string &app, double tolerance = 0.0) {
    int cases = 0;
    for (const apps::AppCase &c : apps::all_apps(false, true)) {
        if (c.name != app && c.name.rfind(app + " (", 0) != 0) {
            continue;
        }
        INFO(c.name);
        check_matches_reference(c.make(), ranks, tolerance, c.min_ranks, c.inputs, opencl);
        cases++;
    }
    CHECK(cases >= 3);
}

const std::vector<apps::Schedule> schedules = {apps::Schedule::None, apps::Schedule::Split,
                                               apps::Schedule::Fused};

} // namespace

TEST_CASE("adam on the OpenCL device", "[device][adam]") {
    check_app_on_device("adam");
}

TEST_CASE("lamb on the OpenCL device", "[device][lamb]") {
    check_app_on_device("lamb");
}

TEST_CASE("megatron_mlp on the OpenCL device", "[device][megatron]") {
    check_app_on_device("megatron_mlp", 1e-5);
}

TEST_CASE("two_stage_pipeline on the OpenCL device", "[device][pipeline]") {
    check_app_on_device("two_stage_pipeline");
}

TEST_CASE("embedding + all_to_all on the OpenCL device", "[device][embedding]") {
    apps::EmbeddingConfig c;
    c.gpu = true;
    for (int chunks : {0, 3}) {
        INFO("overlap " << chunks);
        c.overlap = chunks;
        check_matches_reference(apps::embedding_all_to_all(c), ranks, 0.0, 1, make_inputs, opencl);
    }
}

TEST_CASE("gemv + all_reduce on the OpenCL device", "[device][gemv]") {
    apps::GemvConfig c;
    c.gpu = true;
    for (apps::Schedule s : schedules) {
        for (int chunks : {0, 3}) {
            INFO(apps::to_string(s) << ", overlap " << chunks);
            c.schedule = s;
            c.overlap = chunks;
            check_matches_reference(apps::gemv_all_reduce(c), ranks, 0.0, 1, make_inputs, opencl);
        }
    }
}

TEST_CASE("gemm + all_to_all on the OpenCL device", "[device][gemm]") {
    apps::GemmConfig c;
    c.gpu = true;
    for (int chunks : {0, 3}) {
        INFO("overlap " << chunks);
        c.overlap = chunks;
        check_matches_reference(apps::gemm_all_to_all(c), ranks, 0.0, 1, make_inputs, opencl);
    }
}

TEST_CASE("a rank without a slice is refused on a device, not aborted", "[device][adam]") {
    // 7 parameters in blocks of 1 on 8 ranks: rank 7 holds no slice.
    apps::OptimizerConfig c;
    c.n = 7;
    c.gpu = true;
    const Program p = apps::adam(c);
    const std::string message = coconet_test::message_of<RuntimeError>([&] {
        JitProgram(p, opencl).run_threads(8, apps::optimizer_inputs(p, 8, 1), 5.0);
    });
    CHECK_THAT(message, Catch::Matchers::Contains("of 7 elements in blocks of 1 over 8 ranks, "
                                                  "which leaves rank 7 none"));
    // On the host the same world computes.
    check_matches_reference(p, {8}, 0.0, 1, apps::optimizer_inputs);
}
