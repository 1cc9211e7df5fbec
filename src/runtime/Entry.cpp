// The entry points that lowered Halide pipelines call as extern stages:
// coconet_rank, coconet_size and coconet_collective (bounds queries, argument
// checks, dispatch to the communicator's backend, op counters).
#include <cstdio>

#include "Comm.h"
#include "Errors.h"

extern "C" {

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
    if (!comm) {
        std::fprintf(stderr, "coconet: collective '%s' called without a communicator\n",
                     name ? name : "");
        return COCONET_ERR_INVALID;
    }
    const int32_t n[coconet_rt::kMaxDims] = {n0, n1, n2, n3};
    coconet_rt::Op o = coconet_rt::make_op(name, kind, op, root, a, b, nsplit, group, dst_group, n,
                                           in ? in->dimensions : 0, comm->size);
    auto invalid = [&](const std::string &problem) {
        return comm->fail(COCONET_ERR_INVALID,
                          coconet_rt::op_label(comm->rank, o.what()) + ": " + problem);
    };
    if (!in || !out) {
        return invalid("missing input or output buffer");
    }
    o.set_chunk(out);
    std::string problem = o.check_args();
    if (!problem.empty()) {
        return invalid(problem);
    }
    if (in->host == nullptr && in->device == 0) {
        problem = o.check_chunked_input(comm->rank);
        if (!problem.empty()) {
            return invalid(problem);
        }
        coconet_rt::set_box(in, o.input_box(comm->rank));
        return COCONET_OK;
    }
    problem = o.check_buffers(comm->rank, in, out);
    if (!problem.empty()) {
        return invalid(problem);
    }
    if (!o.participates(comm->rank)) {
        return COCONET_OK;
    }
    const int rc = comm->run(o, in, out);
    if (rc == COCONET_OK) {
        comm->ops[kind].fetch_add(1, std::memory_order_relaxed);
    }
    return rc;
}

} // extern "C"
