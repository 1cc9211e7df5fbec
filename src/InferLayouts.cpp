#include "InferLayouts.h"

#include "CollectFuncs.h"

#include <optional>
#include <sstream>

#include "Error.h"

namespace coconet {

using Halide::Expr;
using namespace Halide::Internal;

namespace {

std::string describe(const DFuncContents &f, const FuncInfo &i) {
    return f.name + " (" + i.layout.to_string() + ")";
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
            coconet_user_assert(it == sliced_rvars.end() || it->second.extent == p.extents[d])
                << f.name << ": reduction variable " << v->name
                << " indexes sliced dimensions of different extents (" << it->second.extent
                << " and " << p.extents[d] << " of " << who << ").";
            sliced_rvars[v->name] = SlicedRVar{p.layout.group, p.extents[d]};
            partial_user = who;
            return;
        }
        int j = pure_index(arg);
        std::ostringstream a_str;
        a_str << arg;
        coconet_user_assert(j >= 0)
            << f.name << " reads " << who << " at index " << a_str.str()
            << " of its sliced dimension " << d
            << "; a rank holds only its own slice, so a sliced dimension must be indexed by "
            << "a pure variable of " << f.name << " or reduced over. all_gather("
            << call.callee->name << ") first to read other indices.";
        if (!sliced_dim || *sliced_dim == j) {
            sliced_dim = j;
            sliced_user = who;
            sliced_extent = p.extents[d];
            return;
        }
        coconet_user_error << f.name << " combines " << sliced_user << " and " << who
                           << ", which are sliced along different dimensions of " << f.name << " ("
                           << *sliced_dim << " and " << j
                           << "); Sliced(d) op Sliced(e) needs d == e.";
    }

    std::vector<int> shape() const {
        const int dims = f.func.dimensions();
        if (!f.extents.empty() || dims == 0) {
            coconet_user_assert((int)f.extents.size() == dims)
                << f.name << " is declared with " << f.extents.size() << " extents but has " << dims
                << " dimensions.";
            return f.extents;
        }
        std::vector<int> extents(dims, -1);
        std::vector<std::string> sources(dims);
        for (const auto &c : shape_candidates) {
            coconet_user_assert(extents[c.dim] < 0 || extents[c.dim] == c.extent)
                << "Cannot infer the extent of dimension " << c.dim << " of " << f.name << ": "
                << sources[c.dim] << " gives " << extents[c.dim] << " and " << c.source << " gives "
                << c.extent << ". Declare it: DFunc(\"" << f.name << "\", {extents...}).";
            extents[c.dim] = c.extent;
            sources[c.dim] = c.source;
        }
        for (int d = 0; d < dims; d++) {
            coconet_user_assert(extents[d] >= 0)
                << "Cannot infer the extent of dimension " << d << " of " << f.name
                << ": no distributed Func is read at its pure variable " << pure_args[d]
                << ". Declare it: DFunc(\"" << f.name << "\", {extents...}).";
        }
        return extents;
    }

    Layout layout(const std::vector<int> &extents) const {
        const Group g = group.value_or(Group::world());
        coconet_user_assert(g.is_world() || !extents.empty())
            << f.name << " has no dimensions but lives on " << g.to_string()
            << "; give it one dimension of extent 1 (a scalar would be computed on every rank).";
        if (sliced_dim) {
            coconet_user_assert(!local_user && !partial_user)
                << f.name << " combines " << (local_user ? *local_user : *partial_user) << " with "
                << sliced_user << "; Local op Sliced is not defined (reduce the Local value "
                << "with reduce_scatter first).";
            coconet_user_assert(extents[*sliced_dim] == sliced_extent)
                << f.name << " has extent " << extents[*sliced_dim] << " in dimension "
                << *sliced_dim << " but reads " << sliced_user << ", whose sliced dimension has "
                << "extent " << sliced_extent << ": the slices would not line up.";
            return Sliced(*sliced_dim, g);
        }
        if (local_user || partial_user) {
            return Local(g);
        }
        return Replicated(g);
    }

    struct ShapeCandidate {
        int dim, extent;
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
    int sliced_extent = 0;
    std::map<std::string, SlicedRVar> sliced_rvars;
    std::vector<ShapeCandidate> shape_candidates;
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
        case FuncKind::Compute: info = ComputeInference(f, analysis).run(); break;
        }
        analysis.info[&f] = info;
    }
}

} // namespace

void infer_layouts(const Program &program, Analysis &analysis) {
    infer_each(analysis);
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
