// Wording of runtime errors, shared by every backend so that messages read
// the same everywhere: "rank 0: all_reduce 'g_sum' timed out after 2.0 s
// waiting for rank 1".
#ifndef COCONET_RUNTIME_ERRORS_H
#define COCONET_RUNTIME_ERRORS_H

#include <string>
#include <vector>

namespace coconet_rt {

// "2.0", "0.3", "0.25": at least one decimal, no trailing noise.
std::string format_seconds(double seconds);
// "rank 1" or "ranks 1, 2" (sorted, without duplicates).
std::string rank_list(std::vector<int> ranks);
// "rank 0: all_reduce 'g_sum'".
std::string op_label(int rank, const std::string &what);
// "rank 0: <what> timed out after 2.0 s waiting for <whom>".
std::string timeout_message(int rank, const std::string &what, double seconds,
                            const std::string &whom);

} // namespace coconet_rt

#endif
