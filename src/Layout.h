// Process groups and the layouts of distributed Funcs: Replicated, Sliced(d)
// and Local, each relative to a group of ranks (the world by default).
#ifndef COCONET_LAYOUT_H
#define COCONET_LAYOUT_H

#include <string>
#include <vector>

namespace coconet {

// Group `index` of world.split(nsplit): a contiguous block of ranks. The world
// is group 0 of split(1).
struct Group {
    int nsplit = 1;
    int index = 0;

    static Group world() { return Group{}; }
    bool is_world() const { return nsplit == 1; }
    // world.split(n): n groups of contiguous ranks. Only the world may be split.
    std::vector<Group> split(int n) const;
    // Whether every rank of `other` belongs to this group.
    bool contains(const Group &other) const;
    std::string to_string() const;
    bool operator==(const Group &o) const { return nsplit == o.nsplit && index == o.index; }
    bool operator!=(const Group &o) const { return !(*this == o); }
};

enum class LayoutKind { Replicated, Sliced, Local };

struct Layout {
    LayoutKind kind = LayoutKind::Replicated;
    int dim = -1; // the sliced dimension, for Sliced
    Group group;

    std::string to_string() const;
    bool operator==(const Layout &o) const {
        return kind == o.kind && dim == o.dim && group == o.group;
    }
    bool operator!=(const Layout &o) const { return !(*this == o); }
};

// Layout constructors, named as in the paper: every rank of the group holds the
// same full value.
struct Replicated {
    Group group;
    explicit Replicated(Group g = Group::world()) : group(g) {}
    operator Layout() const { return Layout{LayoutKind::Replicated, -1, group}; }
};

// Rank i of the group holds the i-th block of ceil(n/size) elements of dimension dim.
struct Sliced {
    int dim;
    Group group;
    explicit Sliced(int d, Group g = Group::world()) : dim(d), group(g) {}
    operator Layout() const { return Layout{LayoutKind::Sliced, dim, group}; }
};

// Every rank of the group holds its own full-size value (e.g. a gradient); the
// value it stands for is the reduction over the ranks.
struct Local {
    Group group;
    explicit Local(Group g = Group::world()) : group(g) {}
    operator Layout() const { return Layout{LayoutKind::Local, -1, group}; }
};

} // namespace coconet

#endif
