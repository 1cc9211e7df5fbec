#include "Fusion.h"

#include <algorithm>
#include <set>

#include "Error.h"

namespace coconet {

bool FusedPass::reduces() const {
    return scatter->collective->kind == CollectiveKind::ReduceScatter;
}

const FuncInfo &FusedPass::sliced_info(const Analysis &a) const {
    return a.of(reduces() ? scatter.get() : scatter->collective->source.get());
}

bool FusedPass::computes(const DFuncContents *f) const {
    return (reduces() && f == scatter.get()) ||
           std::find(members.begin(), members.end(), f) != members.end();
}

bool FusedPass::gathers(const DFuncContents &f) const {
    return f.kind == FuncKind::Collective && f.collective->kind == CollectiveKind::AllGather &&
           !f.gathered &&
           std::find(members.begin(), members.end(), f.collective->source.get()) != members.end();
}

namespace {

void check_member(const FusedPass &g, const DFuncContents &m, const Analysis &a) {
    const FuncInfo &info = a.of(&m);
    const FuncInfo &s = g.sliced_info(a);
    const std::string where = "fuse_with(" + m.name + ", " + g.scatter->name + "): ";
    coconet_user_assert(info.layout == s.layout &&
                        std::equal(info.extents.begin(), info.extents.end(), s.extents.begin(),
                                   s.extents.end(), same_extent))
        << where << m.name << " is " << info.layout.to_string() << ", but the pass computes "
        << g.scatter->name << " (" << s.layout.to_string()
        << ") slice by slice; a fused Func must be sliced like it"
        << (info.layout.kind == LayoutKind::Replicated
                ? " (compute it on slices first with compute_sliced)."
                : ".");
    const std::vector<std::string> &vars = m.func.function().args();
    for (const auto &def : definitions_of(m)) {
        for (const auto &call : distributed_calls(m, def)) {
            if (!g.computes(call.callee.get()) || call.callee == g.scatter) {
                continue;
            }
            for (size_t d = 0; d < call.args.size(); d++) {
                const auto *v = call.args[d].as<Halide::Internal::Variable>();
                coconet_user_assert(v && v->name == vars[d] && !v->reduction_domain.defined())
                    << where << m.name << " reads " << call.callee->name
                    << ", which is fused too, at other indices than its own; fused Funcs may "
                       "read each other only element-wise.";
            }
        }
    }
}

// In a gather's pass, every member but the gathered Func feeds another
// member: a Func between them computed outside the pass would need the pass's
// result before the pass runs.
void check_gather_chain(const FusedPass &g) {
    const DFuncContents *gathered = g.scatter->collective->source.get();
    coconet_user_assert(g.computes(gathered))
        << "fuse_with(" << g.members[0]->name << ", " << g.scatter->name << "): " << g.scatter->name
        << " gathers " << gathered->name << ", which is not fused with it; "
        << "fuse " << gathered->name << " too (its pass computes it last).";
    std::set<const DFuncContents *> read; // by some member
    for (const DFuncContents *reader : g.members) {
        for (const auto &def : definitions_of(*reader)) {
            for (const auto &call : distributed_calls(*reader, def)) {
                read.insert(call.callee.get());
            }
        }
    }
    for (const DFuncContents *m : g.members) {
        coconet_user_assert(m == gathered || read.count(m))
            << "fuse_with(" << m->name << ", " << g.scatter->name << "): no Func fused with "
            << g.scatter->name << " reads " << m->name << "; fuse the Funcs between " << m->name
            << " and " << gathered->name << " with " << g.scatter->name << " too.";
    }
}

} // namespace

std::vector<FusedPass> find_fused_passes(const Analysis &analysis) {
    std::vector<FusedPass> passes;
    for (const DFunc &f : analysis.order) {
        const auto &c = f.get_contents();
        // A Func fused into an all_gather the program never computes (no
        // output needs it) is computed on its own.
        if (!c->fused_into || !analysis.info.count(c->fused_into.get())) {
            continue;
        }
        auto g = std::find_if(passes.begin(), passes.end(),
                              [&](const FusedPass &x) { return x.scatter == c->fused_into; });
        if (g == passes.end()) {
            passes.push_back(FusedPass{c->fused_into, {}, {}, {}});
            g = passes.end() - 1;
        }
        g->members.push_back(c.get());
    }
    for (const FusedPass &g : passes) {
        for (const DFuncContents *m : g.members) {
            check_member(g, *m, analysis);
        }
        if (!g.reduces()) {
            check_gather_chain(g);
        }
    }
    return passes;
}

} // namespace coconet
