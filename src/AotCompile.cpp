#include "AotCompile.h"

#include <map>
#include <set>

#include "Compile.h"
#include "Error.h"
#include "Partition.h"

namespace coconet {

namespace {

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
    CompileOptions compile;
    compile.target = options.target.with_feature(Halide::Target::UserContext)
                         .with_feature(Halide::Target::StrictFloat);
    compile.function_name = options.function_name;
    compile.autoscheduler = options.autoscheduler;
    compile.autoscheduler_params = options.autoscheduler_params;
    compile.default_schedule = options.default_schedule;
    compile.gpu_matmul = options.gpu_matmul;
    compile.estimate_ranks = options.ranks > 0 ? options.ranks : 2;
    const bool gpu = compile.target.has_gpu_feature();
    compile.kernel_sources = [&](const FusedPass &g, const Analysis &a) {
        return kernel_sources(g, a, options, gpu);
    };

    AotLibrary lib{AotPlan{}, Halide::Module(options.function_name, compile.target)};
    auto add_module = [&](ProgramFunction &f) {
        if (progress) {
            progress(f.name);
        }
        Halide::Module m = f.pipeline.compile_to_module(f.arguments, f.name, compile.target,
                                                        Halide::LinkageType::ExternalPlusArgv);
        std::map<std::string, std::string> names;
        for (Halide::Buffer<> b : m.buffers()) {
            names[b.name()] = f.name + "_" + b.name();
            b.set_name(names[b.name()]);
            lib.module.append(b);
        }
        RenameBuffers rename(names);
        for (Halide::Internal::LoweredFunc lf : m.functions()) {
            lf.body = rename.mutate(lf.body);
            lib.module.append(lf);
        }
        lib.module.set_any_strict_float(lib.module.any_strict_float() || m.any_strict_float());
    };
    CompiledProgram compiled = compile_program(program, compile, add_module);
    static_cast<ProgramPlan &>(lib.plan) = std::move(compiled.plan);
    lib.plan.options = options;
    lib.plan.plan_text = plan_text(compiled, options.ranks > 0 ? options.ranks : 4);
    return lib;
}

} // namespace coconet
