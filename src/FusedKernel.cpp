#include "FusedKernel.h"

#include <algorithm>
#include <optional>
#include <set>

#include "DefaultSchedule.h"
#include "Error.h"
#include "GpuSchedule.h"
#include "Rebuild.h"
#include "ScheduledReads.h"

namespace coconet {

using Halide::Expr;
using Halide::Func;
using Halide::ImageParam;

namespace {

Expr combine(ReduceOp op, Expr a, Expr b) {
    switch (op) {
    case ReduceOp::Prod: return a * b;
    case ReduceOp::Max: return Halide::max(a, b);
    case ReduceOp::Min: return Halide::min(a, b);
    default: return a + b;
    }
}

// On a GPU, every output of the pass as one element of a Tuple computed by
// one kernel, the members between them inlined: each element of the chunk is
// read once and each output written once, where a kernel per output writes
// and rereads the values the outputs share (the reduced value, m_new for
// Adam's update: 1.5x the bytes). The Tuple's buffers are the outputs in
// order, so the kernel's arguments are those of a kernel per output. Not
// possible (nullopt) where a Func is scheduled by the user, has updates or
// several values, or cannot be a GPU kernel.
std::optional<Func> one_gpu_kernel(const FusedPass &pass,
                                   const std::map<const DFuncContents *, Func> &funcs,
                                   const std::vector<Halide::Var> &vars) {
    for (const DFuncContents *m : pass.members) {
        const Halide::Internal::Function &fn = funcs.at(m).function();
        if (fn.has_update_definition() || fn.outputs() != 1 ||
            fn.definition().schedule().touched()) {
            return std::nullopt;
        }
    }
    std::vector<Expr> values;
    for (const FusedOutput &o : pass.outputs) {
        const Func &f = funcs.at(o.member);
        if (f.dimensions() != (int)vars.size()) {
            return std::nullopt;
        }
        values.push_back(f(vars));
    }
    Func one(pass.scatter->name + "_pass");
    one(vars) = Halide::Tuple(values);
    one.compute_root();
    if (!gpu_tile_func(one).empty()) {
        return std::nullopt;
    }
    return one;
}

} // namespace

FusedKernelPipeline build_fused_kernel(const FusedPass &pass, const Analysis &analysis, int nsrc,
                                       const Halide::Target &target) {
    coconet_internal_assert(pass.reduces() ? nsrc >= 1 : nsrc == 0)
        << "a fused kernel of " << pass.scatter->name << " with " << nsrc << " sources";
    const DFuncContents &scatter = *pass.scatter;
    const CollectiveDesc &c = *scatter.collective;
    const int dims = (int)pass.sliced_info(analysis).extents.size();
    const Halide::Type type = c.source->func.type();
    FusedKernelPipeline out;
    std::vector<Halide::Var> vars;
    for (int d = 0; d < dims; d++) {
        vars.emplace_back("x" + std::to_string(d));
    }
    // The reduction, in source order.
    Func reduced(scatter.name);
    Expr value;
    for (int k = 0; k < nsrc; k++) {
        ImageParam src(type, dims, scatter.name + "_src" + std::to_string(k));
        out.arguments.emplace_back(src);
        value = k == 0 ? Expr(src(vars)) : combine(c.op, value, src(vars));
    }
    std::map<const DFuncContents *, Func> funcs;
    if (pass.reduces()) {
        reduced(vars) = value;
        funcs[&scatter] = reduced;
    }
    for (const DFuncContents *e : pass.extra_inputs) {
        const FuncInfo &info = analysis.of(e);
        ImageParam p(e->func.type(), (int)info.extents.size(), e->name + "_in");
        out.arguments.emplace_back(p);
        funcs[e] = Func(p);
    }
    Halide::Param<int32_t> rank("rank"), size("size");
    out.arguments.emplace_back(rank);
    out.arguments.emplace_back(size);
    for (const Halide::Argument &s : size_arguments(analysis.sizes)) {
        out.arguments.push_back(s);
    }
    for (const DFuncContents *m : pass.members) {
        CalleeMap callee = [&](const DFuncContents &f) -> Func {
            const DFuncContents *t = scheduled_target(m, f, analysis);
            coconet_internal_assert(funcs.count(t))
                << "fused kernel of " << scatter.name << ": " << m->name << " reads " << t->name
                << ", which the pass does not provide";
            return funcs.at(t);
        };
        funcs[m] = rebuild_compute(*m, analysis.of(m), callee, rank, size);
    }
    const bool gpu = target.has_gpu_feature();
    if (gpu) {
        if (std::optional<Func> one = one_gpu_kernel(pass, funcs, vars)) {
            out.pipeline = Halide::Pipeline(*one);
            out.on_gpu = out.one_kernel = true;
            return out;
        }
    }
    // Each output is one loop over the chunk, vectorized or a GPU kernel
    // (unless the user scheduled the Func's compute), on a CPU in a task per
    // thread of the rank where the pass is large enough; values that several
    // outputs read are computed once per chunk (each output's box).
    out.on_gpu = gpu;
    const Halide::OutputImageParam chunk = funcs.at(pass.outputs[0].member).output_buffer();
    const Expr threads = rank_threads(Halide::user_context_value());
    std::set<std::string> scheduled; // the reduced value may be an output too
    auto schedule = [&](Func f) {
        if (!scheduled.insert(f.name()).second) {
            return;
        }
        f.compute_root();
        if (!(gpu && gpu_tile_func(f).empty())) {
            out.on_gpu = false;
            const int lanes = target.natural_vector_size(type);
            f.vectorize(f.args()[0], lanes, Halide::TailStrategy::GuardWithIf);
            const std::string tasks =
                task_variable(f.function(), pass.sliced_info(analysis).extents, false);
            if (!tasks.empty()) {
                const std::vector<std::string> &args = f.function().args();
                const int d = (int)(std::find(args.begin(), args.end(), tasks) - args.begin());
                const int per_step = d == 0 ? lanes : 1;
                run_in_tasks(f, tasks, (chunk.dim(d).extent() + per_step - 1) / per_step, threads);
            }
        }
    };
    std::vector<Func> outputs;
    for (const FusedOutput &o : pass.outputs) {
        Func f = funcs.at(o.member);
        if (f.function().definition().schedule().touched()) {
            f.compute_root();
            out.on_gpu = false;
        } else {
            schedule(f);
        }
        outputs.push_back(f);
    }
    if (pass.reduces() && pass.outputs.size() > 1) {
        schedule(reduced);
    }
    out.pipeline = Halide::Pipeline(outputs);
    return out;
}

} // namespace coconet
