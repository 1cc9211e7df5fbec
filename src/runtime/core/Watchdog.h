// A watchdog for the blocking calls the runtime cannot poll (MPI's creation of
// a group's communicator and of a shared window): one thread per process, as
// PyTorch's NCCL process group keeps, that ends the process when a guarded
// call outlives its deadline, after printing the message it was armed with
// (the rank, the operation, the ranks it waits for). It ends the process
// rather than calling MPI_Abort, which the MPI library (initialized for one
// thread at a time) does not allow from this thread; mpirun then ends the job.
// A grace period between the message and the end lets the other ranks stuck
// in the same call print theirs.
#ifndef COCONET_RUNTIME_WATCHDOG_H
#define COCONET_RUNTIME_WATCHDOG_H

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace coconet_rt {

class Watchdog {
public:
    // The process's watchdog; its thread starts at the first guard.
    static Watchdog &process();

    // Disarms its call when it goes out of scope.
    class Guard {
    public:
        Guard(Watchdog *w, uint64_t id) : w_(w), id_(id) {}
        Guard(Guard &&o) noexcept : w_(o.w_), id_(o.id_) { o.w_ = nullptr; }
        Guard(const Guard &) = delete;
        Guard &operator=(const Guard &) = delete;
        Guard &operator=(Guard &&) = delete;
        ~Guard() {
            if (w_) {
                w_->disarm(id_);
            }
        }

    private:
        Watchdog *w_;
        uint64_t id_;
    };

    // Guards a call that must return within `seconds`: past that, prints
    // "coconet: <message>" to stderr and, after the grace period, ends the
    // process with `exit_code`.
    [[nodiscard]] Guard guard(std::string message, double seconds, int exit_code);

    ~Watchdog();

    static constexpr std::chrono::milliseconds kGrace{500};

private:
    struct Armed {
        std::chrono::steady_clock::time_point deadline;
        std::string message;
        int exit_code;
    };

    Watchdog() = default;
    void disarm(uint64_t id);
    void watch();

    std::mutex mutex_;
    std::condition_variable wake_;
    std::map<uint64_t, Armed> armed_;
    uint64_t next_id_ = 0;
    bool stopping_ = false;
    std::thread thread_;
};

} // namespace coconet_rt

#endif
