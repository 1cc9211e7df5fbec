#include "Placement.h"

#include <algorithm>

#include "Error.h"

namespace coconet {

namespace {

// Segment indices are found depth first from the readers; `placing` holds the
// Funcs and passes (by their collective) whose placement is under way, which
// is how a cycle through a fused pass shows.
struct Placer {
    const std::vector<FusedPass> &passes;
    const Liveness &liveness;
    Placement out;
    std::map<int, int> slots;
    std::set<const DFuncContents *> placing;
    std::vector<int> passes_placing; // outermost first

    // The first Halide segment in which value t can be read.
    int available(const DFuncContents *t) {
        switch (liveness.role.at(t)) {
        case FuncRole::Input: return 0;
        // An overlapped collective runs after its segment (the executor's
        // chunk loop), so it is read from the next one on.
        case FuncRole::Halide: return segment_of(t) + (liveness.chunked_collective(t) ? 1 : 0);
        case FuncRole::Fused: return slot_of(liveness.pass_of.at(t)) + 1;
        case FuncRole::StandsFor: break;
        }
        coconet_internal_assert(false) << t->name << " is read but stands for other Funcs";
        return 0;
    }

    int segment_of(const DFuncContents *f) {
        auto it = out.segment.find(f);
        if (it != out.segment.end()) {
            return it->second;
        }
        enter(f);
        int s = 0;
        for (const DFuncContents *t : liveness.reads.at(f)) {
            s = std::max(s, available(t));
        }
        placing.erase(f);
        return out.segment[f] = s;
    }

    int slot_of(int g) {
        auto it = slots.find(g);
        if (it != slots.end()) {
            return it->second;
        }
        const DFuncContents *key = passes[g].scatter.get();
        enter(key);
        passes_placing.push_back(g);
        int s = 0;
        for (const DFuncContents *t : liveness.pass_reads[g].all()) {
            s = std::max(s, available(t));
        }
        passes_placing.pop_back();
        placing.erase(key);
        return slots[g] = s;
    }

    // Funcs alone cannot form a cycle (they are ordered), so a cycle runs
    // through the pass being placed.
    void enter(const DFuncContents *f) {
        if (placing.insert(f).second) {
            return;
        }
        const DFuncContents &key = *passes[passes_placing.front()].scatter;
        coconet_user_error << "fuse_with(..., " << key.name
                           << "): the Funcs fused into the pass of " << key.name
                           << " read a value that needs the pass's result (through " << f->name
                           << ").";
    }

    // Records that value t is read by something in Halide segment
    // `reader_segment` (-1: after the last segment, a program output).
    void needed_later(const DFuncContents *t, int reader_segment) {
        const FuncRole role = liveness.role.at(t);
        if (role == FuncRole::Halide && (reader_segment < 0 || segment_of(t) < reader_segment)) {
            out.exported.insert(t);
        } else if (role == FuncRole::Fused) {
            const int g = liveness.pass_of.at(t);
            const bool gather = passes[g].gathers(*t);
            const DFuncContents *member = gather ? t->collective->source.get() : t;
            std::vector<FusedOutput> &outputs = out.pass_outputs[g];
            auto o = std::find_if(outputs.begin(), outputs.end(),
                                  [&](const FusedOutput &x) { return x.member == member; });
            if (o == outputs.end()) {
                outputs.push_back(FusedOutput{member});
                o = outputs.end() - 1;
            }
            (gather ? o->gathered_value : o->slice_value) = t;
        }
    }
};

} // namespace

Placement place(const Analysis &analysis, const std::vector<FusedPass> &passes,
                const Liveness &liveness) {
    Placer p{passes, liveness, {}, {}, {}, {}};
    p.out.pass_outputs.resize(passes.size());
    // The order in which values are placed decides which Func a cycle error
    // names: outputs first, then live Funcs producers first.
    for (const DFuncContents *t : liveness.output_values) {
        p.needed_later(t, -1);
    }
    std::set<int> live_passes;
    for (const DFuncContents *f : liveness.live_in_order) {
        if (liveness.role.at(f) == FuncRole::Halide) {
            p.out.last = std::max(p.out.last, p.segment_of(f));
        } else if (liveness.role.at(f) == FuncRole::Fused) {
            live_passes.insert(liveness.pass_of.at(f));
            p.out.last = std::max(p.out.last, p.slot_of(liveness.pass_of.at(f)));
        }
    }
    for (const DFuncContents *f : liveness.live_in_order) {
        if (liveness.role.at(f) == FuncRole::Halide) {
            // The source of an overlapped collective runs in a pipeline of its
            // own, once per chunk: it reads everything as finished values, so
            // that no collective runs again per chunk.
            const int own = liveness.chunked_source_of.count(f) ? 1 : 0;
            for (const DFuncContents *t : liveness.reads.at(f)) {
                p.needed_later(t, p.segment_of(f) + own);
            }
        }
    }
    for (int g : live_passes) {
        for (const DFuncContents *t : liveness.pass_reads[g].all()) {
            p.needed_later(t, p.slot_of(g) + 1);
        }
    }
    // Dead passes and Funcs are placed too, so that every index is known.
    for (size_t g = 0; g < passes.size(); g++) {
        p.out.slot.push_back(p.slot_of((int)g));
    }
    for (const DFunc &df : analysis.order) {
        if (liveness.role.at(df.get_contents().get()) == FuncRole::Halide) {
            p.segment_of(df.get_contents().get());
        }
    }
    return std::move(p.out);
}

} // namespace coconet
