// Pass: the SPMD Halide pipeline every rank runs. Computed Funcs are rebuilt in
// global coordinates with the rank and world size read from the communicator;
// collectives become extern stages of the runtime (coconet_collective) that get
// the communicator through Halide's user_context. Halide's bounds inference then
// gives each rank the box of every Func it needs: its slice of a Sliced Func,
// the full box of a Replicated or Local one, nothing outside the Func's group.
// A split all_reduce becomes its reduce_scatter and all_gather; a consumer
// sliced like the reduce_scatter reads it directly, and an all_gather that no
// consumer reads is never emitted.
#ifndef COCONET_LOWER_SPMD_H
#define COCONET_LOWER_SPMD_H

#include "Analysis.h"

namespace coconet {

// One stage of the lowered plan, in execution order, with what the schedule
// did to it (empty when nothing).
struct PlanStep {
    const DFuncContents *func;
    std::string note;
};

struct SpmdPipeline {
    Halide::Pipeline pipeline;
    std::vector<Halide::ImageParam> inputs; // in signature order
    std::vector<PlanStep> steps;
};

SpmdPipeline lower_spmd(const Program &program, const Analysis &analysis);

} // namespace coconet

#endif
