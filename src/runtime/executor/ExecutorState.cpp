// The executor's state per communicator (see ExecutorState.h) and the C ABI
// that reports on it.
#include "executor/ExecutorState.h"

#include "core/Comm.h"

namespace coconet_rt {

ExecutorState &executor_state(coconet_comm *comm) {
    if (!comm->executor) {
        comm->executor = std::make_shared<ExecutorState>();
    }
    return *comm->executor;
}

namespace {

// Read, never created, here: Halide's worker threads allocate at once.
HostPool *pool_of(coconet_comm *comm) {
    return comm->executor ? &comm->executor->host_pool : nullptr;
}

} // namespace

void *pipeline_malloc(coconet_comm *comm, size_t bytes) {
    return HostPool::pipeline_malloc(pool_of(comm), bytes);
}

void pipeline_free(coconet_comm *comm, void *p) {
    HostPool::pipeline_free(pool_of(comm), p);
}

} // namespace coconet_rt

extern "C" {

int coconet_comm_overlap_settled(const coconet_comm *comm) {
    if (comm->executor) {
        for (const auto &[key, tuner] : comm->executor->overlap_tuners) {
            if (!tuner.settled()) {
                return 0;
            }
        }
    }
    return 1;
}

const char *coconet_comm_overlap_report(coconet_comm *comm) {
    coconet_rt::ExecutorState &state = coconet_rt::executor_state(comm);
    state.overlap_report.clear();
    for (const auto &[key, tuner] : state.overlap_tuners) {
        state.overlap_report += key + ": " + tuner.describe() + "\n";
    }
    return state.overlap_report.c_str();
}

} // extern "C"
