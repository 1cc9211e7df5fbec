// The communicator behind the C ABI: rank, size, timeout, error reporting and
// counters shared by every backend, and the one virtual operation a backend
// implements: run a collective whose data movement plan is given.
#ifndef COCONET_RUNTIME_COMM_H
#define COCONET_RUNTIME_COMM_H

#include <atomic>
#include <string>
#include <vector>

#include "Collective.h"

struct coconet_comm {
    coconet_comm(int rank, int size, double timeout);
    virtual ~coconet_comm() = default;

    virtual const char *backend() const = 0;
    virtual int barrier(const char *what) = 0;
    virtual void abort(const char *reason) = 0;
    // Runs `op` on this rank (a participant): make peers' inputs available as
    // op.peer_inputs, call compute_output, and keep this rank's input readable
    // until the peers that read it are done.
    virtual int run(coconet_rt::Op &op, const halide_buffer_t *in, halide_buffer_t *out) = 0;

    // Records and prints a failure; returns `code`.
    int fail(int code, const std::string &message);
    void count(int kind, uint64_t bytes_sent);

    const int rank, size;
    double timeout;
    std::string last_error;
    std::atomic<uint64_t> bytes[7];
    std::atomic<uint64_t> ops[7];
};

namespace coconet_rt {
double default_timeout(double requested);
}

#endif
