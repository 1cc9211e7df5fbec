// Halide's autoschedulers on the lowered program, the Halide way (a plugin
// loaded by the generator driver, named by `autoscheduler=`): after
// lower_spmd, each Halide segment whose Funcs the user left unscheduled is
// given to Pipeline::apply_autoscheduler with estimates from rank 0's boxes;
// a segment where any Func carries the user's Halide directives (or
// accumulate_in_registers) keeps them, and the plan says which and why.
// Halide 21's autoschedulers do not take a segment as lower_spmd leaves it:
// measured, Adams2019 finds "no plausible site" for a Func only an extern
// stage (a collective) reads and wants an estimate for the user_context
// handle, Mullapudi2016 refuses the Funcs the stage keeps at root, and Li2018
// crashes, or wants constant bounds where a slice's depend on the rank. So
// each is given a stand-in: a deep copy of the segment in which a
// collective's result is an input of its shape, the Funcs a collective reads
// are outputs (at root: it takes them whole), and the rank and size are rank
// 0's of the estimate. The stand-in's directives carry back to the segment's
// Funcs by name; reduction bounds stay the segment's, and every split's tail
// becomes GuardWithIf, since a rank holds exactly its slice of an input. A
// refusal is a user error naming the segment and the autoscheduler.
// Adams2019 and Mullapudi2016 keep reductions in order (results stay
// bit-identical); Li2018 may vectorize one with atomic(), reordering a sum,
// and ignores `parallelism` (its loops may be parallel within a rank).
#ifndef COCONET_AUTO_SCHEDULE_H
#define COCONET_AUTO_SCHEDULE_H

#include <map>
#include <string>

#include "LowerSpmd.h"

namespace coconet {

// Schedules segment h's pipeline with autoscheduler `name` (its plugin
// loaded beforehand) for `target`, estimating `ranks` ranks, with the
// autoscheduler's parameters `params` (Halide's AutoschedulerParams::extra;
// parallelism defaults to 1, a thread per rank). Returns the plan's line for
// the segment.
std::string autoschedule_segment(const HalideSegment &h, const Analysis &a, const std::string &name,
                                 const Halide::Target &target, int ranks,
                                 const std::map<std::string, std::string> &params = {});

} // namespace coconet

#endif
