// Every example application, unscheduled, on 1, 2, 3, 4 and 8 thread ranks at
// sizes that do not divide evenly (and smaller than the rank count): results
// equal the single-process reference bit for bit.
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
