#include "Env.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>

namespace coconet_rt {

std::string env_choice(const char *name, const std::vector<std::string> &choices) {
    const char *v = std::getenv(name);
    if (!v || !*v) {
        return choices.front();
    }
    if (std::find(choices.begin(), choices.end(), v) != choices.end()) {
        return v;
    }
    static std::mutex mutex;
    static std::set<std::string> warned;
    std::lock_guard<std::mutex> lock(mutex);
    if (warned.insert(name).second) {
        std::string listed;
        for (size_t i = 0; i < choices.size(); i++) {
            listed += (i ? (i + 1 == choices.size() ? " or '" : ", '") : "'") + choices[i] + "'";
        }
        std::fprintf(stderr, "coconet: %s='%s' is not %s; using '%s'\n", name, v, listed.c_str(),
                     choices.front().c_str());
    }
    return choices.front();
}

} // namespace coconet_rt
