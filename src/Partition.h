// How global shapes are partitioned over ranks: slices of ceil(n/size)
// elements, contiguous process groups, and the global box a rank holds of a
// distributed Func. Integer versions (reference, runner) and Halide Expr
// versions (lowered pipelines) compute the same thing.
#ifndef COCONET_PARTITION_H
#define COCONET_PARTITION_H

#include <cstdint>
#include <vector>

#include "Halide.h"
#include "Layout.h"

namespace coconet {

struct Range {
    int64_t begin = 0, end = 0;
    int64_t extent() const { return end - begin; }
};

// Part `index` of `parts` blocks of ceil(n/parts): the last parts may be short or empty.
Range slice_range(int64_t n, int parts, int index);

// The ranks of group g in a world of world_size ranks.
Range group_ranks(const Group &g, int world_size);

// The global box rank `rank` holds of a Func of the given layout and global
// extents: everything for Replicated and Local, its slice for Sliced, nothing
// (all extents 0) outside the layout's group.
std::vector<Range> rank_region(const Layout &layout, const std::vector<int> &extents, int rank,
                               int world_size);

// The same in Halide Exprs of the rank and world size.
struct ExprRange {
    Halide::Expr begin, end;
};
ExprRange slice_range(Halide::Expr n, Halide::Expr parts, Halide::Expr index);
// Begin and size of group g, and whether `rank` belongs to it.
struct ExprGroup {
    Halide::Expr first, size, member;
};
ExprGroup group_ranks(const Group &g, Halide::Expr rank, Halide::Expr world_size);
// This rank's slice of n along a group's ranks (empty for non-members).
ExprRange rank_slice(const Group &g, Halide::Expr n, Halide::Expr rank, Halide::Expr world_size);

} // namespace coconet

#endif
