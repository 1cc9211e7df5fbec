// A readable dump of a lowered distributed program, like Halide's
// print_loop_nest: every stage in execution order (kernels and collectives),
// its layout, and the box each rank computes or receives.
#ifndef COCONET_PRINT_PLAN_H
#define COCONET_PRINT_PLAN_H

#include <string>

#include "Lower.h"

namespace coconet {

std::string print_plan(const LoweredProgram &lowered, int world_size);

} // namespace coconet

#endif
