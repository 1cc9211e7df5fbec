// GPU schedules for CUDA-target libraries. The generators' schedules say how
// computation and communication are split, fused and overlapped; which loops
// run on the GPU is decided here for every Halide stage the user left
// unscheduled, so the same generator builds for the host and for CUDA.
#ifndef COCONET_GPU_SCHEDULE_H
#define COCONET_GPU_SCHEDULE_H

#include "Halide.h"

namespace coconet {

// Maps f's definitions to GPU blocks and threads over the innermost one or
// two pure dimensions (tails guarded, so any extent works, reduction loops
// serial inside a thread). Leaves f alone and returns false where that is not
// possible: no dimension, an update that writes other than at its pure
// variables, or a definition or reduction bound that calls a host function
// (the runtime's coconet_rank / coconet_size, any extern), also through the
// Funcs inlined into it.
bool gpu_tile_func(Halide::Func f);

// Gives every compute_root Func of p that the user did not schedule a GPU
// schedule (gpu_tile_func); the others run on the host, and Halide copies
// between host and device around them. Returns the names scheduled.
std::vector<std::string> schedule_for_gpu(const Halide::Pipeline &p);

} // namespace coconet

#endif
