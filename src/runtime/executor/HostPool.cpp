#include "executor/HostPool.h"

#include <cstdint>
#include <new>

#include "core/Env.h"

namespace coconet_rt {

namespace {

constexpr size_t kAlignBytes = 64;
constexpr std::align_val_t kAlign{kAlignBytes};

// What pipeline_malloc writes in the 64 bytes before the memory it returns.
struct PipelineHeader {
    size_t bytes; // the whole block's
    bool pooled;
};
static_assert(sizeof(PipelineHeader) <= kAlignBytes, "the header fits before the memory");

uint8_t *new_block(size_t bytes) {
    return static_cast<uint8_t *>(::operator new[](bytes, kAlign, std::nothrow));
}

bool pooling() {
    static const bool on = env_is("COCONET_HOST_POOL", {"on", "off"}, "on");
    return on;
}

} // namespace

HostPool::Block HostPool::take(size_t bytes) {
    uint8_t *p = take_raw(bytes);
    if (!p) {
        throw std::bad_alloc();
    }
    return Block(p, Giver{this, bytes});
}

uint8_t *HostPool::take_raw(size_t bytes) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        // The newest block of that size: the one the last call of the same
        // program gave back, most likely still in cache.
        for (size_t i = free_.size(); i-- > 0;) {
            if (free_[i].first == bytes) {
                uint8_t *p = free_[i].second;
                free_.erase(free_.begin() + (std::ptrdiff_t)i);
                free_bytes_ -= bytes;
                return p;
            }
        }
    }
    return new_block(bytes);
}

void *HostPool::pipeline_malloc(HostPool *pool, size_t bytes) {
    if (bytes > SIZE_MAX / 2) {
        return nullptr;
    }
    // The header, whole vectors, and a vector's slack after them.
    const size_t total = kAlignBytes + (bytes + kAlignBytes - 1) / kAlignBytes * kAlignBytes +
                         kAlignBytes;
    const bool pooled = pool && total >= kMinPipelineBytes;
    uint8_t *block = pooled ? pool->take_raw(total) : new_block(total);
    if (!block) {
        return nullptr;
    }
    new (block) PipelineHeader{total, pooled};
    return block + kAlignBytes;
}

void HostPool::pipeline_free(HostPool *pool, void *p) {
    if (!p) {
        return;
    }
    uint8_t *block = static_cast<uint8_t *>(p) - kAlignBytes;
    const PipelineHeader h = *reinterpret_cast<const PipelineHeader *>(block);
    if (h.pooled && pool) {
        pool->give(block, h.bytes);
    } else {
        ::operator delete[](block, kAlign);
    }
}

void HostPool::give(uint8_t *p, size_t bytes) {
    if (!p) {
        return;
    }
    if (!pooling() || bytes > kMaxFreeBytes) {
        ::operator delete[](p, kAlign);
        return;
    }
    std::vector<std::pair<size_t, uint8_t *>> evicted;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        free_.emplace_back(bytes, p);
        free_bytes_ += bytes;
        size_t drop = 0;
        for (; free_bytes_ > kMaxFreeBytes; drop++) {
            free_bytes_ -= free_[drop].first;
        }
        evicted.assign(free_.begin(), free_.begin() + (std::ptrdiff_t)drop);
        free_.erase(free_.begin(), free_.begin() + (std::ptrdiff_t)drop);
    }
    for (auto &[n, q] : evicted) {
        ::operator delete[](q, kAlign);
    }
}

size_t HostPool::free_bytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return free_bytes_;
}

void HostPool::release() {
    std::vector<std::pair<size_t, uint8_t *>> all;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        all.swap(free_);
        free_bytes_ = 0;
    }
    for (auto &[n, q] : all) {
        ::operator delete[](q, kAlign);
    }
}

} // namespace coconet_rt
