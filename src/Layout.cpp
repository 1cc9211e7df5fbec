#include "Layout.h"

#include "Error.h"

namespace coconet {

std::vector<Group> Group::split(int n) const {
    coconet_user_assert(is_world())
        << "Only the world can be split into groups, not " << to_string() << ".";
    coconet_user_assert(n >= 1) << "world.split(" << n << "): the group count must be >= 1.";
    std::vector<Group> groups;
    for (int i = 0; i < n; i++) {
        groups.push_back(Group{n, i});
    }
    return groups;
}

bool Group::contains(const Group &other) const {
    return is_world() || *this == other;
}

std::string Group::to_string() const {
    if (is_world()) {
        return "world";
    }
    return "group " + std::to_string(index) + " of world.split(" + std::to_string(nsplit) + ")";
}

std::string Layout::to_string() const {
    std::string s;
    switch (kind) {
    case LayoutKind::Replicated: s = "Replicated"; break;
    case LayoutKind::Sliced: s = "Sliced(" + std::to_string(dim) + ")"; break;
    case LayoutKind::Local: s = "Local"; break;
    }
    if (!group.is_world()) {
        s += " on " + group.to_string();
    }
    return s;
}

} // namespace coconet
