#include "Partition.h"

#include "Error.h"
#include "coconet_runtime.h"

namespace coconet {

using Halide::Expr;

Range slice_range(int64_t n, int parts, int index) {
    Range r;
    coconet_slice_range(n, parts, index, &r.begin, &r.end);
    return r;
}

Range group_ranks(const Group &g, int world_size) {
    coconet_user_assert(world_size >= g.nsplit)
        << "A world of " << world_size << (world_size == 1 ? " rank" : " ranks")
        << " cannot be split into " << g.nsplit << " groups: " << g.to_string()
        << " would be empty.";
    int first = 0, count = 0;
    coconet_group_range(world_size, g.nsplit, g.index, &first, &count);
    return Range{first, first + count};
}

std::vector<Range> rank_region(const Layout &layout, const std::vector<int> &extents, int rank,
                               int world_size) {
    std::vector<Range> box;
    Range ranks = group_ranks(layout.group, world_size);
    bool member = rank >= ranks.begin && rank < ranks.end;
    for (size_t d = 0; d < extents.size(); d++) {
        if (!member) {
            box.push_back(Range{0, 0});
        } else if (layout.kind == LayoutKind::Sliced && (int)d == layout.dim) {
            box.push_back(slice_range(extents[d], (int)ranks.extent(), rank - (int)ranks.begin));
        } else {
            box.push_back(Range{0, extents[d]});
        }
    }
    return box;
}

ExprRange slice_range(Expr n, Expr parts, Expr index) {
    Expr block = (n + parts - 1) / parts;
    return ExprRange{Halide::min(n, index * block), Halide::min(n, (index + 1) * block)};
}

ExprGroup group_ranks(const Group &g, Expr rank, Expr world_size) {
    // floor(g*R/nsplit) as in coconet_group_range.
    Expr first = (g.index * world_size) / g.nsplit;
    Expr next = ((g.index + 1) * world_size) / g.nsplit;
    return ExprGroup{first, next - first, rank >= first && rank < next};
}

ExprRange rank_slice(const Group &g, Expr n, Expr rank, Expr world_size) {
    ExprGroup grp = group_ranks(g, rank, world_size);
    ExprRange s = slice_range(n, grp.size, rank - grp.first);
    return ExprRange{Halide::select(grp.member, s.begin, 0), Halide::select(grp.member, s.end, 0)};
}

} // namespace coconet
