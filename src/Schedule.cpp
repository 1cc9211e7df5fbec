// The scheduling directives on distributed Funcs. Each checks that it applies
// and records its decision; lowering carries it out.
#include "Collectives.h"
#include "Error.h"
#include "Rebuild.h"

namespace coconet {

DFunc &DFunc::split_collective(int dim) {
    coconet_user_assert(contents) << "split_collective on a null DFunc.";
    const DFuncContents &c = *contents;
    coconet_user_assert(c.kind == FuncKind::Collective &&
                        c.collective->kind == CollectiveKind::AllReduce)
        << "split_collective(" << c.name << "): " << c.name << " is "
        << (c.kind == FuncKind::Collective ? std::string("an ") + to_string(c.collective->kind)
                                           : std::string("not a collective"))
        << "; only an all_reduce splits into reduce_scatter + all_gather.";
    coconet_user_assert(dim >= 0 && dim < dimensions())
        << "split_collective(" << c.name << ", " << dim << "): " << c.name << " has "
        << dimensions() << " dimensions"
        << (dimensions() == 0 ? "; a scalar all_reduce cannot be split." : ".");
    coconet_user_assert(!contents->sliced_part)
        << "split_collective(" << c.name << "): already split.";
    DFunc source(c.collective->source);
    DFunc scatter = reduce_scatter(source, dim, c.collective->op, c.name + "_rs");
    DFunc gather = all_gather(scatter, c.name + "_ag");
    contents->sliced_part = scatter.get_contents();
    contents->gathered = gather.get_contents();
    return *this;
}

DFunc &DFunc::compute_sliced() {
    coconet_user_assert(contents) << "compute_sliced on a null DFunc.";
    const DFuncContents &c = *contents;
    coconet_user_assert(!c.gathered) << "compute_sliced(" << c.name << "): already sliced.";
    const std::string name = c.name + "_sliced";
    // The value a gathered Func stands for, before its gather (or null).
    auto before_gather = [](const DFuncContents &f) -> std::shared_ptr<DFuncContents> {
        if (f.gathered) {
            return f.sliced_part;
        }
        if (f.kind == FuncKind::Collective && f.collective->kind == CollectiveKind::AllGather) {
            return f.collective->source;
        }
        return nullptr;
    };
    DFunc part;
    if (c.kind == FuncKind::Collective && c.collective->kind == CollectiveKind::SendRecv) {
        // A send of a gathered value sends the slices and gathers on arrival.
        auto sliced = before_gather(*c.collective->source);
        coconet_user_assert(sliced)
            << "compute_sliced(" << c.name << "): " << c.name << " sends "
            << c.collective->source->name
            << ", which is not gathered (compute it with compute_sliced first).";
        part = send(DFunc(sliced), c.collective->dst, name);
    } else {
        coconet_user_assert(c.kind == FuncKind::Compute && c.func.defined())
            << "compute_sliced(" << c.name << "): " << c.name
            << " is neither a computed Func with a definition nor a send.";
        // The same definitions, reading the gathered values before their gathers.
        std::vector<std::string> replaced;
        CalleeMap callee = [&](const DFuncContents &f) -> Halide::Func {
            if (auto sliced = before_gather(f)) {
                replaced.push_back(f.name);
                return sliced->func;
            }
            return f.func;
        };
        Halide::Func sliced = rebuild_compute(c, FuncInfo{}, callee, 0, 1, name);
        coconet_user_assert(!replaced.empty())
            << "compute_sliced(" << c.name << "): " << c.name
            << " reads no gathered value (an all_gather, or an all_reduce after split_collective); "
            << "there is nothing to compute on slices.";
        part = Internal::make_dfunc(name, FuncKind::Compute, sliced);
        part.get_contents()->extents = c.extents;
    }
    DFunc gathered = all_gather(part, c.name + "_ag");
    contents->sliced_part = part.get_contents();
    contents->gathered = gathered.get_contents();
    return *this;
}

} // namespace coconet
