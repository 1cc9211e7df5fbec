// The scheduling directives on distributed Funcs. Each checks that it applies
// and records its decision; lowering carries it out.
#include "Collectives.h"
#include "Error.h"

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
    coconet_user_assert(!contents->split_scatter)
        << "split_collective(" << c.name << "): already split.";
    DFunc source(c.collective->source);
    DFunc scatter = reduce_scatter(source, dim, c.collective->op, c.name + "_rs");
    DFunc gather = all_gather(scatter, c.name + "_ag");
    contents->split_scatter = scatter.get_contents();
    contents->split_gather = gather.get_contents();
    return *this;
}

} // namespace coconet
