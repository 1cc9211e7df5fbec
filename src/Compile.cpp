#include "Compile.h"

#include <sstream>

#include "AutoSchedule.h"
#include "CollectiveStage.h"
#include "Error.h"
#include "FusedKernel.h"
#include "GpuSchedule.h"
#include "InPlace.h"
#include "Lower.h"
#include "PrintPlan.h"

namespace coconet {

namespace {

// The Halide runtime function returning the device interface of `target`'s
// GPU API, which a library's table names for kernels computing there.
std::string device_interface_function(const Halide::Target &target) {
    switch (Halide::get_default_device_api_for_target(target)) {
    case Halide::DeviceAPI::CUDA: return "halide_cuda_device_interface";
    case Halide::DeviceAPI::OpenCL: return "halide_opencl_device_interface";
    default: return "";
    }
}

// The steps, top to bottom, each followed by what it produced under
// COCONET_DEBUG. The order is the functions' order in an AOT library.
CompiledProgram compile_steps(const Program &program, const CompileOptions &options,
                              const CompileFunction &compile) {
    const Halide::Target &target = options.target;
    const bool gpu = target.has_gpu_feature();
    LowerOptions lowering{gpu_api(target), std::nullopt, options.gpu_matmul};
    if (options.default_schedule && options.autoscheduler.empty()) {
        lowering.default_schedule = target;
    }
    CompiledProgram c{lower(program, lowering), {}, target, options.function_name, "", {}};
    const Analysis &a = c.lowered.analysis;
    const SpmdPipeline &spmd = c.lowered.spmd;
    c.plan = plan_program(c.lowered, options.function_name);
    debug_dump("plan_program", program, [&] { return dump_plan(c.plan); });
    coconet_user_assert(options.autoscheduler.empty() || !gpu)
        << "Generator " << program.name() << ": autoscheduler=" << options.autoscheduler
        << " on a GPU target (" << target.to_string()
        << "); the autoscheduler schedules CPU libraries, GPU ones get the GPU pass.";
    std::ostringstream placement, autoscheduled;
    for (size_t s = 0; s < c.plan.steps.size(); s++) {
        ProgramStep &step = c.plan.steps[s];
        const SpmdSegment &seg = spmd.segments[step.segment];
        if (!step.pipeline.empty()) {
            const HalideSegment &h = seg.halide;
            if (!options.autoscheduler.empty()) {
                const std::string line =
                    "  " + step.pipeline + ": " +
                    autoschedule_segment(h, a, options.autoscheduler, target,
                                         options.estimate_ranks, options.autoscheduler_params) +
                    "\n";
                autoscheduled << line;
                debug_dump("autoschedule_segment", program, [&] { return line; });
            }
            if (gpu) {
                const GpuPlacement where = schedule_segment_for_gpu(h, a, spmd);
                mark_device_values(c.plan, where);
                const std::string line = "  " + step.pipeline + ": " + placement_text(where) + "\n";
                placement << line;
                debug_dump("schedule_segment_for_gpu", program, [&] { return line; });
            }
            std::vector<Halide::Argument> args(h.params.begin(), h.params.end());
            for (const Halide::Argument &s : size_arguments(a.sizes)) {
                args.push_back(s);
            }
            ProgramFunction f{step.pipeline, h.pipeline, args, (int)h.outputs.size(), true};
            compile(f);
        }
        if (step.kind != COCONET_STEP_FUSED || (!options.kernel_sources && !gpu)) {
            continue;
        }
        const FusedPass &g = spmd.passes[seg.fused_pass];
        bool kernels_on_gpu = true, one_kernel = true;
        if (!options.kernel_sources) {
            // A JIT program compiles its kernels at first use: the plan says
            // what they will be.
            const int nsrc = g.reduces() ? 1 : 0;
            StepKernel k = build_step_kernel(c, (int)s, nsrc);
            kernels_on_gpu = k.on_gpu;
            one_kernel = k.one_kernel;
            c.built_kernels.emplace(std::make_pair((int)s, nsrc), std::move(k));
        }
        for (int nsrc : options.kernel_sources ? options.kernel_sources(g, a) : std::set<int>{}) {
            StepKernel k = build_step_kernel(c, (int)s, nsrc);
            compile(k.function);
            step.kernels.push_back(
                ProgramKernel{nsrc, k.function.name, gpu,
                              gpu && k.on_gpu ? device_interface_function(target) : ""});
            kernels_on_gpu = kernels_on_gpu && k.on_gpu;
            one_kernel = one_kernel && k.one_kernel;
        }
        if (gpu) {
            placement << "  fused pass of " << g.scatter->name << ": "
                      << (!kernels_on_gpu ? "kernels partly on the host, data moved through "
                                            "host memory"
                          : one_kernel    ? "one GPU kernel for all outputs"
                                          : "a GPU kernel per output")
                      << (kernels_on_gpu ? "; ranks sharing the device (threads backend) keep "
                                           "the pass there, a collective library for the "
                                           "device (NCCL) reduces and gathers it there on a "
                                           "pass of the world, other backends move its data "
                                           "through host memory"
                                         : "")
                      << "\n";
        }
    }
    for (const Combiner &cb : gpu ? device_combiners(a) : std::vector<Combiner>{}) {
        const std::string name = options.function_name + "_combine_" + combiner_name(cb);
        const std::string identity = options.function_name + "_identity_" + combiner_name(cb);
        CombinerPipeline cp = build_combiner(cb), id = build_identity(cb);
        ProgramFunction combine_f{name, cp.pipeline, cp.arguments},
            identity_f{identity, id.pipeline, id.arguments};
        compile(combine_f);
        compile(identity_f);
        c.plan.combiners.push_back(ProgramCombiner{(int)cb.op, cb.type, name, identity});
        debug_dump("build_combiner", program, [&] { return "  " + name + ", " + identity + "\n"; });
    }
    if (gpu) {
        placement << "  " << device_collectives_text(a, spmd) << "\n";
        c.plan.device_interface = device_interface_function(target);
        c.plan.device_api = runtime_device_api(gpu_api(target));
        c.notes += "\nOn the GPU (" + target.to_string() + "):\n" + placement.str();
    }
    c.plan.in_place_of = find_in_place(c.lowered, c.plan);
    if (const std::string in_place = in_place_text(c.plan); !in_place.empty()) {
        c.notes += "\nOutputs that may update an input in place:\n" + in_place;
    }
    debug_dump("find_in_place", program, [&] { return in_place_text(c.plan); });
    if (!c.lowered.defaults.empty()) {
        c.notes += "\nDefault schedule (Funcs left unscheduled):\n" +
                   dump_default_schedules(c.lowered.defaults, a);
    }
    if (!options.autoscheduler.empty()) {
        c.notes += "\nAutoscheduler " + options.autoscheduler + ":\n" + autoscheduled.str();
    }
    return c;
}

} // namespace

CompiledProgram compile_program(const Program &program, const CompileOptions &options,
                                const CompileFunction &compile) {
    try {
        return compile_steps(program, options, compile);
    } catch (const Halide::CompileError &e) {
        // Not a std::exception: a caller catching UserError would never see it.
        coconet_user_error << "Program " << program.name() << ": Halide refused it: " << e.what();
    }
}

StepKernel build_step_kernel(const CompiledProgram &compiled, int step, int nsrc) {
    const SpmdPipeline &spmd = compiled.lowered.spmd;
    const int segment = compiled.plan.steps[step].segment;
    const FusedPass &pass = spmd.passes[spmd.segments[segment].fused_pass];
    FusedKernelPipeline kp =
        build_fused_kernel(pass, compiled.lowered.analysis, nsrc, compiled.target);
    StepKernel k{ProgramFunction{compiled.function_name + "_step" + std::to_string(segment) +
                                     "_kernel" + std::to_string(nsrc),
                                 kp.pipeline, kp.arguments, (int)pass.outputs.size(), true},
                 kp.on_gpu, kp.one_kernel};
    debug_dump("build_fused_kernel", compiled.lowered.program, [&] {
        return "  " + k.function.name + ": " +
               (!k.on_gpu      ? "on the host"
                : k.one_kernel ? "one GPU kernel"
                               : "a GPU kernel per output") +
               "\n";
    });
    return k;
}

std::string plan_text(const CompiledProgram &compiled, int world_size) {
    return print_plan(compiled.lowered, world_size) + compiled.notes;
}

} // namespace coconet
