#include "LowerSpmd.h"

#include "Error.h"
#include "Rebuild.h"

namespace coconet {

using Halide::Expr;
using Halide::Func;
using namespace Halide::Internal;

namespace {

Func collective_stage(const DFuncContents &f, const Analysis &a, const Func &source, Expr uc) {
    const CollectiveDesc &c = *f.collective;
    const FuncInfo &src = a.of(c.source.get());
    int arg_a = -1, arg_b = -1;
    switch (c.kind) {
    case CollectiveKind::ReduceScatter: arg_a = c.dim; break;
    case CollectiveKind::AllGather:
    case CollectiveKind::SendRecv:
        arg_a = src.layout.kind == LayoutKind::Sliced ? src.layout.dim : -1;
        break;
    case CollectiveKind::AllToAll:
        arg_a = c.dim;
        arg_b = c.concat_dim;
        break;
    default: break;
    }
    std::vector<Halide::ExternFuncArgument> args;
    args.emplace_back(uc);
    args.emplace_back(StringImm::make(f.name));
    for (int v : {(int)c.kind, (int)c.op, c.root, arg_a, arg_b, src.layout.group.nsplit,
                  src.layout.group.index, c.dst.index}) {
        args.emplace_back(Expr(v));
    }
    for (int d = 0; d < 4; d++) {
        args.emplace_back(Expr(d < (int)src.extents.size() ? src.extents[d] : 1));
    }
    args.emplace_back(source);
    Func stage(f.name);
    stage.define_extern("coconet_collective", args, source.type(), (int)src.extents.size(),
                        Halide::NameMangling::C);
    return stage;
}

} // namespace

SpmdPipeline lower_spmd(const Program &program, const Analysis &analysis) {
    SpmdPipeline out;
    Expr uc = Halide::user_context_value();
    Expr rank = Call::make(Halide::Int(32), "coconet_rank", {uc}, Call::PureExtern);
    Expr size = Call::make(Halide::Int(32), "coconet_size", {uc}, Call::PureExtern);
    std::map<const DFuncContents *, Func> funcs;
    CalleeMap callee = [&](const DFuncContents &c) { return funcs.at(&c); };
    for (const DFunc &df : analysis.order) {
        const DFuncContents &f = *df.get_contents();
        switch (f.kind) {
        case FuncKind::Input: funcs[&f] = Func(*f.param); break;
        case FuncKind::Compute:
            funcs[&f] = rebuild_compute(f, analysis.of(&f), callee, rank, size);
            // Unscheduled: every distributed Func is materialized on its own.
            funcs[&f].compute_root();
            break;
        case FuncKind::Collective:
            funcs[&f] = collective_stage(f, analysis, funcs.at(f.collective->source.get()), uc);
            funcs[&f].compute_root();
            break;
        }
    }
    for (const DFunc &in : analysis.inputs) {
        out.inputs.push_back(*in.get_contents()->param);
    }
    std::vector<Func> outputs;
    for (const ProgramOutput &o : program.outputs()) {
        Func f = funcs.at(o.func.get_contents().get());
        if (o.func.kind() == FuncKind::Input) {
            // An input returned as is still needs a stage of its own to be an output.
            Func copy(o.func.name() + "_out");
            copy(Halide::_) = f(Halide::_);
            f = copy;
        }
        outputs.push_back(f);
    }
    out.pipeline = Halide::Pipeline(outputs);
    return out;
}

} // namespace coconet
