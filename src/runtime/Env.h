// The runtime's switches in the environment, read the same way everywhere: a
// value outside the choices is reported once per variable, never silently
// taken for another.
#ifndef COCONET_RUNTIME_ENV_H
#define COCONET_RUNTIME_ENV_H

#include <string>
#include <vector>

namespace coconet_rt {

// Environment variable `name` when it is one of `choices`; the first choice
// when unset or empty, and (after a warning, once per variable) otherwise.
std::string env_choice(const char *name, const std::vector<std::string> &choices);

} // namespace coconet_rt

#endif
