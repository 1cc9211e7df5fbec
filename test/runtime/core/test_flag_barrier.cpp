// The flag barrier of the MPI backend's shared windows (runtime/core/FlagBarrier.h),
// here with threads as members over slots in ordinary memory: no member
// passes a barrier before every member has arrived and its writes are seen,
// published words are read back for the right barrier however far apart the
// members run, and a member that never arrives is named after the deadline.
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "ThreadRanks.h"
#include "core/FlagBarrier.h"

using coconet_rt::FlagBarrier;
using coconet_rt::FlagBarrierSlot;
using coconet_test::run_threads;

namespace {

std::vector<FlagBarrier> barriers(std::vector<FlagBarrierSlot> &slots) {
    std::vector<FlagBarrierSlot *> ptrs;
    for (FlagBarrierSlot &s : slots) {
        ptrs.push_back(&s);
    }
    std::vector<FlagBarrier> all;
    for (int k = 0; k < (int)slots.size(); k++) {
        all.emplace_back(ptrs, k);
        all.back().reset();
    }
    return all;
}

} // namespace

TEST_CASE("no member passes a flag barrier early, and words come with their barrier and epoch",
          "[runtime]") {
    for (int members : {1, 3, 5}) {
        constexpr int kRounds = 300;
        std::vector<FlagBarrierSlot> slots(members);
        std::vector<FlagBarrier> bar = barriers(slots);
        // written[k]: the last round member k finished writing before arriving.
        std::vector<std::atomic<long long>> written(members);
        std::vector<int> errors(members, 0);
        run_threads(members, [&](int me) {
            for (int round = 1; round <= kRounds; round++) {
                // Relaxed: the arrival's release publishes it.
                written[me].store(round, std::memory_order_relaxed);
                bar[me].arrive((me + 1) * 1000 + round);
                bar[me].wait();
                errors[me] += bar[me].epoch() != round;
                for (int k = 0; k < members; k++) {
                    // k may be one round ahead already, never behind.
                    const long long w = written[k].load(std::memory_order_relaxed);
                    errors[me] += w < round || w > round + 1;
                    errors[me] += bar[me].word(k) != (k + 1) * 1000 + round;
                }
                // Members skew: some sleep now and then.
                if ((round + me) % 97 == 0) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
                }
            }
        });
        for (int me = 0; me < members; me++) {
            INFO(members << " members, member " << me);
            CHECK(errors[me] == 0);
            CHECK(bar[me].late().empty());
        }
    }
}

TEST_CASE("a member that never arrives is named after the deadline", "[runtime]") {
    std::vector<FlagBarrierSlot> slots(3);
    std::vector<FlagBarrier> bar = barriers(slots);
    // Members 0 and 1 meet once with member 2; then member 2 stays away.
    for (FlagBarrier &b : bar) {
        b.arrive();
    }
    for (FlagBarrier &b : bar) {
        REQUIRE(b.wait(std::chrono::steady_clock::now()));
    }
    for (int me : {0, 1}) {
        bar[me].arrive(0, std::memory_order_seq_cst);
    }
    const auto start = std::chrono::steady_clock::now();
    const bool met = bar[0].wait(start + std::chrono::milliseconds(50), std::memory_order_seq_cst);
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK_FALSE(met);
    CHECK(waited >= 0.05);
    CHECK(waited < 5.0);
    CHECK(bar[0].late() == std::vector<int>{2});
    CHECK(bar[1].late(std::memory_order_relaxed) == std::vector<int>{2});
    // Once it arrives, the barrier completes.
    bar[2].arrive();
    CHECK(bar[0].wait(std::chrono::steady_clock::now() + std::chrono::seconds(5)));
    CHECK(bar[0].late().empty());
}
