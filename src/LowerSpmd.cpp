#include "LowerSpmd.h"

#include <algorithm>

#include "CollectiveStage.h"
#include "Error.h"
#include "Rebuild.h"
#include "ScheduledReads.h"

namespace coconet {

using Halide::Expr;
using Halide::Func;
using namespace Halide::Internal;

Expr AsRankZero::visit(const Call *op) {
    if (op->name == "coconet_rank") {
        return 0;
    }
    if (op->name == "coconet_size") {
        return ranks;
    }
    if (op->name == "coconet_rank_threads") {
        return 1;
    }
    return IRMutator::visit(op);
}

Expr AsRankZero::visit(const Variable *op) {
    if (!op->reduction_domain.defined()) {
        return op;
    }
    return Variable::make(op->type, op->name, replacement(op->reduction_domain));
}

AsRankZero::Domain AsRankZero::replacement(const Domain &d) {
    auto it = replaced.find(d);
    if (it != replaced.end()) {
        return it->second;
    }
    std::vector<ReductionVariable> vars = d.domain();
    for (ReductionVariable &v : vars) {
        v.min = mutate(v.min);
        v.extent = mutate(v.extent);
    }
    Domain r(vars);
    replaced.emplace(d, r);
    if (d.predicate().defined()) {
        r.set_predicate(mutate(d.predicate())); // its RVars now name r
    }
    return r;
}

namespace {

// What the passes before this one found.
struct Facts {
    const Analysis &analysis;
    const std::vector<FusedPass> &passes;
    const Liveness &liveness;
    const Placement &placement;

    bool halide(const DFuncContents *f) const { return liveness.role.at(f) == FuncRole::Halide; }
};

// The parameters a pipeline reads values through, by value.
using ParamMap = std::map<const DFuncContents *, Halide::ImageParam>;

// The Func through which a pipeline reads value t: t's own Func if the
// pipeline computes it (the Halide segment s; -1: the pipeline of an
// overlapped pass's source, which computes only that source), else a parameter.
Func read_in(const DFuncContents *t, int s, ParamMap &params,
             const std::map<const DFuncContents *, Func> &funcs, const Facts &x) {
    if (x.halide(t) && x.placement.segment.at(t) == s) {
        return funcs.at(t);
    }
    if (x.liveness.role.at(t) == FuncRole::Input) {
        params[t] = *t->param;
        return Func(*t->param);
    }
    auto it = params.find(t);
    if (it == params.end()) {
        const int dims = (int)x.analysis.of(t).extents.size();
        it = params.emplace(t, Halide::ImageParam(t->func.type(), dims, t->name + "_in")).first;
    }
    return Func(it->second);
}

// Checks that collective f (overlapped in `chunks` along `dim`) and its
// producer p can run chunk by chunk, as only the whole program tells:
// "overlap(f, p, k): " prefixes the messages.
std::string check_overlap(const DFuncContents &f, const DFuncContents *p, int chunks, int dim,
                          const Facts &x) {
    const std::string where =
        "overlap(" + f.name + ", " + p->name + ", " + std::to_string(chunks) + "): ";
    // overlap() refused a dimension the producer is sliced along.
    const Layout &from = x.analysis.of(p).layout;
    coconet_internal_assert(from.kind != LayoutKind::Sliced || from.dim != dim)
        << where << p->name << " is " << from.to_string() << ", chunked along " << dim;
    coconet_user_assert(x.halide(p) && p->kind == FuncKind::Compute)
        << where << p->name << " is not computed by a Halide pipeline.";
    for (const DFuncContents *other : x.liveness.live_in_order) {
        if (other != &f && x.halide(other)) {
            const auto &r = x.liveness.reads.at(other);
            coconet_user_assert(std::find(r.begin(), r.end(), p) == r.end())
                << where << p->name << " is also read by " << other->name
                << "; only a producer that the collective alone reads is computed in chunks.";
        }
    }
    const auto &outs = x.liveness.output_values;
    coconet_user_assert(std::find(outs.begin(), outs.end(), p) == outs.end())
        << where << p->name << " is a program output; only a producer that the collective "
        << "alone reads is computed in chunks.";
    return where;
}

HalideSegment halide_segment(const std::vector<Func> &outputs,
                             std::vector<const DFuncContents *> values, const ParamMap &params) {
    HalideSegment h;
    h.pipeline = Halide::Pipeline(outputs);
    h.outputs = std::move(values);
    for (const auto &[value, param] : params) {
        h.params.push_back(param);
        h.param_values.push_back(value);
    }
    return h;
}

// The plan of an unfused overlapped collective (run by the executor, chunk by
// chunk, after its segment): its source's own pipeline.
SpmdSegment chunked_collective(const DFuncContents &f, const Func &source, const ParamMap &params,
                               const Facts &x) {
    const FuncInfo &info = x.analysis.of(&f);
    const DFuncContents *p = x.liveness.reads.at(&f)[0];
    const int chunks = overlap_chunks(f, x.analysis);
    const std::string where = check_overlap(f, p, chunks, overlap_dim(f, x.analysis), x);
    coconet_user_assert(info.layout.group.is_world())
        << where << f.name << " lives on " << info.layout.group.to_string()
        << "; only collectives of the whole world are overlapped so far.";
    SpmdSegment seg;
    seg.collective = &f;
    seg.chunks = chunks;
    seg.halide = halide_segment({source}, {p}, params);
    return seg;
}

// The gathered Funcs that f reads at its own slice only (it reads their
// sliced parts), in order of first read.
std::vector<const DFuncContents *> slice_reads(const DFuncContents &f, const Analysis &a) {
    std::vector<const DFuncContents *> r;
    if (f.kind != FuncKind::Compute) {
        return r;
    }
    for (const auto &def : definitions_of(f)) {
        for (const auto &call : distributed_calls(f, def)) {
            const DFuncContents *c = call.callee.get();
            if (c->gathered && std::find(r.begin(), r.end(), c) == r.end() &&
                scheduled_target(&f, *c, a) == c->sliced_part.get()) {
                r.push_back(c);
            }
        }
    }
    return r;
}

StepRole stands_for_role(const DFuncContents &f) {
    if (f.kind != FuncKind::Collective) {
        return StepRole::ComputedOnSlices;
    }
    return f.collective->kind == CollectiveKind::SendRecv ? StepRole::SendsSlices : StepRole::Split;
}

// What became of every Func: halide_index and pass_index give the segment
// (in SpmdPipeline::segments) of each emitted Halide segment and pass.
std::vector<PlanStep> plan_steps(const std::map<int, int> &halide_index,
                                 const std::map<int, int> &pass_index,
                                 const std::map<const DFuncContents *, int> &collective_index,
                                 const Facts &x) {
    std::vector<PlanStep> steps;
    for (const DFunc &df : x.analysis.order) {
        const DFuncContents *f = df.get_contents().get();
        PlanStep step;
        step.func = f;
        switch (x.liveness.role.at(f)) {
        case FuncRole::Input: break;
        case FuncRole::StandsFor: step.role = stands_for_role(*f); break;
        case FuncRole::Halide: {
            const int g = x.liveness.chunked_pass(f);
            auto source_of = x.liveness.chunked_source_of.find(f);
            auto it = halide_index.find(x.placement.segment.at(f));
            if (g >= 0 && pass_index.count(g)) {
                step.role = StepRole::ChunkedSource;
                step.fused_pass = g;
                step.segment = pass_index.at(g);
            } else if (source_of != x.liveness.chunked_source_of.end() &&
                       collective_index.count(source_of->second)) {
                step.role = StepRole::ChunkedSource;
                step.segment = collective_index.at(source_of->second);
            } else if (collective_index.count(f)) {
                step.role = StepRole::Computed;
                step.segment = collective_index.at(f);
                step.chunks = overlap_chunks(*f, x.analysis);
                step.chunk_dim = overlap_dim(*f, x.analysis);
                step.overlapped_with = x.liveness.reads.at(f)[0];
            } else if (it == halide_index.end() || !x.liveness.live.count(f)) {
                step.role = StepRole::Dead;
            } else {
                step.role = StepRole::Computed;
                step.segment = it->second;
                step.slice_reads = slice_reads(*f, x.analysis);
            }
            break;
        }
        case FuncRole::Fused: {
            const int g = x.liveness.pass_of.at(f);
            const FusedPass &pass = x.passes[g];
            auto it = pass_index.find(g);
            step.fused_pass = g;
            if (it == pass_index.end()) {
                step.role = StepRole::FusedDead;
                break;
            }
            step.segment = it->second;
            if (f == pass.scatter.get()) {
                step.role = StepRole::PassCollective;
                step.chunks = pass.reduces() ? overlap_chunks(*f, x.analysis) : 0;
                step.chunk_dim = overlap_dim(*f, x.analysis);
                step.overlapped_with = step.chunks > 0 ? x.liveness.pass_reads[g].source : nullptr;
            } else {
                step.role = pass.gathers(*f) ? StepRole::FusedGather : StepRole::FusedMember;
            }
            break;
        }
        }
        steps.push_back(step);
    }
    return steps;
}

} // namespace

SpmdPipeline lower_spmd(const Analysis &analysis, const std::vector<FusedPass> &passes,
                        const Liveness &liveness, const Placement &placement,
                        Halide::DeviceAPI device, const DefaultSchedules &defaults) {
    const Facts x{analysis, passes, liveness, placement};
    SpmdPipeline out;
    out.passes = passes;
    for (size_t g = 0; g < passes.size(); g++) {
        out.passes[g].extra_inputs = liveness.pass_reads[g].extra_inputs;
        out.passes[g].outputs = placement.pass_outputs[g];
    }
    out.output_values = liveness.output_values;
    Expr uc = Halide::user_context_value();
    out.rank = Call::make(Halide::Int(32), "coconet_rank", {uc}, Call::PureExtern);
    out.size = Call::make(Halide::Int(32), "coconet_size", {uc}, Call::PureExtern);

    std::map<const DFuncContents *, Func> funcs;
    // The parameters of each chunked source's own pipeline, by source.
    std::map<const DFuncContents *, ParamMap> source_params;
    std::map<int, int> halide_index, pass_index; // their index in out.segments
    std::map<const DFuncContents *, int> collective_index;
    for (int s = 0; s <= placement.last; s++) {
        ParamMap params;
        std::vector<Func> outputs;
        std::vector<const DFuncContents *> values;
        std::vector<const DFuncContents *> chunked; // overlapped collectives, run after
        // What later segments, passes and outputs read leaves the segment.
        auto leave_if_exported = [&](const DFuncContents *f) {
            if (placement.exported.count(f)) {
                outputs.push_back(funcs.at(f));
                values.push_back(f);
            }
        };
        for (const DFuncContents *f : liveness.live_in_order) {
            if (!x.halide(f) || placement.segment.at(f) != s) {
                continue;
            }
            if (liveness.chunked_collective(f)) {
                chunked.push_back(f);
                continue;
            }
            const bool source = liveness.chunked_source_of.count(f) > 0;
            if (f->kind == FuncKind::Collective) {
                const DFuncContents *in = liveness.reads.at(f)[0];
                funcs[f] =
                    collective_stage(*f, analysis, read_in(in, s, params, funcs, x), uc, device);
                if (device != Halide::DeviceAPI::None && collective_on_device(*f, analysis)) {
                    out.device_stages.push_back(f);
                }
            } else {
                // A chunked source reads through parameters of its own pipeline.
                ParamMap &reads = source ? source_params[f] : params;
                CalleeMap callee = [&](const DFuncContents &c) {
                    return read_in(scheduled_target(f, c, analysis), source ? -1 : s, reads, funcs,
                                   x);
                };
                auto d = defaults.find(f);
                funcs[f] = rebuild_scheduled(*f, analysis.of(f), callee, out.rank, out.size, uc,
                                             d == defaults.end() ? nullptr : &d->second);
            }
            // Unscheduled: every distributed Func is materialized on its own.
            funcs[f].compute_root();
            if (!source) {
                leave_if_exported(f);
            }
        }
        // Row groups' members: each tile of their root's rows computes theirs.
        for (const auto &[f, d] : defaults) {
            if (d.rows_of && placement.segment.at(f) == s) {
                const Halide::LoopLevel tile(
                    funcs.at(d.rows_of), Halide::Var(row_tiles_loop(d.rows_of->func.function())));
                funcs.at(f).compute_at(tile).store_at(tile);
            }
        }
        if (!outputs.empty()) {
            SpmdSegment seg;
            seg.halide = halide_segment(outputs, values, params);
            out.segments.push_back(std::move(seg));
            halide_index[s] = (int)out.segments.size() - 1;
        }
        for (const DFuncContents *f : chunked) {
            const DFuncContents *p = liveness.reads.at(f)[0];
            out.segments.push_back(chunked_collective(*f, funcs.at(p), source_params[p], x));
            collective_index[f] = (int)out.segments.size() - 1;
        }
        for (size_t g = 0; g < passes.size(); g++) {
            if (placement.slot[g] != s || out.passes[g].outputs.empty()) {
                continue;
            }
            SpmdSegment pass;
            pass.fused_pass = (int)g;
            const DFuncContents *p = liveness.pass_reads[g].source;
            if (p && liveness.chunked_pass(p) == (int)g) {
                const int chunks = overlap_chunks(*passes[g].scatter, analysis);
                check_overlap(*passes[g].scatter, p, chunks,
                              overlap_dim(*passes[g].scatter, analysis), x);
                pass.chunks = chunks;
                pass.halide = halide_segment({funcs.at(p)}, {p}, source_params[p]);
            }
            out.segments.push_back(std::move(pass));
            pass_index[g] = (int)out.segments.size() - 1;
        }
    }
    out.steps = plan_steps(halide_index, pass_index, collective_index, x);
    return out;
}

} // namespace coconet
