// Small string helpers shared by the passes' texts (the plan dump, the GPU
// and autoscheduler notes), kept apart so that a pass needing one depends on
// nothing else.
#ifndef COCONET_STRINGS_H
#define COCONET_STRINGS_H

#include <string>
#include <vector>

namespace coconet {

// The parts with `separator` between them ("a, b, c").
inline std::string join(const std::vector<std::string> &parts,
                        const std::string &separator = ", ") {
    std::string s;
    for (const std::string &p : parts) {
        s += (s.empty() ? "" : separator) + p;
    }
    return s;
}

} // namespace coconet

#endif
