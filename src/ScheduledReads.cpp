#include "ScheduledReads.h"

namespace coconet {

bool reads_only_its_slice(const DFuncContents &consumer, const DFuncContents &callee,
                          const Layout &sliced, const Extents &extents, const Analysis &a) {
    const FuncInfo &c = a.of(&consumer);
    const int d = sliced.dim;
    if (c.layout.kind != LayoutKind::Sliced || c.layout.group != sliced.group ||
        !same_extent(c.extents[c.layout.dim], extents[d])) {
        return false;
    }
    const std::string &var = consumer.func.function().args()[c.layout.dim];
    for (const auto &def : definitions_of(consumer)) {
        for (const auto &call : distributed_calls(consumer, def)) {
            if (call.callee.get() != &callee) {
                continue;
            }
            const auto *v = call.args[d].as<Halide::Internal::Variable>();
            if (!v || v->reduction_domain.defined() || v->name != var) {
                return false;
            }
        }
    }
    return true;
}

const DFuncContents *scheduled_target(const DFuncContents *consumer, const DFuncContents &callee,
                                      const Analysis &analysis) {
    if (!callee.gathered) {
        return &callee;
    }
    const FuncInfo &part = analysis.of(callee.sliced_part.get());
    const bool slice = consumer && consumer->kind == FuncKind::Compute &&
                       reads_only_its_slice(*consumer, callee, part.layout, part.extents, analysis);
    return slice ? callee.sliced_part.get() : callee.gathered.get();
}

namespace {

// The collective whose overlap directive applies to f: f, or the all_reduce
// f is the reduce_scatter of; null when none.
const DFuncContents *overlap_owner(const DFuncContents &f, const Analysis &analysis) {
    if (f.overlap_chunks > 0) {
        return &f;
    }
    for (const DFunc &df : analysis.order) {
        const auto &c = df.get_contents();
        if (c->sliced_part.get() == &f && c->kind == FuncKind::Collective) {
            return c->overlap_chunks > 0 ? c.get() : nullptr;
        }
    }
    return nullptr;
}

} // namespace

int overlap_chunks(const DFuncContents &f, const Analysis &analysis) {
    const DFuncContents *o = overlap_owner(f, analysis);
    return o ? o->overlap_chunks : 0;
}

int overlap_dim(const DFuncContents &f, const Analysis &analysis) {
    const DFuncContents *o = overlap_owner(f, analysis);
    if (o && o->overlap_dim >= 0) {
        return o->overlap_dim;
    }
    return default_overlap_dim((int)analysis.of(&f).extents.size(),
                               analysis.of(f.collective->source.get()).layout);
}

int default_overlap_dim(int dims, const Layout &source) {
    int d = dims - 1;
    while (d >= 0 && source.kind == LayoutKind::Sliced && source.dim == d) {
        d--;
    }
    return d;
}

} // namespace coconet
