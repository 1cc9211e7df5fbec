#include "Rebuild.h"

#include "CollectiveStage.h"
#include "DefaultSchedule.h"
#include "Error.h"
#include "GpuSchedule.h"
#include "Lower.h"
#include "Partition.h"
#include "VectorMath.h"
#include "coconet_runtime.h"

namespace coconet {

using Halide::Expr;
using namespace Halide::Internal;

namespace {

class Rebuilder : public IRMutator {
public:
    Rebuilder(const DFuncContents &f, const FuncInfo &info, const CalleeMap &callee,
              Halide::Func &self, Expr rank, Expr world_size)
        : f(f), info(info), callee(callee), self(self), rank(rank), world_size(world_size) {}

    using IRMutator::mutate;

private:
    using IRMutator::visit;

    Expr visit(const Call *op) override {
        if (op->call_type == Call::PureExtern && op->name == "tanh_f32") {
            return vector_tanh(mutate(op->args[0]));
        }
        if (op->call_type != Call::Halide) {
            return IRMutator::visit(op);
        }
        std::vector<Expr> args;
        for (const Expr &a : op->args) {
            args.push_back(mutate(a));
        }
        Function fn(op->func);
        if (fn.same_as(f.func.function())) {
            return self(args);
        }
        if (auto c = Internal::find_dfunc(fn)) {
            return callee(*c)(args);
        }
        return Call::make(op->type, op->name, args, op->call_type, op->func, op->value_index,
                          op->image, op->param);
    }

    Expr visit(const Variable *op) override {
        if (!op->reduction_domain.defined()) {
            return op;
        }
        return Variable::make(op->type, op->name, domain_for(op->reduction_domain));
    }

    // One new reduction domain per original one, with sliced variables restricted.
    ReductionDomain domain_for(const ReductionDomain &old) {
        for (auto &p : domains) {
            if (p.first.same_as(old)) {
                return p.second;
            }
        }
        std::vector<ReductionVariable> vars;
        for (const ReductionVariable &rv : old.domain()) {
            ReductionVariable nv = rv;
            auto it = info.sliced_rvars.find(rv.var);
            if (it != info.sliced_rvars.end()) {
                ExprRange s = rank_slice(it->second.group, it->second.extent, rank, world_size);
                // Inside the slice even where the domain starts past its end:
                // an empty loop still asks for [lo, lo - 1] of the slice.
                Expr lo = Halide::min(Halide::max(rv.min, s.begin), s.end);
                Expr hi = Halide::min(rv.min + rv.extent, s.end);
                nv.min = lo;
                nv.extent = Halide::max(hi - lo, 0);
            }
            vars.push_back(nv);
        }
        ReductionDomain fresh(vars);
        domains.emplace_back(old, fresh);
        if (old.predicate().defined()) {
            fresh.set_predicate(mutate(old.predicate()));
        }
        return fresh;
    }

    const DFuncContents &f;
    const FuncInfo &info;
    const CalleeMap &callee;
    Halide::Func &self;
    Expr rank, world_size;
    std::vector<std::pair<ReductionDomain, ReductionDomain>> domains;
};

} // namespace

void copy_stage_schedule(const Definition &from, Definition &to) {
    if (!from.schedule().touched()) {
        return;
    }
    StageSchedule s = from.schedule().get_copy();
    s.rvars() = to.schedule().rvars();
    to.schedule() = s;
}

Halide::Func rebuild_compute(const DFuncContents &f, const FuncInfo &info, const CalleeMap &callee,
                             Expr rank, Expr world_size, const std::string &name) {
    Halide::Func out(name.empty() ? f.name : name);
    Rebuilder rebuilder(f, info, callee, out, rank, world_size);
    Function fn = f.func.function();
    std::vector<Halide::Var> pure;
    for (const std::string &name : fn.args()) {
        pure.emplace_back(name);
    }
    out(pure) = rebuilder.mutate(fn.definition().values()[0]);
    copy_stage_schedule(fn.definition(), out.function().definition());
    for (size_t i = 0; i < fn.updates().size(); i++) {
        const Definition &u = fn.updates()[i];
        std::vector<Expr> args;
        for (const Expr &a : u.args()) {
            args.push_back(rebuilder.mutate(a));
        }
        out(args) = rebuilder.mutate(u.values()[0]);
        copy_stage_schedule(u, out.function().update((int)i));
    }
    return out;
}

namespace {

// The tiles: the copy's loops tiled (tails guarded, so that Halide's loop
// partitioning leaves full tiles unguarded), the staging Func computed per
// tile with its storage bounded to the tile, which the compiler then keeps in
// registers; its reduction loops outside the tile, vectorized and unrolled on
// a CPU. With `gpu`, each tile is a GPU thread's, `block` threads a GPU
// block. GPU loops are not partitioned, so the staging Func is computed over
// the whole tile even at the box's edge (reading its operands at indices
// clamped to the box: see clamp_to_box) and only the copy is guarded, which
// keeps the contraction loop free of branches; that loop is unrolled by
// gpu_contraction_unroll (the next steps' loads issue while this step's
// multiply-adds run; the order of each sum stays). The loops are GPU blocks
// and threads where `nonempty` holds (CUDA refuses a launch of no blocks),
// elsewhere the same loops run, empty, on the host, so that the staging Func
// has its thread loop in both. On a CPU with `y_tiles_inside`, the loop over
// the tiles along y runs inside the one along x.
struct GpuTiles {
    std::pair<int, int> block;
    Expr nonempty;
};

constexpr int gpu_contraction_unroll = 4;

void schedule_tiles(const DFuncContents::RegisterTile &t, const std::optional<GpuTiles> &gpu,
                    bool y_tiles_inside, Halide::Func out, Halide::Func acc) {
    using Halide::Var;
    const Halide::TailStrategy guard = Halide::TailStrategy::GuardWithIf;
    Var x(t.x), y(t.y), xo(t.x + "_o"), yo(t.y + "_o"), xi(t.x + "_i"), yi(t.y + "_i");
    Var bx(t.x + "_block"), by(t.y + "_block"), tx(t.x + "_thread"), ty(t.y + "_thread");
    out.tile(x, y, xo, yo, xi, yi, t.x_factor, t.y_factor, guard).unroll(yi);
    // The staging Func's loops over its tile.
    auto tile_loops = [&](Halide::Stage s) {
        if (gpu) {
            s.unroll(x).unroll(y);
        } else {
            s.vectorize(x, t.x_factor, guard).unroll(y);
        }
    };
    if (gpu) {
        out.unroll(xi)
            .split(xo, bx, tx, gpu->block.first, guard)
            .split(yo, by, ty, gpu->block.second, guard)
            .reorder(xi, yi, tx, ty, bx, by);
        Halide::Stage on_gpu = Halide::Internal::is_const_one(gpu->nonempty)
                                   ? Halide::Stage(out)
                                   : out.specialize(gpu->nonempty);
        on_gpu.gpu_blocks(bx, by).gpu_threads(tx, ty);
        std::vector<Var> args = {x, y};
        for (const Var &v : out.args()) {
            if (v.name() != t.x && v.name() != t.y) {
                args.push_back(v);
            }
        }
        gpu_blocks_beyond_two(on_gpu, args);
        acc.compute_at(out, tx).bound_extent(x, t.x_factor).bound_extent(y, t.y_factor);
    } else {
        out.vectorize(xi);
        if (y_tiles_inside) {
            out.reorder(xi, yi, yo, xo);
        }
        acc.compute_at(out, y_tiles_inside ? yo : xo)
            .bound_storage(x, t.x_factor)
            .bound_storage(y, t.y_factor);
    }
    tile_loops(acc);
    for (int i = 0; i < (int)acc.function().updates().size(); i++) {
        std::vector<Halide::VarOrRVar> order = {x, y};
        const std::vector<ReductionVariable> &rvars = acc.function().update(i).schedule().rvars();
        for (const ReductionVariable &r : rvars) {
            order.emplace_back(Halide::RVar(r.var));
        }
        Halide::Stage update = acc.update(i).reorder(order);
        tile_loops(update);
        if (gpu && !rvars.empty()) {
            update.unroll(Halide::RVar(rvars[0].var), gpu_contraction_unroll, guard);
        }
    }
}

// Makes fn's values read at its pure variables clamped to `box` (each
// variable's first and last index), where they are not the update's own
// element: a tile computed past the box's edge then reads only what the box
// reads, and its elements there, which no one copies, repeat the edge's.
void clamp_to_box(Function fn, const std::map<std::string, std::pair<Expr, Expr>> &box) {
    class Clamp : public IRMutator {
    public:
        Clamp(const std::string &self, const std::map<std::string, std::pair<Expr, Expr>> &box)
            : self(self), box(box) {}

    private:
        using IRMutator::visit;
        Expr visit(const Variable *op) override {
            auto it = box.find(op->name);
            if (it == box.end() || op->reduction_domain.defined() || op->param.defined()) {
                return op;
            }
            return Halide::clamp(Expr(op), it->second.first, it->second.second);
        }
        Expr visit(const Call *op) override {
            return op->name == self ? Expr(op) : IRMutator::visit(op);
        }
        const std::string &self;
        const std::map<std::string, std::pair<Expr, Expr>> &box;
    } clamp(fn.name(), box);
    std::vector<Definition> defs = {fn.definition()};
    defs.insert(defs.end(), fn.updates().begin(), fn.updates().end());
    for (Definition &d : defs) {
        for (Expr &v : d.values()) {
            v = clamp.mutate(v);
        }
    }
}

// An operand of a MatMul given to a device's BLAS, as its extern stage takes
// it: an input buffer's parameter itself (the Func that wraps it would be
// realized into a copy), otherwise the Func that computes it.
Halide::ExternFuncArgument gemm_operand(const Call *c) {
    const Call *image = c->call_type == Call::Image ? c : nullptr;
    const Function fn(c->func);
    if (!image && fn.updates().empty() && !fn.has_extern_definition()) {
        // ImageParam's Func: f(_0, _1) = the parameter at (_0, _1).
        const Call *wrapped = fn.definition().values()[0].as<Call>();
        bool plain = wrapped && wrapped->call_type == Call::Image;
        for (size_t i = 0; plain && i < wrapped->args.size(); i++) {
            const Variable *v = wrapped->args[i].as<Variable>();
            plain = v && v->name == fn.args()[i];
        }
        image = plain ? wrapped : nullptr;
    }
    if (image && image->param.defined()) {
        return Halide::ExternFuncArgument(image->param);
    }
    return Halide::ExternFuncArgument(c->func);
}

// f as one extern stage, coconet_gemm, that `api`'s BLAS runs (its operands
// and the rank's range of its contraction from its rebuilt definitions); one
// whose initial value is not 0 as that value plus the stage's product.
Halide::Func rebuild_as_gemm(const DFuncContents &f, const FuncInfo &info, const CalleeMap &callee,
                             Expr rank, Expr world_size, Expr user_context, Halide::DeviceAPI api) {
    const Halide::Func definition =
        rebuild_compute(f, info, callee, rank, world_size, f.name + "_definition");
    const Function fn = definition.function();
    const std::optional<GemmForm> form = gemm_form(fn);
    coconet_internal_assert(form) << f.name << " lost its MatMul form in the rebuild";
    const ReductionVariable &r = fn.updates()[0].schedule().rvars()[0];
    coconet_gemm_desc d;
    coconet_gemm_desc_init(&d, runtime_device_api(api));
    d.dims = fn.dimensions();
    d.a_dims = (int32_t)form->a_walks.size();
    d.b_dims = (int32_t)form->b_walks.size();
    std::copy(form->a_walks.begin(), form->a_walks.end(), d.a_walks);
    std::copy(form->b_walks.begin(), form->b_walks.end(), d.b_walks);
    std::vector<Halide::ExternFuncArgument> args;
    args.emplace_back(user_context);
    args.emplace_back(Expr(StringImm::make(f.name)));
    args.emplace_back(desc_buffer(d, f.name + "_gemm"));
    for (const Expr &e :
         {make_device_interface_call(api),
          Halide::cast<int32_t>(rank_box_nonempty(info, rank, world_size)), r.min, r.extent}) {
        args.emplace_back(e);
    }
    args.push_back(gemm_operand(form->a));
    args.push_back(gemm_operand(form->b));
    std::vector<Halide::Var> vars;
    for (const std::string &v : fn.args()) {
        vars.emplace_back(v);
    }
    Halide::Func product(form->zero_init ? f.name : f.name + "_product");
    product.define_extern("coconet_gemm", args, Halide::Float(32), vars, Halide::NameMangling::C,
                          api);
    if (form->zero_init) {
        return product;
    }
    product.compute_root();
    Halide::Func out(f.name);
    out(vars) = fn.definition().values()[0] + product(vars);
    return out;
}

} // namespace

bool has_stage_directives(const Function &fn) {
    bool touched = fn.definition().schedule().touched();
    for (const Definition &u : fn.updates()) {
        touched = touched || u.schedule().touched();
    }
    return touched;
}

std::map<std::string, Function> pipeline_functions(const Halide::Pipeline &p) {
    std::vector<Function> outputs;
    for (const Halide::Func &f : p.outputs()) {
        outputs.push_back(f.function());
    }
    return build_environment(outputs);
}

std::string plain_name(const std::string &unique_name) {
    return unique_name.substr(0, unique_name.find('$'));
}

bool writes_at_pure_vars(const Function &fn, const Definition &u) {
    if (u.args().size() != fn.args().size()) {
        return false;
    }
    for (size_t i = 0; i < u.args().size(); i++) {
        const Variable *v = u.args()[i].as<Variable>();
        if (!v || v->reduction_domain.defined() || v->name != fn.args()[i]) {
            return false;
        }
    }
    return true;
}

Halide::Func rebuild_scheduled(const DFuncContents &f, const FuncInfo &info,
                               const CalleeMap &callee, Expr rank, Expr world_size,
                               Expr user_context, const DefaultSchedule *default_schedule) {
    const DFuncContents::RegisterTile *tile = f.register_tile ? &*f.register_tile
                                              : default_schedule && default_schedule->tile
                                                  ? &*default_schedule->tile
                                                  : nullptr;
    if (!f.register_tile && default_schedule &&
        default_schedule->library_gemm != Halide::DeviceAPI::None) {
        return rebuild_as_gemm(f, info, callee, rank, world_size, user_context,
                               default_schedule->library_gemm);
    }
    const Expr threads = rank_threads(user_context);
    // The rank's iterations of the loop over pure variable `var`, `per_step` at a time.
    auto iterations = [&](const std::string &var, int per_step) {
        const std::vector<std::string> &args = f.func.function().args();
        const int d = (int)(std::find(args.begin(), args.end(), var) - args.begin());
        const ExprRange r = rank_box_range(info, d, rank, world_size);
        return (r.end - r.begin + per_step - 1) / per_step;
    };
    if (!tile) {
        Halide::Func out = rebuild_compute(f, info, callee, rank, world_size);
        if (default_schedule && default_schedule->part_rows) {
            add_in_parts(*default_schedule, out, threads);
        } else if (default_schedule) {
            const DefaultSchedule &s = *default_schedule;
            apply_default_vectors(s, out);
            if (s.row_tile) {
                // A row group's root: its members are computed at each tile (LowerSpmd).
                const std::string row = f.func.function().args().back(),
                                  tiles = row_tiles_loop(f.func.function());
                out.split(Halide::Var(row), Halide::Var(tiles), Halide::Var(row + "_i"), s.row_tile,
                          Halide::TailStrategy::GuardWithIf);
                if (!s.tasks.empty()) {
                    run_in_tasks(out, tiles, iterations(row, s.row_tile), threads);
                }
            } else if (!s.tasks.empty()) {
                const Expr n = iterations(s.tasks, s.tasks == s.x ? s.lanes : 1);
                run_in_tasks(out, s.tasks, n, threads);
                for (const std::vector<int> *updates :
                     {&s.reordered_updates, &s.gathered_updates, &s.transposed_updates}) {
                    for (int i : *updates) {
                        run_in_tasks(out.update(i), s.tasks, n, threads);
                    }
                }
            }
        }
        return out;
    }
    coconet_user_assert(!has_stage_directives(f.func.function()))
        << f.name << " accumulates in registers (accumulate_in_registers) and also has Halide "
        << "directives on its definitions; the tiles decide its loops, so drop one of them.";
    Halide::Func acc = rebuild_compute(f, info, callee, rank, world_size, f.name + "_acc");
    Halide::Func out(f.name);
    out(acc.args()) = acc(acc.args());
    // The user's tiles are a CPU schedule (on a GPU target, a host stage).
    if (!f.register_tile && default_schedule->gpu_block) {
        const GpuTiles gpu{*default_schedule->gpu_block, rank_box_nonempty(info, rank, world_size)};
        std::map<std::string, std::pair<Expr, Expr>> box;
        const std::vector<std::string> args = acc.function().args();
        for (int d = 0; d < (int)args.size(); d++) {
            const ExprRange r = rank_box_range(info, d, rank, world_size);
            box[args[d]] = {r.begin, r.end - 1};
        }
        clamp_to_box(acc.function(), box);
        schedule_tiles(*tile, gpu, false, out, acc);
        return out;
    }
    const std::string tasks = f.register_tile ? task_variable(f.func.function(), info.extents, true)
                                              : default_schedule->tasks;
    // The user's tiles keep the order they were measured in.
    const bool panels = !f.register_tile && default_schedule->y_tiles_inside;
    const Halide::Var x_tiles(tile->x + "_o");
    if (panels) {
        read_operands_in_panels(acc, tile->x, tile->x_factor, out, x_tiles);
    } else {
        read_operands_transposed(acc, tile->x, tasks.empty() ? Expr() : threads);
    }
    schedule_tiles(*tile, std::nullopt, panels, out, acc);
    if (tasks == tile->x) {
        // A task per tile, each copying its own panels. (In tasks of several
        // tiles, a guarded split, Halide's bounds of a Func sized at run time
        // no longer show the tiles inside whole: their vectors then run as
        // loops, the sums in memory.)
        out.specialize(threads > 1).parallel(x_tiles);
    } else if (!tasks.empty()) {
        run_in_tasks(out, tile->y + "_o", iterations(tile->y, tile->y_factor), threads);
    }
    return out;
}

} // namespace coconet
