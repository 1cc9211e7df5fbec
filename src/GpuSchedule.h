// GPU schedules for CUDA-target libraries. The generators' schedules say how
// computation and communication are split, fused and overlapped; which loops
// run on the GPU is decided here for every Halide stage the user left
// unscheduled, so the same generator builds for the host and for CUDA.
#ifndef COCONET_GPU_SCHEDULE_H
#define COCONET_GPU_SCHEDULE_H

#include "Halide.h"

namespace coconet {

// Maps f's definitions to GPU blocks and threads over the innermost one or
// two pure dimensions (tails guarded, reduction loops serial inside a
// thread); with `when` defined, only in a specialization on it (otherwise f
// runs on the host). Leaves f alone and returns false where that is not
// possible: no dimension, an update that writes other than at its pure
// variables, or a definition or reduction bound that calls a host function
// (the runtime's coconet_rank / coconet_size, any extern), also through the
// Funcs inlined into it.
bool gpu_tile_func(Halide::Func f, const Halide::Expr &when = Halide::Expr());

// For a Func of a segment (by name, without Halide's uniquifying suffix):
// whether this rank computes a non-empty box of it, or an undefined Expr for
// a Func the GPU must not run. CUDA refuses a kernel launch of no blocks, so
// a Func whose box can be empty on some rank (a slice, a Func of a group)
// runs on the GPU only where it is not.
using NonEmptyBox = std::function<Halide::Expr(const std::string &)>;

// Gives every compute_root Func of p that the user did not schedule a GPU
// schedule (gpu_tile_func) under its non-empty condition; the others run on
// the host, and Halide copies between host and device around them. Returns
// the names scheduled.
std::vector<std::string> schedule_for_gpu(const Halide::Pipeline &p, const NonEmptyBox &nonempty);

} // namespace coconet

#endif
