// Compiling a distributed program for a target, top to bottom: lower() it,
// plan its steps (plan_program), then, step by step, schedule each Halide
// segment (the autoscheduler's schedules, the GPU pass's) and hand over its
// function and its fused pass's kernels; last the device collectives'
// combiners. AOT libraries (compile_aot) and JIT programs (JitProgram) both
// compile this way and differ only in what becomes of each function (one
// module's, or a callable), so that they run the same code. With
// COCONET_DEBUG=1, each step's result goes to stderr, as lower()'s passes do.
#ifndef COCONET_COMPILE_H
#define COCONET_COMPILE_H

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ProgramPlan.h"

namespace coconet {

struct CompileOptions {
    Halide::Target target;     // every function's, with the features the caller wants
    std::string function_name; // prefixes the functions' names (plan_program)
    // A Halide autoscheduler (its plugin loaded) for the segments the user
    // left unscheduled (AutoSchedule.h), estimating `estimate_ranks` ranks;
    // empty: none.
    std::string autoscheduler;
    std::map<std::string, std::string> autoscheduler_params;
    int estimate_ranks = 2;
    // The default schedule (DefaultSchedule.h) for the Funcs the user left
    // unscheduled, without an autoscheduler (on a GPU target: MatMuls' tiles).
    bool default_schedule = true;
    // Its MatMuls on a GPU target: "auto", "library", "kernels", or "" for
    // COCONET_GPU_MATMUL's (DefaultSchedule.h: library_gemm_api).
    std::string gpu_matmul;
    // The source counts a fused pass's kernel is built for along with its
    // step, recorded in the plan (AOT); unset: none, build_step_kernel builds
    // one when asked (JIT).
    std::function<std::set<int>(const FusedPass &, const Analysis &)> kernel_sources;
};

// A function of the compiled program: a Halide pipeline, named as its step's
// plan names it.
struct ProgramFunction {
    std::string name;
    Halide::Pipeline pipeline;
    std::vector<Halide::Argument> arguments;
    int outputs = 1;            // the output buffers after the arguments
    bool calls_runtime = false; // a segment or kernel: calls the runtime's entry points (coconet_*)
};

// What compiles each function, in the order the driver hands them over.
using CompileFunction = std::function<void(ProgramFunction &)>;

// The kernel of fused plan step `step` for `nsrc` sources (build_step_kernel).
struct StepKernel {
    ProgramFunction function;
    bool on_gpu = false;     // every output is computed by GPU kernels
    bool one_kernel = false; // by one kernel
};

struct CompiledProgram {
    LoweredProgram lowered;
    ProgramPlan plan; // with the kernels built along and the combiners
    Halide::Target target;
    std::string function_name;
    // What plan_text adds to print_plan: where the code runs on a GPU target,
    // what the default schedule or the autoscheduler did.
    std::string notes;
    // The kernels a JIT program's plan was read from (a GPU target), by step
    // and source count, not compiled: the program compiles them at first
    // use rather than building them again.
    std::map<std::pair<int, int>, StepKernel> built_kernels;
};

CompiledProgram compile_program(const Program &program, const CompileOptions &options,
                                const CompileFunction &compile);

StepKernel build_step_kernel(const CompiledProgram &compiled, int step, int nsrc);

// The plan (print_plan) on `world_size` ranks, then where the code runs for a
// GPU target and what the default schedule or the autoscheduler did.
std::string plan_text(const CompiledProgram &compiled, int world_size);

} // namespace coconet

#endif
