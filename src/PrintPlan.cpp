#include "PrintPlan.h"

#include <algorithm>
#include <sstream>

#include "Partition.h"

namespace coconet {

namespace {

std::string boxes(const FuncInfo &info, int world_size) {
    std::ostringstream s;
    for (int r = 0; r < world_size; r++) {
        s << (r ? " " : "") << "r" << r << ":[";
        std::vector<Range> box = rank_region(info.layout, info.extents, r, world_size);
        for (size_t d = 0; d < box.size(); d++) {
            s << (d ? "," : "") << box[d].begin << ".." << box[d].end;
        }
        s << "]";
    }
    return s.str();
}

} // namespace

namespace {

std::string step_line(const PlanStep &step, const Analysis &a, int world_size) {
    const DFuncContents &f = *step.func;
    const FuncInfo &info = a.of(&f);
    std::ostringstream s;
    switch (f.kind) {
    case FuncKind::Input: s << "input      " << f.name; break;
    case FuncKind::Compute: s << "kernel     " << f.name; break;
    case FuncKind::Collective: {
        const CollectiveDesc &c = *f.collective;
        s << "collective " << f.name << " = " << to_string(c.kind);
        if (c.kind == CollectiveKind::AllReduce || c.kind == CollectiveKind::ReduceScatter ||
            c.kind == CollectiveKind::Reduce) {
            s << "<" << to_string(c.op) << ">";
        }
        s << "(" << c.source->name;
        if (c.kind == CollectiveKind::AllToAll) {
            s << ", split " << c.dim << ", concat " << c.concat_dim;
        }
        s << ")";
        break;
    }
    }
    s << "  " << info.layout.to_string() << "  " << boxes(info, world_size);
    if (!step.note.empty()) {
        s << "  [" << step.note << "]";
    }
    return s.str();
}

const char *path_name(FusedPath p) {
    switch (p) {
    case FusedPath::Direct: return "direct";
    case FusedPath::Ring: return "ring";
    default: return "auto";
    }
}

} // namespace

std::string print_plan(const LoweredProgram &lowered, int world_size) {
    const Analysis &a = lowered.analysis;
    const SpmdPipeline &spmd = lowered.spmd;
    std::ostringstream s;
    s << "plan of " << lowered.program.name() << " on " << world_size << " ranks\n";
    int number = 0;
    auto print_steps = [&](auto &&select) {
        for (const PlanStep &step : spmd.steps) {
            if (select(step)) {
                s << "  " << ++number << ". " << step_line(step, a, world_size) << "\n";
            }
        }
    };
    print_steps([](const PlanStep &p) { return p.func->kind == FuncKind::Input; });
    for (size_t k = 0; k < spmd.segments.size(); k++) {
        const SpmdSegment &seg = spmd.segments[k];
        if (seg.fused_pass < 0) {
            s << " Halide pipeline " << k << ":\n";
        } else {
            const FusedPass &g = spmd.passes[seg.fused_pass];
            const FuseOptions &o = g.scatter->fuse_options;
            s << " fused pass " << k << " of " << g.scatter->name << " (one pass over memory; path "
              << path_name(o.path) << ", chunks of ";
            if (o.chunk_elements > 0) {
                s << o.chunk_elements;
            } else {
                s << "8192";
            }
            s << " elements):\n";
        }
        print_steps([&](const PlanStep &p) { return p.segment == (int)k; });
    }
    auto stands_for = [](const PlanStep &p) {
        return p.segment < 0 && p.func->kind != FuncKind::Input;
    };
    if (std::any_of(lowered.spmd.steps.begin(), lowered.spmd.steps.end(), stands_for)) {
        s << " not computed on their own:\n";
        print_steps(stands_for);
    }
    s << "  outputs:";
    for (const ProgramOutput &o : lowered.program.outputs()) {
        s << " " << o.func.name() << " (" << o.layout.to_string() << ")";
    }
    s << "\n";
    return s.str();
}

} // namespace coconet
