// Host memory the executor's values take and give back, kept between calls.
// glibc hands a large freed block back to the kernel, so without a pool every
// call faults the pages of its intermediate values in afresh (measured: 12%
// of the Megatron block's step on 4 thread ranks at n = 2^22,
// CHANGELOG.md). One pool per communicator; blocks go back to it when
// a call ends and serve later calls asking for the same size, of any program.
// Free blocks beyond kMaxFreeBytes are released, oldest first, and
// COCONET_HOST_POOL=off releases every block at once (plain allocation).
#ifndef COCONET_RUNTIME_HOST_POOL_H
#define COCONET_RUNTIME_HOST_POOL_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace coconet_rt {

class HostPool {
public:
    // The most free memory a pool keeps (per rank).
    static constexpr size_t kMaxFreeBytes = size_t(1) << 30;

    HostPool() = default;
    ~HostPool() { release(); }
    HostPool(const HostPool &) = delete;
    HostPool &operator=(const HostPool &) = delete;

    // Returns a block to the pool when destroyed.
    struct Giver {
        HostPool *pool;
        size_t bytes;
        void operator()(uint8_t *p) const { pool->give(p, bytes); }
    };
    using Block = std::unique_ptr<uint8_t[], Giver>;

    // A block of `bytes` (> 0), 64-byte aligned, contents undefined. Thread
    // safe: an overlapped step's producer thread allocates too.
    Block take(size_t bytes);
    // Frees every free block (coconet_aot_release; the communicator's end).
    void release();
    // Bytes of the free blocks the pool holds.
    size_t free_bytes();

private:
    void give(uint8_t *p, size_t bytes);

    std::mutex mutex_;
    std::vector<std::pair<size_t, uint8_t *>> free_; // oldest first
    size_t free_bytes_ = 0;
};

} // namespace coconet_rt

#endif
