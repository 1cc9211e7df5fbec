// A collective as a Halide extern stage of the runtime (coconet_collective):
// the communicator comes through Halide's user_context, and the stage answers
// Halide's bounds queries with the box of its input the rank must provide.
#ifndef COCONET_COLLECTIVE_STAGE_H
#define COCONET_COLLECTIVE_STAGE_H

#include "Analysis.h"

namespace coconet {

// The extern stage computing collective `f` from the Func `source` (its
// input in the segment); `uc` is the user_context. chunk_dim >= 0: the stage
// is one chunk of an overlapped collective.
Halide::Func collective_stage(const DFuncContents &f, const Analysis &a, const Halide::Func &source,
                              Halide::Expr uc, int chunk_dim = -1);

} // namespace coconet

#endif
