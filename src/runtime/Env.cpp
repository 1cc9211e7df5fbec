#include "Env.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

namespace coconet_rt {

std::string env_choice(const char *name, std::initializer_list<const char *> choices) {
    const char *first = *choices.begin();
    const char *v = std::getenv(name);
    if (!v || !*v) {
        return first;
    }
    for (const char *c : choices) {
        if (std::strcmp(c, v) == 0) {
            return v;
        }
    }
    static std::mutex mutex;
    static std::set<std::string> warned;
    std::lock_guard<std::mutex> lock(mutex);
    if (warned.insert(name).second) {
        std::string listed;
        size_t i = 0;
        for (const char *c : choices) {
            listed +=
                (i ? (i + 1 == choices.size() ? " or '" : ", '") : "'") + std::string(c) + "'";
            i++;
        }
        std::fprintf(stderr, "coconet: %s='%s' is not %s; using '%s'\n", name, v, listed.c_str(),
                     first);
    }
    return first;
}

} // namespace coconet_rt
