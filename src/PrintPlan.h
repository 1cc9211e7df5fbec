// A readable dump of a lowered distributed program, like Halide's
// print_loop_nest: every stage in execution order (kernels and collectives),
// its layout, and the box each rank computes or receives. Also the dumps of
// what each lowering pass produces, which lower() prints under COCONET_DEBUG.
// Users print a Program's plan with print_plan in CoCoNet.h.
#ifndef COCONET_PRINT_PLAN_H
#define COCONET_PRINT_PLAN_H

#include <string>

#include "LowerSpmd.h"

namespace coconet {

std::string print_plan(const LoweredProgram &lowered, int world_size);

// One line per Func (or pass, or segment) of what a pass produced.
std::string dump_analysis(const Analysis &analysis);
std::string dump_fused_passes(const std::vector<FusedPass> &passes);
std::string dump_liveness(const Liveness &liveness, const Analysis &analysis);
std::string dump_placement(const Placement &placement, const std::vector<FusedPass> &passes,
                           const Analysis &analysis);
std::string dump_spmd(const SpmdPipeline &spmd);

} // namespace coconet

#endif
