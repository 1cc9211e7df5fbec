// Pass: the SPMD program every rank runs, as a sequence of segments. A Halide
// segment is one pipeline in global coordinates: computed Funcs are rebuilt
// with the rank and world size read from the communicator, collectives are
// extern stages of the runtime (coconet_collective) that get the communicator
// through Halide's user_context, and Halide's bounds inference gives each rank
// the box of every Func it needs. A fused segment is the pass of a
// reduce_scatter with the Funcs fused into it (fuse_with), run by the runtime
// (coconet_fused_reduce_scatter) with a Halide kernel per chunk. Without
// fuse_with the whole program is one Halide segment.
//
// A split all_reduce becomes its reduce_scatter and all_gather; a consumer
// sliced like the reduce_scatter reads it directly, and an all_gather that no
// consumer reads is never emitted. Values that cross segments live in buffers
// covering the rank's box of their layout.
#ifndef COCONET_LOWER_SPMD_H
#define COCONET_LOWER_SPMD_H

#include "Fusion.h"

namespace coconet {

struct HalideSegment {
    Halide::Pipeline pipeline;
    std::vector<Halide::ImageParam> params;          // in argument order
    std::vector<const DFuncContents *> param_values; // the value each param holds
    std::vector<const DFuncContents *> outputs;      // values it leaves for what follows
};

struct SpmdSegment {
    int fused_pass = -1; // >= 0: the pass of SpmdPipeline::passes[fused_pass]
    HalideSegment halide; // otherwise; for an overlapped pass, the pipeline
                          // computing its source, run chunk by chunk with it
    int chunks = 0;       // overlapped pass: chunks of the outermost dimension
};

// One Func of the lowered plan, with the segment that computes it (-1: an
// input, or a Func that stands for others after scheduling) and what the
// schedule did to it (empty when nothing).
struct PlanStep {
    const DFuncContents *func;
    std::string note;
    int segment = -1;
};

struct SpmdPipeline {
    std::vector<SpmdSegment> segments; // in execution order
    std::vector<FusedPass> passes;
    std::vector<PlanStep> steps;
    // The value that holds program output i after the last segment.
    std::vector<const DFuncContents *> output_values;
    // Whether a Halide segment has an overlapped collective (async producers).
    bool overlapped = false;
    // The rank and world size in the segments: runtime calls on their
    // user_context (the communicator).
    Halide::Expr rank, size;
};

SpmdPipeline lower_spmd(const Program &program, const Analysis &analysis);

} // namespace coconet

#endif
