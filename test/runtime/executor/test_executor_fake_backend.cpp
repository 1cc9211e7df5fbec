// The executor apart from any real backend: a one-rank communicator written
// here (FakeComm) implements the backend interface of core/Comm.h, and the
// executor runs unfused and fused programs on it through its capabilities
// alone. The results equal the reference, every collective reaches the
// backend, and the executor keeps its state per communicator.
#include <memory>
#include <vector>

#include "Apps.h"
#include "TestUtil.h"
#include "core/Comm.h"
#include "core/Fused.h"

using namespace coconet;
using coconet_test::InputMaker;

namespace {

// One rank, no peers: a collective's output is computed from this rank's
// input, a fused pass runs its kernel on this rank's own source. It counts
// what it was asked to do.
struct FakeComm : coconet_comm {
    FakeComm() : coconet_comm(0, 1, 5.0) {}

    const char *backend() const override { return "fake"; }
    int barrier(const char *) override {
        barriers++;
        return COCONET_OK;
    }
    void abort(const char *) override { aborted = true; }
    int run(coconet_rt::Op &op, const halide_buffer_t *in, halide_buffer_t *out) override {
        collectives++;
        op.peer_inputs.assign(1, in);
        coconet_rt::compute_output(op, rank, out, threads);
        return COCONET_OK;
    }
    coconet_fused_path fused_path(int) const override { return COCONET_PATH_DIRECT; }
    int run_fused(const coconet_rt::FusedPlan &plan, coconet_fused_path) override {
        fused++;
        const std::vector<const halide_buffer_t *> srcs(plan.reduces() ? 1 : 0, plan.call.src);
        for (const coconet_rt::Box &chunk : plan.chunks(plan.slice(rank))) {
            if (const int rc = plan.run_kernel(*this, chunk, srcs); rc != COCONET_OK) {
                return rc;
            }
        }
        return COCONET_OK;
    }

    int barriers = 0, collectives = 0, fused = 0;
    bool aborted = false;
};

void check_on_fake(const Program &program, const InputMaker &make_inputs, int *collectives,
                   int *fused) {
    JitProgram jit(program);
    Reference reference(program);
    FakeComm comm;
    const std::vector<RankBuffers> inputs = make_inputs(program, 1, 7);
    // Twice: the second call runs on the state the first left (pool, tuners).
    for (int call = 0; call < 2; call++) {
        INFO(program.name() << ", call " << call);
        const RankBuffers out = jit.run_rank(&comm, inputs[0]);
        CHECK(max_abs_diff({out}, reference.run(1, inputs)) == 0.0);
        CHECK(coconet_test::all_finite({out}));
    }
    CHECK_FALSE(comm.aborted);
    CHECK(coconet_comm_last_error_code(&comm) == COCONET_OK);
    *collectives = comm.collectives;
    *fused = comm.fused;
}

} // namespace

TEST_CASE("the executor runs unfused and fused programs on a backend it only knows by its "
          "interface",
          "[runtime][executor]") {
    for (apps::Schedule schedule : {apps::Schedule::None, apps::Schedule::Fused}) {
        INFO(apps::to_string(schedule));
        apps::OptimizerConfig opt;
        opt.n = 29;
        opt.schedule = schedule;
        int collectives = 0, fused = 0;
        check_on_fake(apps::adam(opt), apps::optimizer_inputs, &collectives, &fused);
        if (schedule == apps::Schedule::None) {
            CHECK(collectives >= 2); // each call reduces the gradient
            CHECK(fused == 0);
        } else {
            CHECK(fused == 2); // one pass per call
        }
    }
}

TEST_CASE("a fake backend's capabilities are the base's defaults", "[runtime][executor]") {
    FakeComm comm;
    CHECK_FALSE(comm.peers_share_device());
    CHECK_FALSE(comm.writes_peer_outputs());
    CHECK_FALSE(comm.device_collectives());
    CHECK(comm.deterministic());
    CHECK(std::string(coconet_comm_overlap_report(&comm)).empty());
    CHECK(coconet_comm_overlap_settled(&comm) == 1);
}
