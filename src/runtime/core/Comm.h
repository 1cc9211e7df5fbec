// The communicator behind the C ABI: rank, size, timeout, error reporting and
// counters shared by every backend, and the operations a backend implements
// (barrier, abort, and moving the data of one collective).
#ifndef COCONET_RUNTIME_COMM_H
#define COCONET_RUNTIME_COMM_H

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "coconet_aot.h"
#include "core/Collective.h"
#include "core/Fused.h"
#include "device/LibraryCollective.h"

struct coconet_comm;

namespace coconet_rt {
struct ExecutorState;
constexpr int kNumKinds = COCONET_HOST_DEVICE + 1;
// Whether p is a communicator that exists now (every one is registered from
// construction to destruction): Halide's error handler receives the
// user_context of any pipeline, ours or not.
bool is_live_comm(const void *p);
// comm->fail when comm is live; otherwise records the failure for
// coconet_comm_last_error(NULL) on this thread and prints it.
int fail(coconet_comm *comm, int code, const std::string &message);
// The CPU threads a rank may compute with, `ranks_in_process` of the world's
// ranks running in this process and `ranks_on_node` on this machine:
// COCONET_RANK_THREADS when it is an integer in [1, 1024] (another value
// but empty: a warning, once), else the CPUs this process may run on divided among the
// ranks that share them (at least 1): those of the machine where the process
// may run on all its CPUs, else those of the process (a launcher binding each
// process to CPUs of its own).
int threads_per_rank(int ranks_in_process, int ranks_on_node);
// The longest timeout (a day): a larger one is a hang by another name.
constexpr double kMaxTimeout = 86400.0;
// The timeout a communicator starts with: COCONET_TIMEOUT_S when it is a
// number of seconds in (0, kMaxTimeout] (otherwise a warning, once), else
// `requested` when positive (at most kMaxTimeout), else 10 s.
double initial_timeout(double requested);
// The all_to_all `desc` of one call, its source computed straight into the
// members' outputs (coconet_comm::run_produced): checked like
// coconet_collective_call, `in` describing this rank's source (box and type,
// no memory).
int produced_all_to_all(coconet_comm *comm, const char *name, const coconet_collective_desc &desc,
                        const halide_buffer_t *in, halide_buffer_t *out,
                        const std::function<int(halide_buffer_t *view)> &produce);
} // namespace coconet_rt

struct coconet_comm {
    coconet_comm(int rank, int size, double timeout);
    virtual ~coconet_comm();
    coconet_comm(const coconet_comm &) = delete;
    coconet_comm &operator=(const coconet_comm &) = delete;

    virtual const char *backend() const = 0;
    virtual int barrier(const char *what) = 0;
    virtual void abort(const char *reason) = 0;
    // Runs `op` on this rank (a participant, arguments checked): make peers'
    // inputs available as op.peer_inputs, compute this rank's output, and keep
    // this rank's input readable until the peers that read it are done.
    virtual int run(coconet_rt::Op &op, const halide_buffer_t *in, halide_buffer_t *out) = 0;
    // Whether this backend can run an all_to_all whose producer writes
    // straight into the members' outputs (run_produced): its ranks reach each
    // other's host memory (threads).
    virtual bool writes_peer_outputs() const { return false; }
    // Runs all_to_all `op` with no source in memory: this rank calls
    // produce(view) for the part of every member's output it holds the
    // source of (`in` has its box and type, no memory), `view` a view of that
    // member's output, then waits until every member has written its parts
    // into this rank's `out`. Only where writes_peer_outputs().
    using Produce = std::function<int(halide_buffer_t *view)>;
    virtual int run_produced(coconet_rt::Op &op, const halide_buffer_t *in, halide_buffer_t *out,
                             const Produce &produce);
    // Whether a kernel may read and write its peers' device buffers directly:
    // the ranks share one process and one device context (threads). Fused
    // passes then stay on the device; elsewhere they run on host memory.
    virtual bool peers_share_device() const { return false; }
    // Whether reductions combine ranks in group-rank order (see
    // coconet_comm_deterministic).
    virtual bool deterministic() const { return true; }
    // Whether collectives whose Halide stage runs on a device
    // (coconet_collective_desc::device) read their peers' device buffers
    // where they are: ranks sharing one device (threads backend). Otherwise
    // the runtime stages them through host memory.
    virtual bool device_collectives() const { return false; }
    // A collective library that moves buffers of device `iface` itself
    // (NCCL on CUDA), or null: the runtime then stages device collectives
    // through host memory (LibraryCollective.h).
    virtual coconet_rt::DeviceLibrary *device_library(const halide_device_interface_t *iface) {
        (void)iface;
        return nullptr;
    }
    // The path a fused call asking for `requested` takes on this backend.
    virtual coconet_fused_path fused_path(int requested) const = 0;
    // Runs a fused reduce-scatter on this rank (a group member, call checked).
    virtual int run_fused(const coconet_rt::FusedPlan &plan, coconet_fused_path path) = 0;
    // The smallest value value_memory is asked to place (bytes per group
    // member, the same on every rank), or SIZE_MAX where it places none (the
    // executor then skips it, and the key it would build on every call).
    virtual size_t places_values_from() const { return SIZE_MAX; }
    // Memory that fused passes read and write in place, for the executor's
    // values (the sources and gathered outputs it allocates): one block of
    // bytes[i] per value, kept for the communicator's life under `key` (a
    // program and its values' global shapes, so that every rank asks the same
    // sizes under a key). Collective on a key's first use: every rank asks at
    // the same point of the same call. None (out empty) where passes read
    // ordinary memory in place anyway.
    virtual int value_memory(const std::string &key, const std::vector<size_t> &bytes,
                             std::vector<uint8_t *> *out) {
        (void)key, (void)bytes;
        out->clear();
        return COCONET_OK;
    }
    // Frees the value_memory of every key starting with `prefix` (a
    // program's). Collective like value_memory.
    virtual int release_value_memory(const std::string &prefix) {
        (void)prefix;
        return COCONET_OK;
    }

    // Records the code and message (coconet_comm_last_error_code,
    // coconet_comm_last_error), prints the message once to stderr prefixed
    // "coconet: ", and returns `code`.
    int fail(int code, const std::string &message);
    // Records the code and message without printing them.
    void set_error(int code, const std::string &message);
    // Adds to this rank's byte counter (thread-safe: threads peers call it).
    void count_bytes(int kind, uint64_t bytes);
    // Runs fn(user_context, arg) with the user context the running program's
    // Halide runtime takes for device calls (the executor sets
    // with_device_context for a program's run; unset: this communicator).
    int device_call(coconet_device_fn fn, void *arg);
    int (*with_device_context)(coconet_comm *, coconet_device_fn, void *) = nullptr;
    // The program the executor runs on this rank (set for the run): its
    // combiners reduce device collectives' inputs.
    const coconet_aot_program *running = nullptr;

    const int rank, size;
    // Ranks of the world in this process (sharing its Halide thread pool):
    // set by backends that run several (threads, an NCCL world).
    int local_ranks = 1;
    // CPU threads this rank's parallel loops may use (threads_per_rank): set
    // by each backend from the ranks it runs on this machine.
    int threads = 1;
    double timeout;
    std::string last_error;
    int last_error_code = COCONET_OK;
    std::atomic<uint64_t> bytes[coconet_rt::kNumKinds];
    std::atomic<uint64_t> ops[coconet_rt::kNumKinds];
    // What the executor keeps for this communicator between calls
    // (executor/ExecutorState.h), created by its first call.
    std::shared_ptr<coconet_rt::ExecutorState> executor;
    // The thread in a call on this communicator (none: a default id), and how
    // deep its calls nest (a library's pipelines call its collectives): see
    // CommUse.
    std::atomic<std::thread::id> user{};
    int user_depth = 0;
};

namespace coconet_rt {

// One thread at a time calls a communicator: two calls of one rank would
// take each other's place in its meetings with the peers (a barrier passing
// without them, a peer reading a call that has returned). Held for a call's
// length by the C API's entry points; a call from another thread meanwhile is
// refused (COCONET_ERR_INVALID, naming the rank and the call), and the call
// in progress goes on.
class CommUse {
public:
    // `what` and `name` name the call in the refusal: "barrier 'b'".
    CommUse(coconet_comm *comm, const char *what, const char *name = nullptr);
    ~CommUse();
    CommUse(const CommUse &) = delete;
    CommUse &operator=(const CommUse &) = delete;
    // COCONET_OK, or the refusal's code (the message set on comm).
    int status() const { return status_; }

private:
    coconet_comm *comm_;
    int status_ = COCONET_OK;
};

} // namespace coconet_rt

#endif
