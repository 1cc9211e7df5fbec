// Errors raised by CoCoNet: UserError for bad programs, schedules or calls
// (messages name the user's Funcs, layouts and ranks), InternalError for bugs
// in CoCoNet itself, RuntimeError for failures while a program runs.
#ifndef COCONET_ERROR_H
#define COCONET_ERROR_H

#include <sstream>
#include <stdexcept>
#include <string>

namespace coconet {

struct UserError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct InternalError : std::logic_error {
    using std::logic_error::logic_error;
};

struct RuntimeError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

namespace Internal {

// Collects a message with operator<< and throws when it goes out of scope, as
// Halide's own error reports do.
class ErrorReport {
public:
    ErrorReport(bool user, const char *file, int line, const char *condition);
    ErrorReport(const ErrorReport &) = delete;
    ErrorReport &operator=(const ErrorReport &) = delete;

    template<typename T>
    ErrorReport &operator<<(const T &x) {
        msg << x;
        return *this;
    }

    [[noreturn]] ~ErrorReport() noexcept(false);

private:
    std::ostringstream msg;
    bool user;
};

} // namespace Internal
} // namespace coconet

#define coconet_user_error ::coconet::Internal::ErrorReport(true, __FILE__, __LINE__, nullptr)
#define coconet_user_assert(c) \
    if (c) {                   \
    } else                     \
        ::coconet::Internal::ErrorReport(true, __FILE__, __LINE__, #c)
#define coconet_internal_assert(c) \
    if (c) {                       \
    } else                         \
        ::coconet::Internal::ErrorReport(false, __FILE__, __LINE__, #c)

#endif
