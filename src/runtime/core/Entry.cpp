// The entry points that lowered Halide pipelines call as extern stages:
// coconet_rank, coconet_size and coconet_collective (the descriptor's version,
// bounds queries, argument checks, dispatch to the communicator's backend, op
// counters), coconet_collective_call, the same for C callers, and
// coconet_gemm (device/DeviceGemm.h).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/Comm.h"
#include "core/Errors.h"
#include "core/Fault.h"
#include "device/Device.h"
#include "device/DeviceCollective.h"
#include "device/DeviceGemm.h"

namespace {

// A host stage reads and writes host memory: a buffer a GPU kernel left
// newer on the device comes back first. Halide copies extern stages' inputs
// itself, except after a specialization that computes the input on the device
// in one branch and on the host in the other (the GPU schedules' "this rank's
// box is non-empty"), where its copy analysis loses the device branch.
int bring_to_host(coconet_comm *comm, const coconet_rt::Op &o, halide_buffer_t *b,
                  const char *which) {
    if (!coconet_rt::device_newest(b)) {
        return COCONET_OK;
    }
    if (!b->device_interface || coconet_rt::device_to_host(*comm, b) != 0) {
        return comm->fail(COCONET_ERR_BACKEND, coconet_rt::op_label(comm->rank, o.what()) +
                                                   ": could not copy its " + which +
                                                   " from the device to the host");
    }
    return COCONET_OK;
}

// Refuses call o on comm for `problem`.
int invalid(coconet_comm *comm, const coconet_rt::Op &o, const std::string &problem) {
    return comm->fail(COCONET_ERR_INVALID,
                      coconet_rt::op_label(comm->rank, o.what()) + ": " + problem);
}

// Checks call o's buffers on comm and, where this rank takes part, runs it
// (run(), after the fault point), counting the call.
template<typename Run>
int checked_run(coconet_comm *comm, const coconet_rt::Op &o, halide_buffer_t *in,
                halide_buffer_t *out, bool device, Run &&run) {
    const std::string problem = o.check_buffers(comm->rank, in, out);
    if (!problem.empty()) {
        return invalid(comm, o, problem);
    }
    if (!o.participates(comm->rank)) {
        return COCONET_OK;
    }
    int rc = COCONET_OK;
    if (!device) {
        rc = bring_to_host(comm, o, in, "input");
        if (rc == COCONET_OK) {
            rc = bring_to_host(comm, o, out, "output");
        }
    }
    if (rc == COCONET_OK) {
        rc = coconet_rt::fault_point(
            comm, coconet_rt::FaultSite::Collective, [&] { return o.name; }, o.chunk_dim >= 0);
    }
    if (rc == COCONET_OK) {
        rc = run();
    }
    if (rc == COCONET_OK) {
        comm->ops[o.kind].fetch_add(1, std::memory_order_relaxed);
    }
    return rc;
}

// The collective described by `bytes` bytes at `desc` (unaligned), on comm.
int run_collective(coconet_comm *comm, const char *name, const void *desc, size_t bytes,
                   const int32_t *extents, halide_buffer_t *in, halide_buffer_t *out) {
    if (!comm) {
        std::fprintf(stderr, "coconet: collective '%s' called without a communicator\n",
                     name ? name : "");
        return COCONET_ERR_INVALID;
    }
    const coconet_rt::CommUse use(comm, "collective", name ? name : "");
    if (use.status() != COCONET_OK) {
        return use.status();
    }
    coconet_collective_desc d;
    std::string problem = coconet_rt::read_desc(desc, bytes, &d);
    if (!problem.empty()) {
        // No kind to name the call by.
        const std::string what = std::string("collective '") + (name ? name : "") + "'";
        return comm->fail(COCONET_ERR_INVALID,
                          coconet_rt::op_label(comm->rank, what) + ": " + problem);
    }
    if (extents && d.dims >= 0 && d.dims <= COCONET_STAGE_DIMS) {
        std::copy(extents, extents + d.dims, d.extents); // other counts are refused below
    }
    coconet_rt::Op o = coconet_rt::make_op(name, d, comm->size);
    if (!in || !out) {
        return invalid(comm, o, "missing input or output buffer");
    }
    // A rank outside the result's group may be handed a stand-in of one
    // element, which it leaves alone: GPU schedules give a value of a group
    // of world.split one on the other groups' ranks, since Halide's GPU
    // runtimes abort on an empty device allocation (GpuSchedule.h).
    halide_buffer_t none;
    halide_dimension_t none_dims[COCONET_STAGE_DIMS];
    if ((out->host || out->device) && !o.dst.has(comm->rank) && out->dimensions > 0 &&
        out->dimensions <= COCONET_STAGE_DIMS && coconet_rt::box_of(out).count() == 1) {
        none = *out;
        std::copy(out->dim, out->dim + out->dimensions, none_dims);
        for (int i = 0; i < out->dimensions; i++) {
            none_dims[i].extent = 0;
        }
        none.dim = none_dims;
        out = &none;
    }
    o.set_chunk(out);
    problem = o.check_args();
    if (!problem.empty()) {
        return invalid(comm, o, problem);
    }
    if (in->host == nullptr && in->device == 0) {
        coconet_rt::set_box(in, o.input_box(comm->rank));
        return COCONET_OK;
    }
    return checked_run(comm, o, in, out, d.device, [&] {
        return d.device ? coconet_rt::run_device_collective(*comm, o, in, out)
                        : comm->run(o, in, out);
    });
}

} // namespace

int coconet_rt::produced_all_to_all(coconet_comm *comm, const char *name,
                                    const coconet_collective_desc &desc, const halide_buffer_t *in,
                                    halide_buffer_t *out,
                                    const std::function<int(halide_buffer_t *view)> &produce) {
    // The whole value in one call: the producer writes every part at once.
    coconet_collective_desc d = desc;
    d.chunk_dim = -1;
    d.chunks = d.chunk_index = 0;
    coconet_rt::Op o = coconet_rt::make_op(name, d, comm->size);
    const std::string problem = o.check_args();
    if (!problem.empty()) {
        return invalid(comm, o, problem);
    }
    halide_buffer_t source = *in; // no memory: nothing reads it
    return checked_run(comm, o, &source, out, false,
                       [&] { return comm->run_produced(o, &source, out, produce); });
}

extern "C" {

int32_t coconet_rank(void *user_context) {
    return static_cast<coconet_comm *>(user_context)->rank;
}

int32_t coconet_size(void *user_context) {
    return static_cast<coconet_comm *>(user_context)->size;
}

int32_t coconet_rank_threads(void *user_context) {
    return static_cast<coconet_comm *>(user_context)->threads;
}

int coconet_collective_call(coconet_comm *comm, const char *name,
                            const coconet_collective_desc *desc, halide_buffer_t *in,
                            halide_buffer_t *out) {
    return run_collective(comm, name, desc, desc ? desc->size : 0, nullptr, in, out);
}

int coconet_collective(void *user_context, const char *name, const halide_buffer_t *desc,
                       int32_t e0, int32_t e1, int32_t e2, int32_t e3, halide_buffer_t *in,
                       halide_buffer_t *out) {
    const int32_t extents[COCONET_STAGE_DIMS] = {e0, e1, e2, e3};
    // In a bounds query too, Halide passes a copy of the constant buffer with its host.
    const bool bytes = desc && desc->host && desc->dimensions == 1 &&
                       desc->type.code == halide_type_uint && desc->type.bits == 8 &&
                       desc->dim[0].stride == 1 && desc->dim[0].extent >= 0;
    return run_collective(static_cast<coconet_comm *>(user_context), name,
                          bytes ? desc->host : nullptr, bytes ? desc->dim[0].extent : 0, extents,
                          in, out);
}

int coconet_gemm(void *user_context, const char *name, const halide_buffer_t *desc,
                 const halide_device_interface_t *device, int32_t computes, int32_t k_min,
                 int32_t k_extent, halide_buffer_t *a, halide_buffer_t *b, halide_buffer_t *out) {
    if (!user_context) {
        std::fprintf(stderr, "coconet: matmul '%s' called without a communicator\n",
                     name ? name : "");
        return COCONET_ERR_INVALID;
    }
    coconet_comm *comm = static_cast<coconet_comm *>(user_context);
    coconet_gemm_desc d;
    const bool bytes = desc && desc->host && desc->dimensions == 1 &&
                       desc->type.code == halide_type_uint && desc->type.bits == 8 &&
                       desc->dim[0].stride == 1 && desc->dim[0].extent == (int32_t)sizeof(d);
    if (bytes) {
        std::memcpy(&d, desc->host, sizeof(d));
    }
    if (!bytes || d.version != COCONET_GEMM_ABI_VERSION || d.size != sizeof(d)) {
        return comm->fail(
            COCONET_ERR_INVALID,
            coconet_rt::op_label(comm->rank, std::string("matmul '") + (name ? name : "") + "'") +
                ": its descriptor is not a coconet_gemm_desc of version " +
                std::to_string(COCONET_GEMM_ABI_VERSION) + " (" + std::to_string(sizeof(d)) +
                " bytes)");
    }
    return coconet_rt::run_device_gemm(*comm, name, d, device, computes != 0, k_min, k_extent, a, b,
                                       out);
}

} // extern "C"
