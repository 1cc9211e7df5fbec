// A collective as a Halide extern stage of the runtime (coconet_collective):
// the communicator comes through Halide's user_context, and the stage answers
// Halide's bounds queries with the box of its input the rank must provide.
#ifndef COCONET_COLLECTIVE_STAGE_H
#define COCONET_COLLECTIVE_STAGE_H

#include "Analysis.h"
#include "coconet_runtime.h"

namespace coconet {

// The runtime's descriptor of collective `f`; chunk_dim >= 0: of one chunk
// of it along that dimension (an overlapped collective).
coconet_collective_desc collective_desc(const DFuncContents &f, const Analysis &a, int chunk_dim);

// The extern stage computing collective `f` from the Func `source` (its
// input in the segment); `uc` is the user_context.
Halide::Func collective_stage(const DFuncContents &f, const Analysis &a, const Halide::Func &source,
                              Halide::Expr uc);

} // namespace coconet

#endif
