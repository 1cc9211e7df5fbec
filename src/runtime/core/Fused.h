// The plan of one fused reduce-scatter (coconet_fused_reduce_scatter): its
// group, each rank's slice, the chunks a rank's slice is computed in, checks
// of the call, and running the kernel on a chunk. Backends only decide where
// the sources of a chunk come from and how gathered outputs reach peers.
#ifndef COCONET_RUNTIME_FUSED_H
#define COCONET_RUNTIME_FUSED_H

#include <string>
#include <vector>

#include "core/Box.h"
#include "core/Partition.h"
#include "coconet_runtime.h"

struct coconet_comm;

namespace coconet_rt {

struct FusedPlan {
    FusedPlan(const coconet_fused_call &call, int world_size);

    const coconet_fused_call &call;
    Group group;
    Box full; // the global box of the source (when the call is a piece of
              // every slice: the smallest box holding every piece)
    bool pieces() const { return call.ranged && call.range_dim == call.dim; }

    // "fused reduce_scatter 'g_sum_rs'".
    std::string what() const;
    // An error in the call (arguments and this rank's buffers), or "".
    std::string check(int rank) const;
    // Whether two ranks' calls are the same fused call (threads backend check).
    bool same_call(const FusedPlan &other) const;

    // The slice of world rank r (a group member) along the sliced dimension
    // (its piece, when the call is a piece of every slice).
    Box slice(int r) const;
    // `box` cut along its outermost dimension into pieces of about
    // chunk_elements elements.
    std::vector<Box> chunks(const Box &box) const;
    // Whether the pass reduces a source (else it only computes and gathers).
    bool reduces() const { return call.src != nullptr; }
    int64_t element_bytes() const { return (reduces() ? call.src : call.outs[0])->type.bytes(); }

    // Calls the kernel on `chunk` with these sources and the outputs cropped
    // to the chunk; a failure is recorded on comm.
    int run_kernel(coconet_comm &comm, const Box &chunk, const halide_buffer_t *const *srcs,
                   size_t nsrc) const;
    int run_kernel(coconet_comm &comm, const Box &chunk,
                   const std::vector<const halide_buffer_t *> &srcs) const {
        return run_kernel(comm, chunk, srcs.data(), srcs.size());
    }
};

struct DeviceLibrary;

// Where a call on COCONET_PATH_LIBRARY finds its library: "" with *lib set
// when comm's backend has one for the device of the call's buffers that
// moves their types, else what is missing ("a pass of the whole world, ...").
std::string library_for(coconet_comm &comm, const FusedPlan &plan, DeviceLibrary **lib);

// acc[x] = acc[x] op src[x] over `box` (both hold it, same element type):
// the partial sums of the ring path.
void combine_into(int op, halide_buffer_t *acc, const halide_buffer_t *src, const Box &box);

} // namespace coconet_rt

#endif
