#include "NarrowAllReduces.h"

#include "ScheduledReads.h"

#include <set>

namespace coconet {

namespace {

// The dimension along which every reader of all_reduce `f` reads only its own
// slice, or -1 if there is none (a reader needs it whole, or there is no reader).
int narrow_dim(const DFuncContents &f, const Program &program, const Analysis &a) {
    for (const ProgramOutput &o : program.outputs()) {
        if (o.func.get_contents().get() == &f) {
            return -1;
        }
    }
    std::vector<const DFuncContents *> readers;
    for (const DFunc &df : a.order) {
        const DFuncContents &c = *df.get_contents();
        if (c.kind == FuncKind::Collective) {
            if (c.collective->source.get() == &f) {
                return -1;
            }
            continue;
        }
        if (c.kind != FuncKind::Compute || !c.func.defined()) {
            continue;
        }
        for (const auto &def : definitions_of(c)) {
            for (const auto &call : distributed_calls(c, def)) {
                if (call.callee.get() == &f && (readers.empty() || readers.back() != &c)) {
                    readers.push_back(&c);
                }
            }
        }
    }
    if (readers.empty()) {
        return -1;
    }
    const FuncInfo &info = a.of(&f);
    for (int d = 0; d < (int)info.extents.size(); d++) {
        const Layout sliced = Sliced(d, info.layout.group);
        bool all = true;
        for (const DFuncContents *r : readers) {
            all = all && reads_only_its_slice(*r, f, sliced, info.extents, a);
        }
        if (all) {
            return d;
        }
    }
    return -1;
}

} // namespace

bool narrow_all_reduces(const Program &program, const Analysis &analysis) {
    std::set<std::string> names;
    for (const DFunc &df : analysis.order) {
        names.insert(df.name());
    }
    bool changed = false;
    for (const DFunc &df : analysis.order) {
        DFuncContents &f = *df.get_contents();
        if (f.kind != FuncKind::Collective || f.collective->kind != CollectiveKind::AllReduce ||
            (f.sliced_part && !f.split_by_default)) {
            continue; // not an all_reduce, or split by the user
        }
        // An overlapped all_reduce is the user's schedule too, and the split's
        // Funcs must not take the names of the user's.
        const bool named_free =
            f.sliced_part || (!names.count(f.name + "_rs") && !names.count(f.name + "_ag"));
        const int d = f.overlap_chunks > 0 || !named_free ? -1 : narrow_dim(f, program, analysis);
        const int now = f.sliced_part ? f.sliced_part->collective->dim : -1;
        if (d == now) {
            continue;
        }
        if (d >= 0) {
            DFunc(df).split_collective(d);
            f.split_by_default = true;
            f.sliced_part->made_by = f.gathered->made_by =
                "the lowering (every reader of " + f.name + " reads only its slice)";
        } else {
            f.sliced_part = f.gathered = nullptr;
            f.split_by_default = false;
        }
        changed = true;
    }
    return changed;
}

} // namespace coconet
