// Pass: an all_reduce that nothing needs whole is computed as a reduce_scatter.
// When every reader of an all_reduce the user left unscheduled is a computed
// Func sliced as the reduce_scatter along some dimension d would be, reading
// it only at its own slice (as Adam's moments read the summed gradients), and
// the all_reduce is no output of the program, it is split as
// split_collective(d) would split it: its readers then read their slices of
// the reduce_scatter and the all_gather is dead, half the all_reduce's
// traffic for the same result. The split is marked as the lowering's
// (split_by_default): a later lowering redoes or undoes it as the program
// then reads it, and the user's own directives replace it.
#ifndef COCONET_NARROW_ALL_REDUCES_H
#define COCONET_NARROW_ALL_REDUCES_H

#include "Analysis.h"

namespace coconet {

// Splits (or unsplits) the program's all_reduces as above, given its analysis;
// returns whether the program's Funcs changed, so that the analysis must be
// made again.
bool narrow_all_reduces(const Program &program, const Analysis &analysis);

} // namespace coconet

#endif
