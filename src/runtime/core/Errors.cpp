// Wording of runtime errors (see Errors.h).
#include "core/Errors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace coconet_rt {

std::string format_seconds(double seconds) {
    char s[64];
    if (seconds == std::floor(seconds) && std::fabs(seconds) < 1e15) {
        std::snprintf(s, sizeof(s), "%.1f", seconds);
    } else {
        std::snprintf(s, sizeof(s), "%g", seconds);
    }
    return s;
}

std::string rank_list(std::vector<int> ranks) {
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    std::string s = ranks.size() == 1 ? "rank " : "ranks ";
    for (size_t i = 0; i < ranks.size(); i++) {
        s += (i ? ", " : "") + std::to_string(ranks[i]);
    }
    return s;
}

std::string op_label(int rank, const std::string &what) {
    return "rank " + std::to_string(rank) + ": " + what;
}

std::string timeout_message(int rank, const std::string &what, double seconds,
                            const std::string &whom) {
    return op_label(rank, what) + " timed out after " + format_seconds(seconds) +
           " s waiting for " + whom;
}

} // namespace coconet_rt
