// Overlap, as the executor runs it: a source computed chunk by chunk along
// one dimension, the producer computing chunk j + 1 on a thread of its own
// while the rank's thread moves chunk j (a fused pass's reduction or an
// unfused collective). The wait for peers happens on the rank's thread,
// never inside a Halide task: Halide's thread pool lets a thread waiting for
// its own tasks run any other pipeline's task that it believes cannot block,
// so a collective inside a task of one thread rank could be run by another
// rank's thread, which then waits for itself (docs/architecture.md).
#ifndef COCONET_RUNTIME_CHUNK_LOOP_H
#define COCONET_RUNTIME_CHUNK_LOOP_H

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "core/Partition.h"

namespace coconet_rt {

// A thread kept for a rank's producers (one per communicator, in
// ExecutorState): handing it chunk j + 1 costs a wake-up, where a thread
// started per chunk cost a thread's start and join on every chunk.
class ProducerThread {
public:
    ProducerThread() = default;
    ProducerThread(const ProducerThread &) = delete;
    ProducerThread &operator=(const ProducerThread &) = delete;
    ~ProducerThread();

    // Runs task on the thread (started at the first task); one at a time.
    void start(std::function<void()> task);
    // Waits for the task started last; rethrows its exception, or drops it.
    void wait(bool rethrow = true);

private:
    void loop();

    std::mutex mutex_;
    std::condition_variable changed_;
    std::function<void()> task_;
    bool busy_ = false, stop_ = false;
    std::exception_ptr error_;
    std::thread thread_;
};

// Runs `count` chunks: produce(j) computes chunk j of the source (the first
// on the calling thread, chunk j + 1 on `producer` while move(j) moves chunk
// j). move returns false on failure, after which the producer running beside
// it is waited for and the loop stops. A producer's exception is rethrown,
// and so is move's, once the producer beside it is done.
template<typename Produce, typename Move>
bool run_steps(ProducerThread &producer, int count, Produce &&produce, Move &&move) {
    if (count > 0) {
        produce(0);
    }
    for (int j = 0; j < count; j++) {
        const bool next = j + 1 < count;
        if (next) {
            producer.start([&produce, j] { produce(j + 1); });
        }
        bool ok = false;
        try {
            ok = move(j);
        } catch (...) {
            if (next) {
                producer.wait(false); // it reads this frame: done before unwinding
            }
            throw;
        }
        if (next) {
            producer.wait();
        }
        if (!ok) {
            return false;
        }
    }
    return true;
}

// How an overlap cuts a value of extent n along its chunk dimension:
// `chunks` ranges of ceil(n / chunks), or, when that dimension is the one
// the value is sliced along among `slices` ranks (> 0), piece j of every
// slice (chunk j of the collective moves piece j of every rank's slice).
struct Chunking {
    int64_t n = 0;
    int chunks = 1;
    int slices = 0;

    // How many chunks run (every piece, even empty ones, in the second case:
    // the calls are collective).
    int count() const {
        if (slices > 0) {
            return chunks;
        }
        const int64_t step = std::max<int64_t>(1, (n + chunks - 1) / chunks);
        return (int)((n + step - 1) / step);
    }
    // What chunk j covers: its range, or the non-empty pieces of every slice.
    std::vector<Range> parts(int j) const {
        if (slices == 0) {
            return {slice_of(n, chunks, j)};
        }
        std::vector<Range> r;
        for (int q = 0; q < slices; q++) {
            const Range p = piece(j, q);
            if (p.size() > 0) {
                r.push_back(p);
            }
        }
        return r;
    }
    // Piece j of slice q.
    Range piece(int j, int q) const { return piece_of(slice_of(n, slices, q), chunks, j); }
};

} // namespace coconet_rt

#endif
