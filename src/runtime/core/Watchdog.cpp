#include "core/Watchdog.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace coconet_rt {

Watchdog &Watchdog::process() {
    static Watchdog w;
    return w;
}

Watchdog::Guard Watchdog::guard(std::string message, double seconds, int exit_code) {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(seconds));
    std::lock_guard<std::mutex> lock(mutex_);
    if (!thread_.joinable()) {
        thread_ = std::thread([this] { watch(); });
    }
    const uint64_t id = next_id_++;
    armed_.emplace(id, Armed{deadline, std::move(message), exit_code});
    wake_.notify_all();
    return Guard(this, id);
}

void Watchdog::disarm(uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_.erase(id);
}

Watchdog::~Watchdog() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
        wake_.notify_all();
    }
    if (thread_.joinable()) {
        thread_.join();
    }
}

void Watchdog::watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
        if (armed_.empty()) {
            wake_.wait(lock);
            continue;
        }
        const auto first = std::min_element(armed_.begin(), armed_.end(), [](auto &a, auto &b) {
            return a.second.deadline < b.second.deadline;
        });
        // A copy: disarming erases the entry while this thread waits.
        const auto deadline = first->second.deadline;
        if (std::chrono::steady_clock::now() < deadline) {
            wake_.wait_until(lock, deadline);
            continue;
        }
        // Expired: the guarded call is stuck, and so is this process.
        std::fprintf(stderr, "coconet: %s\n", first->second.message.c_str());
        std::fflush(stderr);
        const int code = first->second.exit_code;
        lock.unlock();
        std::this_thread::sleep_for(kGrace);
        std::_Exit(code);
    }
}

} // namespace coconet_rt
