#include "PrintPlan.h"

#include <algorithm>
#include <sstream>

#include "DefaultSchedule.h"
#include "Partition.h"
#include "Strings.h"
#include "coconet_runtime.h"

namespace coconet {

namespace {

std::string boxes(const FuncInfo &info, int world_size) {
    std::ostringstream s;
    for (const Halide::Expr &e : info.extents) {
        if (!constant_extent(e)) {
            return "[" + to_string(info.extents) + "]: boxes follow the run-time sizes";
        }
    }
    for (int r = 0; r < world_size; r++) {
        s << (r ? " " : "") << "r" << r << ":[";
        std::vector<Range> box =
            rank_region(info.layout, bind_extents(info.extents, {}, ""), r, world_size);
        for (size_t d = 0; d < box.size(); d++) {
            s << (d ? "," : "") << box[d].begin << ".." << box[d].end;
        }
        s << "]";
    }
    return s.str();
}

} // namespace

namespace {

// "4 tiles of 2 along dimension 1" for Func f overlapped in `chunks` along
// `dim`; along its sliced dimension, "each rank's slice in 4 pieces along
// dimension 1 (piece j of every slice moves in step j)".
std::string chunking(const FuncInfo &info, int chunks, int dim) {
    if (info.layout.kind == LayoutKind::Sliced && info.layout.dim == dim) {
        return "each rank's slice in " + std::to_string(chunks) + " pieces along dimension " +
               std::to_string(dim) + " (piece j of every slice moves in step j)";
    }
    const std::optional<int> n = constant_extent(info.extents[dim]);
    if (!n) {
        return std::to_string(chunks) + " tiles along dimension " + std::to_string(dim) + " (of " +
               to_string(info.extents[dim]) + ")";
    }
    const int size = std::max(1, (*n + chunks - 1) / chunks);
    return std::to_string((*n + size - 1) / size) + " tiles of " + std::to_string(size) +
           " along dimension " + std::to_string(dim);
}

// "; in tiles of 16 x 6 of (f, b), its updates accumulated in registers".
std::string register_tiles(const DFuncContents &f) {
    if (!f.register_tile) {
        return "";
    }
    const auto &t = *f.register_tile;
    std::string out = "in tiles of " + std::to_string(t.x_factor) + " x " +
                      std::to_string(t.y_factor) + " of (" + t.x + ", " + t.y +
                      "), its updates accumulated in registers";
    for (const std::string &name : transposed_operand_names(f.func.function(), t.x)) {
        out += ", " + name + " read through a copy with " + t.x + " innermost";
    }
    return out;
}

// What the schedule did to a Func, in words (empty when nothing).
std::string note(const PlanStep &step, const SpmdPipeline &spmd, const Analysis &a) {
    const DFuncContents &f = *step.func;
    const FusedPass *pass = step.fused_pass >= 0 ? &spmd.passes[step.fused_pass] : nullptr;
    switch (step.role) {
    case StepRole::Input: return "";
    case StepRole::Dead: return "dead: no consumer reads it, not emitted";
    case StepRole::FusedDead: return "dead: no consumer reads the fused pass, not emitted";
    case StepRole::Split:
        return f.split_by_default
                   ? "computed as " + f.sliced_part->name + ": every reader reads only its slice"
                   : "split into " + f.sliced_part->name + " + " + f.gathered->name;
    case StepRole::ComputedOnSlices:
        return "computed on slices as " + f.sliced_part->name + ", gathered by " + f.gathered->name;
    case StepRole::SendsSlices:
        return "sends slices as " + f.sliced_part->name + " + " + f.gathered->name;
    case StepRole::ChunkedSource: {
        const std::string tiles = register_tiles(f);
        return (pass ? "computed chunk by chunk, overlapped with the fused pass of " +
                           pass->scatter->name
                     : "computed chunk by chunk, overlapped with " +
                           spmd.segments[step.segment].collective->name) +
               (tiles.empty() ? "" : "; " + tiles);
    }
    case StepRole::Computed: {
        std::vector<std::string> parts;
        if (f.register_tile) {
            parts.push_back(register_tiles(f));
        }
        for (const DFuncContents *c : step.slice_reads) {
            parts.push_back("reads its slice of " + c->sliced_part->name + " for " + c->name);
        }
        if (step.overlapped_with) {
            parts.push_back("overlapped with " + step.overlapped_with->name + ": " +
                            chunking(a.of(&f), step.chunks, step.chunk_dim) +
                            ", the next tile computed while this one moves" +
                            (f.collective->kind == CollectiveKind::AllToAll
                                 ? " (each tile sent to its ranks as soon as it is computed)"
                                 : ""));
        }
        return join(parts, "; ");
    }
    case StepRole::PassCollective: {
        std::string members;
        for (const DFuncContents *m : pass->members) {
            members += " " + m->name;
        }
        if (!pass->reduces()) {
            return "fused pass: computes" + members + " on each rank's slice and writes " +
                   f.collective->source->name + " into every rank's copy";
        }
        std::string s = "fused pass: reduces each chunk of the rank's slice and computes" +
                        members + " in the same pass";
        if (step.overlapped_with) {
            s += "; overlapped with " + step.overlapped_with->name + ": " +
                 chunking(a.of(&f), step.chunks, step.chunk_dim) +
                 ", the next tile computed while this one is reduced";
        }
        return s;
    }
    case StepRole::FusedGather:
        return "written into every rank's copy by the fused pass of " + pass->scatter->name +
               ", no separate all_gather";
    case StepRole::FusedMember: return "computed inside the fused pass of " + pass->scatter->name;
    }
    return "";
}

std::string step_line(const PlanStep &step, const SpmdPipeline &spmd, const Analysis &a,
                      int world_size) {
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
    const std::string n = note(step, spmd, a);
    if (!n.empty()) {
        s << "  [" << n << "]";
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
                s << "  " << ++number << ". " << step_line(step, spmd, a, world_size) << "\n";
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
            s << (o.chunk_elements > 0 ? o.chunk_elements : COCONET_DEFAULT_CHUNK_ELEMENTS);
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
    // An overlapped all_to_all tunes even in one tile (against `direct`).
    auto overlapped_all_to_all = [](const PlanStep &p) {
        return p.chunks >= 1 && p.func->collective &&
               p.func->collective->kind == CollectiveKind::AllToAll;
    };
    if (std::any_of(spmd.steps.begin(), spmd.steps.end(),
                    [&](const PlanStep &p) { return p.chunks > 1 || overlapped_all_to_all(p); })) {
        s << "  tiles: each overlapped step's count is the most it runs; on each communicator "
             "its first calls time it and fewer (halving down to 1, no overlap) and keep the "
             "fewest within 5% of the fastest (coconet_comm_overlap_report; "
             "COCONET_OVERLAP_TUNING=off keeps the schedule's)";
        if (std::any_of(spmd.steps.begin(), spmd.steps.end(), overlapped_all_to_all)) {
            s << "; on thread ranks (host memory) an overlapped all_to_all also times its "
                 "producer computing straight into the ranks' outputs (direct, counted as the "
                 "fewest)";
        }
        s << "\n";
    }
    return s.str();
}

namespace {

std::string names(const std::vector<const DFuncContents *> &funcs) {
    std::string s;
    for (const DFuncContents *f : funcs) {
        s += (s.empty() ? "" : " ") + f->name;
    }
    return s;
}

const char *to_string(FuncRole role) {
    switch (role) {
    case FuncRole::Input: return "input";
    case FuncRole::Halide: return "halide";
    case FuncRole::Fused: return "fused";
    case FuncRole::StandsFor: return "stands-for";
    }
    return "?";
}

const char *to_string(StepRole role) {
    switch (role) {
    case StepRole::Input: return "input";
    case StepRole::Computed: return "computed";
    case StepRole::Dead: return "dead";
    case StepRole::ChunkedSource: return "chunked source";
    case StepRole::Split: return "split";
    case StepRole::ComputedOnSlices: return "computed on slices";
    case StepRole::SendsSlices: return "sends slices";
    case StepRole::PassCollective: return "pass collective";
    case StepRole::FusedMember: return "fused member";
    case StepRole::FusedGather: return "fused gather";
    case StepRole::FusedDead: return "fused, dead";
    }
    return "?";
}

template<typename T>
std::vector<const DFuncContents *> in_order(const Analysis &a, const T &set) {
    std::vector<const DFuncContents *> r;
    for (const DFunc &f : a.order) {
        if (set.count(f.get_contents().get())) {
            r.push_back(f.get_contents().get());
        }
    }
    return r;
}

} // namespace

std::string dump_analysis(const Analysis &analysis) {
    std::ostringstream s;
    for (const DFunc &f : analysis.order) {
        s << "  " << f.name();
        // Layouts are known once infer_layouts has run.
        auto it = analysis.info.find(f.get_contents().get());
        if (it != analysis.info.end()) {
            const FuncInfo &info = it->second;
            s << ": " << info.layout.to_string() << " [" << to_string(info.extents) << "]";
            for (const auto &[rvar, sliced] : info.sliced_rvars) {
                s << " sliced rvar " << rvar << " of " << sliced.extent;
            }
        }
        s << "\n";
    }
    return s.str();
}

std::string dump_fused_passes(const std::vector<FusedPass> &passes) {
    std::ostringstream s;
    for (size_t g = 0; g < passes.size(); g++) {
        s << "  pass " << g << " of " << passes[g].scatter->name << ": computes "
          << names(passes[g].members) << "\n";
    }
    return s.str();
}

std::string dump_liveness(const Liveness &liveness, const Analysis &analysis) {
    std::ostringstream s;
    for (const DFunc &df : analysis.order) {
        const DFuncContents *f = df.get_contents().get();
        s << "  " << f->name << ": " << to_string(liveness.role.at(f));
        if (liveness.pass_of.count(f)) {
            s << " (pass " << liveness.pass_of.at(f) << ")";
        }
        if (liveness.reads.count(f)) {
            s << ", reads [" << names(liveness.reads.at(f)) << "]";
        }
        s << (liveness.live.count(f) ? "" : ", not needed") << "\n";
    }
    for (size_t g = 0; g < liveness.pass_reads.size(); g++) {
        s << "  pass " << g << " reads [" << names(liveness.pass_reads[g].all()) << "]\n";
    }
    for (const auto &[source, collective] : liveness.chunked_source_of) {
        s << "  " << source->name << " is computed chunk by chunk with " << collective->name
          << "\n";
    }
    s << "  outputs: " << names(liveness.output_values) << "\n";
    return s.str();
}

std::string dump_placement(const Placement &placement, const std::vector<FusedPass> &passes,
                           const Analysis &analysis) {
    std::ostringstream s;
    for (const DFuncContents *f : in_order(analysis, placement.segment)) {
        s << "  " << f->name << ": segment " << placement.segment.at(f)
          << (placement.exported.count(f) ? ", exported" : "") << "\n";
    }
    for (size_t g = 0; g < passes.size(); g++) {
        s << "  pass " << g << " of " << passes[g].scatter->name << ": after segment "
          << placement.slot[g] << ", leaves";
        for (const FusedOutput &o : placement.pass_outputs[g]) {
            s << " " << o.member->name << " (slice " << (o.slice_value ? o.slice_value->name : "-")
              << ", gathered " << (o.gathered_value ? o.gathered_value->name : "-") << ")";
        }
        s << "\n";
    }
    s << "  last Halide segment: " << placement.last << "\n";
    return s.str();
}

std::string dump_spmd(const SpmdPipeline &spmd) {
    std::ostringstream s;
    for (size_t k = 0; k < spmd.segments.size(); k++) {
        const SpmdSegment &seg = spmd.segments[k];
        const HalideSegment &h = seg.halide;
        if (seg.fused_pass >= 0) {
            const FusedPass &pass = spmd.passes[seg.fused_pass];
            s << "  " << k << ": fused pass " << seg.fused_pass << " of " << pass.scatter->name
              << ", extra inputs [" << names(pass.extra_inputs) << "]";
            if (seg.chunks > 0) {
                s << ", " << seg.chunks << " chunks of " << names(h.outputs);
            }
        } else if (seg.collective) {
            s << "  " << k << ": " << seg.collective->name << " in " << seg.chunks << " chunks of "
              << names(h.outputs);
        } else {
            s << "  " << k << ": Halide pipeline of [" << names(h.outputs) << "]";
        }
        if (!h.param_values.empty()) {
            s << ", params [" << names(h.param_values) << "]";
        }
        s << "\n";
    }
    for (const PlanStep &step : spmd.steps) {
        s << "  " << step.func->name << ": " << to_string(step.role);
        if (step.segment >= 0) {
            s << " in " << step.segment;
        }
        if (!step.slice_reads.empty()) {
            s << ", reads slices of [" << names(step.slice_reads) << "]";
        }
        if (step.overlapped_with) {
            s << ", overlapped with " << step.overlapped_with->name << " in " << step.chunks
              << " chunks of dimension " << step.chunk_dim;
        }
        s << "\n";
    }
    s << "  outputs: " << names(spmd.output_values) << "\n";
    return s.str();
}

} // namespace coconet
