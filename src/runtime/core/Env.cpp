#include "core/Env.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

extern char **environ;

namespace coconet_rt {

namespace {

// What a thread read, and the environment's entries when it read it.
struct EnvCache {
    std::vector<const char *> entries;
    std::vector<std::pair<const char *, const char *>> values; // name, value
    int scopes = 0; // EnvScopes alive on the thread: entries were checked
};

thread_local EnvCache cache;

// Whether environ still holds exactly `entries`: setenv puts a new string in
// (or reuses one of the same text), unsetenv and additions change the count.
bool unchanged(const std::vector<const char *> &entries) {
    char **e = environ;
    size_t i = 0;
    for (; e && e[i]; i++) {
        if (i >= entries.size() || entries[i] != e[i]) {
            return false;
        }
    }
    return i == entries.size();
}

// Forgets what the thread read if the environment changed since.
void check_environment() {
    if (!unchanged(cache.entries)) {
        cache.entries.clear();
        for (char **e = environ; e && *e; e++) {
            cache.entries.push_back(*e);
        }
        cache.values.clear();
    }
}

} // namespace

EnvScope::EnvScope() {
    if (cache.scopes++ == 0) {
        check_environment();
    }
}

EnvScope::~EnvScope() {
    cache.scopes--;
}

const char *env_value(const char *name) {
    if (cache.scopes == 0) {
        check_environment();
    }
    // Callers pass literals: the same name is mostly the same pointer.
    for (const auto &[n, v] : cache.values) {
        if (n == name) {
            return v;
        }
    }
    for (const auto &[n, v] : cache.values) {
        if (std::strcmp(n, name) == 0) {
            return v;
        }
    }
    const char *v = std::getenv(name);
    cache.values.emplace_back(name, v);
    return v;
}

const char *env_choice(const char *name, std::initializer_list<const char *> choices) {
    const char *first = *choices.begin();
    const char *v = env_value(name);
    if (!v || !*v) {
        return first;
    }
    for (const char *c : choices) {
        if (std::strcmp(c, v) == 0) {
            return c;
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

bool env_is(const char *name, std::initializer_list<const char *> choices, const char *choice) {
    return std::strcmp(env_choice(name, choices), choice) == 0;
}

} // namespace coconet_rt
