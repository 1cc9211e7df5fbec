#include "Collectives.h"

#include "Error.h"

namespace coconet {

namespace {

// "reduce_scatter 'rs' of x" (a name given) or "reduce_scatter of x": the
// collective a message is about.
std::string called(CollectiveKind kind, const DFunc &f, const std::string &name) {
    return std::string(to_string(kind)) + (name.empty() ? "" : " '" + name + "'") + " of " +
           (f.defined() ? f.name() : std::string("a null DFunc"));
}

DFunc make_collective(const DFunc &f, CollectiveDesc desc, const std::string &name) {
    const char *what = to_string(desc.kind);
    coconet_user_assert(f.defined() && f.get_contents()->func.defined())
        << called(desc.kind, f, name)
        << ": the input has no definition yet; define it before passing it to a collective.";
    const Halide::Func &source = f.get_contents()->func;
    coconet_user_assert(source.outputs() == 1)
        << called(desc.kind, f, name) << ": " << f.name() << " has " << source.outputs()
        << " values; collectives take single-valued Funcs.";
    coconet_user_assert(f.dimensions() <= 4)
        << called(desc.kind, f, name) << ": " << f.name() << " has " << f.dimensions()
        << " dimensions; at most 4 are supported.";
    DFunc c = Internal::make_dfunc(name.empty() ? std::string(what) + "_" + f.name() : name,
                                   FuncKind::Collective);
    desc.source = f.get_contents();
    c.get_contents()->collective = desc;
    // The placeholder is an extern Func so that it can be called like any other;
    // lowering replaces it with the runtime's extern stage.
    c.get_contents()->func.define_extern("coconet_placeholder", {source}, source.type(),
                                         f.dimensions());
    return c;
}

CollectiveDesc desc_of(CollectiveKind kind) {
    CollectiveDesc d;
    d.kind = kind;
    return d;
}

} // namespace

DFunc all_reduce(const DFunc &f, ReduceOp op, const std::string &name) {
    CollectiveDesc d = desc_of(CollectiveKind::AllReduce);
    d.op = op;
    return make_collective(f, d, name);
}

DFunc reduce_scatter(const DFunc &f, int dim, ReduceOp op, const std::string &name) {
    coconet_user_assert(f.defined() && dim >= 0 && dim < f.dimensions())
        << called(CollectiveKind::ReduceScatter, f, name) << ": dim " << dim
        << " is not a dimension of the input, which has " << (f.defined() ? f.dimensions() : 0)
        << ".";
    CollectiveDesc d = desc_of(CollectiveKind::ReduceScatter);
    d.op = op;
    d.dim = dim;
    return make_collective(f, d, name);
}

DFunc all_gather(const DFunc &f, const std::string &name) {
    return make_collective(f, desc_of(CollectiveKind::AllGather), name);
}

DFunc broadcast(const DFunc &f, int root, const std::string &name) {
    coconet_user_assert(root >= 0)
        << called(CollectiveKind::Broadcast, f, name) << ": root " << root << " is negative.";
    CollectiveDesc d = desc_of(CollectiveKind::Broadcast);
    d.root = root;
    return make_collective(f, d, name);
}

DFunc reduce(const DFunc &f, int root, ReduceOp op, const std::string &name) {
    coconet_user_assert(root >= 0)
        << called(CollectiveKind::Reduce, f, name) << ": root " << root << " is negative.";
    CollectiveDesc d = desc_of(CollectiveKind::Reduce);
    d.root = root;
    d.op = op;
    return make_collective(f, d, name);
}

DFunc all_to_all(const DFunc &f, int split_dim, int concat_dim, const std::string &name) {
    coconet_user_assert(f.defined() && split_dim >= 0 && split_dim < f.dimensions() &&
                        concat_dim >= 0 && concat_dim < f.dimensions() && split_dim != concat_dim)
        << called(CollectiveKind::AllToAll, f, name) << ": split " << split_dim << " and concat "
        << concat_dim << " must be two different dimensions of the input, which has "
        << (f.defined() ? f.dimensions() : 0) << ".";
    CollectiveDesc d = desc_of(CollectiveKind::AllToAll);
    d.dim = split_dim;
    d.concat_dim = concat_dim;
    return make_collective(f, d, name);
}

DFunc send(const DFunc &f, const Group &to, const std::string &name) {
    CollectiveDesc d = desc_of(CollectiveKind::SendRecv);
    d.dst = to;
    return make_collective(f, d, name);
}

} // namespace coconet
