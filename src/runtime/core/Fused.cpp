// The plan of a fused reduce-scatter (see Fused.h) and its C ABI entry point.
#include "core/Fused.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>

#include "core/Comm.h"
#include "core/Env.h"
#include "core/Errors.h"
#include "core/Fault.h"
#include "core/Reduce.h"
#include "core/Scratch.h"

namespace coconet_rt {

FusedPlan::FusedPlan(const coconet_fused_call &c, int world_size)
    : call(c), group(group_of(world_size, c.nsplit, c.group)) {
    full.dims = c.dims;
    for (int d = 0; d < c.dims && d < kMaxDims; d++) {
        full.extent[d] = c.n[d];
    }
    if (c.ranged && c.range_dim >= 0 && c.range_dim < c.dims && c.range_dim < kMaxDims) {
        const Range r = pieces() ? pieces_hull(c.n[c.dim], group.size, c.pieces, c.piece)
                                 : Range{c.range_min, (int64_t)c.range_min + c.range_extent};
        full.min[c.range_dim] = r.begin;
        full.extent[c.range_dim] = r.size();
    }
}

std::string FusedPlan::what() const {
    return std::string("fused reduce_scatter '") + (call.name ? call.name : "") + "'";
}

std::string FusedPlan::check(int rank) const {
    const coconet_fused_call &c = call;
    if (c.dims < 1 || c.dims > kMaxDims) {
        return "dims " + std::to_string(c.dims) + " not in 1..4";
    }
    if (c.dim < 0 || c.dim >= c.dims) {
        return "sliced dimension " + std::to_string(c.dim) + " not in 0.." +
               std::to_string(c.dims - 1);
    }
    if (c.ranged && (c.range_dim < 0 || c.range_dim >= c.dims)) {
        return "range dimension " + std::to_string(c.range_dim) + " not in 0.." +
               std::to_string(c.dims - 1);
    }
    if (pieces() && (c.pieces < 1 || c.piece < 0 || c.piece >= c.pieces)) {
        return "piece " + std::to_string(c.piece) + " of " + std::to_string(c.pieces) +
               " pieces of every slice does not exist";
    }
    if (c.ranged && !pieces() &&
        (c.range_min < 0 || c.range_extent < 0 ||
         c.range_min + c.range_extent > c.n[c.range_dim])) {
        return "range [" + std::to_string(c.range_min) + ", " +
               std::to_string(c.range_min + c.range_extent) + ") of dimension " +
               std::to_string(c.range_dim) + " is not inside [0, " +
               std::to_string(c.n[c.range_dim]) + ")";
    }
    if (!valid_reduce_op(c.op)) {
        return "unknown reduction " + std::to_string(c.op);
    }
    if (c.nsplit < 1 || c.group < 0 || c.group >= c.nsplit || group.size < 1) {
        return "group " + std::to_string(c.group) + " of world.split(" + std::to_string(c.nsplit) +
               ") has no rank";
    }
    if (!c.kernel || c.nout < 1 || !c.outs || !c.gathered) {
        return "missing kernel or outputs";
    }
    for (int i = 0; c.replicable && i < c.nout; i++) {
        if (!c.gathered[i]) {
            return "replicable, but output " + std::to_string(i) +
                   " is not gathered (a replicated pass computes every output whole)";
        }
    }
    if (!group.has(rank)) {
        return "";
    }
    if (c.src && (!c.src->host || c.src->dimensions != c.dims || !supported_type(c.src->type))) {
        return "malformed source buffer";
    }
    if (c.src && !box_of(c.src).contains(full)) {
        return "the source holds " + box_of(c.src).to_string() + ", not the full box " +
               full.to_string();
    }
    for (int i = 0; i < c.nout; i++) {
        const halide_buffer_t *o = c.outs[i];
        // An empty slice (more ranks than blocks) may have no memory.
        if (!o || o->dimensions != c.dims || (!o->host && !box_of(o).empty())) {
            return "output " + std::to_string(i) + " is missing or has other dimensions";
        }
        const Box need = c.gathered[i] ? full : slice(rank);
        if (!box_of(o).contains(need)) {
            return "output " + std::to_string(i) + " holds " + box_of(o).to_string() +
                   ", not its box " + need.to_string();
        }
    }
    return "";
}

bool FusedPlan::same_call(const FusedPlan &o) const {
    const coconet_fused_call &a = call, &b = o.call;
    bool same =
        std::strcmp(a.name ? a.name : "", b.name ? b.name : "") == 0 && a.op == b.op &&
        a.dim == b.dim && a.nsplit == b.nsplit && a.group == b.group && a.dims == b.dims &&
        a.nout == b.nout && (a.src == nullptr) == (b.src == nullptr) &&
        (!a.src || (a.src->type.code == b.src->type.code && a.src->type.bits == b.src->type.bits));
    for (int d = 0; same && d < a.dims; d++) {
        same = a.n[d] == b.n[d];
    }
    same = same && a.ranged == b.ranged &&
           (!a.ranged ||
            (a.range_dim == b.range_dim && a.range_min == b.range_min &&
             a.range_extent == b.range_extent && a.pieces == b.pieces && a.piece == b.piece));
    for (int i = 0; same && i < a.nout; i++) {
        same = a.gathered[i] == b.gathered[i];
    }
    return same && a.replicable == b.replicable;
}

Box FusedPlan::slice(int r) const {
    Box b = full;
    Range s = slice_of(call.n[call.dim], group.size, group.local(r));
    if (pieces()) {
        s = piece_of(s, call.pieces, call.piece);
    }
    b.min[call.dim] = s.begin;
    b.extent[call.dim] = s.size();
    return b;
}

std::vector<Box> FusedPlan::chunks(const Box &box) const {
    std::vector<Box> out;
    if (box.empty()) {
        return out;
    }
    const int outer = box.dims - 1;
    const int64_t inner = box.count() / box.extent[outer];
    const int64_t want =
        call.chunk_elements > 0 ? call.chunk_elements : COCONET_DEFAULT_CHUNK_ELEMENTS;
    const int64_t step = std::max<int64_t>(1, want / inner);
    for (int64_t at = 0; at < box.extent[outer]; at += step) {
        Box c = box;
        c.min[outer] = box.min[outer] + at;
        c.extent[outer] = std::min(step, box.extent[outer] - at);
        out.push_back(c);
    }
    return out;
}

int FusedPlan::run_kernel(coconet_comm &comm, const Box &chunk, const halide_buffer_t *const *srcs,
                          size_t nsrc) const {
    Scratch<1024> scratch;
    std::pmr::deque<BufferView> views(&scratch);
    ScratchVector<halide_buffer_t *> outs(&scratch);
    for (int i = 0; i < call.nout; i++) {
        outs.push_back(&views.emplace_back(call.outs[i], chunk).buf);
    }
    const std::string earlier = comm.last_error;
    int rc = fault_point(
        &comm, FaultSite::Kernel, [this] { return what(); }, false);
    if (rc == COCONET_OK) {
        rc = call.kernel(call.kernel_context, (int32_t)nsrc, srcs, outs.data());
    }
    if (rc != COCONET_OK) {
        const std::string detail =
            comm.last_error == earlier ? "error " + std::to_string(rc) : comm.last_error;
        return comm.fail(rc, op_label(comm.rank, what()) + ": the fused kernel failed: " + detail);
    }
    // The kernel read every source over the chunk and wrote every output.
    comm.count_bytes(COCONET_FUSED,
                     (uint64_t)chunk.count() * element_bytes() * (nsrc + (size_t)call.nout));
    return COCONET_OK;
}

std::string library_for(coconet_comm &comm, const FusedPlan &plan, DeviceLibrary **lib) {
    const coconet_fused_call &c = plan.call;
    if (plan.group.size != comm.size) {
        return "a pass of the whole world, not of a group of world.split";
    }
    if (c.gather) {
        return "no gather callback (the library gathers)";
    }
    // An output of this rank's empty slice has no device allocation (a device
    // takes none of zero bytes) and nothing is moved into it.
    const halide_device_interface_t *iface = nullptr;
    for (int i = 0; i < c.nout; i++) {
        if (box_of(c.outs[i]).empty()) {
            continue;
        }
        if (!c.outs[i]->device || (iface && c.outs[i]->device_interface != iface)) {
            return "every output allocated on one device";
        }
        iface = c.outs[i]->device_interface;
    }
    if (!iface && c.src && c.src->device) {
        iface = c.src->device_interface;
    }
    if (!iface) {
        return "every output allocated on one device";
    }
    if (c.src && !plan.slice(comm.rank).empty() &&
        (!c.src->device || c.src->device_interface != iface || c.src->host_dirty())) {
        return "the source's newest data on the outputs' device";
    }
    *lib = comm.device_library(iface);
    if (!*lib) {
        return std::string("a collective library for the outputs' device on the ") +
               comm.backend() + " backend";
    }
    std::vector<halide_type_t> gathered;
    for (int i = 0; i < c.nout; i++) {
        if (c.gathered[i]) {
            gathered.push_back(c.outs[i]->type);
        }
    }
    const std::string refused =
        pass_types_refused(**lib, c.op, c.src ? &c.src->type : nullptr, gathered);
    if (!refused.empty()) {
        *lib = nullptr;
    }
    return refused;
}

void combine_into(int op, halide_buffer_t *acc, const halide_buffer_t *src, const Box &box) {
    with_element_type(acc->type, [&](auto zero) {
        using T = decltype(zero);
        const int64_t as = acc->dim[0].stride, ss = src->dim[0].stride;
        for_each_row(
            box,
            [&](const int64_t *x, int64_t n) {
                T *a = reinterpret_cast<T *>(element_address(acc, x));
                const T *b = reinterpret_cast<const T *>(element_address(src, x));
                for (int64_t k = 0; k < n; k++) {
                    a[k * as] = reduce_combine<T>(op, a[k * as], b[k * ss]);
                }
            },
            run_dims(box, {acc, src}));
    });
}

} // namespace coconet_rt

extern "C" {

coconet_fused_path coconet_fused_resolve_path(const coconet_comm *comm, int32_t path) {
    if (path == COCONET_PATH_LIBRARY) {
        return COCONET_PATH_LIBRARY; // the call's buffers say whether it can (library_for)
    }
    if (path == COCONET_PATH_AUTO) {
        const char *env = coconet_rt::env_choice("COCONET_FUSED_PATH", {"auto", "direct", "ring"});
        if (std::strcmp(env, "ring") == 0) {
            path = COCONET_PATH_RING;
        } else if (std::strcmp(env, "direct") == 0) {
            path = COCONET_PATH_DIRECT;
        }
    }
    return comm->fused_path(path);
}

int32_t coconet_fused_sources(const coconet_comm *comm, int32_t path, int32_t group_size) {
    switch (coconet_fused_resolve_path(comm, path)) {
    case COCONET_PATH_RING: return std::min<int32_t>(group_size, 2);
    case COCONET_PATH_LIBRARY: return 1;
    default: return group_size;
    }
}

int coconet_fused_reduce_scatter(coconet_comm *comm, const coconet_fused_call *call) {
    if (!comm || !call) {
        return COCONET_ERR_INVALID;
    }
    if (call->version != COCONET_FUSED_CALL_VERSION || call->size != sizeof(coconet_fused_call)) {
        return comm->fail(COCONET_ERR_INVALID,
                          "rank " + std::to_string(comm->rank) + ": a fused call of version " +
                              std::to_string(call->version) + " (" + std::to_string(call->size) +
                              " bytes) reached a runtime of coconet_fused_call version " +
                              std::to_string(COCONET_FUSED_CALL_VERSION) + " (" +
                              std::to_string(sizeof(coconet_fused_call)) +
                              " bytes); rebuild the caller against this runtime's headers");
    }
    const coconet_rt::CommUse use(comm, "fused call", call->name ? call->name : "");
    if (use.status() != COCONET_OK) {
        return use.status();
    }
    coconet_rt::FusedPlan plan(*call, comm->size);
    const std::string problem = plan.check(comm->rank);
    if (!problem.empty()) {
        return comm->fail(COCONET_ERR_INVALID,
                          coconet_rt::op_label(comm->rank, plan.what()) + ": " + problem);
    }
    if (call->gather && !comm->peers_share_device()) {
        return comm->fail(COCONET_ERR_INVALID,
                          coconet_rt::op_label(comm->rank, plan.what()) +
                              ": a pass that gathers on a device (gather set) runs only among "
                              "ranks sharing it (threads backend), not on " +
                              comm->backend());
    }
    if (!plan.group.has(comm->rank)) {
        return COCONET_OK;
    }
    const coconet_fused_path path = coconet_fused_resolve_path(comm, call->path);
    coconet_rt::DeviceLibrary *lib = nullptr;
    if (path == COCONET_PATH_LIBRARY) {
        const std::string why = coconet_rt::library_for(*comm, plan, &lib);
        if (!why.empty()) {
            return comm->fail(COCONET_ERR_INVALID, coconet_rt::op_label(comm->rank, plan.what()) +
                                                       ": the library path needs " + why);
        }
    }
    int rc = coconet_rt::fault_point(
        comm, coconet_rt::FaultSite::Pass,
        [call] { return std::string(call->name ? call->name : ""); }, call->ranged != 0);
    if (rc == COCONET_OK) {
        rc = lib ? coconet_rt::run_library_fused(*comm, *lib, plan) : comm->run_fused(plan, path);
    }
    if (rc == COCONET_OK) {
        comm->ops[COCONET_FUSED].fetch_add(1, std::memory_order_relaxed);
    }
    return rc;
}

void coconet_comm_set_error(coconet_comm *comm, const char *message) {
    comm->last_error = message ? message : "";
}

void coconet_comm_count_bytes(coconet_comm *comm, int kind, uint64_t bytes) {
    comm->count_bytes(kind, bytes);
}

} // extern "C"
