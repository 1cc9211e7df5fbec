// The program as the executor runs it (coconet_aot.h), before its functions
// are compiled: the values that cross steps (type, global shape, layout) and
// the steps in order, each a Halide segment, a fused pass with the fields of
// its coconet_fused_call, or an overlapped collective with its descriptor. The AOT compiler
// compiles the steps' functions into a library and writes the plan as the library's table
// (AotSource); the JIT compiles them in memory and builds the same table around them. Both then run
// through coconet_aot_run.
#ifndef COCONET_PROGRAM_PLAN_H
#define COCONET_PROGRAM_PLAN_H

#include <string>
#include <vector>

#include "LowerSpmd.h"
#include "coconet_aot.h"

namespace coconet {

struct GpuPlacement;

struct ProgramValue {
    std::string name;
    Halide::Type type;
    std::vector<int> extents; // as the table holds them: constants, or COCONET_SIZE_REF(k)
    Layout layout;
    bool device = false; // a GPU kernel computes or reads it (mark_device_values)
};

struct ProgramKernel {
    int nsrc;
    std::string function; // its name in an AOT library
    bool device = false;  // compiled for a GPU target (some or all of it runs there)
    // Every output computed on the device: the Halide runtime function that
    // returns its interface ("halide_cuda_device_interface"); else "".
    std::string device_interface;
};

// One step of coconet_aot_program (see coconet_aot.h for the fields).
struct ProgramStep {
    coconet_step_kind kind = COCONET_STEP_HALIDE;
    int segment = -1;     // the lowered program's segment
    std::string pipeline; // the Halide function's name, "" for a pass without a producer
    std::vector<int> params, outs;
    // A fused pass: its call's fields, then the values it reads and writes.
    std::string name;
    int op = 0, dim = 0, nsplit = 1, group = 0;
    std::vector<int> n;
    int64_t chunk_elements = 0;
    int path = 0;
    int src = -1;
    std::vector<int> pass_outs, gathered, slices, extras;
    int chunks = 0;
    int chunk_dim = -1;                 // an overlapped pass: the dimension its chunks run along
    bool replicable = false;            // coconet_fused_call::replicable
    std::vector<ProgramKernel> kernels; // added by whoever compiles them
    // An overlapped collective (name above): its descriptor and the value it writes.
    coconet_collective_desc collective{};
    int dst = -1;
};

// A combiner kernel of the program's device collectives (coconet_aot_combiner).
struct ProgramCombiner {
    int op;
    Halide::Type type;
    std::string function; // its name in an AOT library
    std::string identity; // the identity kernel's
};

// coconet_size_constraint.
struct SizeConstraint {
    int32_t a, b;
    std::string what;
};

struct ProgramPlan {
    std::vector<ProgramValue> values;
    std::vector<std::string> sizes; // the run-time sizes' names, in signature order
    std::vector<SizeConstraint> constraints;
    int ninputs = 0;
    std::vector<int> args;          // inputs, then outputs
    std::vector<int> output_values; // per output
    // Per output: the input (its index in args) whose memory it may share,
    // updating it in place, or -1 (find_in_place, once the schedules are final).
    std::vector<int> in_place_of;
    std::vector<ProgramStep> steps;
    std::vector<ProgramCombiner> combiners; // added by whoever compiles them
    // The outputs of the collective stages on the device (coconet_aot_program::device_stages).
    std::vector<ProgramValue> device_stages;
    // A GPU target: the Halide runtime function returning its device
    // interface ("halide_opencl_device_interface"); "" for the host.
    std::string device_interface;
    int32_t device_api = 0; // COCONET_DEVICE_CUDA or _OPENCL; 0 for the host
};

// The plan of a lowered program; `function_name` prefixes the names of the
// steps' functions (`<function_name>_step<i>`, `..._producer`).
ProgramPlan plan_program(const LoweredProgram &lowered, const std::string &function_name);

// The table entry of a value.
coconet_value_info value_info(const ProgramValue &v);

// Marks the plan's values a GPU kernel computes or reads (those a segment's
// GPU placement lists), for the executor's check of empty slices.
void mark_device_values(ProgramPlan &plan, const GpuPlacement &where);

// The call a fused step makes, but for the pointers the table or the
// executor fills in (name, gathered, src, outs, kernel).
coconet_fused_call pass_call(const ProgramStep &s);

// One line per step: its kind, function and the values it reads and writes
// (the compile driver's dump under COCONET_DEBUG).
std::string dump_plan(const ProgramPlan &plan);

} // namespace coconet

#endif
