#include "CollectiveStage.h"

namespace coconet {

using Halide::Expr;
using Halide::Func;
using namespace Halide::Internal;

// chunk_dim >= 0: the stage is one chunk of an overlapped collective.
Func collective_stage(const DFuncContents &f, const Analysis &a, const Func &source, Expr uc,
                      int chunk_dim) {
    const CollectiveDesc &c = *f.collective;
    const FuncInfo &src = a.of(c.source.get());
    int arg_a = -1, arg_b = -1, root = c.root;
    switch (c.kind) {
    case CollectiveKind::ReduceScatter:
        arg_a = c.dim;
        arg_b = chunk_dim;
        break;
    case CollectiveKind::AllReduce: arg_b = chunk_dim; break;
    case CollectiveKind::AllGather: arg_a = src.layout.dim; break;
    case CollectiveKind::SendRecv:
        arg_a = src.layout.kind == LayoutKind::Sliced ? src.layout.dim : -1;
        arg_b = src.layout.kind == LayoutKind::Local ? 1 : 0;
        break;
    case CollectiveKind::AllToAll:
        arg_a = c.dim;
        arg_b = c.concat_dim;
        root = chunk_dim;
        break;
    default: break;
    }
    std::vector<Halide::ExternFuncArgument> args;
    args.emplace_back(uc);
    args.emplace_back(StringImm::make(f.name));
    for (int v : {(int)c.kind, (int)c.op, root, arg_a, arg_b, src.layout.group.nsplit,
                  src.layout.group.index, c.dst.index}) {
        args.emplace_back(Expr(v));
    }
    for (int d = 0; d < 4; d++) {
        args.emplace_back(Expr(d < (int)src.extents.size() ? src.extents[d] : 1));
    }
    args.emplace_back(source);
    Func stage(f.name);
    stage.define_extern("coconet_collective", args, source.type(), (int)src.extents.size(),
                        Halide::NameMangling::C);
    return stage;
}

} // namespace coconet
