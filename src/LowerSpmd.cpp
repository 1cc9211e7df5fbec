#include "LowerSpmd.h"

#include <set>

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
    case CollectiveKind::AllGather: arg_a = src.layout.dim; break;
    case CollectiveKind::SendRecv:
        arg_a = src.layout.kind == LayoutKind::Sliced ? src.layout.dim : -1;
        arg_b = src.layout.kind == LayoutKind::Local ? 1 : 0;
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

// Whether every read of the split all_reduce `split` in `consumer` is at the
// consumer's own slice of the reduce_scatter: the consumer is sliced along the
// same extent of the same group, indexed by its sliced pure variable.
bool reads_only_its_slice(const DFuncContents &consumer, const DFuncContents &split,
                          const Analysis &a) {
    const FuncInfo &c = a.of(&consumer);
    const FuncInfo &s = a.of(split.sliced_part.get());
    const int d = s.layout.dim;
    if (c.layout.kind != LayoutKind::Sliced || c.layout.group != s.layout.group ||
        c.extents[c.layout.dim] != s.extents[d]) {
        return false;
    }
    const std::string &var = consumer.func.function().args()[c.layout.dim];
    for (const auto &def : definitions_of(consumer)) {
        for (const auto &call : distributed_calls(consumer, def)) {
            const Variable *v = call.args[d].as<Variable>();
            if (call.callee.get() == &split &&
                (!v || v->reduction_domain.defined() || v->name != var)) {
                return false;
            }
        }
    }
    return true;
}

} // namespace

SpmdPipeline lower_spmd(const Program &program, const Analysis &analysis) {
    SpmdPipeline out;
    Expr uc = Halide::user_context_value();
    Expr rank = Call::make(Halide::Int(32), "coconet_rank", {uc}, Call::PureExtern);
    Expr size = Call::make(Halide::Int(32), "coconet_size", {uc}, Call::PureExtern);
    std::map<const DFuncContents *, Func> funcs;
    std::set<const DFuncContents *> read; // stages some consumer or output reads
    std::map<const DFuncContents *, std::string> notes;
    // What a consumer's call to `callee` reads; null consumer: a collective or an output.
    auto resolve = [&](const DFuncContents *consumer, const DFuncContents &callee) {
        const DFuncContents *target = &callee;
        if (callee.gathered) {
            const bool slice = consumer && reads_only_its_slice(*consumer, callee, analysis);
            target = slice ? callee.sliced_part.get() : callee.gathered.get();
            if (slice) {
                notes[consumer] +=
                    "reads its slice of " + target->name + " for " + callee.name + "; ";
            }
        }
        read.insert(target);
        return funcs.at(target);
    };
    for (const DFunc &df : analysis.order) {
        const DFuncContents &f = *df.get_contents();
        switch (f.kind) {
        case FuncKind::Input: funcs[&f] = Func(*f.param); break;
        case FuncKind::Compute: {
            if (f.gathered) {
                notes[&f] = "computed on slices as " + f.sliced_part->name + ", gathered by " +
                            f.gathered->name;
                continue;
            }
            CalleeMap callee = [&](const DFuncContents &c) { return resolve(&f, c); };
            funcs[&f] = rebuild_compute(f, analysis.of(&f), callee, rank, size);
            // Unscheduled: every distributed Func is materialized on its own.
            funcs[&f].compute_root();
            break;
        }
        case FuncKind::Collective:
            if (f.gathered) {
                notes[&f] = (f.collective->kind == CollectiveKind::SendRecv ? "sends slices as "
                                                                            : "split into ") +
                            f.sliced_part->name + " + " + f.gathered->name;
                continue;
            }
            funcs[&f] = collective_stage(f, analysis, resolve(nullptr, *f.collective->source), uc);
            funcs[&f].compute_root();
            break;
        }
    }
    for (const DFunc &in : analysis.inputs) {
        out.inputs.push_back(*in.get_contents()->param);
    }
    std::vector<Func> outputs;
    for (const ProgramOutput &o : program.outputs()) {
        Func f = resolve(nullptr, *o.func.get_contents());
        if (o.func.kind() == FuncKind::Input) {
            // An input returned as is still needs a stage of its own to be an output.
            Func copy(o.func.name() + "_out");
            copy(Halide::_) = f(Halide::_);
            f = copy;
        }
        outputs.push_back(f);
    }
    out.pipeline = Halide::Pipeline(outputs);
    for (const DFunc &df : analysis.order) {
        const DFuncContents *f = df.get_contents().get();
        std::string note = notes[f];
        if (f->kind == FuncKind::Collective && !f->gathered && !read.count(f)) {
            note = "dead: no consumer reads it, not emitted";
        }
        if (note.size() > 2 && note.compare(note.size() - 2, 2, "; ") == 0) {
            note.resize(note.size() - 2);
        }
        out.steps.push_back(PlanStep{f, note});
    }
    return out;
}

} // namespace coconet
