#include "ProgramPlan.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "CollectiveStage.h"
#include "GpuSchedule.h"
#include "ScheduledReads.h"
#include "Strings.h"

namespace coconet {

namespace {

std::vector<int> table_extents(const Extents &extents, const Analysis &a) {
    std::vector<int> out;
    for (const Halide::Expr &e : extents) {
        out.push_back(table_extent(e, a.sizes));
    }
    return out;
}

// Values by the Func that holds them, in first-use order.
class ValueTable {
public:
    ValueTable(const Analysis &a, std::vector<ProgramValue> &values) : a_(a), values_(values) {}

    int id(const DFuncContents *f) {
        auto it = ids_.find(f);
        if (it != ids_.end()) {
            return it->second;
        }
        const FuncInfo &info = a_.of(f);
        values_.push_back(
            ProgramValue{f->name, f->func.type(), table_extents(info.extents, a_), info.layout});
        return ids_[f] = (int)values_.size() - 1;
    }

    std::vector<int> ids(const std::vector<const DFuncContents *> &fs) {
        std::vector<int> r;
        for (const DFuncContents *f : fs) {
            r.push_back(id(f));
        }
        return r;
    }

private:
    const Analysis &a_;
    std::vector<ProgramValue> &values_;
    std::map<const DFuncContents *, int> ids_;
};

void add_pipeline(const HalideSegment &h, const std::string &name, ValueTable &values,
                  ProgramStep &step) {
    step.pipeline = name;
    step.params = values.ids(h.param_values);
    step.outs = values.ids(h.outputs);
}

ProgramStep pass_step(const FusedPass &g, const SpmdSegment &seg, const Analysis &a,
                      const std::string &name, ValueTable &values) {
    const FuncInfo &info = g.sliced_info(a);
    ProgramStep step;
    step.kind = COCONET_STEP_FUSED;
    step.name = g.scatter->name;
    step.op = g.scatter->collective ? (int)g.scatter->collective->op : 0;
    step.dim = info.layout.dim;
    step.nsplit = info.layout.group.nsplit;
    step.group = info.layout.group.index;
    step.n = table_extents(info.extents, a);
    step.chunks = seg.chunks;
    step.chunk_dim = seg.chunks > 0 ? overlap_dim(*g.scatter, a) : -1;
    step.chunk_elements = g.scatter->fuse_options.chunk_elements;
    step.path = (int)g.scatter->fuse_options.path;
    if (seg.halide.pipeline.defined()) {
        add_pipeline(seg.halide, name + "_producer", values, step);
        step.src = step.outs.at(0);
    } else if (g.reduces()) {
        step.src = values.id(scheduled_target(nullptr, *g.scatter->collective->source, a));
    }
    for (const FusedOutput &o : g.outputs) {
        const DFuncContents *v = o.gathered_value ? o.gathered_value : o.slice_value;
        step.pass_outs.push_back(values.id(v));
        step.gathered.push_back(o.gathered_value ? 1 : 0);
        step.slices.push_back(o.gathered_value && o.slice_value ? values.id(o.slice_value) : -1);
    }
    step.extras = values.ids(g.extra_inputs);
    // Any member may compute any part of the value alike: every output is
    // gathered, the other values the pass reads are whole on every member,
    // and no member's reduction runs over a sliced dimension (its kernel's
    // bounds depend on the rank).
    auto gathered = [](const FusedOutput &o) { return o.gathered_value != nullptr; };
    auto whole = [&](const DFuncContents *f) {
        return a.of(f).layout.kind == LayoutKind::Replicated;
    };
    auto rank_free = [&](const DFuncContents *m) { return a.of(m).sliced_rvars.empty(); };
    step.replicable = std::all_of(g.outputs.begin(), g.outputs.end(), gathered) &&
                      std::all_of(g.extra_inputs.begin(), g.extra_inputs.end(), whole) &&
                      std::all_of(g.members.begin(), g.members.end(), rank_free);
    return step;
}

// An overlapped collective: chunks along its overlap dimension (as LowerSpmd
// checked, not one its input is sliced along).
ProgramStep collective_step(const DFuncContents &f, const SpmdSegment &seg, const Analysis &a,
                            const std::string &name, ValueTable &values) {
    ProgramStep step;
    step.kind = COCONET_STEP_COLLECTIVE;
    step.name = f.name;
    step.chunks = seg.chunks;
    add_pipeline(seg.halide, name + "_producer", values, step);
    step.src = step.outs.at(0);
    step.dst = values.id(&f);
    step.collective = collective_desc(f, a, overlap_dim(f, a));
    return step;
}

} // namespace

ProgramPlan plan_program(const LoweredProgram &lowered, const std::string &function_name) {
    const Analysis &a = lowered.analysis;
    const SpmdPipeline &spmd = lowered.spmd;
    ProgramPlan plan;
    ValueTable values(a, plan.values);
    for (const DFunc &in : a.inputs) {
        plan.args.push_back(values.id(in.get_contents().get()));
    }
    plan.ninputs = (int)plan.args.size();
    const auto &outputs = lowered.program.outputs();
    for (size_t i = 0; i < outputs.size(); i++) {
        plan.args.push_back(values.id(outputs[i].func.get_contents().get()));
        plan.output_values.push_back(values.id(spmd.output_values[i]));
    }
    for (size_t s = 0; s < spmd.segments.size(); s++) {
        const SpmdSegment &seg = spmd.segments[s];
        const std::string name = function_name + "_step" + std::to_string(s);
        ProgramStep step;
        if (seg.collective) {
            step = collective_step(*seg.collective, seg, a, name, values);
        } else if (seg.fused_pass < 0) {
            add_pipeline(seg.halide, name, values, step);
        } else {
            step = pass_step(spmd.passes[seg.fused_pass], seg, a, name, values);
        }
        step.segment = (int)s;
        plan.steps.push_back(std::move(step));
    }
    for (const DFuncContents *f : spmd.device_stages) {
        const FuncInfo &info = a.of(f);
        plan.device_stages.push_back(ProgramValue{
            f->name, f->func.type(), table_extents(info.extents, a), info.layout, true});
    }
    for (const RuntimeSize &s : a.sizes) {
        plan.sizes.push_back(s.name);
    }
    for (const ExtentConstraint &c : a.constraints) {
        plan.constraints.push_back(
            SizeConstraint{table_extent(c.a, a.sizes), table_extent(c.b, a.sizes), c.what});
    }
    return plan;
}

coconet_value_info value_info(const ProgramValue &v) {
    coconet_value_info info{};
    info.name = v.name.c_str();
    info.type_code = (int32_t)v.type.code();
    info.type_bits = v.type.bits();
    info.dims = (int32_t)v.extents.size();
    for (int d = 0; d < 4; d++) {
        info.extents[d] = d < info.dims ? v.extents[d] : 1;
    }
    info.layout = v.layout.kind == LayoutKind::Sliced  ? COCONET_LAYOUT_SLICED
                  : v.layout.kind == LayoutKind::Local ? COCONET_LAYOUT_LOCAL
                                                       : COCONET_LAYOUT_REPLICATED;
    info.dim = v.layout.dim;
    info.nsplit = v.layout.group.nsplit;
    info.group = v.layout.group.index;
    info.device = v.device ? 1 : 0;
    return info;
}

void mark_device_values(ProgramPlan &plan, const GpuPlacement &where) {
    auto listed = [](const std::vector<std::string> &names, const std::string &name) {
        return std::find(names.begin(), names.end(), name) != names.end();
    };
    for (ProgramValue &v : plan.values) {
        v.device = v.device || listed(where.gpu, v.name) || listed(where.library, v.name) ||
                   listed(where.reads, v.name);
    }
}

coconet_fused_call pass_call(const ProgramStep &s) {
    coconet_fused_call c = coconet_fused_call_init();
    c.op = s.op;
    c.dim = s.dim;
    c.nsplit = s.nsplit;
    c.group = s.group;
    c.dims = (int32_t)s.n.size();
    for (int d = 0; d < 4; d++) {
        c.n[d] = d < c.dims ? s.n[d] : 1;
    }
    c.nout = (int32_t)s.pass_outs.size();
    c.chunk_elements = s.chunk_elements;
    c.path = s.path;
    c.range_dim = s.chunk_dim;
    c.replicable = s.replicable ? 1 : 0;
    return c;
}

std::string dump_plan(const ProgramPlan &plan) {
    auto names = [&](const std::vector<int> &ids) {
        std::vector<std::string> r;
        for (int v : ids) {
            r.push_back(plan.values[v].name);
        }
        return "[" + join(r, " ") + "]";
    };
    std::ostringstream s;
    for (size_t i = 0; i < plan.steps.size(); i++) {
        const ProgramStep &p = plan.steps[i];
        s << "  step " << i << " (segment " << p.segment << "): "
          << (p.kind == COCONET_STEP_FUSED        ? "fused pass of " + p.name
              : p.kind == COCONET_STEP_COLLECTIVE ? "collective " + p.name
                                                  : "Halide");
        if (!p.pipeline.empty()) {
            s << ", " << p.pipeline << " " << names(p.params) << " -> " << names(p.outs);
        }
        if (p.kind == COCONET_STEP_FUSED) {
            s << ", the pass writes " << names(p.pass_outs);
        }
        s << "\n";
    }
    s << "  arguments " << names(plan.args) << "\n";
    return s.str();
}

} // namespace coconet
