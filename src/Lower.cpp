#include "Lower.h"

#include <cstdlib>
#include <iostream>

#include "CoCoNet.h"
#include "CollectFuncs.h"
#include "InferLayouts.h"
#include "NarrowAllReduces.h"
#include "PrintPlan.h"
#include "coconet_runtime.h"

namespace coconet {

void debug_dump(const char *step, const Program &program,
                const std::function<std::string()> &dump) {
    const char *level = std::getenv("COCONET_DEBUG");
    if (level && std::atoi(level) >= 1) {
        std::cerr << "coconet: " << program.name() << " after " << step << ":\n" << dump();
    }
}

// The passes, one line each, with what each produced under COCONET_DEBUG.
LoweredProgram lower(const Program &program, const LowerOptions &options) {
    Analysis a = collect_funcs(program);
    debug_dump("collect_funcs", program, [&] { return dump_analysis(a); });
    infer_layouts(program, a);
    debug_dump("infer_layouts", program, [&] { return dump_analysis(a); });
    if (narrow_all_reduces(program, a)) {
        a = analyze(program);
    }
    debug_dump("narrow_all_reduces", program, [&] { return dump_analysis(a); });
    std::vector<FusedPass> passes = find_fused_passes(a);
    debug_dump("find_fused_passes", program, [&] { return dump_fused_passes(passes); });
    Liveness liveness = find_liveness(program, a, passes);
    debug_dump("find_liveness", program, [&] { return dump_liveness(liveness, a); });
    Placement placement = place(a, passes, liveness);
    debug_dump("place", program, [&] { return dump_placement(placement, passes, a); });
    DefaultSchedules defaults;
    if (options.default_schedule) {
        defaults =
            choose_default_schedules(a, liveness, *options.default_schedule, options.gpu_matmul);
        debug_dump("choose_default_schedules", program,
                   [&] { return dump_default_schedules(defaults, a); });
        group_rows(defaults, a, liveness, placement, *options.default_schedule);
        debug_dump("group_rows", program, [&] { return dump_default_schedules(defaults, a); });
    }
    SpmdPipeline spmd = lower_spmd(a, passes, liveness, placement, options.device, defaults);
    debug_dump("lower_spmd", program, [&] { return dump_spmd(spmd); });
    return LoweredProgram{program, std::move(a), std::move(defaults), std::move(spmd)};
}

Halide::DeviceAPI gpu_api(const Halide::Target &target) {
    return target.has_gpu_feature() ? Halide::get_default_device_api_for_target(target)
                                    : Halide::DeviceAPI::None;
}

int32_t runtime_device_api(Halide::DeviceAPI api) {
    switch (api) {
    case Halide::DeviceAPI::CUDA: return COCONET_DEVICE_CUDA;
    case Halide::DeviceAPI::OpenCL: return COCONET_DEVICE_OPENCL;
    default: return 0;
    }
}

std::string print_plan(const Program &program, int world_size) {
    return print_plan(lower(program), world_size);
}

Layout inferred_layout(const Program &program, const DFunc &f) {
    return analyze(program).of(f).layout;
}

} // namespace coconet
