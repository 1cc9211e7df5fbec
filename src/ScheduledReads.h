// What a Func's read of another one reads once the schedule is applied: a
// Func computed on slices (split_collective, compute_sliced) stands for the
// all_gather of its sliced part, and a consumer sliced the same way that reads
// it only at its own slice reads the sliced part instead. Also how many chunks
// an overlapped collective runs in.
#ifndef COCONET_SCHEDULED_READS_H
#define COCONET_SCHEDULED_READS_H

#include "Analysis.h"

namespace coconet {

// Whether every read of `callee` in `consumer` is at the consumer's own slice
// of a value of layout `sliced` (Sliced) and `extents`: the consumer is
// sliced along the same extent of the same group, and indexes that dimension
// with its sliced pure variable.
bool reads_only_its_slice(const DFuncContents &consumer, const DFuncContents &callee,
                          const Layout &sliced, const Extents &extents, const Analysis &a);

// The Func that `consumer`'s reads of `callee` go to: callee itself, its sliced
// part, or its all_gather. A null consumer (a collective's input or a program
// output) reads the whole value.
const DFuncContents *scheduled_target(const DFuncContents *consumer, const DFuncContents &callee,
                                      const Analysis &analysis);

// The chunks collective `f` is overlapped in (overlap): its own, or those of
// the split all_reduce it is the reduce_scatter of; 0 when not overlapped.
int overlap_chunks(const DFuncContents &f, const Analysis &analysis);

// The dimension those chunks run along: the one the overlap names, else
// default_overlap_dim.
int overlap_dim(const DFuncContents &f, const Analysis &analysis);

// The outermost of a collective's `dims` dimensions along which its source
// (of layout `source`) is not sliced, so that every rank computes part of
// every chunk (an all_to_all's source is sliced along its concatenated one);
// -1 if there is none.
int default_overlap_dim(int dims, const Layout &source);

} // namespace coconet

#endif
