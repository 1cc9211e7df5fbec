#include "ThreadWorld.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "Error.h"
#include "Halide.h"

namespace coconet {

namespace {

using WorldPtr = std::unique_ptr<coconet_threads_world, void (*)(coconet_threads_world *)>;

WorldPtr make_world(int size, double timeout_seconds) {
    WorldPtr world(coconet_threads_world_create(size, timeout_seconds),
                   coconet_threads_world_destroy);
    coconet_internal_assert(world) << "cannot make a world of " << size << " thread ranks";
    return world;
}

// Waking a sleeping thread takes tens of microseconds, longer than a small
// program's call: a waiter spins this long first where the ranks fit the
// machine's hardware threads (as the threads backend's meetings do).
constexpr std::chrono::microseconds kSpin{50};

} // namespace

struct ThreadWorld::Pool {
    Pool(int size, double timeout_seconds)
        : size(size), timeout_seconds(timeout_seconds), world(make_world(size, timeout_seconds)),
          spin(size <= (int)std::max(1u, std::thread::hardware_concurrency())), errors(size),
          user_errors(size), codes(size) {
        for (int r = 1; r < size; r++) {
            workers.emplace_back([this, r] { serve(r); });
        }
    }

    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(mutex);
            stopping = true;
        }
        wake.notify_all();
        for (std::thread &t : workers) {
            t.join();
        }
    }

    // Spins up to kSpin (where spinning is on), then sleeps on `cv`, until
    // ready() holds.
    template<typename Ready>
    void wait(std::condition_variable &cv, Ready ready) {
        const auto until = std::chrono::steady_clock::now() + kSpin;
        while (spin && !ready() && std::chrono::steady_clock::now() < until) {
            std::this_thread::yield();
        }
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, ready);
    }

    // Rank r's thread: runs each call's body until the pool stops.
    void serve(int r) {
        uint64_t seen = 0;
        for (;;) {
            wait(wake, [&] { return generation.load() != seen || stopping.load(); });
            if (stopping.load()) {
                return;
            }
            seen = generation.load();
            run_rank(r);
            if (pending.fetch_sub(1) == 1) {
                std::lock_guard<std::mutex> lock(mutex);
                done.notify_all();
            }
        }
    }

    void run_rank(int r) {
        coconet_comm *comm = coconet_threads_world_comm(world.get(), r);
        std::string error;
        bool user = false;
        try {
            (*body)(comm);
            return;
        } catch (const UserError &e) {
            error = e.what();
            user = true;
        } catch (const std::exception &e) {
            error = *e.what() ? e.what() : "an exception with an empty message";
        } catch (const Halide::Error &e) { // not a std::exception
            error = *e.what() ? e.what() : "a Halide error with an empty message";
        } catch (...) {
            error = "an exception that is not a std::exception";
        }
        errors[r] = error;
        user_errors[r] = user;
        codes[r] = coconet_comm_last_error_code(comm);
        coconet_comm_abort(comm, error.c_str());
    }

    // The messages of the ranks that failed first, each message once: a
    // rank stopped by a peer's abort fails with COCONET_ERR_ABORTED, reported
    // only when every failure is. A UserError when each of those ranks'
    // bodies threw one (a bad call, made alike on every rank).
    void throw_failures() const {
        std::vector<std::string> reported;
        std::string report;
        int code = COCONET_OK;
        bool user = true;
        for (int pass = 0; pass < 2 && report.empty(); pass++) {
            for (int r = 0; r < size; r++) {
                if (errors[r].empty() || (pass == 0 && codes[r] == COCONET_ERR_ABORTED)) {
                    continue;
                }
                user = user && user_errors[r];
                code = code == COCONET_OK ? codes[r] : code;
                if (std::find(reported.begin(), reported.end(), errors[r]) == reported.end()) {
                    reported.push_back(errors[r]);
                    report += (report.empty() ? "" : "\n") + errors[r];
                }
            }
        }
        if (report.empty()) {
            return;
        }
        if (user) {
            throw UserError(report);
        }
        throw RuntimeError(code, report);
    }

    const int size;
    const double timeout_seconds;
    WorldPtr world;
    const bool spin;
    std::mutex busy; // held by the call running
    std::mutex mutex;
    std::condition_variable wake, done;
    std::atomic<bool> stopping{false};
    std::atomic<uint64_t> generation{0};
    std::atomic<int> pending{0};
    const std::function<void(coconet_comm *)> *body = nullptr;
    std::vector<std::string> errors;
    // Whether errors[r] is a UserError's (char: ranks write their own at once).
    std::vector<char> user_errors;
    std::vector<int> codes;
    std::vector<std::thread> workers;
};

ThreadWorld::ThreadWorld(int size, double timeout_seconds) {
    coconet_user_assert(size >= 1) << "ThreadWorld: size " << size << " < 1.";
    pool_ = std::make_unique<Pool>(size, timeout_seconds);
}

ThreadWorld::~ThreadWorld() = default;

int ThreadWorld::size() const {
    return pool_->size;
}

double ThreadWorld::timeout_seconds() const {
    return coconet_comm_timeout(comm(0));
}

coconet_comm *ThreadWorld::comm(int rank) const {
    coconet_user_assert(rank >= 0 && rank < pool_->size)
        << "ThreadWorld: rank " << rank << " of a world of " << pool_->size << " ranks.";
    return coconet_threads_world_comm(pool_->world.get(), rank);
}

void ThreadWorld::run(const std::function<void(coconet_comm *)> &body) {
    Pool &p = *pool_;
    std::unique_lock<std::mutex> busy(p.busy, std::try_to_lock);
    coconet_user_assert(busy.owns_lock())
        << "ThreadWorld::run on a world of " << p.size
        << " ranks while another call runs on it (from another thread, or from a rank's body): "
           "one call at a time.";
    if (coconet_threads_world_failed(p.world.get())) {
        // A call on one of its communicators outside run() failed and marked
        // the world failed (that call reported it): its ranks cannot meet again.
        p.world = make_world(p.size, p.timeout_seconds);
    }
    std::fill(p.errors.begin(), p.errors.end(), std::string());
    std::fill(p.codes.begin(), p.codes.end(), COCONET_OK);
    p.body = &body;
    p.pending = p.size - 1;
    {
        std::lock_guard<std::mutex> lock(p.mutex);
        p.generation++;
    }
    p.wake.notify_all();
    p.run_rank(0);
    p.wait(p.done, [&] { return p.pending.load() == 0; });
    p.body = nullptr;
    try {
        p.throw_failures();
    } catch (...) {
        // The ranks are idle: none holds a communicator of the failed world.
        p.world = make_world(p.size, p.timeout_seconds);
        throw;
    }
}

} // namespace coconet
