#include "ScheduledReads.h"

namespace coconet {

namespace {

// Whether every read of the gathered Func `split` in `consumer` is at the
// consumer's own slice of its sliced part: the consumer is sliced along the
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
            if (call.callee.get() != &split) {
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

} // namespace

const DFuncContents *scheduled_target(const DFuncContents *consumer, const DFuncContents &callee,
                                      const Analysis &analysis) {
    if (!callee.gathered) {
        return &callee;
    }
    const bool slice = consumer && consumer->kind == FuncKind::Compute &&
                       reads_only_its_slice(*consumer, callee, analysis);
    return slice ? callee.sliced_part.get() : callee.gathered.get();
}

int overlap_chunks(const DFuncContents &f, const Analysis &analysis) {
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

} // namespace coconet
