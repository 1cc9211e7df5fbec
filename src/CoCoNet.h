// CoCoNet for Halide: distributed algorithms (computation and collective
// communication in global coordinates), lowered to Halide pipelines that run on
// R ranks over the CoCoNet runtime. Include this one header.
#ifndef COCONET_H
#define COCONET_H

#include <string>

#include "Collectives.h"
#include "DFunc.h"
#include "Error.h"
#include "Generator.h"
#include "JitProgram.h"
#include "Layout.h"
#include "Partition.h"
#include "Program.h"
#include "Random.h"
#include "RankData.h"
#include "Reference.h"
#include "ThreadWorld.h"

namespace coconet {

// The plan of `program` lowered on `world_size` ranks, like Halide's
// print_loop_nest: every stage in execution order (kernels and collectives),
// its layout, the box each rank computes or receives, and what the schedule
// did.
std::string print_plan(const Program &program, int world_size);

// The layout layout inference gives `f` in `program` (a Func the program's
// outputs read). Throws UserError where inference refuses the program, with
// the message naming the Funcs and their layouts.
Layout inferred_layout(const Program &program, const DFunc &f);

} // namespace coconet

#endif
