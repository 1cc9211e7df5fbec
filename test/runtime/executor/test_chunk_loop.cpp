// The overlap's chunk loop (runtime/executor/ChunkLoop.h): chunk j + 1 is
// produced on the producer thread while chunk j moves, every chunk is
// produced before it moves, one thread serves every chunk of every loop, a
// failed or throwing move stops the loop after the producer beside it
// finishes, and a producer's exception reaches the caller.
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "executor/ChunkLoop.h"

using coconet_rt::ProducerThread;
using coconet_rt::run_steps;

TEST_CASE("chunks are produced ahead of their moves on one kept thread", "[runtime][overlap]") {
    ProducerThread producer;
    std::vector<std::thread::id> producers;
    for (int loop = 0; loop < 3; loop++) {
        std::vector<std::atomic<int>> produced(5);
        std::vector<std::thread::id> by(5);
        std::vector<int> moved;
        const bool ok = run_steps(
            producer, 5,
            [&](int j) {
                by[j] = std::this_thread::get_id();
                produced[j] = 1;
            },
            [&](int j) {
                moved.push_back(j);
                return produced[j].load() == 1;
            });
        CHECK(ok);
        CHECK(moved == std::vector<int>({0, 1, 2, 3, 4}));
        CHECK(by[0] == std::this_thread::get_id()); // the first on the caller's thread
        for (int j = 1; j < 5; j++) {
            CHECK(by[j] != std::this_thread::get_id());
            producers.push_back(by[j]);
        }
    }
    for (const std::thread::id &id : producers) {
        CHECK(id == producers[0]);
    }
    CHECK(run_steps(
        producer, 0, [](int) { FAIL("nothing to produce"); }, [](int) { return false; }));
}

TEST_CASE("a failed move stops the loop once the producer beside it is done",
          "[runtime][overlap]") {
    ProducerThread producer;
    std::atomic<int> produced{0};
    std::vector<int> moved;
    const bool ok = run_steps(
        producer, 6, [&](int) { produced++; },
        [&](int j) {
            moved.push_back(j);
            return j < 2;
        });
    CHECK_FALSE(ok);
    CHECK(moved == std::vector<int>({0, 1, 2}));
    CHECK(produced.load() == 4); // chunks 0..3: chunk 3 was under way beside move 2
}

TEST_CASE("a move's exception waits for the producer beside it", "[runtime][overlap]") {
    ProducerThread producer;
    std::atomic<bool> producing{false}, finished{false};
    CHECK_THROWS_WITH(run_steps(
                          producer, 2,
                          [&](int j) {
                              if (j == 1) {
                                  producing = true;
                                  std::this_thread::sleep_for(std::chrono::milliseconds(50));
                                  finished = true;
                              }
                          },
                          [&](int) -> bool {
                              while (!producing.load()) {
                                  std::this_thread::yield();
                              }
                              throw std::runtime_error("move 0 failed");
                          }),
                      "move 0 failed");
    CHECK(finished.load());
}

TEST_CASE("a producer's exception reaches the caller, and the thread serves on",
          "[runtime][overlap]") {
    ProducerThread producer;
    CHECK_THROWS_WITH(run_steps(
                          producer, 3,
                          [](int j) {
                              if (j == 2) {
                                  throw std::runtime_error("chunk 2 failed");
                              }
                          },
                          [](int) { return true; }),
                      "chunk 2 failed");
    int produced = 0;
    CHECK(run_steps(
        producer, 3, [&](int) { produced++; }, [](int) { return true; }));
    CHECK(produced == 3);
}
