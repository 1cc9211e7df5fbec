// Halide's autoschedulers on the lowered program, the Halide way (a plugin
// loaded by the generator driver, named by `autoscheduler=`): after
// lower_spmd, each Halide segment whose Funcs the user left unscheduled is
// given to Pipeline::apply_autoscheduler with estimates from rank 0's boxes;
// a segment where any Func carries the user's Halide directives (or
// accumulate_in_registers) keeps them, and the plan says which and why.
// What Halide 21's autoschedulers take here, measured: Mullapudi2016
// schedules segments without a collective. Segments with one (an extern
// stage, whose input Funcs stay at root) are refused by Adams2019 ("no
// plausible site" for a Func only an extern stage reads) and Mullapudi2016
// (a Func already at root), and crash Li2018 inside Halide; Adams2019 also
// wants an estimate for the user_context handle, which Halide cannot take,
// and Li2018 constant extents, which rank slices are not. A refusal is a
// user error naming the segment and the autoscheduler.
#ifndef COCONET_AUTO_SCHEDULE_H
#define COCONET_AUTO_SCHEDULE_H

#include <string>

#include "LowerSpmd.h"

namespace coconet {

// Schedules segment h's pipeline with autoscheduler `name` (its plugin
// loaded beforehand) for `target`, one thread per rank, estimating `ranks`
// ranks. Returns the plan's line for the segment.
std::string autoschedule_segment(const HalideSegment &h, const Analysis &a,
                                 const std::string &name, const Halide::Target &target,
                                 int ranks);

} // namespace coconet

#endif
