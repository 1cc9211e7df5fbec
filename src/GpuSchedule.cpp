#include "GpuSchedule.h"

#include <algorithm>
#include <map>
#include <set>

#include "CollectiveStage.h"
#include "Error.h"
#include "Partition.h"
#include "Rebuild.h"
#include "Strings.h"

namespace coconet {

using Halide::Func;
using Halide::Internal::Call;
using Halide::Internal::Definition;
using Halide::Internal::Function;
using Halide::Internal::IRVisitor;

namespace {

// Where f is computed; the level is locked (final), as lowering would.
Halide::LoopLevel compute_level(const Function &f) {
    Halide::LoopLevel level = f.schedule().compute_level();
    level.lock();
    return level;
}

// The calls of a Func's definitions, looking through inlined Funcs: whether
// one is a call a GPU kernel cannot make (an extern C function: the
// runtime's coconet_rank / coconet_size on the user context, and any other),
// and the buffers they read (Funcs computed elsewhere, by their plain names,
// and image parameters).
class KernelCalls : public IRVisitor {
public:
    bool host_only = false;
    std::set<std::string> reads;

    void visit_definition(const Definition &d) {
        for (const Halide::Expr &e : d.values()) {
            e.accept(this);
        }
        for (const Halide::Expr &e : d.args()) {
            e.accept(this);
        }
    }

private:
    using IRVisitor::visit;

    void visit(const Call *op) override {
        const bool coconet_extern =
            op->call_type == Call::PureExtern && op->name.rfind("coconet_", 0) == 0;
        if (op->call_type == Call::Extern || op->call_type == Call::ExternCPlusPlus ||
            coconet_extern) {
            host_only = true;
        } else if (op->call_type == Call::Image && op->param.defined()) {
            reads.insert(op->param.name());
        } else if (op->call_type == Call::Halide && op->func.defined()) {
            const Function callee(op->func);
            if (!compute_level(callee).is_inlined() || callee.has_extern_definition()) {
                reads.insert(plain_name(callee.name()));
                // Not the extern stage's own arguments, which Halide's visitor
                // would visit: the host computes those before the stage.
                for (const Halide::Expr &arg : op->args) {
                    arg.accept(this);
                }
                return;
            }
            if (visited_.insert(callee.name()).second) {
                visit_definition(callee.definition());
            }
        }
        IRVisitor::visit(op);
    }

    std::set<std::string> visited_;
};

KernelCalls calls_of(const Function &fn) {
    KernelCalls calls;
    calls.visit_definition(fn.definition());
    for (const Definition &u : fn.updates()) {
        calls.visit_definition(u);
    }
    return calls;
}

// Whether a definition of fn, or a specialization of one, already runs on
// GPU blocks or threads (the default schedule's register tiles of a MatMul).
bool has_gpu_loops(const Function &fn) {
    std::vector<Definition> defs = {fn.definition()};
    defs.insert(defs.end(), fn.updates().begin(), fn.updates().end());
    for (size_t i = 0; i < defs.size(); i++) {
        for (const Halide::Internal::Specialization &s : defs[i].specializations()) {
            defs.push_back(s.definition);
        }
    }
    for (const Definition &d : defs) {
        for (const Halide::Internal::Dim &dim : d.schedule().dims()) {
            if (Halide::Internal::is_gpu(dim.for_type)) {
                return true;
            }
        }
    }
    return false;
}

// A scalar reduction's parts, each added by a GPU thread of its own: many,
// so that the loads in flight stream a vector at the device's bandwidth,
// then few, which one thread adds. A thread's loop over its part is unrolled
// kPartLoads times, so that that many loads can be in flight (the additions
// stay in order).
constexpr int kReductionParts = 65536, kReductionPartsOfParts = 256, kPartLoads = 8;

// A GPU thread per element of a stage, tiles over its first two dimensions
// (blocks over the rest); its reduction loops (an update's) run inside the
// thread, the innermost (`innermost_rvar`) unrolled kPartLoads times: a GPU
// does not run ahead to the next step's loads, so a thread streaming a row (a
// GEMV's) has that many in flight instead of one; the additions stay in
// order.
void gpu_tile_stage(Halide::Stage s, const std::vector<Halide::Var> &args,
                    const std::string &innermost_rvar = "") {
    const auto guard = Halide::TailStrategy::GuardWithIf;
    if (args.size() >= 2) {
        Halide::Var xo, yo, xi, yi;
        s.gpu_tile(args[0], args[1], xo, yo, xi, yi, 32, 8, guard);
    } else {
        Halide::Var xo, xi;
        s.gpu_tile(args[0], xo, xi, 256, guard);
    }
    gpu_blocks_beyond_two(s, args);
    if (!innermost_rvar.empty()) {
        s.unroll(Halide::RVar(innermost_rvar), kPartLoads, guard);
    }
}

// Whether e calls an impure extern function (one Halide cannot move).
bool calls_impure(const Halide::Expr &e) {
    class Impure : public IRVisitor {
    public:
        bool found = false;

    private:
        using IRVisitor::visit;
        void visit(const Call *op) override {
            found |= op->call_type == Call::Extern || op->call_type == Call::ExternCPlusPlus;
            IRVisitor::visit(op);
        }
    } v;
    e.accept(&v);
    return v.found;
}

// Splits f's reduction over `r` into `parts` interleaved parts (r = i *
// parts + part: the threads of a warp read adjacent elements), each part's
// sum an element of a Func (rfactor) that one kernel computes: a GPU thread
// per part, its sum in a register, looping over its elements inside the
// kernel (a loop outside it would launch the kernel once per element of a
// part). f then adds those elements; returns the reduction variable that
// does.
Halide::RVar reduce_in_parts(Func f, Halide::RVar r, int parts, const std::string &name) {
    const auto guard = Halide::TailStrategy::GuardWithIf;
    Halide::RVar i(name + "_i"), part(name + "_part"), outer(name + "_io"), loads(name + "_ii");
    Halide::Var u(name + "_u"), block("block"), thread("thread");
    f.update(0).split(r, i, part, parts, guard);
    Func sums = f.update(0).rfactor(part, u);
    Func stored = sums.in();
    stored.compute_root().gpu_tile(u, block, thread, 256, guard);
    sums.compute_at(stored, thread);
    sums.update(0).split(i, outer, loads, kPartLoads, guard).unroll(loads);
    return part;
}

// Every definition of scalar f computed by one GPU thread.
void gpu_single_thread(Func f) {
    f.gpu_single_thread();
    for (int u = 0; u < (int)f.function().updates().size(); u++) {
        f.update(u).gpu_single_thread();
    }
}

// A scalar on the GPU (why_scalar_on_host says which): a pure one (a clip
// factor, a trust ratio) by one GPU thread, so that the kernels reading it
// find it there with no copy from the host; a reduction over one reduction
// variable (a norm: `f() += e(r)`) in three levels: kReductionParts parts,
// then kReductionPartsOfParts parts of those, then their sum by one GPU
// thread. The order of addition is therefore not the reference's; an update
// Halide cannot split into parts runs on one GPU thread, in order.
void gpu_scalar(Func f) {
    if (f.function().updates().empty()) {
        gpu_single_thread(f);
        return;
    }
    try {
        Halide::RVar parts = reduce_in_parts(f, f.rvars(0)[0], kReductionParts, "parts");
        reduce_in_parts(f, parts, kReductionPartsOfParts, "sums");
    } catch (const Halide::Error &) {
        // Not associative (rfactor refused): in order on one thread, which
        // the split before the refusal keeps.
    }
    gpu_single_thread(f);
}

// An Expr of a segment (a loop bound, a box's extent) as on rank 0 of a
// world of kEstimatedRanks, its run-time sizes at their estimates, for a
// choice made when compiling; -1 where unknown.
constexpr int kEstimatedRanks = 2;

int64_t estimate_on_rank_zero(const Halide::Expr &e) {
    AsRankZero on_rank_zero(kEstimatedRanks);
    return estimate(Halide::Internal::simplify(on_rank_zero.mutate(e)), -1);
}

// A reduction into few elements (a GEMV's rows, a LayerNorm's statistics by
// token) with a GPU thread per element leaves most of a large GPU idle; its
// innermost reduction is then added in parts, as a norm's is: their number
// doubled while fewer than kThreadsToFill threads would add them and each
// part keeps kMinPartLength elements, up to kMaxRowParts; fewer than
// kMinRowParts are not worth a kernel of their own (returns 1).
constexpr int64_t kThreadsToFill = 1 << 18, kMinPartLength = 16;
constexpr int kMaxRowParts = 256, kMinRowParts = 4;

int row_parts(int64_t elements, int64_t length) {
    int parts = 1;
    while (elements > 0 && parts < kMaxRowParts && elements * parts < kThreadsToFill &&
           length >= 2 * parts * kMinPartLength) {
        parts *= 2;
    }
    return parts < kMinRowParts ? 1 : parts;
}

// Whether the parts of f's rows (along reduction variable r) should run along
// the threads of a warp: where what d reads for each element apart (a read
// indexed by r and by one of `args`, f's pure variables) has r in its
// innermost index (a token's features: adjacent parts read adjacent
// elements) and none has f's first variable there (a GEMV's weight stored by
// columns, lanes of a vector: adjacent elements of f read adjacent elements,
// and win). What all elements share (a GEMV's vector) stays in the caches
// whichever way the threads run.
bool parts_along_warps(const Definition &d, const std::string &r,
                       const std::vector<Halide::Var> &args) {
    class Reads : public IRVisitor {
    public:
        Reads(const std::string &r, const std::vector<Halide::Var> &args) : r(r), args(args) {}
        bool along_r = false, along_x = false;

    private:
        using IRVisitor::visit;
        const std::string &r;
        const std::vector<Halide::Var> &args;
        void visit(const Call *op) override {
            using Halide::Internal::expr_uses_var;
            if ((op->call_type == Call::Halide || op->call_type == Call::Image) &&
                !op->args.empty()) {
                bool uses_r = false, per_element = false;
                for (const Halide::Expr &index : op->args) {
                    uses_r |= expr_uses_var(index, r);
                    for (const Halide::Var &v : args) {
                        per_element |= expr_uses_var(index, v.name());
                    }
                }
                if (uses_r && per_element) {
                    along_x |= expr_uses_var(op->args[0], args[0].name());
                    along_r |= expr_uses_var(op->args[0], r);
                }
            }
            IRVisitor::visit(op);
        }
    } reads(r, args);
    for (const Halide::Expr &e : d.values()) {
        e.accept(&reads);
    }
    return reads.along_r && !reads.along_x;
}

// f's only update's innermost reduction variable r in `parts` interleaved
// parts (r = i * parts + part), each part's sum an element of a Func of its
// own (rfactor: one more dimension, u) that a GPU thread adds in a register,
// kPartLoads loads in flight; f's update then adds the parts in order. The
// threads of a warp run along u or along f's first dimension
// (parts_along_warps; no wider than the parts, or than f's `elements`), and
// the parts are stored in that order. f's update then runs kRowsPart
// innermost, also where Halide cannot split the update into parts (rfactor
// refused: returns false), which keeps the order (i outside part).
const char *const kRowsPart = "rows_part";

bool gpu_reduce_rows_in_parts(Func f, const std::vector<Halide::Var> &args, const std::string &r,
                              int parts, int64_t elements) {
    const auto guard = Halide::TailStrategy::GuardWithIf;
    Halide::RVar i("rows_i"), part(kRowsPart), outer("rows_io"), loads("rows_ii");
    Halide::Var u("rows_u"), bx, by, tx, ty;
    const bool along = parts_along_warps(f.function().update(0), r, args);
    f.update(0).split(Halide::RVar(r), i, part, parts, guard);
    Func sums;
    try {
        sums = f.update(0).rfactor(part, u);
    } catch (const Halide::Error &) {
        return false;
    }
    std::vector<Halide::Var> tiled = args;
    tiled.insert(tiled.begin() + (along ? 0 : 1), u);
    Func stored = sums.in();
    stored.compute_root().reorder_storage(tiled);
    int width = 32;
    while (width > (along ? parts : elements)) {
        width /= 2;
    }
    stored.gpu_tile(tiled[0], tiled[1], bx, by, tx, ty, width, 256 / width, guard);
    gpu_blocks_beyond_two(stored, tiled);
    sums.compute_at(stored, tx);
    sums.update(0).split(i, outer, loads, kPartLoads, guard).unroll(loads);
    return true;
}

} // namespace

ExprRange rank_box_range(const FuncInfo &info, int d, const Halide::Expr &rank,
                         const Halide::Expr &size) {
    if (info.layout.kind == LayoutKind::Sliced && info.layout.dim == d) {
        return rank_slice(info.layout.group, info.extents[d], rank, size);
    }
    if (!info.layout.group.is_world()) {
        const Halide::Expr member = group_ranks(info.layout.group, rank, size).member;
        return ExprRange{0, Halide::select(member, info.extents[d], 0)};
    }
    return ExprRange{0, info.extents[d]};
}

Halide::Expr rank_box_nonempty(const FuncInfo &info, const Halide::Expr &rank,
                               const Halide::Expr &size) {
    Halide::Expr cond = Halide::Internal::const_true();
    for (int d = 0; d < (int)info.extents.size(); d++) {
        const ExprRange r = rank_box_range(info, d, rank, size);
        cond = cond && r.end > r.begin;
    }
    return Halide::Internal::simplify(cond);
}

void gpu_blocks_beyond_two(Halide::Stage s, const std::vector<Halide::Var> &args) {
    if (args.size() < 3) {
        return;
    }
    Halide::Var outer = args[2];
    for (size_t d = 3; d < args.size(); d++) {
        Halide::Var fused(outer.name() + "_" + args[d].name());
        s.fuse(outer, args[d], fused);
        outer = fused;
    }
    s.gpu_blocks(outer);
}

std::string why_scalar_on_host(const Function &fn) {
    if (has_stage_directives(fn)) {
        return "a scalar scheduled by the user";
    }
    if (calls_of(fn).host_only) {
        return "a scalar calling a host function";
    }
    if (fn.updates().empty()) {
        return "";
    }
    if (fn.updates().size() != 1 || fn.updates()[0].schedule().rvars().size() != 1) {
        return "a scalar reduction over more than one variable or update";
    }
    // The parts' Func indexes with the reduction's bounds, which then run
    // where the parts do: only pure calls are lifted out to the host.
    const Halide::Internal::ReductionVariable &rv = fn.updates()[0].schedule().rvars()[0];
    if (calls_impure(rv.min) || calls_impure(rv.extent)) {
        return "a scalar reduction whose bounds call a host function";
    }
    return "";
}

std::string gpu_tile_func(Func f, const Halide::Expr &when, int64_t elements, int *parts_of_rows) {
    const Function &fn = f.function();
    if (fn.has_extern_definition()) {
        return "an extern stage";
    }
    if (fn.dimensions() == 0) {
        if (when.defined() && !Halide::Internal::is_const_one(Halide::Internal::simplify(when))) {
            return "a scalar some ranks do not compute";
        }
        if (const std::string why = why_scalar_on_host(fn); !why.empty()) {
            return why;
        }
        gpu_scalar(f);
        return "";
    }
    if (has_stage_directives(fn)) {
        return "scheduled by the user";
    }
    // Each GPU thread then owns its elements and their reductions.
    for (const Definition &u : fn.updates()) {
        if (!writes_at_pure_vars(fn, u)) {
            return "an update writes elsewhere than at its pure variables";
        }
    }
    if (calls_of(fn).host_only) {
        return "calls a host function";
    }
    const std::vector<Halide::Var> args = f.args();
    gpu_tile_stage(when.defined() ? f.specialize(when) : Halide::Stage(f), args);
    for (int i = 0; i < (int)fn.updates().size(); i++) {
        const std::vector<Halide::Internal::ReductionVariable> rvars =
            fn.update(i).schedule().rvars();
        std::string innermost = rvars.empty() ? "" : rvars[0].var;
        if (fn.updates().size() == 1 && !rvars.empty()) {
            if (const int parts = row_parts(elements, estimate_on_rank_zero(rvars[0].extent));
                parts > 1) {
                if (gpu_reduce_rows_in_parts(f, args, innermost, parts, elements) &&
                    parts_of_rows) {
                    *parts_of_rows = parts;
                }
                innermost = kRowsPart;
            }
        }
        gpu_tile_stage(when.defined() ? f.update(i).specialize(when) : f.update(i), args,
                       innermost);
    }
    return "";
}

NonEmptyBox every_box_nonempty() {
    return [](const std::string &) { return GpuCondition{Halide::Internal::const_true(), ""}; };
}

GpuPlacement schedule_for_gpu(const Halide::Pipeline &p, const NonEmptyBox &nonempty) {
    GpuPlacement placement;
    const std::map<std::string, Function> functions = pipeline_functions(p);
    // Scalars a stage writes on the device, which no host scalar may read
    // (the lowering keeps such stages on the host: CollectiveStage.h).
    std::set<std::string> device_scalars;
    for (const auto &[name, fn] : functions) {
        if (fn.has_extern_definition() && fn.dimensions() == 0 &&
            fn.extern_function_device_api() != Halide::DeviceAPI::Host) {
            device_scalars.insert(plain_name(name));
        }
    }
    for (const auto &[name, fn] : functions) {
        if (!compute_level(fn).is_root()) {
            continue;
        }
        const std::string plain = plain_name(name);
        if (fn.has_extern_definition() && fn.extern_function_name() == "coconet_gemm") {
            placement.library.push_back(plain);
            for (const Halide::ExternFuncArgument &arg : fn.extern_arguments()) {
                const std::string read = arg.is_func() ? plain_name(Function(arg.func).name())
                                         : arg.is_image_param() ? arg.image_param.name()
                                                                : "";
                if (!read.empty() && std::find(placement.reads.begin(), placement.reads.end(),
                                               read) == placement.reads.end()) {
                    placement.reads.push_back(read);
                }
            }
            continue;
        }
        const GpuCondition c = nonempty(plain);
        const bool on_gpu = has_gpu_loops(fn);
        int parts = 1;
        const std::string why = on_gpu ? ""
                                : c.when.defined()
                                    ? gpu_tile_func(Func(fn), c.when, c.elements, &parts)
                                    : c.why_not;
        if (why.empty()) {
            placement.gpu.push_back(plain);
            if (parts > 1) {
                placement.row_parts[plain] = parts;
            }
            // What the Funcs computed inside its kernel read, too.
            std::set<std::string> reads = calls_of(fn).reads;
            for (const auto &[inner_name, inner] : functions) {
                const Halide::LoopLevel level = compute_level(inner);
                if (!level.is_root() && !level.is_inlined() && level.func() == fn.name()) {
                    const std::set<std::string> more = calls_of(inner).reads;
                    reads.insert(more.begin(), more.end());
                    reads.erase(plain_name(inner_name));
                }
            }
            for (const std::string &r : reads) {
                if (std::find(placement.reads.begin(), placement.reads.end(), r) ==
                    placement.reads.end()) {
                    placement.reads.push_back(r);
                }
            }
        } else if (!fn.has_extern_definition()) {
            placement.host.emplace_back(plain, why);
            for (const std::string &r : calls_of(fn).reads) {
                coconet_internal_assert(fn.dimensions() > 0 || !device_scalars.count(r))
                    << plain << " (" << why << ") would read " << r
                    << " on the host, where Halide leaves the copy from before the device "
                       "stage that writes it";
            }
        }
    }
    return placement;
}

namespace {

// The value of the program a segment's Func computes (by its plain name), or
// nullptr.
const DFuncContents *value_named(const Analysis &a, const std::string &name) {
    for (const DFunc &df : a.order) {
        if (df.get_contents()->name == name) {
            return df.get_contents().get();
        }
    }
    return nullptr;
}

// A value of a group of world.split has an empty box on the other groups'
// ranks, where Halide would still allocate a buffer that both host and device
// touch, before testing the condition, and its GPU runtimes abort on an empty
// one. Each root Func of such a value that the segment allocates (not its
// outputs, which the executor gives) is stored there in a stand-in of one
// element that nothing computes, and on the group's ranks in the value's
// extents (whatever region its readers need of it). An extern stage on the
// device (a collective, a MatMul through the device's BLAS) is handed its
// storage as its output, so it is bounded instead: the rank's box of the
// value on the group's ranks, one element elsewhere, which its call leaves
// alone. A host stage's result that a kernel reads is read through a copy on
// the host stored as a kernel's is (the stage itself writes exactly the
// region asked).
void give_stand_ins(const HalideSegment &h, const Analysis &a, const SpmdPipeline &spmd,
                    const GpuPlacement &placement) {
    std::set<std::string> outputs;
    for (const Func &f : h.pipeline.outputs()) {
        outputs.insert(f.name());
    }
    for (const auto &[name, fn] : pipeline_functions(h.pipeline)) {
        const std::string plain = plain_name(name);
        const DFuncContents *value = value_named(a, plain);
        if (!value || a.of(value).layout.group.is_world() || !compute_level(fn).is_root() ||
            outputs.count(name)) {
            continue;
        }
        const FuncInfo &info = a.of(value);
        const Halide::Expr member = group_ranks(info.layout.group, spmd.rank, spmd.size).member;
        Func stored(fn);
        if (fn.has_extern_definition() &&
            fn.extern_function_device_api() != Halide::DeviceAPI::Host) {
            for (int d = 0; d < fn.dimensions(); d++) {
                const ExprRange box = rank_box_range(info, d, spmd.rank, spmd.size);
                stored.bound(stored.args()[d], Halide::select(member, box.begin, 0),
                             Halide::max(box.end - box.begin, 1));
            }
            continue;
        }
        if (fn.has_extern_definition()) {
            if (std::find(placement.reads.begin(), placement.reads.end(), plain) ==
                placement.reads.end()) {
                continue;
            }
            stored = stored.in();
            stored.compute_root();
        }
        for (int d = 0; d < fn.dimensions(); d++) {
            stored.bound_storage(stored.args()[d],
                                 Halide::max(Halide::select(member, info.extents[d], 0), 1));
        }
    }
}

} // namespace

GpuPlacement schedule_segment_for_gpu(const HalideSegment &h, const Analysis &a,
                                      const SpmdPipeline &spmd) {
    GpuPlacement placement = schedule_for_gpu(h.pipeline, [&](const std::string &name) {
        const DFuncContents *value = value_named(a, name);
        if (!value) {
            return GpuCondition{Halide::Expr(), "not a value of the program"};
        }
        const FuncInfo &info = a.of(value);
        int64_t elements = 1;
        for (int d = 0; d < (int)info.extents.size() && elements >= 0; d++) {
            const ExprRange r = rank_box_range(info, d, spmd.rank, spmd.size);
            const int64_t n = estimate_on_rank_zero(r.end - r.begin);
            elements = n < 0 ? -1 : elements * n;
        }
        return GpuCondition{rank_box_nonempty(info, spmd.rank, spmd.size), "", elements};
    });
    give_stand_ins(h, a, spmd, placement);
    // The segment's parameters by the values they hold.
    for (std::string &r : placement.reads) {
        for (size_t i = 0; i < h.params.size(); i++) {
            if (h.params[i].name() == r) {
                r = h.param_values[i]->name;
            }
        }
    }
    return placement;
}

std::string placement_text(const GpuPlacement &placement) {
    std::vector<std::string> gpu, host;
    for (const std::string &name : placement.gpu) {
        auto parts = placement.row_parts.find(name);
        gpu.push_back(parts == placement.row_parts.end()
                          ? name
                          : name + " (rows added in " + std::to_string(parts->second) + " parts)");
    }
    for (const auto &[name, why] : placement.host) {
        host.push_back(name + " (" + why + ")");
    }
    std::vector<std::string> parts;
    if (!gpu.empty()) {
        parts.push_back("GPU kernels for " + join(gpu));
    }
    if (!placement.library.empty()) {
        parts.push_back("the device's BLAS for " + join(placement.library));
    }
    if (!host.empty()) {
        parts.push_back("on the host: " + join(host));
    }
    return parts.empty() ? "no computation" : join(parts, "; ");
}

std::string device_collectives_text(const Analysis &a, const SpmdPipeline &spmd) {
    std::vector<std::string> device, host;
    for (const PlanStep &st : spmd.steps) {
        const DFuncContents &f = *st.func;
        if (st.role != StepRole::Computed || f.kind != FuncKind::Collective) {
            continue;
        }
        // An overlapped one is the executor's chunk loop, on the device alike.
        const std::string what = f.name + " (" + to_string(f.collective->kind) +
                                 (st.overlapped_with ? ", overlapped" : "");
        if (const std::string why = why_not_on_device(f, a); why.empty()) {
            device.push_back(what + ")");
        } else {
            host.push_back(what + ": " + why + ")");
        }
    }
    if (device.empty() && host.empty()) {
        return "no unfused collective";
    }
    return (device.empty() ? ""
                           : "collectives on device buffers among ranks sharing the device "
                             "(threads backend; other backends stage them through host "
                             "memory): " +
                                 join(device)) +
           (device.empty() || host.empty() ? "" : "; ") +
           (host.empty() ? "" : "collectives through host memory: " + join(host));
}

} // namespace coconet
