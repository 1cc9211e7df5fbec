#include "AotCompile.h"

#include <map>
#include <set>
#include <sstream>

#include "AutoSchedule.h"
#include "CollectiveStage.h"
#include "Error.h"
#include "FusedKernel.h"
#include "GpuSchedule.h"
#include "Partition.h"
#include "PrintPlan.h"

namespace coconet {

namespace {

// The Halide runtime function returning the device interface of `target`'s
// GPU API, which a library's table names for kernels computing there.
std::string device_interface_function(const Halide::Target &target) {
    switch (Halide::get_default_device_api_for_target(target)) {
    case Halide::DeviceAPI::CUDA:
        return "halide_cuda_device_interface";
    case Halide::DeviceAPI::OpenCL:
        return "halide_opencl_device_interface";
    default:
        return "";
    }
}

// Source counts the kernel of pass g is built for: the group size on the
// direct path and two on the ring, for the fixed rank count or for any
// count up to max_ranks; on a GPU also one, for the collective library's
// path (COCONET_PATH_LIBRARY: NCCL reduces, the kernel reads the result).
std::set<int> kernel_sources(const FusedPass &g, const Analysis &a, const AotOptions &o, bool gpu) {
    if (!g.reduces()) {
        return {0};
    }
    std::set<int> sizes;
    if (o.ranks > 0) {
        sizes.insert((int)group_ranks(g.sliced_info(a).layout.group, o.ranks).extent());
    } else {
        for (int n = 1; n <= o.max_ranks; n++) {
            sizes.insert(n);
        }
    }
    std::set<int> r;
    if (gpu) {
        r.insert(1);
    }
    for (int n : sizes) {
        r.insert(n);
        r.insert(std::min(n, 2));
    }
    return r;
}

// Halide names the buffers of a module the same in every module (the GPU
// code of a CUDA target is "cuda_gpu_source_kernels"), so functions moved
// into one module get theirs prefixed, with the references in their bodies.
class RenameBuffers : public Halide::Internal::IRMutator {
public:
    explicit RenameBuffers(const std::map<std::string, std::string> &names) : names_(names) {}

private:
    using IRMutator::visit;

    std::string renamed(const std::string &name) const {
        for (const auto &[from, to] : names_) {
            if (name == from || name == from + ".buffer") {
                return to + name.substr(from.size());
            }
        }
        return name;
    }

    Halide::Expr visit(const Halide::Internal::Variable *op) override {
        const std::string name = renamed(op->name);
        return name == op->name ? Halide::Expr(op)
                                : Halide::Internal::Variable::make(op->type, name, op->image,
                                                                   op->param, op->reduction_domain);
    }

    Halide::Expr visit(const Halide::Internal::Load *op) override {
        const std::string name = renamed(op->name);
        if (name == op->name) {
            return IRMutator::visit(op);
        }
        return Halide::Internal::Load::make(op->type, name, mutate(op->index), op->image, op->param,
                                            mutate(op->predicate), op->alignment);
    }

    const std::map<std::string, std::string> &names_;
};

} // namespace

AotLibrary compile_aot(const Program &program, const AotOptions &options,
                       const std::function<void(const std::string &)> &progress) {
    coconet_user_assert(options.ranks >= 0 && options.max_ranks >= 1)
        << "Generator " << program.name() << ": ranks=" << options.ranks
        << " and max_ranks=" << options.max_ranks << " must be >= 0 and >= 1.";
    const Halide::Target target = options.target.with_feature(Halide::Target::UserContext)
                                      .with_feature(Halide::Target::StrictFloat);
    const LoweredProgram lowered = lower(program, gpu_api(target));
    const Analysis &a = lowered.analysis;
    const SpmdPipeline &spmd = lowered.spmd;
    const std::string &fn = options.function_name;

    AotLibrary lib{AotPlan{}, Halide::Module(fn, target)};
    AotPlan &plan = lib.plan;
    static_cast<ProgramPlan &>(plan) = plan_program(lowered, fn);
    plan.options = options;

    auto add_module = [&](Halide::Pipeline p, const std::vector<Halide::Argument> &args,
                          const std::string &name) {
        if (progress) {
            progress(name);
        }
        Halide::Module m =
            p.compile_to_module(args, name, target, Halide::LinkageType::ExternalPlusArgv);
        std::map<std::string, std::string> names;
        for (Halide::Buffer<> b : m.buffers()) {
            names[b.name()] = name + "_" + b.name();
            b.set_name(names[b.name()]);
            lib.module.append(b);
        }
        RenameBuffers rename(names);
        for (Halide::Internal::LoweredFunc f : m.functions()) {
            f.body = rename.mutate(f.body);
            lib.module.append(f);
        }
        lib.module.set_any_strict_float(lib.module.any_strict_float() || m.any_strict_float());
    };
    // For a GPU target, what runs where, for the plan dump.
    const bool gpu = target.has_gpu_feature();
    coconet_user_assert(options.autoscheduler.empty() || !gpu)
        << "Generator " << program.name() << ": autoscheduler=" << options.autoscheduler
        << " on a GPU target (" << target.to_string()
        << "); the autoscheduler schedules CPU libraries, GPU ones get the GPU pass.";
    std::ostringstream placement, autoscheduled;
    for (ProgramStep &step : plan.steps) {
        const SpmdSegment &seg = spmd.segments[step.segment];
        if (!step.pipeline.empty()) {
            const HalideSegment &h = seg.halide;
            if (!options.autoscheduler.empty()) {
                autoscheduled << "  " << step.pipeline << ": "
                              << autoschedule_segment(h, a, options.autoscheduler, target,
                                                      options.ranks > 0 ? options.ranks : 2)
                              << "\n";
            }
            if (gpu) {
                const GpuPlacement where = schedule_segment_for_gpu(h, a, spmd);
                mark_device_values(plan, where);
                placement << "  " << step.pipeline << ": " << placement_text(where) << "\n";
            }
            add_module(h.pipeline,
                       std::vector<Halide::Argument>(h.params.begin(), h.params.end()),
                       step.pipeline);
        }
        if (step.kind != COCONET_STEP_FUSED) {
            continue;
        }
        const FusedPass &g = spmd.passes[seg.fused_pass];
        bool kernels_on_gpu = true, one_kernel = true;
        for (int nsrc : kernel_sources(g, a, options, gpu)) {
            const std::string kname =
                fn + "_step" + std::to_string(step.segment) + "_kernel" + std::to_string(nsrc);
            FusedKernelPipeline kp = build_fused_kernel(g, a, nsrc, target);
            add_module(kp.pipeline, kp.arguments, kname);
            step.kernels.push_back(ProgramKernel{
                nsrc, kname, gpu, gpu && kp.on_gpu ? device_interface_function(target) : ""});
            kernels_on_gpu = kernels_on_gpu && kp.on_gpu;
            one_kernel = one_kernel && kp.one_kernel;
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
    for (const Combiner &c : gpu ? device_combiners(a) : std::vector<Combiner>{}) {
        const std::string name = fn + "_combine_" + combiner_name(c);
        const std::string identity = fn + "_identity_" + combiner_name(c);
        CombinerPipeline cp = build_combiner(c), id = build_identity(c);
        add_module(cp.pipeline, cp.arguments, name);
        add_module(id.pipeline, id.arguments, identity);
        plan.combiners.push_back(ProgramCombiner{(int)c.op, c.type, name, identity});
    }
    if (gpu) {
        placement << "  " << device_collectives_text(a, spmd) << "\n";
        plan.device_interface = device_interface_function(target);
    }
    plan.plan_text = print_plan(lowered, options.ranks > 0 ? options.ranks : 4);
    if (gpu) {
        plan.plan_text += "\nOn the GPU (" + target.to_string() + "):\n" + placement.str();
    }
    if (!options.autoscheduler.empty()) {
        plan.plan_text += "\nAutoscheduler " + options.autoscheduler + ":\n" + autoscheduled.str();
    }
    return lib;
}

} // namespace coconet
