// The C ABI: communicator queries, partitioning, and the collective entry
// point that lowered pipelines call (bounds queries, validation, dispatch to
// the backend).
#include "Comm.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

using coconet_rt::Op;

coconet_comm::coconet_comm(int rank, int size, double timeout)
    : rank(rank), size(size), timeout(coconet_rt::default_timeout(timeout)) {
    for (int k = 0; k < 7; k++) {
        bytes[k] = 0;
        ops[k] = 0;
    }
}

int coconet_comm::fail(int code, const std::string &message) {
    last_error = message;
    std::fprintf(stderr, "coconet: %s\n", message.c_str());
    return code;
}

void coconet_comm::count(int kind, uint64_t n) {
    if (kind >= 0 && kind < 7) {
        bytes[kind] += n;
    }
}

namespace coconet_rt {

double default_timeout(double requested) {
    if (const char *env = std::getenv("COCONET_TIMEOUT_S")) {
        double t = std::atof(env);
        if (t > 0) {
            return t;
        }
    }
    return requested > 0 ? requested : 10.0;
}

} // namespace coconet_rt

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

void coconet_comm_set_timeout(coconet_comm *comm, double seconds) {
    comm->timeout = seconds > 0 ? seconds : comm->timeout;
}

double coconet_comm_timeout(const coconet_comm *comm) {
    return comm->timeout;
}

const char *coconet_comm_last_error(const coconet_comm *comm) {
    return comm->last_error.c_str();
}

int coconet_barrier(coconet_comm *comm, const char *what) {
    return comm->barrier(what ? what : "barrier");
}

void coconet_comm_abort(coconet_comm *comm, const char *reason) {
    comm->abort(reason ? reason : "aborted");
}

uint64_t coconet_comm_bytes_sent(const coconet_comm *comm, int kind) {
    return kind >= 0 && kind < 7 ? comm->bytes[kind].load() : 0;
}

uint64_t coconet_comm_op_count(const coconet_comm *comm, int kind) {
    return kind >= 0 && kind < 7 ? comm->ops[kind].load() : 0;
}

void coconet_comm_reset_counters(coconet_comm *comm) {
    for (int k = 0; k < 7; k++) {
        comm->bytes[k] = 0;
        comm->ops[k] = 0;
    }
}

void coconet_slice_range(int64_t n, int parts, int index, int64_t *begin, int64_t *end) {
    const int64_t block = parts > 0 ? (n + parts - 1) / parts : n;
    *begin = std::min<int64_t>(n, (int64_t)index * block);
    *end = std::min<int64_t>(n, ((int64_t)index + 1) * block);
}

void coconet_group_range(int world_size, int nsplit, int group, int *first, int *count) {
    *first = (int)((int64_t)group * world_size / nsplit);
    *count = (int)((int64_t)(group + 1) * world_size / nsplit) - *first;
}

int32_t coconet_rank(void *user_context) {
    return static_cast<coconet_comm *>(user_context)->rank;
}

int32_t coconet_size(void *user_context) {
    return static_cast<coconet_comm *>(user_context)->size;
}

int coconet_collective(void *user_context, const char *name, int32_t kind, int32_t op, int32_t root,
                       int32_t a, int32_t b, int32_t nsplit, int32_t group, int32_t dst_group,
                       int32_t n0, int32_t n1, int32_t n2, int32_t n3, halide_buffer_t *in,
                       halide_buffer_t *out) {
    coconet_comm *comm = static_cast<coconet_comm *>(user_context);
    const int32_t n[coconet_rt::kMaxDims] = {n0, n1, n2, n3};
    if (!comm || !in || !out || nsplit < 1 || group < 0 || group >= nsplit ||
        in->dimensions > coconet_rt::kMaxDims || comm->size < nsplit) {
        if (comm) {
            return comm->fail(COCONET_ERR_INVALID, "collective '" + std::string(name ? name : "") +
                                                       "': bad arguments (group " +
                                                       std::to_string(group) + " of " +
                                                       std::to_string(nsplit) + " on " +
                                                       std::to_string(comm->size) + " ranks)");
        }
        return COCONET_ERR_INVALID;
    }
    Op o = coconet_rt::make_op(name, kind, op, root, a, b, nsplit, group, dst_group, n,
                               in->dimensions, comm->size);
    if (in->host == nullptr && in->device == 0) {
        coconet_rt::set_box(in, o.input_box(comm->rank));
        return COCONET_OK;
    }
    std::string problem = o.check(comm->rank, in, out);
    if (!problem.empty()) {
        return comm->fail(COCONET_ERR_INVALID, "rank " + std::to_string(comm->rank) + ": " +
                                                   o.kind_name() + " '" + o.name + "': " + problem);
    }
    if (!o.participates(comm->rank)) {
        return COCONET_OK;
    }
    int rc = comm->run(o, in, out);
    if (rc == COCONET_OK && kind >= 0 && kind < 7) {
        comm->ops[kind]++;
    }
    return rc;
}

} // extern "C"
