// Pass: find every distributed Func a program's outputs depend on, in
// dependency order, and its inputs in signature order.
#ifndef COCONET_COLLECT_FUNCS_H
#define COCONET_COLLECT_FUNCS_H

#include "Analysis.h"

namespace coconet {

Analysis collect_funcs(const Program &program);

} // namespace coconet

#endif
