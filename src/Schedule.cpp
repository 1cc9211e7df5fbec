// The scheduling directives on distributed Funcs. Each checks that it applies
// and records its decision; lowering carries it out.
#include "Collectives.h"
#include "Error.h"
#include "InferLayouts.h"
#include "Rebuild.h"
#include "ScheduledReads.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace coconet {

namespace {

// "an all_reduce", "a broadcast".
std::string with_article(const std::string &noun) {
    const bool vowel = !noun.empty() && std::string("aeiou").find(noun[0]) != std::string::npos;
    return (vowel ? "an " : "a ") + noun;
}

} // namespace

DFunc &DFunc::split_collective(int dim) {
    coconet_user_assert(contents) << "split_collective on a null DFunc.";
    const DFuncContents &c = *contents;
    coconet_user_assert(c.kind == FuncKind::Collective &&
                        c.collective->kind == CollectiveKind::AllReduce)
        << "split_collective(" << c.name << "): " << c.name << " is "
        << (c.kind == FuncKind::Collective ? with_article(to_string(c.collective->kind))
                                           : std::string("not a collective"))
        << "; only an all_reduce splits into reduce_scatter + all_gather.";
    coconet_user_assert(dim >= 0 && dim < dimensions())
        << "split_collective(" << c.name << ", " << dim << "): " << c.name << " has "
        << dimensions() << " dimensions"
        << (dimensions() == 0 ? "; a scalar all_reduce cannot be split." : ".");
    coconet_user_assert(!contents->sliced_part || contents->split_by_default)
        << "split_collective(" << c.name << "): already split.";
    DFunc source(c.collective->source);
    DFunc scatter = reduce_scatter(source, dim, c.collective->op, c.name + "_rs");
    DFunc gather = all_gather(scatter, c.name + "_ag");
    const std::string made_by = c.name + ".split_collective(" + std::to_string(dim) + ")";
    scatter.get_contents()->made_by = made_by;
    gather.get_contents()->made_by = made_by;
    contents->sliced_part = scatter.get_contents();
    contents->gathered = gather.get_contents();
    contents->split_by_default = false;
    return *this;
}

DFunc &DFunc::compute_sliced() {
    coconet_user_assert(contents) << "compute_sliced on a null DFunc.";
    const DFuncContents &c = *contents;
    coconet_user_assert(!c.gathered) << "compute_sliced(" << c.name << "): already sliced.";
    const std::string name = c.name + "_sliced";
    // The value a gathered Func stands for, before its gather (or null).
    auto before_gather = [](const DFuncContents &f) -> std::shared_ptr<DFuncContents> {
        if (f.gathered && !f.split_by_default) {
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
            << ", which is not gathered (an all_gather, or a Func computed with compute_sliced).";
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
    part.get_contents()->made_by = gathered.get_contents()->made_by = c.name + ".compute_sliced()";
    contents->sliced_part = part.get_contents();
    contents->gathered = gathered.get_contents();
    return *this;
}

namespace {

std::string call_text(const std::string &name, const std::vector<Halide::Expr> &args) {
    std::ostringstream s;
    s << name << "(";
    for (size_t i = 0; i < args.size(); i++) {
        s << (i ? ", " : "") << args[i];
    }
    s << ")";
    return s.str();
}

// Whether computing `consumer` reads `f`, directly or through other computed Funcs.
bool computed_from(const DFuncContents &consumer, const DFuncContents *f) {
    std::set<const DFuncContents *> seen;
    std::vector<const DFuncContents *> work{&consumer};
    while (!work.empty()) {
        const DFuncContents *c = work.back();
        work.pop_back();
        if (c->kind != FuncKind::Compute || !c->func.defined() || !seen.insert(c).second) {
            continue;
        }
        for (const auto &def : definitions_of(*c)) {
            for (const auto &call : distributed_calls(*c, def)) {
                if (call.callee.get() == f) {
                    return true;
                }
                work.push_back(call.callee.get());
            }
        }
    }
    return false;
}

} // namespace

DFunc &DFunc::fuse_with(const DFunc &collective, const FuseOptions &options) {
    coconet_user_assert(contents && collective.defined()) << "fuse_with on a null DFunc.";
    const DFuncContents &c = *collective.get_contents();
    const std::string where = "fuse_with(" + name() + ", " + c.name + "): ";
    // The collective whose pass computes this Func: a reduce_scatter (that of
    // a split all_reduce), or the all_gather of this very Func.
    std::shared_ptr<DFuncContents> scatter;
    bool gather = false;
    if (c.kind == FuncKind::Collective && c.collective->kind == CollectiveKind::ReduceScatter) {
        scatter = collective.get_contents();
    } else if (c.kind == FuncKind::Collective && c.collective->kind == CollectiveKind::AllReduce &&
               c.sliced_part && !c.split_by_default) {
        scatter = c.sliced_part;
    } else if (c.kind == FuncKind::Collective && c.collective->kind == CollectiveKind::AllGather) {
        scatter = collective.get_contents();
        gather = true;
    }
    coconet_user_assert(scatter)
        << where << c.name << " is "
        << (c.kind == FuncKind::Collective
                ? with_article(to_string(c.collective->kind)) +
                      (c.collective->kind == CollectiveKind::AllReduce ? " that is not split" : "")
                : std::string("not a collective"))
        << "; only a reduce_scatter (or an all_reduce split with split_collective) or an "
           "all_gather has a pass to fuse a computation into.";
    coconet_user_assert(contents->kind == FuncKind::Compute && contents->func.defined())
        << where << name() << " is not a computed Func; only computations run inside a pass.";
    // The Func computed on slices: this one, or its sliced version.
    DFuncContents &part = contents->gathered ? *contents->sliced_part : *contents;
    coconet_user_assert(part.kind == FuncKind::Compute)
        << where << name() << " is computed on slices by a collective, not by a computation.";
    coconet_user_assert(!part.fused_into)
        << where << name() << " is already fused with " << part.fused_into->name << ".";
    // A gather's pass computes the gathered Func and, before it, the Funcs it
    // is computed from (find_fused_passes checks that none is left out between).
    const DFuncContents &gathered = *c.collective->source;
    coconet_user_assert(!gather || &gathered == &part || computed_from(gathered, &part))
        << where << c.name << " gathers " << gathered.name << ", which is not computed from "
        << part.name << "; only " << gathered.name
        << " and the Funcs it is computed from run in the pass of " << c.name << ".";
    const Halide::Internal::Function fn = part.func.function();
    coconet_user_assert(fn.updates().empty())
        << where << name()
        << " has update definitions; only a pure, element-wise definition runs inside a pass.";
    coconet_user_assert((int)fn.args().size() == scatter->func.dimensions())
        << where << name() << " has " << fn.args().size() << " dimensions and " << c.name << " has "
        << scatter->func.dimensions() << "; a fused Func is element-wise over it.";
    // Every read of the collective (any of its forms) must be at the Func's own indices.
    auto is_collective = [&](const DFuncContents *f) {
        return f == scatter.get() || f == &c || (c.gathered && f == c.gathered.get());
    };
    std::vector<Halide::Expr> own;
    for (const std::string &v : fn.args()) {
        own.push_back(Halide::Var(v));
    }
    bool reads = false;
    for (const auto &def : definitions_of(part)) {
        for (const auto &call : distributed_calls(part, def)) {
            if (call.callee->fused_into == scatter) {
                reads = true; // a Func fused into the same pass
            }
            if (!is_collective(call.callee.get())) {
                continue;
            }
            reads = true;
            for (size_t d = 0; d < call.args.size(); d++) {
                const auto *v = call.args[d].as<Halide::Internal::Variable>();
                coconet_user_assert(v && !v->reduction_domain.defined() && v->name == fn.args()[d])
                    << where << name() << " reads " << call_text(call.callee->name, call.args)
                    << ", not at its own indices " << call_text(call.callee->name, own)
                    << "; only an element-wise consumer can be fused.";
            }
        }
    }
    coconet_user_assert(reads || gather) << where << name() << " reads neither " << c.name
                                         << " nor a Func fused with it; there is nothing to fuse.";
    coconet_user_assert(options.chunk_elements >= 0)
        << where << "chunk_elements " << options.chunk_elements << " < 0.";
    FuseOptions &current = scatter->fuse_options;
    coconet_user_assert(current.path == FusedPath::Auto || options.path == FusedPath::Auto ||
                        current.path == options.path)
        << where << "another Func fused with " << c.name << " asked for another path.";
    if (options.path != FusedPath::Auto) {
        current.path = options.path;
    }
    if (options.chunk_elements > 0) {
        current.chunk_elements = options.chunk_elements;
    }
    part.fused_into = scatter;
    return *this;
}

DFunc &DFunc::overlap(const DFunc &producer, int chunks, int dim) {
    coconet_user_assert(contents && producer.defined()) << "overlap on a null DFunc.";
    const DFuncContents &c = *contents;
    const std::string where = "overlap(" + c.name + ", " + producer.name() + ", " +
                              std::to_string(chunks) +
                              (dim >= 0 ? ", " + std::to_string(dim) : std::string()) + "): ";
    const bool chunkable =
        c.kind == FuncKind::Collective && (c.collective->kind == CollectiveKind::AllReduce ||
                                           c.collective->kind == CollectiveKind::ReduceScatter ||
                                           c.collective->kind == CollectiveKind::AllToAll);
    coconet_user_assert(chunkable)
        << where << c.name << " is "
        << (c.kind == FuncKind::Collective ? with_article(to_string(c.collective->kind))
                                           : std::string("not a collective"))
        << "; only an all_reduce, a reduce_scatter or an all_to_all is overlapped with its "
           "producer.";
    coconet_user_assert(c.collective->source == producer.get_contents())
        << where << c.name << " reads " << c.collective->source->name << ", not " << producer.name()
        << "; a collective overlaps with the Func it reads.";
    coconet_user_assert(producer.kind() == FuncKind::Compute)
        << where << producer.name() << " is not computed; an input has nothing to overlap.";
    coconet_user_assert(chunks >= 1) << where << "chunks must be at least 1.";
    coconet_user_assert(dimensions() >= 1) << where << c.name << " is a scalar.";
    coconet_user_assert(c.overlap_chunks == 0) << where << c.name << " is already overlapped.";
    coconet_user_assert(dim >= -1 && dim < dimensions())
        << where << "dimension " << dim << " is not a dimension of " << c.name << " ("
        << dimensions() << " dimensions; -1: the default).";
    // Chunk j of the producer must be computed by every rank (a part of it
    // each), not by the few ranks whose slice it falls in.
    const Layout from = infer_func(producer).layout;
    const int fallback = default_overlap_dim(dimensions(), from);
    coconet_user_assert(fallback >= 0)
        << where << producer.name() << " is " << from.to_string() << ", sliced along its only "
        << "dimension, so no chunk of it is computed by every rank.";
    coconet_user_assert(!(from.kind == LayoutKind::Sliced && from.dim == dim))
        << where << producer.name() << " is " << from.to_string()
        << ", so its ranks hold different ranges of dimension " << dim
        << "; chunk along another dimension (" << fallback << ", the default, works).";
    contents->overlap_chunks = chunks;
    contents->overlap_dim = dim;
    return *this;
}

int register_tile_columns(const Halide::Target &target) {
    using T = Halide::Target;
    return target.features_any_of({T::AVX512, T::AVX512_KNL, T::AVX512_Skylake,
                                   T::AVX512_Cannonlake, T::AVX512_Zen4, T::AVX512_Zen5,
                                   T::AVX512_SapphireRapids})
               ? 8
               : 6;
}

DFunc &DFunc::accumulate_in_registers(const Halide::Var &x, const Halide::Var &y, int x_factor,
                                      int y_factor) {
    coconet_user_assert(contents) << "accumulate_in_registers on a null DFunc.";
    const DFuncContents &c = *contents;
    const std::string where = "accumulate_in_registers(" + c.name + ", " + x.name() + ", " +
                              y.name() + ", " + std::to_string(x_factor) + ", " +
                              std::to_string(y_factor) + "): ";
    coconet_user_assert(c.kind == FuncKind::Compute && c.func.defined())
        << where << c.name << " is not a computed Func with a definition.";
    const Halide::Internal::Function fn = c.func.function();
    coconet_user_assert(!fn.updates().empty())
        << where << c.name << " has no update definition; there is nothing to accumulate.";
    const std::vector<std::string> &args = fn.args();
    for (const Halide::Var &v : {x, y}) {
        coconet_user_assert(std::find(args.begin(), args.end(), v.name()) != args.end())
            << where << v.name() << " is not a pure variable of " << c.name << ".";
    }
    coconet_user_assert(x.name() != y.name()) << where << "x and y are the same variable.";
    coconet_user_assert(x_factor >= 1 && y_factor >= 1) << where << "factors must be at least 1.";
    for (const auto &u : fn.updates()) {
        for (size_t d = 0; d < u.args().size(); d++) {
            const auto *v = u.args()[d].as<Halide::Internal::Variable>();
            coconet_user_assert(v && v->name == args[d])
                << where << c.name << " has an update writing at " << u.args()[d] << ", not at "
                << args[d] << "; only updates at the Func's own pure variables accumulate in "
                << "tiles.";
        }
    }
    coconet_user_assert(!c.register_tile) << where << c.name << " already accumulates in tiles.";
    contents->register_tile = DFuncContents::RegisterTile{x.name(), y.name(), x_factor, y_factor};
    return *this;
}

} // namespace coconet
