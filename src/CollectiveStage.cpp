#include "CollectiveStage.h"

#include <algorithm>
#include <cstring>

#include "Error.h"

namespace coconet {

using Halide::Expr;
using Halide::Func;
using namespace Halide::Internal;

namespace {

// The descriptor as the constant byte buffer the extern stage receives: a
// Halide extern argument is an Expr, a Func or a Buffer, and a Buffer keeps
// the fields named and versioned (AOT embeds it as constant data). Its name
// is unique in the module.
Halide::Buffer<uint8_t> desc_buffer(const coconet_collective_desc &d, const std::string &name) {
    Halide::Buffer<uint8_t> b((int)sizeof(d), name + "_coconet_desc");
    std::memcpy(b.data(), &d, sizeof(d));
    return b;
}

} // namespace

coconet_collective_desc collective_desc(const DFuncContents &f, const Analysis &a, int chunk_dim) {
    const CollectiveDesc &c = *f.collective;
    const FuncInfo &src = a.of(c.source.get());
    coconet_collective_desc d;
    coconet_collective_desc_init(&d, (int32_t)c.kind);
    d.op = (int32_t)c.op;
    d.root = c.root;
    d.nsplit = src.layout.group.nsplit;
    d.group = src.layout.group.index;
    d.dst_group = c.dst.index;
    d.chunk_dim = chunk_dim;
    switch (c.kind) {
    case CollectiveKind::ReduceScatter: d.dim = c.dim; break;
    case CollectiveKind::AllGather: d.dim = src.layout.dim; break;
    case CollectiveKind::SendRecv:
        d.dim = src.layout.kind == LayoutKind::Sliced ? src.layout.dim : -1;
        d.local_value = src.layout.kind == LayoutKind::Local ? 1 : 0;
        break;
    case CollectiveKind::AllToAll:
        d.dim = c.dim;
        d.concat_dim = c.concat_dim;
        break;
    default: break;
    }
    coconet_internal_assert(src.extents.size() <= COCONET_MAX_DIMS)
        << f.name << " has " << src.extents.size() << " dimensions";
    d.dims = (int32_t)src.extents.size();
    std::copy(src.extents.begin(), src.extents.end(), d.extents);
    return d;
}

Func collective_stage(const DFuncContents &f, const Analysis &a, const Func &source, Expr uc) {
    const FuncInfo &src = a.of(f.collective->source.get());
    std::vector<Halide::ExternFuncArgument> args;
    args.emplace_back(uc);
    args.emplace_back(StringImm::make(f.name));
    args.emplace_back(desc_buffer(collective_desc(f, a, -1), f.name));
    args.emplace_back(source);
    Func stage(f.name);
    stage.define_extern("coconet_collective", args, source.type(), (int)src.extents.size(),
                        Halide::NameMangling::C);
    return stage;
}

} // namespace coconet
