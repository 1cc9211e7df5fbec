// The runtime's switches in the environment, read the same way everywhere: a
// value outside the choices is reported once per variable, never silently
// taken for another.
#ifndef COCONET_RUNTIME_ENV_H
#define COCONET_RUNTIME_ENV_H

#include <initializer_list>
#include <string>

namespace coconet_rt {

// Environment variable `name` when it is one of `choices`; the first choice
// when unset or empty, and (after a warning, once per variable) otherwise.
// Cheap enough to call per call: no allocation for the choices.
std::string env_choice(const char *name, std::initializer_list<const char *> choices);

} // namespace coconet_rt

#endif
