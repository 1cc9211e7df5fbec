// R ranks as threads of this process, kept across calls: one world of the
// threads backend and a thread per rank that waits for the next call. A
// training loop that calls a program every step keeps one, so that no call
// pays for making a world and starting threads, and what the runtime keeps
// per communicator (the overlap tuning, host memory) carries over.
#ifndef COCONET_THREAD_WORLD_H
#define COCONET_THREAD_WORLD_H

#include <functional>
#include <memory>

#include "coconet_runtime.h"

namespace coconet {

class ThreadWorld {
public:
    // `timeout_seconds` bounds every wait of a collective, as
    // coconet_threads_world_create's does (COCONET_TIMEOUT_S overrides it;
    // one not positive is 10 s).
    explicit ThreadWorld(int size, double timeout_seconds = 10.0);
    ~ThreadWorld();
    ThreadWorld(const ThreadWorld &) = delete;
    ThreadWorld &operator=(const ThreadWorld &) = delete;

    int size() const;
    double timeout_seconds() const; // the timeout the ranks have
    // Rank r's communicator, valid until the next call that fails, the next
    // call after an operation on one of these communicators failed outside
    // run() (the world is then made anew: a failure marks the whole world
    // failed), or the world's end.
    coconet_comm *comm(int rank) const;

    // Runs body(comm(r)) for every rank r, each on its rank's thread (rank 0
    // on the caller's), and returns when all have. A rank whose body throws
    // aborts the others; the call then throws RuntimeError with the messages
    // of the ranks that failed first (not those stopped by the abort; each
    // message once), or UserError when each of those ranks threw one, and
    // the world is made anew for the next call, since an aborted world's
    // ranks cannot meet again. One call at a time: a call while another runs
    // (from another thread, or from a body) is a UserError.
    void run(const std::function<void(coconet_comm *)> &body);

private:
    struct Pool;
    std::unique_ptr<Pool> pool_;
};

} // namespace coconet

#endif
