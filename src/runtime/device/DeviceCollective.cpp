// Device stages of collectives (see DeviceCollective.h).
#include "device/DeviceCollective.h"

#include <memory>

#include "core/Comm.h"
#include "core/Errors.h"
#include "core/Pack.h"
#include "device/Device.h"

namespace coconet_rt {

int backend_error(coconet_comm &comm, const Op &op, const std::string &what, int status) {
    const std::string halide = comm.last_error;
    return comm.fail(COCONET_ERR_BACKEND, op_label(comm.rank, op.what()) + ": " + what +
                                              " failed (Halide error " + std::to_string(status) +
                                              (halide.empty() ? "" : ": " + halide) + ")");
}

const coconet_aot_combiner *find_combiner(const coconet_aot_program *p, int op,
                                          const halide_type_t &t) {
    for (int i = 0; p && i < p->ncombiners; i++) {
        const coconet_aot_combiner &c = p->combiners[i];
        if (c.op == op && c.type_code == t.code && c.type_bits == t.bits) {
            return &c;
        }
    }
    return nullptr;
}

int fill_identity(coconet_comm &comm, const Op &op, halide_buffer_t *out, const Box &want) {
    if (want.empty()) {
        return 0;
    }
    const coconet_aot_combiner *c = find_combiner(comm.running, op.red, out->type);
    if (!c) {
        return halide_error_code_internal_error; // library_for and shares_device check first
    }
    DeviceTemp fill(comm, want, out->type);
    int rc = device_malloc(comm, &fill.view.buf, out->device_interface);
    if (rc == 0) {
        Flat flat(&fill.view.buf);
        void *uc = &comm;
        void *args[] = {&uc, &flat.buf};
        rc = c->identity.call(c->identity.context, args);
    }
    return rc == 0 ? device_copy_box(comm, &fill.view.buf, out, want) : rc;
}

namespace {

// out = combiner(a, b), element-wise on the device over out's indices.
int combine(coconet_comm &comm, const coconet_aot_combiner &c, const halide_buffer_t *a,
            const halide_buffer_t *b, const halide_buffer_t *out) {
    halide_buffer_t x = *a, y = *b, z = *out;
    void *uc = &comm;
    void *args[] = {&uc, &x, &y, &z};
    return c.function.call(c.function.context, args);
}

// Where `want` is the same run of elements [*first, *first + count) in every
// member's dense input (as in an all_reduce's or a reduce_scatter's, whose
// inputs are alike) and the device's kernels take them where they are, the
// combiner reads them in place: each as one dimension from its first
// element, indexed over that run.
bool same_run(const Op &op, const Box &want, int api, int64_t *first) {
    for (int q = op.src.first; q < op.src.first + op.src.size; q++) {
        int64_t at = 0;
        const halide_buffer_t *in = op.peer_inputs[q];
        if (!kernel_takes_in_place(in, api) || !is_contiguous(in, want, &at) ||
            (q > op.src.first && at != *first)) {
            return false;
        }
        *first = at;
    }
    return true;
}

// Whether a kernel can write `want` of out where it is, through `view` (a
// view of out over want): out itself where want starts it (a
// reduce_scatter's slice), else a crop of it (*cropped) where the device
// takes one as a kernel argument: on CUDA at any offset, on OpenCL at a
// page-aligned one (OpenCL makes a sub-buffer of it, which devices refuse at
// offsets they do not align to).
bool writable_in_place(coconet_comm &comm, halide_buffer_t *out, const Box &want, int api,
                       BufferView &view, bool *cropped) {
    int64_t at = 0;
    *cropped = false;
    if (!kernel_takes_in_place(out, api) || !is_contiguous(out, want, &at)) {
        return false;
    }
    if (at == 0) {
        view.buf = *out;
        return true;
    }
    const bool aligned = api == COCONET_DEVICE_CUDA || at * out->type.bytes() % 4096 == 0;
    *cropped = aligned && device_crop(comm, out, &view.buf) == 0;
    return *cropped;
}

// out = the members' inputs folded in group-rank order: acc = x_first, then
// acc = op(acc, x_q), as the host's reduce and the reference do. Read in
// place where same_run allows, into out itself where writable_in_place (a
// stage's output is a buffer of its own, no input's memory); else through
// copies of want.
int reduce_on_device(coconet_comm &comm, const Op &op, halide_buffer_t *out, const Box &want) {
    const halide_device_interface_t *iface = out->device_interface;
    const int first_rank = op.src.first, last_rank = op.src.first + op.src.size - 1;
    if (op.src.size == 1) {
        return device_copy_box(comm, op.peer_inputs[first_rank], out, want);
    }
    DeviceTemp acc(comm, want, out->type);
    const int api = comm.running->device_api;
    int64_t first = 0;
    if (same_run(op, want, api, &first)) {
        BufferView view(out, want);
        bool cropped = false;
        const bool direct = writable_in_place(comm, out, want, api, view, &cropped);
        int rc = direct ? 0 : device_malloc(comm, &acc.view.buf, iface);
        Flat into(direct ? &view.buf : &acc.view.buf);
        into.dim = halide_dimension_t{(int32_t)first, (int32_t)want.count(), 1, 0};
        for (int q = first_rank + 1; rc == 0 && q <= last_rank; q++) {
            const Flat lhs(op.peer_inputs[first_rank]), rhs(op.peer_inputs[q]);
            rc = combine(comm, *op.combiner, q == first_rank + 1 ? &lhs.buf : &into.buf, &rhs.buf,
                         &into.buf);
        }
        if (cropped) {
            const int released = device_release_crop(comm, &view.buf);
            rc = rc != 0 ? rc : released;
        }
        return rc != 0 || direct ? rc : device_copy_box(comm, &acc.view.buf, out, want);
    }
    DeviceTemp next(comm, want, out->type);
    int rc = device_malloc(comm, &acc.view.buf, iface);
    rc = rc != 0 ? rc : device_malloc(comm, &next.view.buf, iface);
    for (int q = first_rank; rc == 0 && q <= last_rank; q++) {
        if (q == first_rank) {
            rc = device_copy_box(comm, op.peer_inputs[q], &acc.view.buf, want);
            continue;
        }
        rc = device_copy_box(comm, op.peer_inputs[q], &next.view.buf, want);
        if (rc == 0) {
            const Flat a(&acc.view.buf), b(&next.view.buf);
            rc = combine(comm, *op.combiner, &a.buf, &b.buf, &a.buf);
        }
    }
    return rc == 0 ? device_copy_box(comm, &acc.view.buf, out, want) : rc;
}

// The result is newest on the device. Halide marks an extern stage's output
// so only when the pipeline allocated it, not when it is the pipeline's own
// output buffer.
void mark_on_device(halide_buffer_t *out) {
    out->set_host_dirty(false);
    out->set_device_dirty(true);
}

// The backend's host collective on host copies of in and out; out's result
// then goes up to its device, if it has one.
int run_staged(coconet_comm &comm, Op &op, halide_buffer_t *in, halide_buffer_t *out) {
    halide_buffer_t *host_in = in, *host_out = out;
    std::unique_ptr<PackedBox> in_copy, out_copy;
    int rc = 0;
    // A host copy of the call's own: Halide gives a buffer only a device
    // touches no host memory, and the input's own state stays as Halide left
    // it (the executor counts the copies Halide makes from that state, this
    // one is counted here).
    if (op.src.has(comm.rank) && in->device && (in->device_dirty() || !in->host)) {
        in_copy = std::make_unique<PackedBox>(box_of(in), in->type);
        host_in = &in_copy->buf;
        rc = copy_host_device(comm, in, host_in);
        if (rc != 0) {
            return backend_error(comm, op, "copying its input from the device", rc);
        }
    }
    if (!out->host) {
        out_copy = std::make_unique<PackedBox>(box_of(out), out->type);
        host_out = &out_copy->buf;
    }
    rc = comm.run(op, host_in, host_out);
    if (rc != COCONET_OK || box_of(out).empty()) {
        return rc;
    }
    if (!out->device) {
        // A pipeline's output buffer without a device allocation: Halide
        // leaves its state to the stage.
        out->set_host_dirty(true);
        return COCONET_OK;
    }
    if (out_copy) {
        rc = copy_host_device(comm, host_out, out);
    } else {
        out->set_host_dirty(true);
        rc = host_to_device(comm, out, out->device_interface);
    }
    if (rc != 0) {
        return backend_error(comm, op, "copying its output to the device", rc);
    }
    mark_on_device(out);
    return COCONET_OK;
}

// The library comm's backend moves this collective with, if any.
DeviceLibrary *library_for(coconet_comm &comm, int kind, int red, const halide_type_t &type) {
    if (!comm.running || !library_kind(kind)) {
        return nullptr;
    }
    DeviceLibrary *lib = comm.device_library(comm.running->device_interface);
    // A reduce's other ranks take the op's identity from the program's kernel.
    const bool fills = kind != COCONET_REDUCE || find_combiner(comm.running, red, type);
    return lib && lib->supports(kind, red, type) && fills ? lib : nullptr;
}

// Whether comm's ranks share the device and move this collective there
// themselves.
bool shares_device(coconet_comm &comm, int kind, int red, const halide_type_t &type) {
    return comm.device_collectives() && comm.running && comm.running->device_interface &&
           (!is_reduction(kind) || find_combiner(comm.running, red, type));
}

} // namespace

bool runs_on_device(coconet_comm &comm, int kind, int red, const halide_type_t &type) {
    return library_for(comm, kind, red, type) || shares_device(comm, kind, red, type);
}

int run_device_collective(coconet_comm &comm, Op &op, halide_buffer_t *in, halide_buffer_t *out) {
    // A library runs the world's collectives; a group's goes the backend's way.
    DeviceLibrary *lib =
        op.src.size == comm.size ? library_for(comm, op.kind, op.red, out->type) : nullptr;
    if (!lib && !shares_device(comm, op.kind, op.red, out->type)) {
        return run_staged(comm, op, in, out);
    }
    const halide_device_interface_t *iface = comm.running->device_interface;
    // Peers read this rank's input on the device. An input not newest there
    // (a pipeline's input the caller keeps on the host, or one whose host
    // data is newer) gets a device copy of the call's own: no allocation its
    // owner did not ask for, and its state stays as Halide left it (see
    // run_staged). An output without a device allocation likewise. A rank
    // of a send's receiving group has no input to give (a stand-in of one
    // element: GpuSchedule.h).
    std::unique_ptr<DeviceTemp> in_copy, out_copy;
    halide_buffer_t *dev_in = in, *dev_out = out;
    int rc = 0;
    if (op.src.has(comm.rank) && !box_of(in).empty() && !on_device(in)) {
        in_copy = std::make_unique<DeviceTemp>(comm, box_of(in), in->type);
        dev_in = &in_copy->view.buf;
        rc = device_malloc(comm, dev_in, iface);
        rc = rc != 0 ? rc : copy_host_device(comm, in, dev_in);
    }
    if (rc == 0 && !out->device && !box_of(out).empty()) {
        out_copy = std::make_unique<DeviceTemp>(comm, box_of(out), out->type);
        dev_out = &out_copy->view.buf;
        rc = device_malloc(comm, dev_out, iface);
    }
    if (rc != 0) {
        return backend_error(comm, op, "placing its buffers on the device", rc);
    }
    if (lib) {
        rc = run_library_collective(comm, *lib, op, dev_in, dev_out);
    } else {
        op.on_device = true;
        op.combiner =
            is_reduction(op.kind) ? find_combiner(comm.running, op.red, out->type) : nullptr;
        rc = comm.run(op, dev_in, dev_out);
    }
    if (rc != COCONET_OK) {
        return rc;
    }
    if (out_copy) {
        rc = copy_host_device(comm, dev_out, out);
        out->set_host_dirty(true);
        return rc == 0 ? COCONET_OK : backend_error(comm, op, "copying its output to the host", rc);
    }
    if (out->device) { // else empty: nothing written anywhere
        mark_on_device(out);
    }
    return COCONET_OK;
}

int compute_output_on_device(coconet_comm &comm, const Op &op, halide_buffer_t *out,
                             const Box &want) {
    int rc = 0;
    if (want.empty()) {
        return COCONET_OK;
    }
    if (op.kind == COCONET_REDUCE && comm.rank != op.src.first + op.root) {
        rc = fill_identity(comm, op, out, want);
    } else if (is_reduction(op.kind)) {
        // ALL_REDUCE, REDUCE_SCATTER, a REDUCE's root: this rank's box of the
        // members' fold.
        rc = reduce_on_device(comm, op, out, want);
    } else if (op.kind == COCONET_BROADCAST) {
        rc = device_copy_box(comm, op.peer_inputs[op.src.first + op.root], out, want);
    } else if (op.kind == COCONET_SEND_RECV && op.dim < 0) {
        rc = device_copy_box(comm, op.peer_inputs[op.sender_of(comm.rank)], out, want);
    } else {
        // ALL_GATHER, ALL_TO_ALL, a sliced SEND_RECV (re-sliced): each part of
        // the output from the rank owning it.
        for (int q = op.src.first; rc == 0 && q < op.src.first + op.src.size; q++) {
            rc = device_copy_box(comm, op.peer_inputs[q], out, intersect(want, op.input_box(q)));
        }
    }
    return rc == 0 ? COCONET_OK : backend_error(comm, op, "moving its data on the device", rc);
}

} // namespace coconet_rt
