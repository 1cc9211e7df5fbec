#include "DefaultSchedule.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <set>

#include "Error.h"
#include "Rebuild.h"
#include "coconet_runtime.h"
#include "core/Env.h"

namespace coconet {

using namespace Halide::Internal;

namespace {

// The register tiles of a default MatMul: 16 rows of x (two AVX2 vectors, one
// AVX-512 one) by register_tile_columns(target) of y.
constexpr int tile_rows = 16;

// The tiles in which an operand is copied transposed: 8 x 8 for a MatMul's
// (read_operands_transposed), a vector by 8 steps of a sum read across the
// vectors (transpose_rows).
constexpr int transpose_tile = 8;

// A GPU thread's register tile of a default MatMul, and the threads of a
// block (tiles along x, along y): each step of the contraction loads 4 + 8
// operands for 32 multiply-adds, where a thread per element loads 2 for 1.
constexpr int gpu_tile_x = 4, gpu_tile_y = 8, gpu_block_x = 16, gpu_block_y = 8;

// On a GPU, a thread per register tile leaves most of the GPU idle where the
// tiles are fewer than gpu_min_tiles; along a contraction of
// gpu_long_contraction or more (a few tokens by a large weight), the GPU pass
// fills it better, adding each element's sum in parts (GpuSchedule.h).
constexpr int64_t gpu_min_tiles = 8192, gpu_long_contraction = 512;

// Outputs up to this many bytes stay in L1 while a reduction sweeps them:
// their reduction loops then go outside all their pure loops (a GEMV's sums
// over each few columns of the matrix, which streams through once).
constexpr int64_t cached_output_bytes = 32 * 1024;

// A default MatMul whose y is the longer and whose operand read along x takes
// at most this many bytes (x by the whole contraction, global extents) runs
// its tiles along x inside those along y: that operand then stays in L2 while
// each tile along y passes over it. Any other runs them the other way round,
// reading that operand from panels, and streams the operand read along y.
constexpr int64_t cached_x_operand_bytes = 512 * 1024;

// A default MatMul of this many tiles along x or more runs a task per tile
// along x, each copying its own panels; one of fewer (a short x, a head's
// features) runs its tiles along y in a task per thread, each task copying
// every panel (all of that operand, then small).
constexpr int64_t min_x_tasks = 32;

// A transposed copy of a MatMul's operand made on the rank's threads is
// split into tasks of this many rows of tiles.
constexpr int copy_tile_rows_per_task = 8;

// A Func computing fewer values and reduction steps than this (its global
// extents' estimates) runs on one thread: starting tasks on others costs
// microseconds, about what a core computes of this much.
constexpr int64_t min_task_work = 1 << 18;

// A Func of at most this many elements (global extents) whose update is a
// long reduction is added in parts (DefaultSchedule::part_rows): its own
// vectors leave too few sums in flight, and no task of its elements.
constexpr int64_t few_sums = 64;

// A row group's members take at most this many bytes per tile of rows
// (global extents), so that they stay in L2 from the pass that writes them to
// the last that reads them.
constexpr int64_t row_group_bytes = 256 * 1024;

// A row group's root has at least this many tiles along its rows (global
// extents): fewer would leave its tasks, which now compute the members too,
// too few to share.
constexpr int64_t min_row_tiles = 32;

// The pure variables and reduction variables an expression reads.
struct IndexVars : public IRVisitor {
    std::set<std::string> pure;
    bool reduction = false;

    using IRVisitor::visit;
    void visit(const Variable *op) override {
        if (op->reduction_domain.defined()) {
            reduction = true;
        } else {
            pure.insert(op->name);
        }
    }
};

// What each call to a Func or buffer in `e` is indexed by (calls within its
// arguments included): all its arguments, and its first (innermost) one.
struct Operand {
    IndexVars all, first;
};
std::vector<Operand> operands(const Halide::Expr &e) {
    struct Calls : public IRVisitor {
        std::vector<Operand> found;
        using IRVisitor::visit;
        void visit(const Call *op) override {
            if (op->call_type == Call::Halide || op->call_type == Call::Image) {
                Operand o;
                for (const Halide::Expr &arg : op->args) {
                    arg.accept(&o.all);
                }
                if (!op->args.empty()) {
                    op->args[0].accept(&o.first);
                }
                found.push_back(o);
            }
            IRVisitor::visit(op);
        }
    } calls;
    e.accept(&calls);
    return calls.found;
}

// Whether every operand of `e` that varies along x varies along it only in
// its innermost dimension: vectors along x then load contiguous memory, where
// an x further out would make every lane a load of its own.
bool contiguous_along(const Halide::Expr &e, const std::string &x) {
    for (const Operand &o : operands(e)) {
        if (o.all.pure.count(x) && !o.first.pure.count(x)) {
            return false;
        }
    }
    return true;
}

// Whether e is variable `name`.
bool is_variable(const Halide::Expr &e, const std::string &name) {
    const Variable *v = e.as<Variable>();
    return v && v->name == name;
}

// The argument of call c that reads pure variable x, where exactly one does
// and it is not c's first (innermost); otherwise -1. Where reduction variable
// `along` is named, c's first argument must be it and the one reading x must
// be x itself (a tile of the copy is then as large as the loops over it).
int strided_argument(const Call *c, const std::string &x, const std::string &along = "") {
    if ((c->call_type != Call::Halide && c->call_type != Call::Image) || c->args.size() < 2 ||
        (!along.empty() && !is_variable(c->args[0], along))) {
        return -1;
    }
    int found = -1;
    for (int i = 0; i < (int)c->args.size(); i++) {
        IndexVars v;
        c->args[i].accept(&v);
        if (v.pure.count(x)) {
            if (found >= 0) {
                return -1;
            }
            found = i;
        }
    }
    return found > 0 && (along.empty() || is_variable(c->args[found], x)) ? found : -1;
}

// The argument of call c that is pure variable x itself, where no other
// reads x and some other reads a reduction variable (the operand a MatMul's
// tiles load along x at each step of its contraction); otherwise -1.
int panel_argument(const Call *c, const std::string &x) {
    if ((c->call_type != Call::Halide && c->call_type != Call::Image) || c->args.size() < 2) {
        return -1;
    }
    int found = -1;
    bool reduction = false;
    for (int i = 0; i < (int)c->args.size(); i++) {
        IndexVars v;
        c->args[i].accept(&v);
        if (v.pure.count(x)) {
            if (found >= 0 || !is_variable(c->args[i], x)) {
                return -1;
            }
            found = i;
        } else {
            reduction = reduction || v.reduction;
        }
    }
    return reduction ? found : -1;
}

// `args` with its k-th moved to the front.
template<typename T>
std::vector<T> with_first(std::vector<T> args, int k) {
    std::rotate(args.begin(), args.begin() + k, args.begin() + k + 1);
    return args;
}

// Which argument of a call to store innermost in a copy of its callee, or -1:
// the call is read in place.
using CallPick = std::function<int(const Call *)>;

// Rewrites the calls `pick` picks to calls of a copy of each callee that stores that
// argument innermost (`<callee><suffix>`), which `schedule` schedules (given
// the copy's variables as stored, the picked one first, then the callee's
// others in order, and the picked argument's index: 0 where the copy keeps
// the callee's order).
class ReadThroughCopies : public IRMutator {
public:
    using Schedule = std::function<void(Halide::Func, const std::vector<Halide::Var> &, int)>;
    ReadThroughCopies(CallPick pick, std::string suffix, Schedule schedule)
        : pick(std::move(pick)), suffix(std::move(suffix)), schedule(std::move(schedule)) {}

    // Rewrites the values of every update of f in `updates`.
    void rewrite(Halide::Func f, const std::vector<int> &updates) {
        self = f.name();
        for (int i : updates) {
            Definition u = f.function().update(i);
            for (Halide::Expr &v : u.values()) {
                v = mutate(v);
            }
        }
    }

    // The same for every update of f.
    void rewrite(Halide::Func f) {
        std::vector<int> updates((size_t)f.function().updates().size());
        std::iota(updates.begin(), updates.end(), 0);
        rewrite(f, updates);
    }

private:
    using IRMutator::visit;
    Halide::Expr visit(const Call *op) override {
        // f's reads of itself (tiles along (y, x)) stay: a copy of f would be a cycle.
        const int k = op->name == self ? -1 : pick(op);
        if (k < 0) {
            return IRMutator::visit(op);
        }
        std::vector<Halide::Expr> args;
        for (const Halide::Expr &a : op->args) {
            args.push_back(mutate(a));
        }
        const std::string key = op->name + "." + std::to_string(op->value_index);
        auto it = copies.find(key);
        if (it == copies.end()) {
            std::vector<Halide::Var> vars;
            std::vector<Halide::Expr> at;
            for (size_t i = 0; i < op->args.size(); i++) {
                vars.emplace_back("c" + std::to_string(i));
                at.push_back(vars.back());
            }
            Halide::Func copy(plain_name(op->name) + suffix);
            const std::vector<Halide::Var> stored = with_first(vars, k);
            copy(stored) = Call::make(op->type, op->name, at, op->call_type, op->func,
                                      op->value_index, op->image, op->param);
            schedule(copy, stored, k);
            it = copies.emplace(key, copy).first;
        }
        return it->second(with_first(args, k));
    }

    const CallPick pick;
    const std::string suffix;
    std::string self;
    const Schedule schedule;
    std::map<std::string, Halide::Func> copies;
};

// Tiles of a x b of a transposed copy's first two stored variables, vectorized
// along both, the callee's first innermost: Halide loads its rows whole and
// transposes them in registers.
void transpose_in_tiles(Halide::Func copy, const std::vector<Halide::Var> &stored, int a, int b) {
    const Halide::Var ai(stored[0].name() + "_i"), bi(stored[1].name() + "_i");
    copy.tile(stored[0], stored[1], ai, bi, a, b, Halide::TailStrategy::GuardWithIf)
        .reorder(bi, ai)
        .vectorize(ai)
        .vectorize(bi);
}

// Whether some update of fn contracts an operand that does not depend on y
// with one that does not depend on x (fn's first two pure variables): each
// is then reused across a tile's other dimension, which registers hold.
bool is_matmul(const Function &fn) {
    if (fn.dimensions() < 2 || fn.output_types()[0] != Halide::Float(32) || fn.updates().empty()) {
        return false;
    }
    const std::string &x = fn.args()[0], &y = fn.args()[1];
    bool contracts = false;
    for (const Definition &u : fn.updates()) {
        if (!writes_at_pure_vars(fn, u) || u.schedule().rvars().empty()) {
            return false;
        }
        bool along_x = false, along_y = false;
        for (const Operand &o : operands(u.values()[0])) {
            const IndexVars &v = o.all;
            along_x = along_x || (v.reduction && v.pure.count(x) && !v.pure.count(y));
            along_y = along_y || (v.reduction && v.pure.count(y) && !v.pure.count(x));
        }
        contracts = contracts || (along_x && along_y);
    }
    return contracts;
}

// Whether fn's GPU register tiles are too few for its long contraction
// (extents: its own, estimated; an unknown contraction counts as short).
bool too_few_gpu_tiles(const Function &fn, const std::vector<int64_t> &extents) {
    int64_t tiles =
        ((extents[0] + gpu_tile_x - 1) / gpu_tile_x) * ((extents[1] + gpu_tile_y - 1) / gpu_tile_y);
    for (size_t d = 2; d < extents.size(); d++) {
        tiles *= extents[d];
    }
    const std::vector<ReductionVariable> &rvars = fn.updates()[0].schedule().rvars();
    return tiles < gpu_min_tiles && !rvars.empty() &&
           estimate(rvars.front().extent, 0) >= gpu_long_contraction;
}

// Whether u's reduction runs fewer than DefaultSchedule::short_reduction
// iterations, all its extents constant.
bool short_reduction(const Definition &u) {
    int64_t iterations = 1;
    for (const ReductionVariable &rv : u.schedule().rvars()) {
        const std::optional<int64_t> extent = as_const_int(rv.extent);
        if (!extent) {
            return false;
        }
        iterations *= *extent;
        if (iterations >= DefaultSchedule::short_reduction) {
            return false;
        }
    }
    return true;
}

// The steps of the outermost reduction variable in each part where
// DefaultSchedule::part_rows adds fn in parts (about part_steps steps in
// all), or 0 where it does not: one update at its pure variables, long
// enough, without a predicate, of one value whose operation Halide can
// reorder (rfactor's condition): any such operation of integers, which is
// exact in any order, and a sum of floats, which is the same within rounding.
// A float min or max keeps its order: which NaN among its values wins, and
// a zero's sign, depend on it; so does whether a float product overflows.
int64_t part_rows(const Function &fn) {
    if (fn.updates().size() != 1 || !writes_at_pure_vars(fn, fn.update(0))) {
        return 0;
    }
    const Definition &u = fn.update(0);
    const std::vector<ReductionVariable> &rvars = u.schedule().rvars();
    if (rvars.empty() || u.values().size() != 1 || !is_const_one(u.predicate())) {
        return 0;
    }
    int64_t steps = 1, inner = 1; // all of them; those of the inner variables
    for (size_t k = 0; k < rvars.size(); k++) {
        const int64_t e = std::max<int64_t>(estimate(rvars[k].extent, 1 << 20), 1);
        steps *= e;
        inner *= k + 1 < rvars.size() ? e : 1;
    }
    const AssociativeOp op = prove_associativity(fn.name(), u.args(), u.values());
    if (steps < DefaultSchedule::min_part_steps || !op.associative() || !op.commutative() ||
        (u.values()[0].type().is_float() && !op.pattern.ops[0].as<Halide::Internal::Add>())) {
        return 0;
    }
    return std::max<int64_t>(1, DefaultSchedule::part_steps / inner);
}

bool long_innermost_rvar(const Definition &u) {
    if (u.schedule().rvars().empty()) {
        return false;
    }
    const std::optional<int64_t> extent = as_const_int(u.schedule().rvars().front().extent);
    return extent && *extent >= 2 * DefaultSchedule::unroll;
}

// The plain name of a device's BLAS, for the plan.
std::string blas_name(Halide::DeviceAPI api) {
    return api == Halide::DeviceAPI::CUDA ? "cuBLAS" : "CLBlast";
}

// Whether e is a call of a Func or buffer of float32 at two to four plain
// variables.
const Call *plain_call(const Halide::Expr &e) {
    const Call *c = e.as<Call>();
    if (!c || (c->call_type != Call::Halide && c->call_type != Call::Image) ||
        c->type != Halide::Float(32) || c->args.size() < 2 || c->args.size() > COCONET_STAGE_DIMS ||
        c->value_index != 0) {
        return nullptr;
    }
    for (const Halide::Expr &a : c->args) {
        if (!a.as<Variable>()) {
            return nullptr;
        }
    }
    return c;
}

// The index of the argument of c that is variable `name`, or -1.
int argument_named(const Call *c, const std::string &name) {
    for (int i = 0; i < (int)c->args.size(); i++) {
        if (c->args[i].as<Variable>()->name == name) {
            return i;
        }
    }
    return -1;
}

// The vectors of a sum read through transposed tiles: square tiles, where
// wider ones (AVX-512's 16 lanes) shuffle more than they save.
int rows_lanes(const DefaultSchedule &s) {
    return std::min(s.lanes, transpose_tile);
}

// Whether update u, read across the vectors along x, reads an operand
// strided along x whose first argument walks u's innermost reduction, of
// transpose_tile steps or more (or a run-time count): tiles of it then load
// whole rows.
bool transposable_rows(const Definition &u, const std::string &x) {
    const std::vector<ReductionVariable> &rvars = u.schedule().rvars();
    if (rvars.empty()) {
        return false;
    }
    const std::optional<int64_t> extent = as_const_int(rvars[0].extent);
    if (extent && *extent < transpose_tile) {
        return false;
    }
    struct Calls : public IRVisitor {
        const std::string &x, &along;
        bool found = false;
        Calls(const std::string &x, const std::string &along) : x(x), along(along) {}
        using IRVisitor::visit;
        void visit(const Call *op) override {
            found = found || strided_argument(op, x, along) >= 0;
            IRVisitor::visit(op);
        }
    } calls(x, rvars[0].var);
    for (const Halide::Expr &v : u.values()) {
        v.accept(&calls);
    }
    return calls.found;
}

// Update i of f, read across its vectors (transposable_rows): its innermost
// reduction in steps of transpose_tile just outside each vector of
// rows_lanes(s), unrolled, each step's operands read from a tile copied
// transposed in registers. Each lane still adds its terms in their order.
void transpose_rows(const DefaultSchedule &s, Halide::Func f, int i) {
    const Halide::TailStrategy guard = Halide::TailStrategy::GuardWithIf;
    const std::vector<ReductionVariable> rvars = f.function().update(i).schedule().rvars();
    // The steps' loop named for the update: Halide finds a copy's loop by
    // name in any of f's stages.
    const std::string steps = rvars[0].var + "_steps" + std::to_string(i);
    const Halide::RVar r(rvars[0].var), outer(steps), inner(rvars[0].var + "_i");
    const Halide::Var x(s.x), vector(s.x + "_v");
    const int lanes = rows_lanes(s);
    Halide::Stage stage = f.update(i);
    stage.split(r, outer, inner, transpose_tile, guard).split(x, x, vector, lanes, guard);
    std::vector<Halide::VarOrRVar> order = {vector, inner, outer};
    for (size_t k = 1; k < rvars.size(); k++) {
        order.emplace_back(Halide::RVar(rvars[k].var));
    }
    for (const std::string &v : f.function().args()) {
        order.emplace_back(Halide::Var(v));
    }
    stage.reorder(order).vectorize(vector).unroll(inner);
    ReadThroughCopies read([&](const Call *c) { return strided_argument(c, s.x, rvars[0].var); },
                           "_transposed",
                           [&](Halide::Func copy, const std::vector<Halide::Var> &stored, int) {
                               // A tile's storage of constant size: on the stack, its rows at a
                               // constant stride.
                               copy.compute_at(f, outer)
                                   .bound_storage(stored[0], lanes)
                                   .bound_storage(stored[1], transpose_tile);
                               transpose_in_tiles(copy, stored, lanes, transpose_tile);
                           });
    read.rewrite(f, {i});
}

// Whether `reader` reads `callee`, each time at reader's outermost pure
// variable in callee's outermost argument: a row of the reader then needs
// only the same row of callee. (A group's readers write at their own rows:
// its root has no updates, its members pass updates_write_rows.)
bool reads_only_rows(const DFuncContents &reader, const DFuncContents &callee) {
    const std::string &row = reader.func.function().args().back();
    bool any = false;
    for (const Definition &def : definitions_of(reader)) {
        for (const DistributedCall &call : distributed_calls(reader, def)) {
            if (call.callee.get() == &callee) {
                if (call.args.empty() || !is_variable(call.args.back(), row)) {
                    return false;
                }
                any = true;
            }
        }
    }
    return any;
}

// Whether every update of fn writes at fn's outermost pure variable: a tile
// of its rows is then computed from those rows alone.
bool updates_write_rows(const Function &fn) {
    for (const Definition &u : fn.updates()) {
        if (!is_variable(u.args().back(), fn.args().back())) {
            return false;
        }
    }
    return true;
}

// Whether s, in parts, keeps its vectors along its first dimension x (its
// update reads along x contiguously) rather than along the innermost
// reduction variable.
bool parts_along_x(const DefaultSchedule &s) {
    return !s.x.empty() && !s.reordered_updates.empty();
}

// What the plan says of s in parts (part_rows) of fn's reduction.
std::string parts_why(const DefaultSchedule &s, const Function &fn) {
    const std::vector<ReductionVariable> &rvars = fn.update(0).schedule().rvars();
    std::string outer = rvars.back().var;
    std::replace(outer.begin(), outer.end(), '$', '.');
    const std::string vectors = std::to_string(DefaultSchedule::part_vectors) + " vectors";
    return (parts_along_x(s) ? "vectors of " + std::to_string(s.lanes) + " along " + s.x + ", "
                             : std::string()) +
           "added in parts of " + std::to_string(s.part_rows) + " steps" +
           (rvars.size() > 1 ? " of " + outer : "") + ", each in " +
           (parts_along_x(s) ? vectors + " of sums"
                             : vectors + " of " + std::to_string(s.lanes) + " sums") +
           ", the parts in tasks on the rank's threads, then in order: an order of additions of "
           "its own";
}

// What the plan says of s: its choice, then its tasks (tiles of a MatMul or a
// row group's root, or the loop along a pure variable).
std::string plan_line(const DefaultSchedule &s) {
    if (s.tasks.empty()) {
        return s.why;
    }
    if (s.tile && s.tasks == s.tile->x) {
        return s.why + ", a task per tile along " + s.tasks;
    }
    return s.why + ", its " + (s.tile || s.row_tile ? "tiles along " : "") + s.tasks +
           " in a task per thread of the rank";
}

} // namespace

std::optional<GemmForm> gemm_form(const Function &fn) {
    if (fn.dimensions() < 2 || fn.dimensions() > COCONET_STAGE_DIMS || fn.outputs() != 1 ||
        fn.has_extern_definition() || fn.output_types()[0] != Halide::Float(32) ||
        fn.updates().size() != 1) {
        return std::nullopt;
    }
    const Definition &u = fn.updates()[0];
    const std::vector<ReductionVariable> &rvars = u.schedule().rvars();
    if (!writes_at_pure_vars(fn, u) || rvars.size() != 1 || !is_const_one(u.predicate())) {
        return std::nullopt;
    }
    const Add *add = u.values()[0].as<Add>();
    if (!add) {
        return std::nullopt;
    }
    const Call *self = add->a.as<Call>();
    const Mul *product = add->b.as<Mul>();
    if (!self || !self->func.same_as(fn.get_contents())) {
        self = add->b.as<Call>();
        product = add->a.as<Mul>();
    }
    bool at_own_element = self && self->func.same_as(fn.get_contents()) && product;
    for (int d = 0; at_own_element && d < fn.dimensions(); d++) {
        at_own_element = argument_named(self, fn.args()[d]) == d;
    }
    if (!at_own_element) {
        return std::nullopt;
    }
    // What each argument of an operand walks: f's dimension, or the sum.
    auto walks_of = [&](const Call *c) {
        std::vector<int> walks;
        for (const Halide::Expr &arg : c->args) {
            const std::string &v = arg.as<Variable>()->name;
            const auto it = std::find(fn.args().begin(), fn.args().end(), v);
            walks.push_back(v == rvars[0].var       ? COCONET_GEMM_K
                            : it != fn.args().end() ? (int)(it - fn.args().begin())
                                                    : -2);
        }
        return walks;
    };
    GemmForm form;
    form.zero_init = is_const_zero(fn.definition().values()[0]);
    for (const Halide::Expr &side : {product->a, product->b}) {
        const Call *c = plain_call(side);
        if (!c) {
            return std::nullopt;
        }
        const std::vector<int> walks = walks_of(c);
        auto has = [&](int w) { return std::count(walks.begin(), walks.end(), w); };
        for (int w : walks) {
            if (w == -2 || has(w) != 1) {
                return std::nullopt; // another variable, or one used twice
            }
        }
        if (has(COCONET_GEMM_K) && has(0) && !has(1) && !form.a) {
            form.a = c;
            form.a_walks = walks;
        } else if (has(COCONET_GEMM_K) && has(1) && !has(0) && !form.b) {
            form.b = c;
            form.b_walks = walks;
        } else {
            return std::nullopt;
        }
    }
    return form;
}

Halide::DeviceAPI library_gemm_api(const Halide::Target &t, const std::string &mode) {
    const std::string chosen =
        !mode.empty()
            ? mode
            : coconet_rt::env_choice("COCONET_GPU_MATMUL", {"auto", "library", "kernels"});
    coconet_user_assert(chosen == "auto" || chosen == "library" || chosen == "kernels")
        << "gpu_matmul=" << chosen << ": expected auto, library or kernels.";
    const Halide::DeviceAPI api = t.get_required_device_api();
    if (api != Halide::DeviceAPI::CUDA && api != Halide::DeviceAPI::OpenCL) {
        return Halide::DeviceAPI::None;
    }
    return chosen == "library" || (chosen == "auto" && api == Halide::DeviceAPI::CUDA)
               ? api
               : Halide::DeviceAPI::None;
}

DefaultSchedules choose_default_schedules(const Analysis &a, const Liveness &liveness,
                                          const Halide::Target &target,
                                          const std::string &gpu_matmul) {
    const Halide::DeviceAPI blas =
        target.has_gpu_feature() ? library_gemm_api(target, gpu_matmul) : Halide::DeviceAPI::None;
    DefaultSchedules d;
    for (const DFunc &f : a.order) {
        const DFuncContents *c = f.get_contents().get();
        auto role = liveness.role.find(c);
        if (c->kind != FuncKind::Compute || role == liveness.role.end() ||
            role->second != FuncRole::Halide || c->register_tile) {
            continue;
        }
        const Function fn = c->func.function();
        // A run-time size without an estimate counts as large.
        std::vector<int64_t> extents;
        for (const Halide::Expr &e : a.of(c).extents) {
            extents.push_back(estimate(e, 1 << 20));
        }
        if (has_stage_directives(fn)) {
            continue;
        }
        DefaultSchedule s;
        const bool gpu = target.has_gpu_feature();
        if (fn.dimensions() == 0) {
            s.part_rows = gpu ? 0 : part_rows(fn);
            if (s.part_rows) {
                s.lanes = target.natural_vector_size(fn.output_types()[0]);
                s.why = parts_why(s, fn);
                d.emplace(c, s);
            }
            continue; // any other scalar: Halide's serial loops
        }
        const std::optional<GemmForm> form = gemm_form(fn);
        s.library_gemm = gpu && form ? blas : Halide::DeviceAPI::None;
        if (s.library_gemm != Halide::DeviceAPI::None) {
            s.why = "one call of " + blas_name(s.library_gemm) + "'s sgemm, a MatMul" +
                    (form->zero_init ? "" : " (its initial value added after it)");
            d.emplace(c, s);
            continue;
        }
        const int rows = gpu ? gpu_tile_x : tile_rows,
                  cols = gpu ? gpu_tile_y : register_tile_columns(target);
        if (is_matmul(fn) && extents[0] >= rows && extents[1] >= cols &&
            (!gpu || !too_few_gpu_tiles(fn, extents))) {
            s.tile = DFuncContents::RegisterTile{fn.args()[0], fn.args()[1], rows, cols};
            s.tasks = gpu ? "" : task_variable(fn, a.of(c).extents, true);
            const std::string tiles = std::to_string(rows) + " x " + std::to_string(cols) +
                                      " along (" + fn.args()[0] + ", " + fn.args()[1] + ")";
            if (gpu) {
                s.gpu_block = {gpu_block_x, gpu_block_y};
                s.why = "a GPU thread per register tile of " + tiles + ", blocks of " +
                        std::to_string(gpu_block_x) + " x " + std::to_string(gpu_block_y) +
                        " threads, a MatMul";
            } else {
                const std::string &x = fn.args()[0], &y = fn.args()[1];
                int64_t contraction = 1;
                for (const ReductionVariable &rv : fn.updates()[0].schedule().rvars()) {
                    contraction *= std::max<int64_t>(estimate(rv.extent, 1 << 20), 1);
                }
                s.y_tiles_inside = extents[0] >= extents[1] ||
                                   extents[0] * contraction * 4 > cached_x_operand_bytes;
                s.why = "register tiles of " + tiles + ", a MatMul";
                if (s.y_tiles_inside) {
                    s.panels = panel_operand_names(fn, x);
                    s.why += ", the tiles along " + y + " inside those along " + x;
                    for (const std::string &name : s.panels) {
                        s.why += ", " + name + " copied into a panel at each tile along " + x;
                    }
                } else {
                    s.transposed = transposed_operand_names(fn, x);
                    for (const std::string &name : s.transposed) {
                        s.why += ", " + name + " read through a copy with " + x + " innermost";
                    }
                }
                if (s.y_tiles_inside && !s.tasks.empty() &&
                    (extents[0] + rows - 1) / rows >= min_x_tasks) {
                    s.tasks = x;
                }
            }
            d.emplace(c, s);
            continue;
        }
        if (gpu) {
            continue; // the GPU pass schedules the rest
        }
        if (extents[0] < 2) {
            continue;
        }
        s.x = fn.args()[0];
        s.lanes = target.natural_vector_size(fn.output_types()[0]);
        while (s.lanes > extents[0]) {
            s.lanes /= 2; // a vector no row fills would run as its scalar tail
        }
        s.why = "vectors of " + std::to_string(s.lanes) + " along " + s.x;
        bool serial = false, all_short = true;
        for (size_t i = 0; i < fn.updates().size(); i++) {
            const Definition &u = fn.updates()[i];
            if (!writes_at_pure_vars(fn, u)) {
                serial = true; // Halide's loops: serial, in the definition's order
                continue;
            }
            if (!contiguous_along(u.values()[0], s.x)) {
                (transposable_rows(u, s.x) ? s.transposed_updates : s.gathered_updates)
                    .push_back((int)i);
                continue;
            }
            s.reordered_updates.push_back((int)i);
            all_short = all_short && short_reduction(u);
            if (long_innermost_rvar(u)) {
                s.unrolled_updates.push_back((int)i);
            }
        }
        const int64_t elements =
            std::accumulate(extents.begin(), extents.end(), int64_t(1), std::multiplies<>());
        const int64_t bytes = elements * fn.output_types()[0].bytes();
        using Reductions = DefaultSchedule::Reductions;
        s.reductions = bytes <= cached_output_bytes ? Reductions::Outermost
                       : all_short                  ? Reductions::AroundVectors
                                                    : Reductions::OutsideRows;
        if (!s.reordered_updates.empty()) {
            s.why += s.reductions == Reductions::Outermost       ? ", reduction loops outside all "
                                                                   "its loops"
                     : s.reductions == Reductions::AroundVectors ? ", reduction loops just "
                                                                   "outside each vector"
                                                                 : ", reduction loops outside them";
        }
        if (!s.unrolled_updates.empty()) {
            s.why += ", the innermost unrolled by " + std::to_string(DefaultSchedule::unroll);
        }
        if (!s.transposed_updates.empty()) {
            s.why += ", reductions read across the vectors in vectors of " +
                     std::to_string(rows_lanes(s)) + " through tiles of " +
                     std::to_string(rows_lanes(s)) + " x " + std::to_string(transpose_tile) +
                     " transposed in registers";
        }
        if (!s.gathered_updates.empty()) {
            s.why += ", reductions read across the vectors gathering an element per lane";
        }
        if (serial) {
            s.why += ", reductions writing elsewhere in Halide's serial loops";
        }
        s.tasks = task_variable(fn, a.of(c).extents, false);
        // A few sums along a long reduction (a norm per layer, LAMB's lanes):
        // in parts too, and in tasks, which their elements alone cannot fill.
        s.part_rows = elements <= few_sums ? part_rows(fn) : 0;
        if (s.part_rows) {
            s.tasks.clear();
            if (!parts_along_x(s)) {
                // The vectors are the reduction's, whatever x's extent.
                s.lanes = target.natural_vector_size(fn.output_types()[0]);
            }
            s.why = parts_why(s, fn);
        }
        d.emplace(c, s);
    }
    return d;
}

void group_rows(DefaultSchedules &d, const Analysis &a, const Liveness &liveness,
                const Placement &placement, const Halide::Target &target) {
    if (target.has_gpu_feature()) {
        return;
    }
    std::map<const DFuncContents *, std::vector<const DFuncContents *>> readers;
    for (const auto &[f, reads] : liveness.reads) {
        for (const DFuncContents *p : reads) {
            readers[p].push_back(f);
        }
    }
    // A Func whose default is vectors along its x (not tiles, BLAS or parts), computed in its
    // segment's pipeline, in no group yet.
    auto vectors = [&](const DFuncContents *f) -> DefaultSchedule * {
        auto it = d.find(f);
        auto role = liveness.role.find(f);
        if (it == d.end() || it->second.x.empty() || it->second.part_rows ||
            role == liveness.role.end() || role->second != FuncRole::Halide ||
            liveness.chunked_source_of.count(f) || it->second.rows_of || it->second.row_tile) {
            return nullptr;
        }
        return &it->second;
    };
    const int tile = target.natural_vector_size(Halide::Float(32));
    // The bytes of f's rows in one tile.
    auto tile_bytes = [&](const DFuncContents *f) {
        const std::vector<Halide::Expr> &extents = a.of(f).extents;
        int64_t bytes = f->func.function().output_types()[0].bytes() * (int64_t)tile;
        for (size_t i = 0; i + 1 < extents.size(); i++) {
            bytes *= std::max<int64_t>(estimate(extents[i], 1 << 20), 1);
        }
        return bytes;
    };
    const std::vector<const DFuncContents *> &order = liveness.live_in_order;
    for (auto root = order.rbegin(); root != order.rend(); ++root) {
        DefaultSchedule *rs = vectors(*root);
        const Function fn = (*root)->func.function();
        if (!rs || !fn.updates().empty() || fn.dimensions() < 2) {
            continue;
        }
        const std::vector<std::string> &args = fn.args();
        // The loops the tiles and their tasks add must not take a name of its own.
        const std::string loop = row_tiles_loop(fn);
        auto named = [&](const std::string &name) {
            return std::count(args.begin(), args.end(), name) > 0;
        };
        if ((!rs->tasks.empty() && rs->tasks != args.back()) || named(loop) ||
            named(args.back() + "_i") || named(loop + "_task") ||
            estimate(a.of(*root).extents.back(), 1 << 20) < min_row_tiles * tile) {
            continue;
        }
        std::set<const DFuncContents *> group = {*root};
        std::vector<const DFuncContents *> members;
        int64_t bytes = 0;
        // Readers come after what they read: each candidate's readers are
        // settled by the time it is reached.
        for (auto p = std::next(root); p != order.rend(); ++p) {
            const int64_t rows = vectors(*p) ? tile_bytes(*p) : 0;
            if (!rows || placement.segment.at(*p) != placement.segment.at(*root) ||
                placement.exported.count(*p) || !updates_write_rows((*p)->func.function()) ||
                bytes + rows > row_group_bytes) {
                continue;
            }
            const std::vector<const DFuncContents *> &by = readers[*p];
            if (!by.empty() && std::all_of(by.begin(), by.end(), [&](const DFuncContents *r) {
                    return group.count(r) && reads_only_rows(*r, **p);
                })) {
                group.insert(*p);
                members.push_back(*p);
                bytes += rows;
            }
        }
        if (members.empty()) {
            continue;
        }
        const std::string row = fn.args().back(),
                          tiles = " of " + std::to_string(tile) + " along " + row;
        rs->row_tile = tile;
        rs->why += ", in tiles" + tiles + ", each computing ";
        for (auto m = members.rbegin(); m != members.rend(); ++m) {
            DefaultSchedule &ms = d.at(*m);
            ms.rows_of = *root;
            ms.tasks.clear();
            ms.why += ", computed at each tile" + tiles + " of " + (*root)->name;
            rs->why += (m == members.rbegin() ? "" : ", ") + (*m)->name;
        }
        rs->why += " first";
    }
}

std::string row_tiles_loop(const Function &root) {
    return root.args().back() + "_o";
}

std::string task_variable(const Function &fn, const Extents &extents, bool tiled) {
    int64_t elements = 1, steps = 1, most = 0;
    int widest = 0; // the dimension of most elements after the first
    for (int d = 0; d < (int)extents.size(); d++) {
        const int64_t e = std::max<int64_t>(estimate(extents[d], 1 << 20), 1);
        elements *= e;
        if (d > 0 && e > most) {
            most = e;
            widest = d;
        }
    }
    for (const Definition &u : fn.updates()) {
        int64_t iterations = 1;
        for (const ReductionVariable &rv : u.schedule().rvars()) {
            iterations *= std::max<int64_t>(estimate(rv.extent, 1 << 10), 1);
        }
        steps += iterations;
    }
    if (elements * steps < min_task_work) {
        return "";
    }
    return fn.args()[tiled ? 1 : widest];
}

Halide::Expr rank_threads(const Halide::Expr &user_context) {
    return Call::make(Halide::Int(32), "coconet_rank_threads", {user_context}, Call::PureExtern);
}

void run_in_tasks(Halide::Stage stage, const std::string &loop, const Halide::Expr &iterations,
                  const Halide::Expr &threads) {
    const std::vector<Dim> &dims = stage.get_schedule().dims();
    // A loop that a split made is named for the variable split too ("t.t_o").
    const auto at = std::find_if(dims.begin(), dims.end(), [&](const Dim &d) {
        return d.var == loop || ends_with(d.var, "." + loop);
    });
    if (at == dims.end()) {
        return;
    }
    const Halide::Var var(loop), task(loop + "_task");
    // The task loop goes outside the loops that enclosed `loop`: one parallel
    // loop per call of the stage, each task running all of them.
    std::vector<Halide::VarOrRVar> order = {var};
    for (auto d = at; d != dims.end(); ++d) {
        if (d->dim_type != DimType::PureVar || d->for_type != ForType::Serial) {
            return;
        }
        if (d != at && d->var != Halide::Var::outermost().name()) {
            order.emplace_back(Halide::Var(d->var.substr(d->var.rfind('.') + 1)));
        }
    }
    order.emplace_back(task);
    // A rank of one thread runs the loops as they were, never entering
    // Halide's thread pool.
    const Halide::Expr per_task = (iterations + threads - 1) / threads;
    stage.specialize(threads > 1)
        .split(var, task, var, Halide::max(1, per_task), Halide::TailStrategy::GuardWithIf)
        .reorder(order)
        .parallel(task);
}

void apply_default_vectors(const DefaultSchedule &s, Halide::Func f) {
    const Halide::TailStrategy guard = Halide::TailStrategy::GuardWithIf;
    const Halide::Var x(s.x);
    f.vectorize(x, s.lanes, guard);
    for (int i = 0; i < (int)f.function().updates().size(); i++) {
        if (std::count(s.gathered_updates.begin(), s.gathered_updates.end(), i)) {
            // Each lane's sum in its own order, many sums at once: the loads
            // are strided, but the additions no longer wait on each other.
            f.update(i).vectorize(x, s.lanes, guard);
        } else if (std::count(s.transposed_updates.begin(), s.transposed_updates.end(), i)) {
            transpose_rows(s, f, i);
        } else if (!std::count(s.reordered_updates.begin(), s.reordered_updates.end(), i)) {
            f.update(i).unscheduled(); // Halide's loops, on purpose
        }
    }
    for (int i : s.reordered_updates) {
        const std::vector<ReductionVariable> rvars = f.function().update(i).schedule().rvars();
        const bool unrolled =
            std::count(s.unrolled_updates.begin(), s.unrolled_updates.end(), i) > 0;
        Halide::Stage stage = f.update(i);
        std::vector<Halide::VarOrRVar> order, reductions, pure;
        if (unrolled) {
            const Halide::RVar inner(rvars[0].var + "_i");
            stage
                .split(Halide::RVar(rvars[0].var), Halide::RVar(rvars[0].var + "_o"), inner,
                       DefaultSchedule::unroll, guard)
                .unroll(inner);
            order.push_back(inner);
        }
        for (size_t k = 0; k < rvars.size(); k++) {
            reductions.emplace_back(Halide::RVar(rvars[k].var + (k == 0 && unrolled ? "_o" : "")));
        }
        for (const std::string &v : f.function().args()) {
            if (v != s.x) {
                pure.emplace_back(Halide::Var(v));
            }
        }
        if (s.reductions == DefaultSchedule::Reductions::AroundVectors) {
            // The vector innermost, the reduction around it, then the rest of x.
            const Halide::Var vector(s.x + "_v");
            stage.split(x, x, vector, s.lanes, guard).vectorize(vector);
            order.push_back(vector);
            pure.insert(pure.begin(), x);
        } else {
            order.push_back(x);
        }
        if (s.reductions == DefaultSchedule::Reductions::Outermost) {
            std::swap(reductions, pure);
        }
        order.insert(order.end(), reductions.begin(), reductions.end());
        order.insert(order.end(), pure.begin(), pure.end());
        stage.reorder(order);
        if (s.reductions != DefaultSchedule::Reductions::AroundVectors) {
            stage.vectorize(x, s.lanes, guard);
        }
    }
}

void add_in_parts(const DefaultSchedule &s, Halide::Func f, const Halide::Expr &threads) {
    const auto guard = Halide::TailStrategy::GuardWithIf;
    std::vector<std::string> r; // the reduction variables, innermost first
    for (const ReductionVariable &rv : f.function().update(0).schedule().rvars()) {
        r.push_back(rv.var);
    }
    const Halide::RVar part(r.back() + "_part"), rows(r.back() + "_rows");
    Halide::Stage update = f.update(0);
    update.split(Halide::RVar(r.back()), part, rows, (int)s.part_rows, guard);
    // The innermost variable's steps in several sums at once: vectors of
    // them, or, where the vectors are along x, a few such vectors.
    const bool along_x = parts_along_x(s);
    const Halide::RVar innermost = r.size() == 1 ? rows : Halide::RVar(r.front());
    const Halide::RVar steps(innermost.name() + "_steps"), lane(innermost.name() + "_lane");
    update.split(innermost, steps, lane, (along_x ? 1 : s.lanes) * DefaultSchedule::part_vectors,
                 guard);
    // Each part's sums are elements of a Func of their own, u its lanes.
    const Halide::Var p(r.back() + "_p"), u(r.front() + "_u"), vector(r.front() + "_v"),
        lanes(r.front() + "_l");
    Halide::Func sums = update.rfactor({{part, p}, {lane, u}});
    std::vector<Halide::VarOrRVar> order = {u, steps};
    for (size_t k = 1; k < r.size(); k++) {
        order.push_back(k + 1 < r.size() ? Halide::RVar(r[k]) : rows);
    }
    for (const std::string &v : f.function().args()) {
        if (!along_x || v != s.x) {
            order.emplace_back(Halide::Var(v));
        }
    }
    if (along_x) {
        order.insert(order.begin(), Halide::Var(s.x));
    }
    order.push_back(p);
    sums.compute_root();
    Halide::Stage sum_parts = sums.update(0);
    sum_parts.reorder(order);
    if (along_x) {
        sums.vectorize(Halide::Var(s.x), s.lanes, guard);
        sum_parts.vectorize(Halide::Var(s.x), s.lanes, guard).unroll(u);
    } else {
        sums.vectorize(u, s.lanes, guard);
        sum_parts.split(u, vector, lanes, s.lanes, guard).vectorize(lanes).unroll(vector);
    }
    sum_parts.specialize(threads > 1).parallel(p);
}

namespace {

// The plain names of the operands whose calls `pick` picks in fn's updates,
// in the order they are read.
std::vector<std::string> picked_operand_names(const Function &fn, const CallPick &pick) {
    struct Calls : public IRVisitor {
        const CallPick &pick;
        const std::string &self;
        std::vector<std::string> names;
        Calls(const CallPick &pick, const std::string &self) : pick(pick), self(self) {}
        using IRVisitor::visit;
        void visit(const Call *op) override {
            const std::string name = plain_name(op->name);
            if (op->name != self && pick(op) >= 0 &&
                std::find(names.begin(), names.end(), name) == names.end()) {
                names.push_back(name);
            }
            IRVisitor::visit(op);
        }
    } calls(pick, fn.name());
    for (const Definition &u : fn.updates()) {
        for (const Halide::Expr &v : u.values()) {
            v.accept(&calls);
        }
    }
    return calls.names;
}

} // namespace

std::vector<std::string> transposed_operand_names(const Function &fn, const std::string &x) {
    return picked_operand_names(fn, [&](const Call *c) { return strided_argument(c, x); });
}

std::vector<std::string> panel_operand_names(const Function &fn, const std::string &x) {
    return picked_operand_names(fn, [&](const Call *c) { return panel_argument(c, x); });
}

void read_operands_transposed(Halide::Func acc, const std::string &x, const Halide::Expr &threads) {
    auto pick = [&](const Call *c) { return strided_argument(c, x); };
    ReadThroughCopies read(
        pick, "_transposed", [&](Halide::Func copy, const std::vector<Halide::Var> &stored, int) {
            copy.compute_root();
            transpose_in_tiles(copy, stored, transpose_tile, transpose_tile);
            if (!threads.defined()) {
                return;
            }
            // Rows of tiles (with every index of the further dimensions), a few
            // to a task: each task copies whole rows of the operand.
            Halide::Stage tasks = copy.specialize(threads > 1);
            Halide::Var rows = stored[1];
            for (size_t d = 2; d < stored.size(); d++) {
                const Halide::Var fused(rows.name() + "_" + stored[d].name());
                tasks.fuse(rows, stored[d], fused);
                rows = fused;
            }
            tasks.parallel(rows, copy_tile_rows_per_task, Halide::TailStrategy::GuardWithIf);
        });
    read.rewrite(acc);
}

void read_operands_in_panels(Halide::Func acc, const std::string &x, int rows, Halide::Func out,
                             const Halide::Var &at) {
    ReadThroughCopies read([&](const Call *c) { return panel_argument(c, x); }, "_panel",
                           [&](Halide::Func copy, const std::vector<Halide::Var> &stored, int k) {
                               copy.compute_at(out, at).bound_storage(stored[0], rows);
                               if (k == 0) {
                                   copy.vectorize(stored[0], rows,
                                                  Halide::TailStrategy::GuardWithIf);
                               } else {
                                   transpose_in_tiles(copy, stored, transpose_tile, transpose_tile);
                               }
                           });
    read.rewrite(acc);
}

std::string dump_default_schedules(const DefaultSchedules &d, const Analysis &a) {
    std::string out;
    for (const DFunc &f : a.order) {
        auto it = d.find(f.get_contents().get());
        if (it != d.end()) {
            out += "  " + f.name() + ": " + plan_line(it->second) + "\n";
        }
    }
    return out;
}

} // namespace coconet
