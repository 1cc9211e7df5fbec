// A barrier over flags in memory that every member reads and writes directly
// (the segments of an MPI-3 shared window), in the manner of NCCL's device
// barrier (nccl_device/lsa_barrier.h): each member counts the barriers it has
// reached in a slot of its own and waits until every member's count reaches
// its own. No message and no MPI call: a barrier costs a store and the loads
// of the other members' slots. A member may publish a word with its arrival
// (a status), read by the others once they see it arrive. The memory orders
// of arriving and waiting are parameters; waiting takes a deadline, after
// which the caller is told which members are late instead of waiting on.
#ifndef COCONET_RUNTIME_FLAG_BARRIER_H
#define COCONET_RUNTIME_FLAG_BARRIER_H

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace coconet_rt {

// One member's slot, in memory every member maps, 8-byte aligned. It fills 64
// bytes, so that a slot at the start of a cache line (a page-aligned window
// segment) has the line to itself and members do not write one line.
struct FlagBarrierSlot {
    int64_t arrived; // the number of barriers this member has reached
    // What it published with its arrivals, by the barrier's parity: a member
    // can be one barrier ahead of a reader, never two.
    int64_t word[2];
    int64_t unused[5];
};
static_assert(sizeof(FlagBarrierSlot) == 64, "a slot fills a cache line");

class FlagBarrier {
public:
    FlagBarrier() = default;

    // slots[k]: member k's slot; `me`: this member. Every member must have
    // set its own slot to zero (reset) before any member arrives.
    FlagBarrier(std::vector<FlagBarrierSlot *> slots, int me) : slots_(std::move(slots)), me_(me) {}

    // Zeroes this member's slot (before the members first meet).
    void reset() {
        store(&slots_[me_]->word[0], 0, std::memory_order_relaxed);
        store(&slots_[me_]->word[1], 0, std::memory_order_relaxed);
        store(&slots_[me_]->arrived, 0, std::memory_order_relaxed);
        epoch_ = 0;
    }

    // Publishes `word` and this member's arrival at the next barrier. With
    // release order (the default), every write this member made before is
    // visible to a member whose wait sees the arrival.
    void arrive(int64_t word = 0, std::memory_order order = std::memory_order_release) {
        epoch_++;
        store(&slots_[me_]->word[epoch_ % 2], word, std::memory_order_relaxed);
        store(&slots_[me_]->arrived, epoch_, order);
    }

    // Waits until every member has reached this member's last barrier, or
    // the deadline passes (false). With acquire order (the default), the
    // writes the members made before arriving are visible afterwards. Spins
    // a little, then yields between looks (ranks may share a core).
    bool wait(std::chrono::steady_clock::time_point deadline,
              std::memory_order order = std::memory_order_acquire) const {
        for (int looks = 0;; looks++) {
            if (all_arrived(order)) {
                return true;
            }
            if (looks >= kSpins) {
                if (std::chrono::steady_clock::now() > deadline) {
                    return false;
                }
                std::this_thread::yield();
            }
        }
    }

    // Waits for as long as it takes.
    void wait(std::memory_order order = std::memory_order_acquire) const {
        (void)wait(std::chrono::steady_clock::time_point::max(), order);
    }

    // Whether every member has reached this member's last barrier (no
    // allocation: it runs in the wait's loop).
    bool all_arrived(std::memory_order order = std::memory_order_acquire) const {
        for (const FlagBarrierSlot *slot : slots_) {
            if (load(&slot->arrived, order) < epoch_) {
                return false;
            }
        }
        return true;
    }

    // The members that have not reached this member's last barrier.
    std::vector<int> late(std::memory_order order = std::memory_order_acquire) const {
        std::vector<int> behind;
        for (int k = 0; k < (int)slots_.size(); k++) {
            if (load(&slots_[k]->arrived, order) < epoch_) {
                behind.push_back(k);
            }
        }
        return behind;
    }

    // The word member k published with its arrival at this member's last
    // barrier (read after a wait that saw it arrive).
    int64_t word(int k) const {
        return load(&slots_[k]->word[epoch_ % 2], std::memory_order_relaxed);
    }

    int members() const { return (int)slots_.size(); }

    // The number of barriers this member has arrived at (the next one is
    // epoch() + 1): callers keep data of their own by its parity, as word does.
    int64_t epoch() const { return epoch_; }

private:
    static constexpr int kSpins = 256;

    // The slots are plain memory shared between processes, not std::atomic
    // objects: GCC's builtins give them atomic accesses in the C++ orders a
    // store or a load can take.
    static void store(int64_t *p, int64_t v, std::memory_order order) {
        __atomic_store_n(p, v,
                         order == std::memory_order_relaxed   ? __ATOMIC_RELAXED
                         : order == std::memory_order_release ? __ATOMIC_RELEASE
                                                              : __ATOMIC_SEQ_CST);
    }

    static int64_t load(const int64_t *p, std::memory_order order) {
        return __atomic_load_n(p, order == std::memory_order_relaxed ? __ATOMIC_RELAXED
                                  : order == std::memory_order_acquire ||
                                          order == std::memory_order_consume
                                      ? __ATOMIC_ACQUIRE
                                      : __ATOMIC_SEQ_CST);
    }

    std::vector<FlagBarrierSlot *> slots_;
    int me_ = 0;
    int64_t epoch_ = 0; // barriers this member has arrived at
};

} // namespace coconet_rt

#endif
