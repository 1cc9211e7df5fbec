// Ahead-of-time compilation of a distributed program: every Halide segment
// and every fused kernel of the lowered program become functions of one
// Halide module (a static library for the generator's target), and the
// program's plan (ProgramPlan) records the order the executor
// (coconet_aot_run) calls them in and the values they pass. AotSource renders
// the plan as the library's table, entry point and header.
#ifndef COCONET_AOT_COMPILE_H
#define COCONET_AOT_COMPILE_H

#include <map>
#include <string>
#include <vector>

#include "ProgramPlan.h"

namespace coconet {

struct AotOptions {
    std::string function_name;
    Halide::Target target;
    int ranks = 0;                 // > 0: the library runs on exactly this many ranks
    int max_ranks = 8;             // ranks == 0: fused kernels for direct groups of up to this many
    std::string generator, params; // what it was built from, for the header
    // A Halide autoscheduler (its plugin loaded) for the segments the user
    // left unscheduled (AutoSchedule.h); empty: none.
    std::string autoscheduler;
    std::map<std::string, std::string> autoscheduler_params; // its parameters
    // The default schedule (DefaultSchedule.h) where there is no autoscheduler,
    // and its MatMuls on a GPU target (CompileOptions::gpu_matmul).
    bool default_schedule = true;
    std::string gpu_matmul;
};

struct AotPlan : ProgramPlan {
    AotOptions options;
    std::string plan_text; // print_plan on `ranks` ranks, then where the code runs for a GPU target
};

struct AotLibrary {
    AotPlan plan;
    Halide::Module module;
};

// Lowers and compiles `program`; `progress` (may be empty) hears about each function.
AotLibrary compile_aot(const Program &program, const AotOptions &options,
                       const std::function<void(const std::string &)> &progress = {});

} // namespace coconet

#endif
