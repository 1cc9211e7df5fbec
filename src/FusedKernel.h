// The Halide kernel of a fused pass, for a given number of sources: the
// reduction of the sources (in order) feeds the fused Funcs' definitions, and
// every output of the pass is a vectorized loop over one chunk of the rank's
// slice (where the pass is large, in a task per CPU thread of the rank:
// run_in_tasks); for a target with a GPU, all outputs are one GPU kernel over it where
// the members allow (else a kernel per output). The runtime calls it chunk by
// chunk (coconet_fused_kernel).
#ifndef COCONET_FUSED_KERNEL_H
#define COCONET_FUSED_KERNEL_H

#include "Fusion.h"

namespace coconet {

struct FusedKernelPipeline {
    Halide::Pipeline pipeline;
    // Arguments in call order: the sources, the extra inputs (pass.extra_inputs
    // order), the rank and the world size; the outputs (pass.outputs order)
    // follow them.
    std::vector<Halide::Argument> arguments;
    bool on_gpu = false;     // every output is computed by GPU kernels
    bool one_kernel = false; // by one kernel, reading each input element once
};

FusedKernelPipeline build_fused_kernel(const FusedPass &pass, const Analysis &analysis, int nsrc,
                                       const Halide::Target &target);

} // namespace coconet

#endif
