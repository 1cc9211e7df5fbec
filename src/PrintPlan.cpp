#include "PrintPlan.h"

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

std::string print_plan(const LoweredProgram &lowered, int world_size) {
    const Analysis &a = lowered.analysis;
    std::ostringstream s;
    s << "plan of " << lowered.program.name() << " on " << world_size << " ranks\n";
    int number = 0;
    for (const PlanStep &step : lowered.spmd.steps) {
        const DFuncContents &f = *step.func;
        const FuncInfo &info = a.of(&f);
        s << "  " << ++number << ". ";
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
            s << "(" << c.source->name << ")";
            break;
        }
        }
        s << "  " << info.layout.to_string() << "  " << boxes(info, world_size);
        if (!step.note.empty()) {
            s << "  [" << step.note << "]";
        }
        s << "\n";
    }
    s << "  outputs:";
    for (const ProgramOutput &o : lowered.program.outputs()) {
        s << " " << o.func.name() << " (" << o.layout.to_string() << ")";
    }
    s << "\n";
    return s.str();
}

} // namespace coconet
