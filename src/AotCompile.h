// Ahead-of-time compilation of a distributed program: every Halide segment
// and every fused kernel of the lowered program become functions of one
// Halide module (a static library for the generator's target), and an
// AotPlan records the order the executor (coconet_aot_run) calls them in and
// the values they pass. AotSource renders the plan as the library's C++ table,
// entry point and header.
#ifndef COCONET_AOT_COMPILE_H
#define COCONET_AOT_COMPILE_H

#include <string>
#include <vector>

#include "Lower.h"

namespace coconet {

struct AotOptions {
    std::string function_name;
    Halide::Target target;
    int ranks = 0;                 // > 0: the library runs on exactly this many ranks
    int max_ranks = 8;             // ranks == 0: fused kernels for direct groups of up to this many
    std::string generator, params; // what it was built from, for the header
};

struct AotValue {
    std::string name;
    Halide::Type type;
    std::vector<int> extents;
    Layout layout;
};

struct AotKernel {
    int nsrc;
    std::string function;
    bool device = false; // compiled for a GPU target (some or all of it runs there)
};

// One step of coconet_aot_program (see coconet_aot.h for the fields).
struct AotStep {
    bool fused = false;
    std::string pipeline; // the Halide function, "" for a pass without a producer
    std::vector<int> params, outs;
    std::string name;
    int op = 0, dim = 0, nsplit = 1, group = 0, src = -1;
    std::vector<int> n;
    std::vector<int> pass_outs, gathered, slices, extras;
    int64_t chunk_elements = 0;
    int path = 0, chunks = 0;
    std::vector<AotKernel> kernels;
};

struct AotPlan {
    AotOptions options;
    std::vector<AotValue> values;
    int ninputs = 0;
    std::vector<int> args;          // inputs, then outputs
    std::vector<int> output_values; // per output
    std::vector<AotStep> steps;
    bool overlapped = false;
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
