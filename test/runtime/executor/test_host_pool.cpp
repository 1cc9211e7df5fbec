// The executor's host memory pool (runtime/executor/HostPool.h): a block given back
// serves the next request of its size, aligned for vector loads; free memory
// stays under the cap, oldest blocks released first; release() empties it;
// ranks' threads take and give concurrently; Halide pipelines allocate
// their large Funcs from it, aligned and padded as Halide wants.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "ThreadRanks.h"
#include "executor/HostPool.h"

using coconet_rt::HostPool;
using coconet_test::run_threads;

TEST_CASE("a block given back serves the next request of its size", "[runtime][pool]") {
    HostPool pool;
    uint8_t *first = nullptr;
    {
        HostPool::Block a = pool.take(4096 * 3);
        first = a.get();
        CHECK(reinterpret_cast<uintptr_t>(first) % 64 == 0);
        a[4096 * 3 - 1] = 7; // all of it is usable
    }
    HostPool::Block other = pool.take(4096 * 5); // another size: not that block
    CHECK(other.get() != first);
    HostPool::Block again = pool.take(4096 * 3);
    CHECK(again.get() == first);
    // Taken, it is no longer free: a second request gets other memory.
    HostPool::Block second = pool.take(4096 * 3);
    CHECK(second.get() != first);
}

TEST_CASE("free memory stays under the cap, the oldest block released first", "[runtime][pool]") {
    HostPool pool;
    const size_t big = HostPool::kMaxFreeBytes / 2 + 1; // two do not fit
    uint8_t *newer = nullptr;
    {
        HostPool::Block a = pool.take(big);
        HostPool::Block b = pool.take(big);
        newer = b.get();
        a.reset(); // given back first
    }
    CHECK(pool.free_bytes() == big); // the older one went when the newer came back
    HostPool::Block kept = pool.take(big);
    CHECK(kept.get() == newer);
    CHECK(pool.free_bytes() == 0); // the older one is not held any more
}

TEST_CASE("release frees every free block", "[runtime][pool]") {
    HostPool pool;
    {
        HostPool::Block a = pool.take(1000), b = pool.take(3000);
        CHECK(pool.free_bytes() == 0);
    }
    CHECK(pool.free_bytes() == 4000);
    pool.release();
    CHECK(pool.free_bytes() == 0);
}

TEST_CASE("threads take and give blocks concurrently", "[runtime][pool]") {
    HostPool pool;
    std::vector<int> wrong(4, 0);
    run_threads(4, [&](int t) {
        for (int i = 0; i < 2000; i++) {
            const size_t n = 64 * (1 + (i + t) % 5);
            HostPool::Block b = pool.take(n);
            for (size_t k = 0; k < n; k++) {
                b[k] = (uint8_t)t;
            }
            for (size_t k = 0; k < n; k++) {
                wrong[t] += b[k] != (uint8_t)t; // nobody else wrote into it
            }
        }
    });
    CHECK(wrong == std::vector<int>(4, 0));
}

TEST_CASE("a pipeline's large allocation comes from the pool, its small ones from the heap",
          "[runtime][pool]") {
    HostPool pool;
    const size_t big = HostPool::kMinPipelineBytes, small = 1000;
    void *first = HostPool::pipeline_malloc(&pool, big);
    REQUIRE(first);
    CHECK(reinterpret_cast<uintptr_t>(first) % 64 == 0);
    // Halide reads a little before and past its allocations.
    static_cast<uint8_t *>(first)[-8] = 1;
    static_cast<uint8_t *>(first)[big + 8] = 1;
    HostPool::pipeline_free(&pool, first);
    CHECK(pool.free_bytes() > big);
    void *again = HostPool::pipeline_malloc(&pool, big);
    CHECK(again == first);
    CHECK(pool.free_bytes() == 0);
    HostPool::pipeline_free(&pool, again);

    const size_t kept = pool.free_bytes();
    void *little = HostPool::pipeline_malloc(&pool, small);
    REQUIRE(little);
    CHECK(reinterpret_cast<uintptr_t>(little) % 64 == 0);
    HostPool::pipeline_free(&pool, little);
    CHECK(pool.free_bytes() == kept);

    // Without a pool nothing is kept; a size no memory holds is refused.
    void *alone = HostPool::pipeline_malloc(nullptr, big);
    REQUIRE(alone);
    HostPool::pipeline_free(nullptr, alone);
    CHECK(HostPool::pipeline_malloc(&pool, SIZE_MAX) == nullptr);
    HostPool::pipeline_free(&pool, nullptr);
}
