// Lowering a distributed program, top to bottom: find its Funcs, infer layouts
// and shapes, find the fused passes, what is live and where everything runs,
// then build the SPMD Halide pipelines that every rank runs. With
// COCONET_DEBUG=1 in the environment, lower() prints what each pass produced
// to stderr.
#ifndef COCONET_LOWER_H
#define COCONET_LOWER_H

#include "Analysis.h"
#include "LowerSpmd.h"

namespace coconet {

struct LoweredProgram {
    Program program;
    Analysis analysis;
    SpmdPipeline spmd;
};

// Only the analysis passes (used by the reference, which needs no pipeline).
Analysis analyze(const Program &program);

// `device`: the GPU API of the target the program is compiled for
// (DeviceAPI::None: the host); collectives that can move their data on that
// device become extern stages on it (CollectiveStage.h).
LoweredProgram lower(const Program &program, Halide::DeviceAPI device = Halide::DeviceAPI::None);

// The GPU API of `target` (DeviceAPI::None without a GPU feature).
Halide::DeviceAPI gpu_api(const Halide::Target &target);

// The target JIT compilation uses (the pipeline and the reference's kernels):
// the host with strict_float, so that no code shape contracts or reassociates
// floating-point operations and results are bit-identical to the reference.
Halide::Target jit_target();

} // namespace coconet

#endif
