#include "InferLayouts.h"

#include "CollectFuncs.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "Error.h"

namespace coconet {

using Halide::Expr;
using namespace Halide::Internal;

namespace {

std::string describe(const DFuncContents &f, const FuncInfo &i) {
    return f.name + " (" + i.layout.to_string() +
           (f.made_by.empty() ? "" : ", made by " + f.made_by) + ")";
}

FuncInfo infer_collective(const DFuncContents &f, const Analysis &a) {
    const CollectiveDesc &c = *f.collective;
    const FuncInfo &src = a.of(c.source.get());
    const Layout &in = src.layout;
    FuncInfo out;
    out.extents = src.extents;
    auto require = [&](bool ok, const std::string &needed) {
        coconet_user_assert(ok) << f.name << ": " << to_string(c.kind) << " needs " << needed
                                << " input, but " << describe(*c.source, src) << " is not.";
    };
    switch (c.kind) {
    case CollectiveKind::AllReduce:
    case CollectiveKind::Broadcast:
        require(in.kind == LayoutKind::Local, "a Local");
        out.layout = Replicated(in.group);
        break;
    case CollectiveKind::Reduce:
        require(in.kind == LayoutKind::Local, "a Local");
        out.layout = Local(in.group);
        break;
    case CollectiveKind::ReduceScatter:
        require(in.kind == LayoutKind::Local, "a Local");
        out.layout = Sliced(c.dim, in.group);
        break;
    case CollectiveKind::AllGather:
        require(in.kind == LayoutKind::Sliced, "a Sliced");
        out.layout = Replicated(in.group);
        break;
    case CollectiveKind::AllToAll:
        require(in.kind == LayoutKind::Sliced && in.dim == c.concat_dim,
                "a Sliced(" + std::to_string(c.concat_dim) + ")");
        out.layout = Sliced(c.dim, in.group);
        break;
    case CollectiveKind::SendRecv:
        coconet_user_assert(!in.group.is_world() && c.dst.nsplit == in.group.nsplit &&
                            c.dst != in.group)
            << f.name << ": send moves a value between two groups of the same world.split(n), "
            << "but " << describe(*c.source, src) << " is sent to " << c.dst.to_string() << ".";
        out.layout = in;
        out.layout.group = c.dst;
        break;
    }
    return out;
}

// What the calls in a computed Func's definitions say about its layout and shape.
class ComputeInference {
public:
    ComputeInference(const DFuncContents &f, const Analysis &a)
        : f(f), a(a), pure_args(f.func.function().args()) {}

    FuncInfo run() {
        for (const auto &def : definitions_of(f)) {
            for (const auto &call : distributed_calls(f, def)) {
                add_call(call);
            }
        }
        FuncInfo out;
        out.extents = shape();
        out.sliced_rvars = sliced_rvars;
        out.layout = layout(out.extents);
        return out;
    }

private:
    int pure_index(const Expr &e) const {
        const Variable *v = e.as<Variable>();
        if (!v || v->reduction_domain.defined()) {
            return -1;
        }
        for (size_t j = 0; j < pure_args.size(); j++) {
            if (pure_args[j] == v->name) {
                return (int)j;
            }
        }
        return -1;
    }

    void add_call(const DistributedCall &call) {
        const FuncInfo &p = a.of(call.callee.get());
        const std::string who = describe(*call.callee, p);
        if (!p.layout.group.is_world()) {
            coconet_user_assert(!group || *group == p.layout.group)
                << f.name << " combines Funcs of different groups: " << group_user << " on "
                << group->to_string() << " and " << who
                << "; move values between groups with send().";
            group = p.layout.group;
            group_user = who;
        }
        for (size_t d = 0; d < call.args.size() && d < p.extents.size(); d++) {
            int j = pure_index(call.args[d]);
            if (j >= 0) {
                shape_candidates.push_back({j, p.extents[d], call.callee->name});
            }
        }
        if (p.layout.kind == LayoutKind::Local) {
            local_user = who;
        } else if (p.layout.kind == LayoutKind::Sliced) {
            add_sliced(call, p, who);
        }
    }

    void add_sliced(const DistributedCall &call, const FuncInfo &p, const std::string &who) {
        const int d = p.layout.dim;
        const Expr &arg = call.args[d];
        const Variable *v = arg.as<Variable>();
        if (v && v->reduction_domain.defined()) {
            auto it = sliced_rvars.find(v->name);
            Halide::Expr extent = p.extents[d];
            if (it != sliced_rvars.end()) {
                extent = unify(it->second.extent, extent,
                               f.name + ": reduction variable " + v->name +
                                   " indexes sliced dimensions of different extents (" +
                                   to_string(it->second.extent) + " and " + to_string(extent) +
                                   " of " + who + ").",
                               f.name + ": reduction variable " + v->name +
                                   " indexes sliced dimensions, the last of " + who);
            }
            sliced_rvars[v->name] = SlicedRVar{p.layout.group, extent};
            partial_user = who;
            return;
        }
        int j = pure_index(arg);
        std::ostringstream a_str;
        a_str << arg;
        coconet_user_assert(j >= 0)
            << f.name << (f.made_by.empty() ? "" : " (made by " + f.made_by + ")") << " reads "
            << who << " at index " << a_str.str() << " of its sliced dimension " << d
            << "; a rank holds only its own slice, so a sliced dimension must be indexed by "
            << "a pure variable of " << f.name << " or reduced over. "
            << (f.made_by.empty() ? "all_gather(" + call.callee->name + ") first"
                                  : "Leave out " + f.made_by)
            << " to read other indices.";
        if (!sliced_dim || *sliced_dim == j) {
            const std::string pair = f.name + " combines " + sliced_user + " and " + who;
            sliced_extent =
                sliced_dim
                    ? unify(sliced_extent, p.extents[d],
                            pair + ", sliced along extents " + to_string(sliced_extent) + " and " +
                                to_string(p.extents[d]) + ": the slices would not line up.",
                            pair + ", sliced along one dimension")
                    : p.extents[d];
            sliced_dim = j;
            sliced_user = who;
            return;
        }
        coconet_user_error << f.name << " combines " << sliced_user << " and " << who
                           << ", which are sliced along different dimensions of " << f.name << " ("
                           << *sliced_dim << " and " << j
                           << "); Sliced(d) op Sliced(e) needs d == e.";
    }

    Extents shape() {
        const int dims = f.func.dimensions();
        if (!f.extents.empty() || dims == 0) {
            coconet_user_assert((int)f.extents.size() == dims)
                << f.name << " is declared with " << f.extents.size() << " extents but has " << dims
                << " dimensions.";
            return f.extents;
        }
        Extents extents(dims);
        std::vector<std::string> sources(dims);
        for (const auto &c : shape_candidates) {
            if (extents[c.dim].defined()) {
                const Halide::Expr kept = unify(
                    extents[c.dim], c.extent,
                    "Cannot infer the extent of dimension " + std::to_string(c.dim) + " of " +
                        f.name + ": " + sources[c.dim] + " gives " + to_string(extents[c.dim]) +
                        " and " + c.source + " gives " + to_string(c.extent) +
                        ". Declare it: DFunc(\"" + f.name + "\", {extents...}).",
                    f.name + " reads " + sources[c.dim] + " and " + c.source +
                        " along its dimension " + std::to_string(c.dim));
                if (!same_extent(kept, extents[c.dim])) {
                    extents[c.dim] = kept;
                    sources[c.dim] = c.source;
                }
            } else {
                extents[c.dim] = c.extent;
                sources[c.dim] = c.source;
            }
        }
        for (int d = 0; d < dims; d++) {
            coconet_user_assert(extents[d].defined())
                << "Cannot infer the extent of dimension " << d << " of " << f.name
                << ": no distributed Func is read at its pure variable " << pure_args[d]
                << ". Declare it: DFunc(\"" << f.name << "\", {extents...}).";
        }
        return extents;
    }

    // Two extents the program needs equal: the same constant or size, else
    // two constants (the user error `error`), else a condition each call
    // checks (`needs` says who needs it). Returns the one to keep: a constant
    // over a run-time size, which lets Halide specialise.
    Halide::Expr unify(const Halide::Expr &have, const Halide::Expr &next, const std::string &error,
                       const std::string &needs) {
        if (same_extent(have, next)) {
            return have;
        }
        const bool next_constant = constant_extent(next).has_value();
        coconet_user_assert(!next_constant || !constant_extent(have)) << error;
        constraints.push_back(ExtentConstraint{have, next, needs});
        return next_constant ? next : have;
    }

    // A rank computes only its slice of a Func sliced along dimension d, so
    // each update must write there at the pure variable, as the definition.
    void check_updates_write_slices(int d) const {
        const Halide::Internal::Function fn = f.func.function();
        for (size_t u = 0; u < fn.updates().size(); u++) {
            const Expr &at = fn.updates()[u].args()[d];
            const Variable *v = at.as<Variable>();
            if (v && v->name == fn.args()[d]) {
                continue;
            }
            std::ostringstream printed;
            printed << at;
            std::string index = printed.str(); // as the user writes an RDom's variables: r.x
            std::replace(index.begin(), index.end(), '$', '.');
            coconet_user_error
                << f.name << " is sliced along dimension " << d << " (it reads " << sliced_user
                << "), and its update " << u + 1 << " writes it at index " << index
                << " there: a rank computes only its own slice, so an update of a sliced Func "
                << "must write at its pure variable " << fn.args()[d]
                << " there. all_gather what it reads first to compute it Replicated.";
        }
    }

    Layout layout(const Extents &extents) {
        const Group g = group.value_or(Group::world());
        coconet_user_assert(g.is_world() || !extents.empty())
            << f.name << " has no dimensions but lives on " << g.to_string()
            << "; give it one dimension of extent 1 (a scalar would be computed on every rank).";
        if (sliced_dim) {
            coconet_user_assert(!local_user && !partial_user)
                << f.name << " combines " << (local_user ? *local_user : *partial_user) << " with "
                << sliced_user << "; Local op Sliced is not defined (reduce the Local value "
                << "with reduce_scatter first).";
            unify(extents[*sliced_dim], sliced_extent,
                  f.name + " has extent " + to_string(extents[*sliced_dim]) + " in dimension " +
                      std::to_string(*sliced_dim) + " but reads " + sliced_user +
                      ", whose sliced dimension has extent " + to_string(sliced_extent) +
                      ": the slices would not line up.",
                  f.name + " reads " + sliced_user + " sliced along its dimension " +
                      std::to_string(*sliced_dim));
            check_updates_write_slices(*sliced_dim);
            return Sliced(*sliced_dim, g);
        }
        if (local_user || partial_user) {
            return Local(g);
        }
        return Replicated(g);
    }

    struct ShapeCandidate {
        int dim;
        Halide::Expr extent;
        std::string source;
    };

    const DFuncContents &f;
    const Analysis &a;
    std::vector<std::string> pure_args;
    std::optional<Group> group;
    std::string group_user;
    std::optional<std::string> local_user, partial_user;
    std::optional<int> sliced_dim;
    std::string sliced_user;
    Halide::Expr sliced_extent;
    std::map<std::string, SlicedRVar> sliced_rvars;
    std::vector<ShapeCandidate> shape_candidates;

public:
    std::vector<ExtentConstraint> constraints;
};

} // namespace

namespace {

// Every Func's layout and shape, producers first.
void infer_each(Analysis &analysis) {
    for (const DFunc &df : analysis.order) {
        const DFuncContents &f = *df.get_contents();
        FuncInfo info;
        switch (f.kind) {
        case FuncKind::Input:
            info.layout = *f.layout;
            info.extents = f.extents;
            break;
        case FuncKind::Collective: info = infer_collective(f, analysis); break;
        case FuncKind::Compute: {
            ComputeInference inference(f, analysis);
            info = inference.run();
            analysis.constraints.insert(analysis.constraints.end(), inference.constraints.begin(),
                                        inference.constraints.end());
            break;
        }
        }
        analysis.info[&f] = info;
    }
}

// The run-time sizes: the inputs' in signature order, then those only
// declared Funcs name. Halide tells Params apart by name, so a name is one
// Param's, and no input's.
void collect_sizes(const Program &program, Analysis &analysis) {
    std::map<std::string, std::string> first_user; // a size's name -> the Func it came from
    auto add = [&](const DFunc &f) {
        for (const Halide::Expr &e : analysis.of(f).extents) {
            const std::string n = size_name(e);
            if (n.empty()) {
                continue;
            }
            const auto *v = e.as<Variable>();
            auto known = std::find_if(analysis.sizes.begin(), analysis.sizes.end(),
                                      [&](const RuntimeSize &s) { return s.name == n; });
            if (known == analysis.sizes.end()) {
                coconet_user_assert(std::none_of(analysis.inputs.begin(), analysis.inputs.end(),
                                                 [&](const DFunc &in) { return in.name() == n; }))
                    << "Program " << program.name() << ": the run-time size " << n << " of "
                    << f.name() << " has the name of an input; Halide needs Params and inputs "
                    << "named apart.";
                analysis.sizes.push_back(RuntimeSize{n, v->param, e});
                first_user[n] = f.name();
            } else {
                coconet_user_assert(known->param.same_as(v->param))
                    << "Program " << program.name() << ": two different Params are named " << n
                    << " (extents of " << first_user[n] << " and " << f.name()
                    << "); sizes are told apart by name: use one Param for one size.";
            }
        }
    };
    for (const DFunc &in : analysis.inputs) {
        add(in);
    }
    for (const DFunc &f : analysis.order) {
        add(f);
    }
}

// The scalar Params an expression reads.
class ScalarParams : public IRVisitor {
public:
    std::set<std::string> names;

private:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        if (op->param.defined() && !op->param.is_buffer()) {
            names.insert(op->param.name());
        }
    }
};

// A Param a Func reads that is no run-time size would reach Halide as an
// argument no pipeline has: refused, naming the Func and the Param.
void check_params_are_sizes(const Program &program, const Analysis &analysis) {
    std::set<std::string> sizes;
    std::string listed;
    for (const RuntimeSize &s : analysis.sizes) {
        sizes.insert(s.name);
        listed += (listed.empty() ? "" : ", ") + s.name;
    }
    for (const DFunc &f : analysis.order) {
        if (f.get_contents()->kind != FuncKind::Compute) {
            continue;
        }
        ScalarParams used;
        f.func().function().accept(&used);
        for (const std::string &name : used.names) {
            coconet_user_assert(sizes.count(name))
                << "Program " << program.name() << ": Func " << f.name() << " reads Param " << name
                << ", which is none of the program's run-time sizes ("
                << (listed.empty() ? "it has none" : listed)
                << "). A Param may stand only for a run-time size, an extent of an input or "
                   "of a declared Func that every call gives; make "
                << name << " one, or use a constant.";
        }
    }
}

} // namespace

void infer_layouts(const Program &program, Analysis &analysis) {
    infer_each(analysis);
    collect_sizes(program, analysis);
    check_params_are_sizes(program, analysis);
    for (const ProgramOutput &o : program.outputs()) {
        const FuncInfo &i = analysis.of(o.func);
        coconet_user_assert(i.layout == o.layout)
            << "Program " << program.name() << ": output " << o.func.name() << " is declared "
            << o.layout.to_string() << " but its definition makes it " << i.layout.to_string()
            << ".";
    }
}

Analysis analyze(const Program &program) {
    Analysis analysis = collect_funcs(program);
    infer_layouts(program, analysis);
    return analysis;
}

FuncInfo infer_func(const DFunc &f) {
    // The declared layout is a placeholder: only infer_layouts checks outputs.
    Program probe(f.name());
    probe.output(f, Replicated());
    Analysis a = collect_funcs(probe);
    infer_each(a);
    return a.of(f);
}

} // namespace coconet
