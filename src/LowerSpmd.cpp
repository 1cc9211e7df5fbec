#include "LowerSpmd.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "Error.h"
#include "Rebuild.h"
#include "ScheduledReads.h"

namespace coconet {

using Halide::Expr;
using Halide::Func;
using namespace Halide::Internal;

namespace {

// The descriptor as the constant byte buffer the extern stage receives: a
// Halide extern argument is an Expr, a Func or a Buffer, and a Buffer keeps
// the fields named and versioned (AOT embeds it as constant data). Its name
// is unique in the module.
Halide::Buffer<uint8_t> desc_buffer(const coconet_collective_desc &d, const std::string &name) {
    Halide::Buffer<uint8_t> b((int)sizeof(d), name + "_coconet_desc");
    std::memcpy(b.data(), &d, sizeof(d));
    return b;
}

// chunk_dim >= 0: the stage is one chunk of an overlapped collective.
Func collective_stage(const DFuncContents &f, const Analysis &a, const Func &source, Expr uc,
                      int chunk_dim = -1) {
    const CollectiveDesc &c = *f.collective;
    const FuncInfo &src = a.of(c.source.get());
    coconet_collective_desc d;
    coconet_collective_desc_init(&d, (int32_t)c.kind);
    d.op = (int32_t)c.op;
    d.root = c.root;
    d.nsplit = src.layout.group.nsplit;
    d.group = src.layout.group.index;
    d.dst_group = c.dst.index;
    d.chunk_dim = chunk_dim;
    switch (c.kind) {
    case CollectiveKind::ReduceScatter: d.dim = c.dim; break;
    case CollectiveKind::AllGather: d.dim = src.layout.dim; break;
    case CollectiveKind::SendRecv:
        d.dim = src.layout.kind == LayoutKind::Sliced ? src.layout.dim : -1;
        d.local_value = src.layout.kind == LayoutKind::Local ? 1 : 0;
        break;
    case CollectiveKind::AllToAll:
        d.dim = c.dim;
        d.concat_dim = c.concat_dim;
        break;
    default: break;
    }
    coconet_internal_assert(src.extents.size() <= COCONET_MAX_DIMS)
        << f.name << " has " << src.extents.size() << " dimensions";
    d.dims = (int32_t)src.extents.size();
    std::copy(src.extents.begin(), src.extents.end(), d.extents);
    std::vector<Halide::ExternFuncArgument> args;
    args.emplace_back(uc);
    args.emplace_back(StringImm::make(f.name));
    args.emplace_back(desc_buffer(d, f.name));
    args.emplace_back(source);
    Func stage(f.name);
    stage.define_extern("coconet_collective", args, source.type(), (int)src.extents.size(),
                        Halide::NameMangling::C);
    return stage;
}

enum class Node {
    Input,
    Halide,   // computed by a Halide segment
    Fused,    // computed (or gathered) by a fused pass
    StandsFor // scheduled away: its reads go to its sliced part or its gather
};

// Where every Func is computed and what it reads once scheduled, then the
// segments built from that.
class SegmentBuilder {
public:
    SegmentBuilder(const Program &p, const Analysis &a) : program(p), analysis(a) {
        out.passes = find_fused_passes(a);
    }

    SpmdPipeline build() {
        for (const DFunc &f : analysis.order) {
            const DFuncContents *c = f.get_contents().get();
            node[c] = classify(*c);
        }
        for (size_t g = 0; g < out.passes.size(); g++) {
            collect_group_reads((int)g);
        }
        for (const ProgramOutput &o : program.outputs()) {
            out.output_values.push_back(
                scheduled_target(nullptr, *o.func.get_contents(), analysis));
        }
        find_live();
        for (const DFuncContents *t : out.output_values) {
            needed_later(t, -1);
        }
        int last = -1;
        for (const DFuncContents *f : live_in_order()) {
            if (node[f] == Node::Halide) {
                last = std::max(last, segment_of(*f));
            } else if (node[f] == Node::Fused) {
                last = std::max(last, slot_of(group_of(*f)));
            }
        }
        build_segments(last);
        make_steps();
        return std::move(out);
    }

private:
    Node classify(const DFuncContents &f) const {
        if (f.kind == FuncKind::Input) {
            return Node::Input;
        }
        if (f.gathered) {
            return Node::StandsFor;
        }
        return group_of(f) >= 0 ? Node::Fused : Node::Halide;
    }

    // The fused group that computes or gathers f, or -1.
    int group_of(const DFuncContents &f) const {
        for (size_t g = 0; g < out.passes.size(); g++) {
            if (out.passes[g].computes(&f) || out.passes[g].gathers(f)) {
                return (int)g;
            }
        }
        return -1;
    }

    std::vector<const DFuncContents *> reads_of(const DFuncContents &f) const {
        std::vector<const DFuncContents *> r;
        if (f.kind == FuncKind::Collective) {
            r.push_back(scheduled_target(nullptr, *f.collective->source, analysis));
            return r;
        }
        for (const auto &def : definitions_of(f)) {
            for (const auto &call : distributed_calls(f, def)) {
                const DFuncContents *t = scheduled_target(&f, *call.callee, analysis);
                if (std::find(r.begin(), r.end(), t) == r.end()) {
                    r.push_back(t);
                }
            }
        }
        return r;
    }

    // What the outputs need, through Halide Funcs' reads and fused passes'.
    void find_live() {
        std::vector<const DFuncContents *> work(out.output_values.begin(), out.output_values.end());
        while (!work.empty()) {
            const DFuncContents *t = work.back();
            work.pop_back();
            if (!live.insert(t).second) {
                continue;
            }
            if (node.at(t) == Node::Halide) {
                for (const DFuncContents *r : reads_of(*t)) {
                    work.push_back(r);
                }
            } else if (node.at(t) == Node::Fused) {
                for (const DFuncContents *r : group_reads[group_of(*t)]) {
                    work.push_back(r);
                }
            }
        }
    }

    // The live Funcs in dependency order (messages and plans do not depend on addresses).
    std::vector<const DFuncContents *> live_in_order() const {
        std::vector<const DFuncContents *> r;
        for (const DFunc &f : analysis.order) {
            if (live.count(f.get_contents().get())) {
                r.push_back(f.get_contents().get());
            }
        }
        return r;
    }

    // A group's source and the other values its members read.
    void collect_group_reads(int g) {
        FusedPass &group = out.passes[g];
        if (group.reduces()) {
            group_reads[g].push_back(
                scheduled_target(nullptr, *group.scatter->collective->source, analysis));
        }
        for (const DFuncContents *m : group.members) {
            for (const DFuncContents *t : reads_of(*m)) {
                if (group.computes(t)) {
                    continue;
                }
                coconet_user_assert(!group.gathers(*t))
                    << "fuse_with(" << m->name << ", " << group.scatter->name << "): " << m->name
                    << " reads " << t->name << ", the gathered result of the same pass.";
                if (std::find(group.extra_inputs.begin(), group.extra_inputs.end(), t) ==
                    group.extra_inputs.end()) {
                    group.extra_inputs.push_back(t);
                    group_reads[g].push_back(t);
                }
            }
        }
    }

    // The first segment (Halide segment index) in which value t can be read.
    int available(const DFuncContents *t) {
        switch (node.at(t)) {
        case Node::Input: return 0;
        case Node::Halide: return segment_of(*t);
        case Node::Fused: return slot_of(group_of(*t)) + 1;
        case Node::StandsFor: break;
        }
        coconet_internal_assert(false) << t->name << " is read but stands for other Funcs";
        return 0;
    }

    int segment_of(const DFuncContents &f) {
        auto it = segment.find(&f);
        if (it != segment.end()) {
            return it->second;
        }
        if (active.count(&f)) {
            cycle_error(f);
        }
        active.insert(&f);
        int s = 0;
        for (const DFuncContents *t : reads_of(f)) {
            s = std::max(s, available(t));
        }
        active.erase(&f);
        return segment[&f] = s;
    }

    // The Halide segment after which group g's pass runs.
    int slot_of(int g) {
        auto it = slot.find(g);
        if (it != slot.end()) {
            return it->second;
        }
        const DFuncContents *key = out.passes[g].scatter.get();
        if (active.count(key)) {
            cycle_error(*key);
        }
        active.insert(key);
        passes.push_back(g);
        int s = 0;
        for (const DFuncContents *t : group_reads[g]) {
            s = std::max(s, available(t));
        }
        passes.pop_back();
        active.erase(key);
        return slot[g] = s;
    }

    // Funcs alone cannot form a cycle (they are ordered), so a cycle runs
    // through the pass being placed.
    [[noreturn]] void cycle_error(const DFuncContents &at) {
        const DFuncContents &key = *out.passes[passes.front()].scatter;
        coconet_user_error << "fuse_with(..., " << key.name
                           << "): the Funcs fused into the pass of " << key.name
                           << " read a value that needs the pass's result (through " << at.name
                           << ").";
    }

    // Records that value t is read by something in segment `reader_segment`
    // (-1: after the last segment, a program output).
    void needed_later(const DFuncContents *t, int reader_segment) {
        const Node n = node.at(t);
        if (n == Node::Halide && (reader_segment < 0 || segment_of(*t) < reader_segment)) {
            exported.insert(t);
        } else if (n == Node::Fused) {
            FusedPass &g = out.passes[group_of(*t)];
            const bool gather = g.gathers(*t);
            const DFuncContents *member = gather ? t->collective->source.get() : t;
            auto o = std::find_if(g.outputs.begin(), g.outputs.end(),
                                  [&](const FusedOutput &x) { return x.member == member; });
            if (o == g.outputs.end()) {
                g.outputs.push_back(FusedOutput{member});
                o = g.outputs.end() - 1;
            }
            (gather ? o->gathered_value : o->slice_value) = t;
        }
    }

    // The Func segment s reads value t through.
    Func in_segment(int s, const DFuncContents *t) {
        if (node.at(t) == Node::Halide && segment_of(*t) == s) {
            return funcs.at(t);
        }
        if (node.at(t) == Node::Input) {
            params[s][t] = *t->param;
            return Func(*t->param);
        }
        auto &p = params[s];
        auto it = p.find(t);
        if (it == p.end()) {
            const FuncInfo &info = analysis.of(t);
            it = p.emplace(t, Halide::ImageParam(t->func.type(), (int)info.extents.size(),
                                                 t->name + "_in"))
                     .first;
        }
        return Func(it->second);
    }

    void build_segments(int last) {
        Expr uc = Halide::user_context_value();
        Expr rank = Call::make(Halide::Int(32), "coconet_rank", {uc}, Call::PureExtern);
        Expr size = Call::make(Halide::Int(32), "coconet_size", {uc}, Call::PureExtern);
        out.rank = rank;
        out.size = size;
        // What later segments, passes and outputs read from each segment.
        std::set<int> live_groups;
        for (const DFuncContents *f : live_in_order()) {
            if (node[f] == Node::Halide) {
                // The source of an overlapped pass runs in a pipeline of its
                // own, once per chunk: it reads everything as finished values,
                // so that no collective runs again per chunk.
                const bool own = overlapped_pass_of(*f) >= 0;
                for (const DFuncContents *t : reads_of(*f)) {
                    needed_later(t, segment_of(*f) + (own ? 1 : 0));
                }
            } else if (node[f] == Node::Fused) {
                live_groups.insert(group_of(*f));
            }
        }
        for (int g : live_groups) {
            for (const DFuncContents *t : group_reads[g]) {
                needed_later(t, slot_of(g) + 1);
            }
        }
        for (int s = 0; s <= last; s++) {
            std::vector<Func> outputs;
            HalideSegment h;
            for (const DFunc &df : analysis.order) {
                const DFuncContents *f = df.get_contents().get();
                if (node[f] != Node::Halide || !live.count(f) || segment_of(*f) != s) {
                    continue;
                }
                if (f->kind == FuncKind::Collective && overlap_chunks(*f) > 0) {
                    funcs[f] = overlapped_stage(*f, s, uc);
                    out.overlapped = true;
                    if (exported.count(f)) {
                        outputs.push_back(funcs[f]);
                        h.outputs.push_back(f);
                    }
                    continue;
                } else if (f->kind == FuncKind::Collective) {
                    funcs[f] = collective_stage(*f, analysis, in_segment(s, reads_of(*f)[0]), uc);
                } else {
                    // The source of overlapped pass g reads through parameters
                    // of its own pipeline (key -1 - g).
                    const int g = overlapped_pass_of(*f);
                    const int reads_in = g >= 0 ? -1 - g : s;
                    CalleeMap callee = [&](const DFuncContents &c) {
                        return in_segment(reads_in, scheduled_target(f, c, analysis));
                    };
                    funcs[f] = rebuild_compute(*f, analysis.of(f), callee, rank, size);
                }
                // Unscheduled: every distributed Func is materialized on its own.
                funcs[f].compute_root();
                if (overlapped_pass_of(*f) >= 0) {
                    producers[overlapped_pass_of(*f)] = f; // a pipeline of its own
                } else if (exported.count(f)) {
                    outputs.push_back(funcs[f]);
                    h.outputs.push_back(f);
                }
            }
            if (!outputs.empty()) {
                h.pipeline = Halide::Pipeline(outputs);
                for (auto &[value, param] : params[s]) {
                    h.params.push_back(param);
                    h.param_values.push_back(value);
                }
                out.segments.push_back(SpmdSegment{-1, std::move(h)});
                halide_index[s] = (int)out.segments.size() - 1;
            }
            for (size_t g = 0; g < out.passes.size(); g++) {
                if (slot_of((int)g) == s && !out.passes[g].outputs.empty()) {
                    SpmdSegment pass{(int)g, {}, 0};
                    if (producers.count(g)) {
                        // The source's own pipeline, with the segment's parameters.
                        const DFuncContents *p = producers[g];
                        check_overlap(*out.passes[g].scatter, p,
                                      overlap_chunks(*out.passes[g].scatter));
                        pass.chunks = overlap_chunks(*out.passes[g].scatter);
                        pass.halide.pipeline = Halide::Pipeline({funcs.at(p)});
                        pass.halide.outputs = {p};
                        for (auto &[value, param] : params[-1 - (int)g]) {
                            pass.halide.params.push_back(param);
                            pass.halide.param_values.push_back(value);
                        }
                    }
                    out.segments.push_back(std::move(pass));
                    pass_index[g] = (int)out.segments.size() - 1;
                }
            }
        }
    }

    // The chunks of an overlapped collective: its own, or those of the split
    // all_reduce it is the reduce_scatter of.
    int overlap_chunks(const DFuncContents &f) const {
        if (f.overlap_chunks > 0) {
            return f.overlap_chunks;
        }
        for (const DFunc &df : analysis.order) {
            const auto &c = df.get_contents();
            if (c->sliced_part.get() == &f && c->kind == FuncKind::Collective) {
                return c->overlap_chunks;
            }
        }
        return 0;
    }

    // The fused pass (group index) whose source f is and which is overlapped
    // with it, or -1: f is then computed chunk by chunk with the pass.
    int overlapped_pass_of(const DFuncContents &f) const {
        for (size_t g = 0; g < out.passes.size(); g++) {
            const FusedPass &group = out.passes[g];
            if (group.reduces() && overlap_chunks(*group.scatter) > 0 &&
                scheduled_target(nullptr, *group.scatter->collective->source, analysis) == &f) {
                return (int)g;
            }
        }
        return -1;
    }

    // "4 tiles of 2 along dimension 1" for collective f overlapped in chunks.
    std::string chunking(const DFuncContents &f) const {
        const std::vector<int> &n = analysis.of(&f).extents;
        const int chunks = overlap_chunks(f), dim = (int)n.size() - 1;
        const int size = std::max(1, (n[dim] + chunks - 1) / chunks);
        return std::to_string((n[dim] + size - 1) / size) + " tiles of " + std::to_string(size) +
               " along dimension " + std::to_string(dim);
    }

    // Checks that collective f (overlapped in `chunks`) and its producer p
    // can run chunk by chunk: "overlap(f, p, k): " prefixes the messages.
    std::string check_overlap(const DFuncContents &f, const DFuncContents *p, int chunks) {
        const FuncInfo &info = analysis.of(&f);
        const int c = (int)info.extents.size() - 1;
        const std::string where =
            "overlap(" + f.name + ", " + p->name + ", " + std::to_string(chunks) + "): ";
        coconet_user_assert(info.layout.kind != LayoutKind::Sliced || info.layout.dim != c)
            << where << f.name << " is " << info.layout.to_string()
            << "; the chunks run along the outermost dimension " << c
            << ", which must not be the sliced one.";
        const Layout &from = analysis.of(p).layout;
        coconet_user_assert(from.kind != LayoutKind::Sliced || from.dim != c)
            << where << p->name << " is " << from.to_string()
            << "; the chunks run along the outermost dimension " << c
            << ", which must not be the one its ranks are sliced along.";
        coconet_user_assert(node.at(p) == Node::Halide && p->kind == FuncKind::Compute)
            << where << p->name << " is not computed by a Halide pipeline.";
        for (const DFuncContents *other : live_in_order()) {
            if (other != &f && node.at(other) == Node::Halide) {
                const auto r = reads_of(*other);
                coconet_user_assert(std::find(r.begin(), r.end(), p) == r.end())
                    << where << p->name << " is also read by " << other->name
                    << "; only a producer that the collective alone reads is computed in chunks.";
            }
        }
        const auto &outs = out.output_values;
        coconet_user_assert(std::find(outs.begin(), outs.end(), p) == outs.end())
            << where << p->name << " is a program output; only a producer that the collective "
            << "alone reads is computed in chunks.";
        return where;
    }

    // An overlapped collective in segment s: a Func that copies it chunk by
    // chunk of the outermost dimension, with the collective and its producer
    // computed per chunk, the producer asynchronously.
    Func overlapped_stage(const DFuncContents &f, int s, Expr uc) {
        const FuncInfo &info = analysis.of(&f);
        const int dims = (int)info.extents.size(), c = dims - 1;
        const int chunks = overlap_chunks(f);
        const DFuncContents *p = reads_of(f)[0];
        const std::string where = check_overlap(f, p, chunks);
        // Ranks outside a group would still size the chunked producer's
        // inputs (Halide's bounds of an empty chunk loop), so groups wait.
        coconet_user_assert(info.layout.group.is_world())
            << where << f.name << " lives on " << info.layout.group.to_string()
            << "; only collectives of the whole world are overlapped so far.";
        coconet_user_assert(segment_of(*p) == s && !exported.count(p))
            << where << p->name << " is not computed in the same Halide pipeline as " << f.name
            << ", or is needed after it.";
        Func producer = funcs.at(p);
        Func stage = collective_stage(f, analysis, producer, uc, c);
        Func chunked(f.name + "_chunks");
        std::vector<Halide::Var> vars;
        for (int d = 0; d < dims; d++) {
            vars.emplace_back("x" + std::to_string(d));
        }
        chunked(vars) = stage(vars);
        const int n = info.extents[c];
        const int size = std::max(1, (n + chunks - 1) / chunks);
        Halide::Var outer("chunk"), inner("within");
        // Every rank runs every chunk, so that all call the collective alike.
        chunked.compute_root().bound(vars[c], 0, info.extents[c]);
        chunked.split(vars[c], outer, inner, size, Halide::TailStrategy::GuardWithIf);
        stage.compute_at(chunked, outer);
        producer.compute_at(chunked, outer).async();
        return chunked;
    }

    void make_steps() {
        for (const DFunc &df : analysis.order) {
            const DFuncContents *f = df.get_contents().get();
            PlanStep step{f, "", -1};
            switch (node[f]) {
            case Node::Input: break;
            case Node::StandsFor:
                if (f->kind == FuncKind::Collective) {
                    step.note = "split into " + f->sliced_part->name + " + " + f->gathered->name;
                } else {
                    step.note = "computed on slices as " + f->sliced_part->name + ", gathered by " +
                                f->gathered->name;
                }
                if (f->kind == FuncKind::Collective &&
                    f->collective->kind == CollectiveKind::SendRecv) {
                    step.note =
                        "sends slices as " + f->sliced_part->name + " + " + f->gathered->name;
                }
                break;
            case Node::Halide: {
                if (overlapped_pass_of(*f) >= 0 && pass_index.count(overlapped_pass_of(*f))) {
                    const int g = overlapped_pass_of(*f);
                    step.segment = pass_index.at(g);
                    step.note = "computed chunk by chunk, overlapped with the fused pass of " +
                                out.passes[g].scatter->name;
                    break;
                }
                auto it = halide_index.find(segment_of(*f));
                if (it == halide_index.end() || !live.count(f)) {
                    step.note = "dead: no consumer reads it, not emitted";
                    break;
                }
                step.segment = it->second;
                step.note = slice_reads(*f);
                if (f->kind == FuncKind::Collective && overlap_chunks(*f) > 0) {
                    step.note += "overlapped with " + reads_of(*f)[0]->name + ": " + chunking(*f) +
                                 ", the next tile computed while this one moves";
                    if (f->collective->kind == CollectiveKind::AllToAll) {
                        step.note += " (each tile sent to its ranks as soon as it is computed)";
                    }
                }
                break;
            }
            case Node::Fused: {
                const int g = group_of(*f);
                auto it = pass_index.find(g);
                step.segment = it == pass_index.end() ? -1 : it->second;
                const FusedPass &group = out.passes[g];
                if (step.segment < 0) {
                    step.note = "dead: no consumer reads the fused pass, not emitted";
                } else if (f == group.scatter.get() && !group.reduces()) {
                    step.note = "fused pass: computes " + group.scatter->collective->source->name +
                                " on each rank's slice and writes it into every rank's copy";
                } else if (f == group.scatter.get()) {
                    step.note = "fused pass: reduces each chunk of the rank's slice and computes";
                    for (const DFuncContents *m : group.members) {
                        step.note += " " + m->name;
                    }
                    step.note += " in the same pass";
                    const int chunks = overlap_chunks(*group.scatter);
                    if (chunks > 0) {
                        step.note +=
                            "; overlapped with " +
                            scheduled_target(nullptr, *f->collective->source, analysis)->name +
                            ": " + chunking(*f) +
                            ", the next tile computed while this one is reduced";
                    }
                } else if (group.gathers(*f)) {
                    step.note = "written into every rank's copy by the fused pass of " +
                                group.scatter->name + ", no separate all_gather";
                } else {
                    step.note = "computed inside the fused pass of " + group.scatter->name;
                }
                break;
            }
            }
            if (step.note.size() > 2 && step.note.compare(step.note.size() - 2, 2, "; ") == 0) {
                step.note.resize(step.note.size() - 2);
            }
            out.steps.push_back(step);
        }
    }

    // "reads its slice of g_sum_rs for g_sum; " for each gathered Func that f
    // reads at its own slice only.
    std::string slice_reads(const DFuncContents &f) const {
        std::string note;
        if (f.kind != FuncKind::Compute) {
            return note;
        }
        std::set<const DFuncContents *> seen;
        for (const auto &def : definitions_of(f)) {
            for (const auto &call : distributed_calls(f, def)) {
                const DFuncContents *c = call.callee.get();
                if (c->gathered && seen.insert(c).second &&
                    scheduled_target(&f, *c, analysis) == c->sliced_part.get()) {
                    note += "reads its slice of " + c->sliced_part->name + " for " + c->name + "; ";
                }
            }
        }
        return note;
    }

    const Program &program;
    const Analysis &analysis;
    SpmdPipeline out;
    std::map<const DFuncContents *, Node> node;
    std::map<const DFuncContents *, int> segment;
    std::map<int, int> slot, halide_index, pass_index;
    std::map<int, std::vector<const DFuncContents *>> group_reads;
    std::set<const DFuncContents *> active, live, exported;
    std::vector<int> passes; // the passes being placed, outermost first
    std::map<const DFuncContents *, Func> funcs;
    std::map<int, std::map<const DFuncContents *, Halide::ImageParam>> params;
    std::map<size_t, const DFuncContents *> producers; // of overlapped passes
};

} // namespace

SpmdPipeline lower_spmd(const Program &program, const Analysis &analysis) {
    return SegmentBuilder(program, analysis).build();
}

} // namespace coconet
