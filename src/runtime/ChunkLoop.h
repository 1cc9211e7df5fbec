// Overlap, as the executor runs it: a source computed chunk by chunk along
// one dimension, the producer computing chunk j + 1 on a thread of its own
// while the rank's thread moves chunk j (a fused pass's reduction or an
// unfused collective). The wait for peers happens on the rank's thread,
// never inside a Halide task: Halide's thread pool lets a thread waiting for
// its own tasks run any other pipeline's task that it believes cannot block,
// so a collective inside a task of one thread rank could be run by another
// rank's thread, which then waits for itself (docs/ARCHITECTURE.md).
#ifndef COCONET_RUNTIME_CHUNK_LOOP_H
#define COCONET_RUNTIME_CHUNK_LOOP_H

#include <algorithm>
#include <future>

namespace coconet_rt {

// Splits [0, n) into `chunks` pieces of ceil(n / chunks). produce(min,
// extent) computes a piece of the source (the first on the calling thread);
// move(min, extent) moves it once produced and returns
// false on failure, after which the producer running beside it is waited for
// and the loop stops. A producer's exception is rethrown.
template<typename Produce, typename Move>
bool run_chunks(int n, int chunks, Produce &&produce, Move &&move) {
    const int step = std::max(1, (n + chunks - 1) / chunks);
    const int count = (n + step - 1) / step;
    auto extent = [&](int j) { return std::min(step, n - j * step); };
    if (count > 0) {
        produce(0, extent(0));
    }
    for (int j = 0; j < count; j++) {
        std::future<void> next;
        if (j + 1 < count) {
            next = std::async(std::launch::async, produce, (j + 1) * step, extent(j + 1));
        }
        const bool ok = move(j * step, extent(j));
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
