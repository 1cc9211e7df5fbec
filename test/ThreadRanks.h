// Ranks as threads of the test's process, the one harness for it:
// run_thread_ranks and thread_rank_outcomes run body(rank, comm) on every
// rank of a new threads world, run_threads runs body(i) on plain threads.
// An exception leaving a std::thread ends the process, so each thread's is
// caught on it and reported once all have joined. Catch2's assertions are
// not thread-safe: bodies record what they see, the test checks it after.
// Needs only the runtime's C API (tests below the compiler include it too).
#ifndef COCONET_TEST_THREAD_RANKS_H
#define COCONET_TEST_THREAD_RANKS_H

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "coconet_runtime.h"

namespace coconet_test {

// How one thread's body ended.
struct ThreadOutcome {
    std::string error;  // the message of what it threw; empty when it returned
    double seconds = 0; // how long it ran
};

namespace detail {

// The message of the exception being handled, never empty (an empty one
// would read as success).
inline std::string current_exception_message() {
    try {
        throw;
    } catch (const std::exception &e) {
        return *e.what() ? e.what() : "an exception with an empty message";
    } catch (...) {
        return "an exception that is not a std::exception";
    }
}

// Throws the failure of a thread that failed first: one stopped by a peer's
// abort says "aborted", so a failure that does not is preferred.
inline void rethrow_failure(const std::vector<ThreadOutcome> &outcomes) {
    int first = -1;
    for (int i = 0; i < (int)outcomes.size(); i++) {
        const std::string &e = outcomes[i].error;
        if (!e.empty() &&
            (first < 0 || outcomes[first].error.find("aborted") != std::string::npos)) {
            first = i;
        }
    }
    if (first >= 0) {
        throw std::runtime_error("thread " + std::to_string(first) +
                                 " failed: " + outcomes[first].error);
    }
}

// Runs body(i) for i in [0, count), each on a thread of its own, joins them
// all and returns how each ended.
template<typename F>
std::vector<ThreadOutcome> thread_outcomes(int count, F body) {
    std::vector<ThreadOutcome> outcomes(count);
    std::vector<std::thread> threads;
    for (int i = 0; i < count; i++) {
        threads.emplace_back([&, i] {
            const auto start = std::chrono::steady_clock::now();
            try {
                body(i);
            } catch (...) {
                outcomes[i].error = detail::current_exception_message();
            }
            outcomes[i].seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        });
    }
    for (std::thread &t : threads) {
        t.join();
    }
    return outcomes;
}

} // namespace detail

// Runs body(rank, comm) on every rank of a new threads world (`timeout`: its
// waits' limit in seconds), one thread each, and returns how each rank ended.
// A rank whose body throws aborts the world with the message, so that its
// peers fail at once instead of waiting out the timeout, as
// JitProgram::run_threads does.
template<typename F>
std::vector<ThreadOutcome> thread_rank_outcomes(int ranks, double timeout, F body) {
    std::unique_ptr<coconet_threads_world, void (*)(coconet_threads_world *)> world(
        coconet_threads_world_create(ranks, timeout), coconet_threads_world_destroy);
    if (!world) { // the runtime said why on stderr
        throw std::runtime_error("cannot make a threads world of " + std::to_string(ranks) +
                                 " ranks");
    }
    return detail::thread_outcomes(ranks, [&](int r) {
        coconet_comm *comm = coconet_threads_world_comm(world.get(), r);
        try {
            body(r, comm);
        } catch (...) {
            coconet_comm_abort(comm, detail::current_exception_message().c_str());
            throw;
        }
    });
}

// thread_rank_outcomes for bodies that are not meant to throw: a failure is
// rethrown once every rank has joined, and fails the test.
template<typename F>
void run_thread_ranks(int ranks, double timeout, F body) {
    detail::rethrow_failure(thread_rank_outcomes(ranks, timeout, body));
}

// Runs body(i) for i in [0, count), each on a thread of its own; a failure
// is rethrown once all have joined, as by run_thread_ranks.
template<typename F>
void run_threads(int count, F body) {
    detail::rethrow_failure(detail::thread_outcomes(count, body));
}

} // namespace coconet_test

#endif
