// Overlap, as the executor runs it: a fused pass over the source's outermost
// dimension in chunks, the producer computing chunk j + 1 on a second thread
// while the pass reduces chunk j; and the Halide workers an overlapped
// collective inside a pipeline needs.
#ifndef COCONET_RUNTIME_OVERLAPPED_PASS_H
#define COCONET_RUNTIME_OVERLAPPED_PASS_H

#include <algorithm>
#include <future>

#include "coconet_runtime.h"

namespace coconet_rt {

// Halide workers a process keeps while it runs a pipeline whose collective
// is overlapped with Halide async, for `ranks` ranks of that process: per
// rank, the consumer blocked in the collective (Halide cannot see that it
// waits), the producer of the next chunk and its successor, and the caller.
inline int async_workers(int ranks) {
    return 4 * ranks + 4;
}

// produce(min, extent, on_caller) computes [min, min + extent) of the
// outermost dimension of call.src (on_caller: on the calling thread). Runs
// the pass on each chunk after its producer; returns false when a pass call
// fails (after the producer running beside it finished). A producer's
// exception is rethrown.
template<typename Produce>
bool run_overlapped_pass(coconet_comm *comm, coconet_fused_call &call, int chunks,
                         Produce &&produce) {
    const int dim = call.dims - 1, n = call.n[dim];
    const int step = std::max(1, (n + chunks - 1) / chunks);
    const int count = (n + step - 1) / step;
    auto extent = [&](int j) { return std::min(step, n - j * step); };
    if (count > 0) {
        produce(0, extent(0), true);
    }
    for (int j = 0; j < count; j++) {
        std::future<void> next;
        if (j + 1 < count) {
            next = std::async(std::launch::async, produce, (j + 1) * step, extent(j + 1), false);
        }
        call.ranged = 1;
        call.range_dim = dim;
        call.range_min = j * step;
        call.range_extent = extent(j);
        const bool ok = coconet_fused_reduce_scatter(comm, &call) == COCONET_OK;
        if (next.valid()) {
            next.get();
        }
        if (!ok) {
            return false;
        }
    }
    return true;
}

} // namespace coconet_rt

#endif
