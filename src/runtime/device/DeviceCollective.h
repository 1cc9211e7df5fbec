// Collectives whose Halide stage runs on a GPU device
// (coconet_collective_desc::device). Among ranks sharing the device (the
// threads backend) they read their peers' device buffers where they are:
// gathers, all_to_alls, broadcasts and sends are device copies, reductions
// (all_reduce, reduce_scatter, a reduce's root) fold the members' inputs in
// rank order with the program's combiner kernel, a reduce's other ranks get
// the op's identity from the program's identity kernel, and no byte
// crosses between host and device. A backend with a collective library that
// moves device memory (NCCL) runs them through it (LibraryCollective.h),
// also without a host copy. Other backends and kinds, or a reduction with no
// combiner, are staged through host memory: the input comes down, the
// backend's host collective runs, the result goes up (counted as
// COCONET_HOST_DEVICE).
#ifndef COCONET_RUNTIME_DEVICE_COLLECTIVE_H
#define COCONET_RUNTIME_DEVICE_COLLECTIVE_H

#include <string>

#include "core/Collective.h"

struct coconet_comm;

namespace coconet_rt {

// Whether a collective of `kind` (reducing with `red` over `type`) moves its
// data on the device: comm's backend has a collective library for the
// running program's device that moves it, or comm's ranks share one device
// (the backend), the running program has one, and a reduction has its
// combiner. Every rank decides alike: peers read each other's inputs as
// posted.
bool runs_on_device(coconet_comm &comm, int kind, int red, const halide_type_t &type);

// Fails `op` on comm (COCONET_ERR_BACKEND) because a device operation,
// `what` ("copying its input from the device"), returned Halide error
// `status`; the message carries the Halide runtime's own text, if any.
int backend_error(coconet_comm &comm, const Op &op, const std::string &what, int status);

// The program's combiner kernel for `op` over elements of type t, or null.
const coconet_aot_combiner *find_combiner(const coconet_aot_program *p, int op,
                                          const halide_type_t &t);

// Fills `want` of device buffer `out` with the identity of op's reduction
// (a reduce's result off its root) by the running program's identity
// kernel; returns 0 or a Halide error.
int fill_identity(coconet_comm &comm, const Op &op, halide_buffer_t *out, const Box &want);

// Runs `op`, a device stage (arguments checked, this rank a participant), on
// comm: `out` has a device allocation and holds the result there on return.
int run_device_collective(coconet_comm &comm, Op &op, halide_buffer_t *in, halide_buffer_t *out);

// What compute_output does on the host, on the device: this rank's output
// over `want` (within out's box) from op.peer_inputs, device buffers of out's
// device.
int compute_output_on_device(coconet_comm &comm, const Op &op, halide_buffer_t *out,
                             const Box &want);

} // namespace coconet_rt

#endif
