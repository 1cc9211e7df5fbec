#include "Error.h"

namespace coconet {
namespace Internal {

ErrorReport::ErrorReport(bool user, const char *file, int line, const char *condition)
    : user(user) {
    if (!user) {
        msg << "CoCoNet internal error at " << file << ":" << line;
        if (condition) {
            msg << " (condition failed: " << condition << ")";
        }
        msg << ": ";
    }
}

void ErrorReport::issue() {
    if (user) {
        throw UserError(msg.str());
    }
    throw InternalError(msg.str());
}

} // namespace Internal
} // namespace coconet
