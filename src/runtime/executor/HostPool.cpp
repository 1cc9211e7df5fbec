#include "executor/HostPool.h"

#include <new>

#include "core/Env.h"

namespace coconet_rt {

namespace {

constexpr std::align_val_t kAlign{64};

bool pooling() {
    static const bool on = env_is("COCONET_HOST_POOL", {"on", "off"}, "on");
    return on;
}

} // namespace

HostPool::Block HostPool::take(size_t bytes) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        // The newest block of that size: the one the last call of the same
        // program gave back, most likely still in cache.
        for (size_t i = free_.size(); i-- > 0;) {
            if (free_[i].first == bytes) {
                uint8_t *p = free_[i].second;
                free_.erase(free_.begin() + (std::ptrdiff_t)i);
                free_bytes_ -= bytes;
                return Block(p, Giver{this, bytes});
            }
        }
    }
    return Block(static_cast<uint8_t *>(::operator new[](bytes, kAlign)), Giver{this, bytes});
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
