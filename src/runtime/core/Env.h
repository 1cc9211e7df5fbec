// The runtime's switches in the environment, read the same way everywhere: a
// value outside the choices is reported once per variable, never silently
// taken for another. They are read on every call (tests and users change
// them between calls), so a value is remembered until the environment
// changes: under mpirun a getenv scans about 90 variables (~90 ns), and a
// call read seven.
#ifndef COCONET_RUNTIME_ENV_H
#define COCONET_RUNTIME_ENV_H

#include <initializer_list>

namespace coconet_rt {

// getenv(name), remembered by the calling thread while the environment's
// entries stay the same ones (setenv and unsetenv change them; a string
// given to putenv and then edited in place is not seen). `name` must live as
// long as the thread (a string literal): it is remembered by its address.
const char *env_value(const char *name);

// While one exists on a thread, env_value there looks for changes to the
// environment only when the outermost is made: a name read then keeps that
// value through the scope (one first read later gets the value of then). The
// AOT executor makes one per call, so a call's switches do not change under
// it.
class EnvScope {
public:
    EnvScope();
    ~EnvScope();
    EnvScope(const EnvScope &) = delete;
    EnvScope &operator=(const EnvScope &) = delete;
};

// Environment variable `name` when it is one of `choices`; the first choice
// when unset or empty, and (after a warning, once per variable) otherwise.
// Returns the entry of `choices` (compare with strcmp); no allocation.
const char *env_choice(const char *name, std::initializer_list<const char *> choices);

// Whether env_choice(name, choices) is `choice`.
bool env_is(const char *name, std::initializer_list<const char *> choices, const char *choice);

} // namespace coconet_rt

#endif
