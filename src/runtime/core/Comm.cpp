// The communicator base (see Comm.h) and the C ABI that queries and configures
// any communicator.
#include "core/Comm.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#ifdef __linux__
#include <sched.h>
#endif

#include "core/Errors.h"

namespace {

std::mutex &live_mutex() {
    static std::mutex m;
    return m;
}

std::set<const void *> &live_comms() {
    static auto *s = new std::set<const void *>();
    return *s;
}

// The last failure of a call on this thread that had no communicator to
// record it on (NULL or destroyed): coconet_comm_last_error(NULL) reads it.
struct OrphanError {
    int code = COCONET_OK;
    std::string message;
};

OrphanError &orphan_error() {
    thread_local OrphanError e;
    return e;
}

} // namespace

coconet_comm::coconet_comm(int rank, int size, double timeout)
    : rank(rank), size(size), timeout(coconet_rt::initial_timeout(timeout)) {
    for (int k = 0; k < coconet_rt::kNumKinds; k++) {
        bytes[k] = 0;
        ops[k] = 0;
    }
    std::lock_guard<std::mutex> lock(live_mutex());
    live_comms().insert(this);
}

coconet_comm::~coconet_comm() {
    std::lock_guard<std::mutex> lock(live_mutex());
    live_comms().erase(this);
}

int coconet_comm::run_produced(coconet_rt::Op &op, const halide_buffer_t *, halide_buffer_t *,
                               const Produce &) {
    return fail(COCONET_ERR_INTERNAL, coconet_rt::op_label(rank, op.what()) + ": the " + backend() +
                                          " backend cannot write into its peers' outputs");
}

int coconet_comm::fail(int code, const std::string &message) {
    set_error(code, message);
    std::fprintf(stderr, "coconet: %s\n", message.c_str());
    return code;
}

void coconet_comm::set_error(int code, const std::string &message) {
    last_error = message;
    last_error_code = code;
}

void coconet_comm::count_bytes(int kind, uint64_t n) {
    if (kind >= 0 && kind < coconet_rt::kNumKinds) {
        bytes[kind].fetch_add(n, std::memory_order_relaxed);
    }
}

coconet_rt::CommUse::CommUse(coconet_comm *comm, const char *what, const char *name) : comm_(comm) {
    const std::thread::id me = std::this_thread::get_id();
    std::thread::id none;
    if (comm->user.load() == me || comm->user.compare_exchange_strong(none, me)) {
        comm->user_depth++;
        return;
    }
    comm_ = nullptr;
    status_ = comm->fail(
        COCONET_ERR_INVALID,
        op_label(comm->rank, name ? std::string(what) + " '" + name + "'" : std::string(what)) +
            ": the communicator is in a call on another thread; a communicator "
            "takes one call at a time (one thread per rank)");
}

coconet_rt::CommUse::~CommUse() {
    if (comm_ && --comm_->user_depth == 0) {
        comm_->user.store(std::thread::id());
    }
}

int coconet_comm::device_call(coconet_device_fn fn, void *arg) {
    return with_device_context ? with_device_context(this, fn, arg) : fn(this, arg);
}

namespace coconet_rt {

bool is_live_comm(const void *p) {
    std::lock_guard<std::mutex> lock(live_mutex());
    return live_comms().count(p) > 0;
}

int fail(coconet_comm *comm, int code, const std::string &message) {
    if (is_live_comm(comm)) {
        return comm->fail(code, message);
    }
    orphan_error() = OrphanError{code, message};
    std::fprintf(stderr, "coconet: %s\n", message.c_str());
    return code;
}

double initial_timeout(double requested) {
    const double fallback = requested > 0 && requested <= kMaxTimeout ? requested
                            : requested > kMaxTimeout                 ? kMaxTimeout
                                                                      : 10.0;
    // The environment wins so that a slow run (sanitizers, debuggers) can be
    // given more time without rebuilding; coconet_comm_set_timeout still wins.
    const char *env = std::getenv("COCONET_TIMEOUT_S");
    if (!env) {
        return fallback;
    }
    char *end = nullptr;
    const double t = std::strtod(env, &end);
    const bool number = end != env && *end == '\0' && std::isfinite(t);
    if (number && t > 0 && t <= kMaxTimeout) {
        return t;
    }
    // Garbage must not turn into no timeout (a hang) nor pass unnoticed.
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true)) {
        std::fprintf(stderr,
                     "coconet: COCONET_TIMEOUT_S='%s' is not a number of seconds in (0, %.0f]; "
                     "using %.1f s\n",
                     env, kMaxTimeout, number && t > kMaxTimeout ? kMaxTimeout : fallback);
    }
    return number && t > kMaxTimeout ? kMaxTimeout : fallback;
}

int threads_per_rank(int ranks_in_process, int ranks_on_node) {
    constexpr long most = 1024;
    const char *env = std::getenv("COCONET_RANK_THREADS");
    if (env && *env) {
        char *end = nullptr;
        const long n = std::strtol(env, &end, 10);
        if (end != env && *end == '\0' && n >= 1 && n <= most) {
            return (int)n;
        }
        static std::atomic<bool> warned{false};
        if (!warned.exchange(true)) {
            std::fprintf(stderr,
                         "coconet: COCONET_RANK_THREADS='%s' is not an integer in [1, %ld]; "
                         "dividing the CPUs among the ranks instead\n",
                         env, most);
        }
    }
    const int online = (int)std::max(1u, std::thread::hardware_concurrency());
    int cpus = online;
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        cpus = std::max(1, CPU_COUNT(&set));
    }
#endif
    const int sharing = cpus < online ? ranks_in_process : ranks_on_node;
    return std::max(1, cpus / std::max(1, sharing));
}

} // namespace coconet_rt

namespace {
bool valid_kind(int kind) {
    return kind >= 0 && kind < coconet_rt::kNumKinds;
}
} // namespace

extern "C" {

int coconet_comm_rank(const coconet_comm *comm) {
    return comm->rank;
}

int coconet_comm_size(const coconet_comm *comm) {
    return comm->size;
}

const char *coconet_comm_backend(const coconet_comm *comm) {
    return comm->backend();
}

int coconet_comm_local_ranks(const coconet_comm *comm) {
    return comm->local_ranks;
}

int coconet_comm_threads(const coconet_comm *comm) {
    return comm->threads;
}

int coconet_comm_deterministic(const coconet_comm *comm) {
    return comm->deterministic() ? 1 : 0;
}

void coconet_comm_set_timeout(coconet_comm *comm, double seconds) {
    if (seconds > 0 && std::isfinite(seconds)) {
        comm->timeout = std::min(seconds, coconet_rt::kMaxTimeout);
    }
}

double coconet_comm_timeout(const coconet_comm *comm) {
    return comm->timeout;
}

int coconet_comm_valid(const coconet_comm *comm) {
    return coconet_rt::is_live_comm(comm);
}

const char *coconet_comm_last_error(const coconet_comm *comm) {
    return coconet_rt::is_live_comm(comm) ? comm->last_error.c_str()
                                          : orphan_error().message.c_str();
}

int coconet_comm_last_error_code(const coconet_comm *comm) {
    return coconet_rt::is_live_comm(comm) ? comm->last_error_code : orphan_error().code;
}

int coconet_barrier(coconet_comm *comm, const char *what) {
    what = what ? what : "barrier";
    const coconet_rt::CommUse use(comm, "barrier", what);
    return use.status() != COCONET_OK ? use.status() : comm->barrier(what);
}

void coconet_comm_abort(coconet_comm *comm, const char *reason) {
    comm->abort(reason ? reason : "aborted");
}

uint64_t coconet_comm_bytes_sent(const coconet_comm *comm, int kind) {
    return valid_kind(kind) ? comm->bytes[kind].load() : 0;
}

uint64_t coconet_comm_op_count(const coconet_comm *comm, int kind) {
    return valid_kind(kind) ? comm->ops[kind].load() : 0;
}

void coconet_comm_reset_counters(coconet_comm *comm) {
    for (int k = 0; k < coconet_rt::kNumKinds; k++) {
        comm->bytes[k] = 0;
        comm->ops[k] = 0;
    }
}

} // extern "C"
