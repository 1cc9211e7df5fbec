// The collectives of the algorithm language. Each returns a distributed Func
// whose layout follows from its input's (checked by layout inference):
//   all_reduce:      Local -> Replicated          reduce_scatter: Local -> Sliced(d)
//   all_gather:      Sliced(d) -> Replicated      broadcast:      Local -> Replicated
//   reduce:          Local -> Local (the reduction on the root, the op's identity elsewhere)
//   all_to_all:      Sliced(e) -> Sliced(d), same global value
//   send:            any layout on one group -> the same layout on another group
#ifndef COCONET_COLLECTIVES_H
#define COCONET_COLLECTIVES_H

#include <string>

#include "DFunc.h"

namespace coconet {

// An empty name gives "<collective>_<input>", e.g. "all_reduce_g".
DFunc all_reduce(const DFunc &f, ReduceOp op = ReduceOp::Sum, const std::string &name = "");
DFunc reduce_scatter(const DFunc &f, int dim, ReduceOp op = ReduceOp::Sum,
                     const std::string &name = "");
DFunc all_gather(const DFunc &f, const std::string &name = "");
DFunc broadcast(const DFunc &f, int root, const std::string &name = "");
DFunc reduce(const DFunc &f, int root, ReduceOp op = ReduceOp::Sum, const std::string &name = "");
// Split dimension split_dim across the ranks and concatenate along concat_dim,
// the input's sliced dimension.
DFunc all_to_all(const DFunc &f, int split_dim, int concat_dim, const std::string &name = "");
// Group rank i of f's group sends its part of f to group rank i of `to`; the
// result lives on `to` (pipeline parallelism between groups of world.split(n)).
DFunc send(const DFunc &f, const Group &to, const std::string &name = "");

} // namespace coconet

#endif
