#include "CollectiveStage.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <sstream>

#include "Error.h"
#include "GpuSchedule.h"

namespace coconet {

using Halide::Expr;
using Halide::Func;
using namespace Halide::Internal;

namespace {

// Why scalar f, which reads a scalar collective's result, may be computed on
// the host, or "" when the GPU pass makes it a kernel.
std::string scalar_on_host(const DFuncContents &f, const Analysis &a) {
    if (!a.of(&f).layout.group.is_world()) {
        return "on a group of world.split";
    }
    return why_scalar_on_host(f.func.function());
}

// Whether f reads `value`.
bool reads(const DFuncContents &f, const DFuncContents &value) {
    for (const Definition &d : definitions_of(f)) {
        for (const DistributedCall &c : distributed_calls(f, d)) {
            if (c.callee.get() == &value) {
                return true;
            }
        }
    }
    return false;
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
    coconet_internal_assert(src.extents.size() <= COCONET_STAGE_DIMS)
        << f.name << " has " << src.extents.size() << " dimensions";
    d.dims = (int32_t)src.extents.size();
    for (int i = 0; i < d.dims; i++) {
        d.extents[i] = table_extent(src.extents[i], a.sizes);
    }
    return d;
}

std::string why_not_on_device(const DFuncContents &f, const Analysis &a) {
    const FuncInfo &src = a.of(f.collective->source.get());
    if (src.extents.empty()) {
        // A host scalar would read a stale copy (see the header).
        for (const DFunc &reader : a.order) {
            const DFuncContents &r = *reader.get_contents();
            if (r.kind != FuncKind::Compute || !a.of(&r).extents.empty() || !reads(r, f)) {
                continue;
            }
            if (const std::string why = scalar_on_host(r, a); !why.empty()) {
                return "a scalar, read by host code: " + r.name + " (" + why + ")";
            }
        }
    }
    return "";
}

Func collective_stage(const DFuncContents &f, const Analysis &a, const Func &source, Expr uc,
                      Halide::DeviceAPI device) {
    const FuncInfo &src = a.of(f.collective->source.get());
    const bool on_device = device != Halide::DeviceAPI::None && collective_on_device(f, a);
    coconet_collective_desc d = collective_desc(f, a, -1);
    d.device = on_device ? 1 : 0;
    std::vector<Halide::ExternFuncArgument> args;
    args.emplace_back(uc);
    args.emplace_back(StringImm::make(f.name));
    args.emplace_back(desc_buffer(d, f.name));
    // The extents, run-time sizes among them, as the call has them.
    for (int i = 0; i < COCONET_STAGE_DIMS; i++) {
        args.emplace_back(i < d.dims ? src.extents[i] : Expr(1));
    }
    args.emplace_back(source);
    Func stage(f.name);
    stage.define_extern("coconet_collective", args, source.type(), (int)src.extents.size(),
                        Halide::NameMangling::C, on_device ? device : Halide::DeviceAPI::Host);
    return stage;
}

std::string combiner_name(const Combiner &c) {
    std::ostringstream os;
    os << to_string(c.op) << "_" << c.type;
    return os.str();
}

std::vector<Combiner> device_combiners(const Analysis &a) {
    std::set<Combiner> found;
    for (const DFunc &f : a.order) {
        const DFuncContents &c = *f.get_contents();
        if (c.kind != FuncKind::Collective || !collective_on_device(c, a)) {
            continue;
        }
        const CollectiveKind k = c.collective->kind;
        if (k == CollectiveKind::AllReduce || k == CollectiveKind::ReduceScatter ||
            k == CollectiveKind::Reduce) {
            found.insert(Combiner{c.collective->op, c.func.type()});
        }
    }
    return std::vector<Combiner>(found.begin(), found.end());
}

CombinerPipeline build_combiner(const Combiner &c) {
    Halide::ImageParam x(c.type, 1, "a"), y(c.type, 1, "b");
    Halide::Var i("i"), block("block"), thread("thread");
    Expr u = x(i), v = y(i), value;
    switch (c.op) {
    case ReduceOp::Prod: value = u * v; break;
    case ReduceOp::Max: value = Halide::select(u > v, u, v); break; // as the runtime's host code
    case ReduceOp::Min: value = Halide::select(u < v, u, v); break;
    default: value = u + v; break;
    }
    Func out("combined");
    out(i) = value;
    out.gpu_tile(i, block, thread, 256, Halide::TailStrategy::GuardWithIf);
    return CombinerPipeline{Halide::Pipeline(out), {x, y}};
}

CombinerPipeline build_identity(const Combiner &c) {
    const double inf = std::numeric_limits<double>::infinity();
    Expr value;
    switch (c.op) {
    case ReduceOp::Prod: value = make_one(c.type); break;
    case ReduceOp::Max: value = c.type.is_float() ? make_const(c.type, -inf) : c.type.min(); break;
    case ReduceOp::Min: value = c.type.is_float() ? make_const(c.type, inf) : c.type.max(); break;
    default: value = make_zero(c.type); break;
    }
    Halide::Var i("i"), block("block"), thread("thread");
    Func out("identity");
    out(i) = value;
    out.gpu_tile(i, block, thread, 256, Halide::TailStrategy::GuardWithIf);
    return CombinerPipeline{Halide::Pipeline(out), {}};
}

} // namespace coconet
