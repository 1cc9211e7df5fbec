// Slices and groups (see Partition.h), and their C ABI.
#include "core/Partition.h"

#include <algorithm>

#include "coconet_runtime.h"

namespace coconet_rt {

Range slice_of(int64_t n, int parts, int index) {
    const int64_t block = parts > 0 ? (n + parts - 1) / parts : n;
    return Range{std::min<int64_t>(n, (int64_t)index * block),
                 std::min<int64_t>(n, ((int64_t)index + 1) * block)};
}

Range piece_of(Range r, int pieces, int index) {
    const Range p = slice_of(r.size(), pieces, index);
    return Range{r.begin + p.begin, r.begin + p.end};
}

Range pieces_hull(int64_t n, int parts, int pieces, int index) {
    Range hull{0, 0};
    bool any = false;
    for (int q = 0; q < parts; q++) {
        const Range p = piece_of(slice_of(n, parts, q), pieces, index);
        if (p.size() > 0) {
            hull = any ? Range{std::min(hull.begin, p.begin), std::max(hull.end, p.end)} : p;
            any = true;
        }
    }
    return hull;
}

Group group_of(int world_size, int nsplit, int index) {
    Group g;
    nsplit = std::max(nsplit, 1); // callers validate; never divide by zero
    g.index = index;
    g.nsplit = nsplit;
    g.first = (int)((int64_t)index * world_size / nsplit);
    g.size = (int)((int64_t)(index + 1) * world_size / nsplit) - g.first;
    return g;
}

} // namespace coconet_rt

extern "C" {

void coconet_slice_range(int64_t n, int parts, int index, int64_t *begin, int64_t *end) {
    const coconet_rt::Range r = coconet_rt::slice_of(n, parts, index);
    *begin = r.begin;
    *end = r.end;
}

void coconet_group_range(int world_size, int nsplit, int group, int *first, int *count) {
    const coconet_rt::Group g = coconet_rt::group_of(world_size, nsplit, group);
    *first = g.first;
    *count = g.size;
}

} // extern "C"
