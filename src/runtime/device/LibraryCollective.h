// Device stages of collectives (coconet_collective_desc::device) run by a
// collective library that moves device memory itself: NCCL on CUDA buffers.
// Such a library takes dense 1-D device buffers with equal counts on every
// rank, so the stage's boxes (slices, chunks of an overlapped call, pieces
// of every slice) are packed into and unpacked from segments of that shape
// by device copies where they do not already lie that way. No byte crosses
// between host and device.
#ifndef COCONET_RUNTIME_LIBRARY_COLLECTIVE_H
#define COCONET_RUNTIME_LIBRARY_COLLECTIVE_H

#include "core/Collective.h"

struct coconet_comm;

namespace coconet_rt {

struct FusedPlan;

// A collective library's operations, called by every rank of the world at
// the same point with buffers of one element type: dense, one dimension
// [0, count), on the running program's device. all_reduce, reduce and
// broadcast move `count` elements (reduce writes `recv` on the root only);
// reduce_scatter reduces R segments of
// recv's count from `send` into the rank's `recv`; all_gather concatenates
// every rank's `send` into R segments of `recv`, in rank order; all_to_all
// sends segment q of `send` (R of recv's count) to rank q, which receives it
// as segment (this rank) of its `recv`. `stage` is
// the collective stage being run (its name, for messages). Each returns
// COCONET_OK with the result ordered before the program's later device work
// (or done), or a failure recorded on the communicator.
struct DeviceLibrary {
    virtual ~DeviceLibrary() = default;
    // Whether the library moves (and, for a reduction, reduces with `red`)
    // elements of type t.
    virtual bool supports(int kind, int red, const halide_type_t &t) const = 0;
    virtual int all_reduce(const Op &stage, int red, const halide_buffer_t *send,
                           halide_buffer_t *recv) = 0;
    virtual int reduce(const Op &stage, int red, int root, const halide_buffer_t *send,
                       halide_buffer_t *recv) = 0;
    // `send` is read on the root only.
    virtual int broadcast(const Op &stage, int root, const halide_buffer_t *send,
                          halide_buffer_t *recv) = 0;
    virtual int reduce_scatter(const Op &stage, int red, const halide_buffer_t *send,
                               halide_buffer_t *recv) = 0;
    virtual int all_gather(const Op &stage, const halide_buffer_t *send, halide_buffer_t *recv) = 0;
    virtual int all_to_all(const Op &stage, const halide_buffer_t *send, halide_buffer_t *recv) = 0;
};

// Whether a collective of `kind` is one a library moves: all_reduce,
// reduce_scatter, all_gather, broadcast, reduce (the other ranks' output
// filled with the op's identity by the program's identity kernel) and
// all_to_all.
bool library_kind(int kind);

// Runs `op` (a collective of the whole world, arguments checked)
// through `lib`: `in` and `out` are device buffers of the running program's
// device (`out` may have an empty box); `out` holds the result there on
// return.
int run_library_collective(coconet_comm &comm, DeviceLibrary &lib, const Op &op,
                           const halide_buffer_t *in, halide_buffer_t *out);

// What `lib` cannot move of a fused pass that reduces a source of type
// `*reduced` with `op` (null: nothing to reduce) and gathers outputs of the
// types `gathered`: "" when it moves them all, else "a library that moves T
// values ...".
std::string pass_types_refused(const DeviceLibrary &lib, int op, const halide_type_t *reduced,
                               const std::vector<halide_type_t> &gathered);

// Runs a fused pass of the whole world (COCONET_PATH_LIBRARY) through `lib`:
// its source and outputs are device buffers of the running program's device.
// The library reduce-scatters the members' sources into this rank's slice
// (in its own order: NCCL's is not rank order), the kernel computes the slice
// from that one source, and the library gathers each gathered output from
// every rank's slice, in place. A kernel that fails returns at once (the
// executor then aborts the communicator, which fails the peers waiting in
// the gather).
int run_library_fused(coconet_comm &comm, DeviceLibrary &lib, const FusedPlan &plan);

} // namespace coconet_rt

#endif
