// Every example application, unscheduled, on 1, 2, 3, 4 and 8 thread ranks at
// sizes that do not divide evenly (and smaller than the rank count), and every
// app and fused operator without its hand schedules under the default
// schedule and without it: results equal the single-process reference bit
// for bit.
#include "Apps.h"
#include "TestUtil.h"

using namespace coconet;
using coconet_test::check_matches_reference;

TEST_CASE("adam matches the reference", "[apps]") {
    for (int n : {1000, 7}) {
        apps::OptimizerConfig c;
        c.n = n;
        c.step = 3;
        check_matches_reference(apps::adam(c), coconet_test::rank_counts(), 0.0, 1,
                                apps::optimizer_inputs);
    }
}

TEST_CASE("lamb matches the reference", "[apps]") {
    for (int n : {1001, 5}) {
        apps::OptimizerConfig c;
        c.n = n;
        check_matches_reference(apps::lamb(c), coconet_test::rank_counts(), 0.0, 1,
                                apps::optimizer_inputs);
    }
}

TEST_CASE("megatron mlp matches the reference", "[apps]") {
    apps::MlpConfig c;
    c.batch = 3;
    c.hidden = 10;
    for (int ffn : {37, 6}) {
        c.ffn = ffn;
        check_matches_reference(apps::megatron_mlp(c));
    }
}

TEST_CASE("two-stage pipeline matches the reference", "[apps]") {
    apps::PipelineConfig c;
    c.batch = 3;
    for (int hidden : {13, 3}) {
        c.hidden = hidden;
        check_matches_reference(apps::two_stage_pipeline(c), coconet_test::rank_counts(), 0.0, 2);
    }
}

// A user's first program carries no schedule of its compute: every app and
// fused operator with its hand schedules removed (under its CoCoNet schedule,
// fused and overlapped), the default schedule on and off, at sizes where the
// default picks register tiles for the MatMuls.
TEST_CASE("every app without its hand schedules matches the reference, default schedule on and "
          "off",
          "[apps][default_schedule]") {
    apps::OptimizerConfig opt;
    opt.n = 1001;
    opt.schedule = apps::Schedule::Fused;
    opt.hand_schedule = false;
    apps::MlpConfig mlp;
    mlp.batch = 7;
    mlp.hidden = 20;
    mlp.ffn = 37;
    mlp.schedule = apps::Schedule::Fused;
    mlp.overlap = 2;
    mlp.hand_schedule = false;
    apps::PipelineConfig pipe;
    pipe.batch = 7;
    pipe.hidden = 19;
    pipe.schedule = apps::Schedule::Fused;
    pipe.overlap = 2;
    pipe.hand_schedule = false;
    apps::EmbeddingConfig embedding;
    embedding.overlap = 2;
    embedding.hand_schedule = false;
    apps::GemvConfig gemv;
    gemv.overlap = 2;
    gemv.hand_schedule = false;
    apps::GemmConfig gemm;
    gemm.out = 18;
    gemm.capacity = 7;
    gemm.overlap = 2;
    gemm.hand_schedule = false;
    const std::vector<int> ranks = {1, 2, 3, 5};
    for (bool on : {true, false}) {
        INFO("default schedule " << (on ? "on" : "off"));
        JitOptions options;
        options.default_schedule = on;
        check_matches_reference(apps::adam(opt), ranks, 0.0, 1, apps::optimizer_inputs, options);
        check_matches_reference(apps::lamb(opt), ranks, 0.0, 1, apps::optimizer_inputs, options);
        check_matches_reference(apps::megatron_mlp(mlp), ranks, 0.0, 1, make_inputs, options);
        check_matches_reference(apps::two_stage_pipeline(pipe), ranks, 0.0, 2, make_inputs,
                                options);
        check_matches_reference(apps::embedding_all_to_all(embedding), ranks, 0.0, 1, make_inputs,
                                options);
        check_matches_reference(apps::gemv_all_reduce(gemv), ranks, 0.0, 1, make_inputs, options);
        check_matches_reference(apps::gemm_all_to_all(gemm), ranks, 0.0, 1, make_inputs, options);
    }
}
