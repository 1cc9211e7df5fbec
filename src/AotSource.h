// The C++ side of an AOT library: the table the executor follows
// (coconet_aot_program), the typed entry point that calls it, and the
// header users include, which states each argument's layout and global shape.
#ifndef COCONET_AOT_SOURCE_H
#define COCONET_AOT_SOURCE_H

#include <string>

#include "AotCompile.h"

namespace coconet {

std::string aot_source(const AotPlan &plan, const std::string &header_name);
std::string aot_header(const AotPlan &plan);

} // namespace coconet

#endif
