// Pass: the outputs a caller may pass in the memory of an input, so that the
// call updates that input in place, as PyTorch's optimizers update their
// state (`m_new(i) = 0.9f * m(i) + g(i)` written over m): the step then
// reads and writes each array once, where a separate output first has its
// lines read into cache before they are written.
//
// Output o may share input i's memory when, on a CPU target, both are
// values of one type, shape and layout, o is the program's output value
// itself, computed by a Halide step with one pure definition that reads i
// only at o's own coordinates (i(x, y) in o(x, y)), and no other Func, pass
// or collective of any step reads i: each element of i is then read once, by
// the iteration of o that writes the same element, before it writes it. A
// schedule of o that splits a loop with TailStrategy ShiftInwards (Halide's
// Auto for a pure output) computes some elements twice, the second time from
// i already overwritten, so it rules sharing out.
#ifndef COCONET_IN_PLACE_H
#define COCONET_IN_PLACE_H

#include <string>
#include <vector>

#include "ProgramPlan.h"

namespace coconet {

// Per output of plan (in call order): the index in plan.args of the input
// whose memory it may share, or -1. Call it once the steps' schedules are
// final.
std::vector<int> find_in_place(const LoweredProgram &lowered, const ProgramPlan &plan);

// "m_new may be passed in the memory of m (updating it in place)" lines for
// the plan, or "".
std::string in_place_text(const ProgramPlan &plan);

} // namespace coconet

#endif
