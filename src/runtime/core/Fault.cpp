#include "core/Fault.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <vector>

#include "core/Comm.h"
#include "core/Env.h"

namespace coconet_rt {

namespace {

struct FaultSpec {
    std::string action, site;
    int rank = -1, nth = 1;
};

// The spec in COCONET_FAULT; a malformed one is reported once and ignored.
bool parse(const char *text, FaultSpec *spec) {
    std::vector<std::string> parts;
    std::stringstream s(text);
    for (std::string p; std::getline(s, p, ':');) {
        parts.push_back(p);
    }
    if (parts.size() < 3 || parts.size() > 4) {
        return false;
    }
    spec->action = parts[0];
    spec->site = parts[2];
    char *end = nullptr;
    spec->rank = (int)std::strtol(parts[1].c_str(), &end, 10);
    if (*end || parts[1].empty()) {
        return false;
    }
    if (parts.size() == 4) {
        spec->nth = (int)std::strtol(parts[3].c_str(), &end, 10);
        if (*end || parts[3].empty() || spec->nth < 1) {
            return false;
        }
    }
    // A blocking MPI call cannot return an injected error: it takes kill or stop.
    return (spec->action == "fail" && spec->site != "blocking") || spec->action == "kill" ||
           spec->action == "stop";
}

bool matches(const FaultSpec &f, FaultSite site, const std::string &what, bool chunk) {
    const bool named = site == FaultSite::Collective || site == FaultSite::Pass;
    return (f.site == what && named) || (f.site == "chunk" && chunk) ||
           (f.site == "collective" && site == FaultSite::Collective) ||
           (f.site == "pass" && site == FaultSite::Pass) ||
           (f.site == "kernel" && site == FaultSite::Kernel) ||
           (f.site == "blocking" && site == FaultSite::Blocking);
}

} // namespace

int fault_point(coconet_comm *comm, FaultSite site, const std::function<std::string()> &name,
                bool chunk) {
    const char *env = env_value("COCONET_FAULT");
    if (!env || !*env) {
        return COCONET_OK;
    }
    const std::string what = name();
    static std::mutex mutex;
    static bool fired = false, reported = false;
    static int calls = 0;
    FaultSpec f;
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (!parse(env, &f)) {
            if (!reported) {
                reported = true;
                std::fprintf(stderr,
                             "coconet: COCONET_FAULT='%s' is not <fail|kill|stop>:<rank>:<site>"
                             "[:<n>] (site blocking: kill or stop); no fault injected\n",
                             env);
            }
            return COCONET_OK;
        }
        if (fired || comm->rank != f.rank || !matches(f, site, what, chunk) || ++calls < f.nth) {
            return COCONET_OK;
        }
        fired = true;
    }
    std::fprintf(stderr, "coconet: rank %d: COCONET_FAULT=%s: %s in %s\n", comm->rank, env,
                 f.action.c_str(), what.c_str());
    if (f.action == "kill") {
        std::raise(SIGKILL);
    } else if (f.action == "stop") {
        std::raise(SIGSTOP);
        return COCONET_OK; // resumed by SIGCONT
    }
    return comm->fail(COCONET_ERR_BACKEND, "rank " + std::to_string(comm->rank) + ": " + what +
                                               ": injected fault (COCONET_FAULT)");
}

} // namespace coconet_rt
