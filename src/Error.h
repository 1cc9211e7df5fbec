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

// A failure while a program runs. code() is the COCONET_ERR_* the runtime
// reported (coconet_comm_last_error_code), so that callers can tell a timeout
// from a failed peer or a bad argument; 0 when the thrower did not say.
struct RuntimeError : std::runtime_error {
    explicit RuntimeError(const std::string &message) : RuntimeError(0, message) {}
    RuntimeError(int code, const std::string &message) : std::runtime_error(message), code_(code) {}
    int code() const { return code_; }

private:
    int code_;
};

namespace Internal {

// Collects a message with operator<<; issue() throws it. The macros below
// call issue() from the increment of a for statement whose body is the
// streaming, as Halide's own error reports do, so that no destructor throws
// and the operands are evaluated only when the condition fails.
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

    // Throws UserError or InternalError with the message.
    [[noreturn]] void issue();

private:
    std::ostringstream msg;
    bool user;
};

} // namespace Internal
} // namespace coconet

#define coconet_report_impl(user, condition)                                                       \
    for (::coconet::Internal::ErrorReport _coconet_err(user, __FILE__, __LINE__, condition); true; \
         _coconet_err.issue())                                                                     \
    _coconet_err
#define coconet_user_error coconet_report_impl(true, nullptr)
// `if (c) {} else` rather than `if (!(c))`: an `else` after the macro's
// statement cannot bind to the macro's `if`.
#define coconet_user_assert(c) \
    if (c) {                   \
    } else                     \
        coconet_report_impl(true, #c)
#define coconet_internal_assert(c) \
    if (c) {                       \
    } else                         \
        coconet_report_impl(false, #c)

#endif
