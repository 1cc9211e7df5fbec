// Lowering a distributed program, top to bottom: find its Funcs, infer layouts
// and shapes, compute the all_reduces nothing needs whole as reduce_scatters,
// find the fused passes, what is live and where everything runs, then build
// the SPMD Halide pipelines that every rank runs. With
// COCONET_DEBUG=1 in the environment, lower() prints what each pass produced
// to stderr.
#ifndef COCONET_LOWER_H
#define COCONET_LOWER_H

#include <functional>
#include <optional>

#include "LowerSpmd.h"

namespace coconet {

struct LowerOptions {
    // The GPU API of the target the program is compiled for (DeviceAPI::None:
    // the host); collectives that can move their data on that device become
    // extern stages on it (CollectiveStage.h).
    Halide::DeviceAPI device = Halide::DeviceAPI::None;
    // A CPU target: the Funcs the user left unscheduled get the default
    // schedule for it (DefaultSchedule.h). Unset: Halide's (every Func
    // computed at root, serially).
    std::optional<Halide::Target> default_schedule;
    // Its MatMuls on a GPU target (library_gemm_api's mode; "": the
    // environment's).
    std::string gpu_matmul;
};

LoweredProgram lower(const Program &program, const LowerOptions &options = {});

// The GPU API of `target` (DeviceAPI::None without a GPU feature).
Halide::DeviceAPI gpu_api(const Halide::Target &target);
// The runtime's name of a GPU API (COCONET_DEVICE_CUDA or
// COCONET_DEVICE_OPENCL), 0 for any other.
int32_t runtime_device_api(Halide::DeviceAPI api);

// COCONET_DEBUG >= 1 prints what `step` produced for `program` to stderr,
// like Halide's HL_DEBUG_CODEGEN; `dump` is called only then. lower() and the
// compile driver (Compile.h) call it after each of their steps.
void debug_dump(const char *step, const Program &program, const std::function<std::string()> &dump);

} // namespace coconet

#endif
