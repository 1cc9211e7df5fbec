#include "Liveness.h"

#include <algorithm>

#include "Error.h"
#include "ScheduledReads.h"

namespace coconet {

std::vector<const DFuncContents *> FusedPassReads::all() const {
    std::vector<const DFuncContents *> r;
    if (source) {
        r.push_back(source);
    }
    r.insert(r.end(), extra_inputs.begin(), extra_inputs.end());
    return r;
}

int Liveness::chunked_pass(const DFuncContents *f) const {
    auto it = chunked_source_of.find(f);
    return it == chunked_source_of.end() || role.at(it->second) != FuncRole::Fused
               ? -1
               : pass_of.at(it->second);
}

bool Liveness::chunked_collective(const DFuncContents *f) const {
    return role.at(f) == FuncRole::Halide && f->kind == FuncKind::Collective && reads.count(f) &&
           chunked_source_of.count(reads.at(f)[0]) && chunked_source_of.at(reads.at(f)[0]) == f;
}

namespace {

// The fused pass that computes or gathers f, or -1.
int pass_computing(const DFuncContents &f, const std::vector<FusedPass> &passes) {
    for (size_t g = 0; g < passes.size(); g++) {
        if (passes[g].computes(&f) || passes[g].gathers(f)) {
            return (int)g;
        }
    }
    return -1;
}

std::vector<const DFuncContents *> reads_of(const DFuncContents &f, const Analysis &a) {
    std::vector<const DFuncContents *> r;
    if (f.kind == FuncKind::Collective) {
        r.push_back(scheduled_target(nullptr, *f.collective->source, a));
        return r;
    }
    for (const auto &def : definitions_of(f)) {
        for (const auto &call : distributed_calls(f, def)) {
            const DFuncContents *t = scheduled_target(&f, *call.callee, a);
            if (std::find(r.begin(), r.end(), t) == r.end()) {
                r.push_back(t);
            }
        }
    }
    return r;
}

// A pass's source and the other values its members read.
FusedPassReads pass_reads(const FusedPass &pass, const Liveness &l, const Analysis &a) {
    FusedPassReads r;
    if (pass.reduces()) {
        r.source = scheduled_target(nullptr, *pass.scatter->collective->source, a);
    }
    for (const DFuncContents *m : pass.members) {
        for (const DFuncContents *t : l.reads.at(m)) {
            if (pass.computes(t)) {
                continue;
            }
            coconet_user_assert(!pass.gathers(*t))
                << "fuse_with(" << m->name << ", " << pass.scatter->name << "): " << m->name
                << " reads " << t->name << ", the gathered result of the same pass.";
            if (std::find(r.extra_inputs.begin(), r.extra_inputs.end(), t) ==
                r.extra_inputs.end()) {
                r.extra_inputs.push_back(t);
            }
        }
    }
    return r;
}

// What the outputs need, through Halide Funcs' reads and fused passes'.
std::set<const DFuncContents *> live_set(const Liveness &l) {
    std::set<const DFuncContents *> live;
    std::vector<const DFuncContents *> work(l.output_values.begin(), l.output_values.end());
    while (!work.empty()) {
        const DFuncContents *t = work.back();
        work.pop_back();
        if (!live.insert(t).second) {
            continue;
        }
        std::vector<const DFuncContents *> reads;
        if (l.role.at(t) == FuncRole::Halide) {
            reads = l.reads.at(t);
        } else if (l.role.at(t) == FuncRole::Fused) {
            reads = l.pass_reads[l.pass_of.at(t)].all();
        }
        work.insert(work.end(), reads.begin(), reads.end());
    }
    return live;
}

} // namespace

Liveness find_liveness(const Program &program, const Analysis &analysis,
                       const std::vector<FusedPass> &passes) {
    Liveness l;
    for (const DFunc &df : analysis.order) {
        const DFuncContents *f = df.get_contents().get();
        const int g = pass_computing(*f, passes);
        const FuncRole role = f->kind == FuncKind::Input ? FuncRole::Input
                              : f->gathered              ? FuncRole::StandsFor
                              : g >= 0                   ? FuncRole::Fused
                                                         : FuncRole::Halide;
        l.role[f] = role;
        if (role == FuncRole::Fused) {
            l.pass_of[f] = g;
        }
        if (role == FuncRole::Fused || role == FuncRole::Halide) {
            l.reads[f] = reads_of(*f, analysis);
        }
    }
    for (size_t g = 0; g < passes.size(); g++) {
        l.pass_reads.push_back(pass_reads(passes[g], l, analysis));
        if (passes[g].reduces() && overlap_chunks(*passes[g].scatter, analysis) > 0) {
            l.chunked_source_of.emplace(l.pass_reads[g].source, passes[g].scatter.get());
        }
    }
    for (const DFunc &df : analysis.order) {
        const DFuncContents *f = df.get_contents().get();
        if (l.role.at(f) == FuncRole::Halide && f->kind == FuncKind::Collective &&
            overlap_chunks(*f, analysis) > 0) {
            l.chunked_source_of.emplace(l.reads.at(f)[0], f);
        }
    }
    for (const ProgramOutput &o : program.outputs()) {
        l.output_values.push_back(scheduled_target(nullptr, *o.func.get_contents(), analysis));
    }
    l.live = live_set(l);
    for (const DFunc &df : analysis.order) {
        if (l.live.count(df.get_contents().get())) {
            l.live_in_order.push_back(df.get_contents().get());
        }
    }
    return l;
}

} // namespace coconet
