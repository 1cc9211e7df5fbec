// Host memory the executor's values and its pipelines' own allocations take
// and give back, kept between calls. glibc hands a large freed block back to
// the kernel, so without a pool every call faults the pages of its
// intermediate values in afresh (CHANGELOG.md has the cost). One pool per
// communicator; blocks go back to it when a call ends and serve later calls
// asking for the same size, of any program.
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
    // Halide's allocator for a pipeline (halide_malloc): memory 64-byte
    // aligned, readable 64 bytes either side (Halide reads a little past both
    // ends), or null when there is none. Blocks of kMinPipelineBytes or more
    // come from `pool` (null: none), smaller ones from the C++ heap. Thread
    // safe: Halide's worker threads allocate too.
    static void *pipeline_malloc(HostPool *pool, size_t bytes);
    // Frees what pipeline_malloc returned: back into `pool` where it came from
    // one (null: released).
    static void pipeline_free(HostPool *pool, void *p);
    static constexpr size_t kMinPipelineBytes = size_t(64) << 10;

    // Frees every free block (coconet_aot_release; the communicator's end).
    void release();
    // Bytes of the free blocks the pool holds.
    size_t free_bytes();

private:
    // A free block of exactly `bytes`, else a new one; null when out of memory.
    uint8_t *take_raw(size_t bytes);
    void give(uint8_t *p, size_t bytes);

    std::mutex mutex_;
    std::vector<std::pair<size_t, uint8_t *>> free_; // oldest first
    size_t free_bytes_ = 0;
};

} // namespace coconet_rt

#endif
