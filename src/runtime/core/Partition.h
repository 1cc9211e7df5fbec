// Partitioning shared by every backend: slices of ceil(n/parts) elements and
// the contiguous rank groups of world.split(nsplit). The C ABI versions
// (coconet_slice_range, coconet_group_range) are defined in Partition.cpp.
#ifndef COCONET_RUNTIME_PARTITION_H
#define COCONET_RUNTIME_PARTITION_H

#include <cstdint>

namespace coconet_rt {

struct Range {
    int64_t begin = 0, end = 0;
    int64_t size() const { return end - begin; }
};

// Part `index` of `parts` parts of [0, n): [min(n, index*b), min(n, (index+1)*b)), b =
// ceil(n/parts).
Range slice_of(int64_t n, int parts, int index);

// Piece `index` of `pieces` of range r, cut as slice_of cuts [0, n): how an
// overlap along a sliced dimension cuts every rank's slice (chunk j of the
// collective is piece j of every slice).
Range piece_of(Range r, int pieces, int index);

// The smallest range holding piece `index` of `pieces` of every slice of
// [0, n) into `parts`; empty when every such piece is.
Range pieces_hull(int64_t n, int parts, int pieces, int index);

// Group `index` of world.split(nsplit): world ranks [first, first + size).
struct Group {
    int index = 0, nsplit = 1, first = 0, size = 0;
    bool has(int rank) const { return rank >= first && rank < first + size; }
    int local(int rank) const { return rank - first; }
};

Group group_of(int world_size, int nsplit, int index);

} // namespace coconet_rt

#endif
