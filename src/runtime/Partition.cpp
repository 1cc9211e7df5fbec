// Slices and groups (see Partition.h), and their C ABI.
#include "Partition.h"

#include <algorithm>

#include "coconet_runtime.h"

namespace coconet_rt {

Range slice_of(int64_t n, int parts, int index) {
    const int64_t block = parts > 0 ? (n + parts - 1) / parts : n;
    return Range{std::min<int64_t>(n, (int64_t)index * block),
                 std::min<int64_t>(n, ((int64_t)index + 1) * block)};
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
