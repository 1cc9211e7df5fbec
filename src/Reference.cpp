#include "Reference.h"

#include <limits>

#include "Error.h"
#include "InferLayouts.h"
#include "JitProgram.h"
#include "Rebuild.h"
#include "TypeDispatch.h"

namespace coconet {

using Halide::Buffer;

namespace {

// Halide's messages of a failed call, for the error it becomes (Halide's own
// JIT handler throws Halide::RuntimeError, which is no std::exception).
struct HalideMessages : Halide::JITUserContext {
    HalideMessages() { handlers.custom_error = keep; }
    static void keep(Halide::JITUserContext *uc, const char *msg) {
        std::string &m = static_cast<HalideMessages *>(uc)->messages;
        m += msg;
        while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) {
            m.pop_back();
        }
    }
    std::string messages;
};

using Materialized = std::map<const DFuncContents *, Buffer<>>;

template<typename T>
T identity_of(ReduceOp op) {
    switch (op) {
    case ReduceOp::Sum: return T(0);
    case ReduceOp::Prod: return T(1);
    case ReduceOp::Max:
        return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::lowest();
    case ReduceOp::Min:
        return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::max();
    }
    return T(0);
}

template<typename T>
T apply(ReduceOp op, T a, T b) {
    switch (op) {
    case ReduceOp::Sum: return (T)(a + b);
    case ReduceOp::Prod: return (T)(a * b);
    case ReduceOp::Max: return a > b ? a : b;
    case ReduceOp::Min: return a < b ? a : b;
    }
    return a;
}

int owner(const Range &ranks, int extent, int index) {
    for (int g = 0; g < ranks.extent(); g++) {
        Range s = slice_range(extent, (int)ranks.extent(), g);
        if (index >= s.begin && index < s.end) {
            return (int)ranks.begin + g;
        }
    }
    return -1;
}

// One collective for every rank: out[r] is rank r's box of the result.
void run_collective(const DFuncContents &f, const Analysis &a, int world_size, const Sizes &sizes,
                    std::vector<Materialized> &state) {
    const CollectiveDesc &c = *f.collective;
    const FuncInfo &src_info = a.of(c.source.get());
    const FuncInfo &dst_info = a.of(&f);
    // The shapes as this run's sizes give them.
    struct Bound {
        Layout layout;
        std::vector<int> extents;
    };
    const Bound src{src_info.layout, bind_extents(src_info.extents, sizes, "Reference: " + f.name)};
    const Bound dst{dst_info.layout, bind_extents(dst_info.extents, sizes, "Reference: " + f.name)};
    const Range ranks = group_ranks(src.layout.group, world_size);
    const int group_size = (int)ranks.extent();
    if (c.kind == CollectiveKind::Broadcast || c.kind == CollectiveKind::Reduce) {
        coconet_user_assert(c.root < group_size)
            << f.name << ": root " << c.root << " is not a rank of " << src.layout.group.to_string()
            << ", which has " << group_size << " ranks.";
    }
    Range dst_ranks = ranks;
    if (c.kind == CollectiveKind::SendRecv) {
        dst_ranks = group_ranks(c.dst, world_size);
        coconet_user_assert(dst_ranks.extent() == ranks.extent() ||
                            src.layout.kind != LayoutKind::Local)
            << f.name << ": send of " << c.source->name << " (" << src.layout.to_string() << ", "
            << ranks.extent() << " ranks) to " << c.dst.to_string() << " (" << dst_ranks.extent()
            << " ranks) needs groups of the same size: a Local value has one part per rank.";
    }
    const Halide::Type type = f.func.type();
    for (int r = 0; r < world_size; r++) {
        Buffer<> out = allocate_box(type, rank_region(dst.layout, dst.extents, r, world_size));
        const bool member = r >= dst_ranks.begin && r < dst_ranks.end;
        if (member) {
            with_element_type(type, [&](auto zero) {
                using T = decltype(zero);
                auto in = [&](int rank) { return Buffer<T>(state[rank].at(c.source.get())); };
                Buffer<T> o(out);
                o.for_each_element([&](const int *pos) {
                    switch (c.kind) {
                    case CollectiveKind::AllReduce:
                    case CollectiveKind::ReduceScatter:
                    case CollectiveKind::Reduce: {
                        if (c.kind == CollectiveKind::Reduce && r - ranks.begin != c.root) {
                            o(pos) = identity_of<T>(c.op);
                            break;
                        }
                        T acc = in((int)ranks.begin)(pos);
                        for (int64_t p = ranks.begin + 1; p < ranks.end; p++) {
                            acc = apply<T>(c.op, acc, in((int)p)(pos));
                        }
                        o(pos) = acc;
                        break;
                    }
                    case CollectiveKind::Broadcast:
                        o(pos) = in((int)ranks.begin + c.root)(pos);
                        break;
                    case CollectiveKind::AllGather:
                    case CollectiveKind::AllToAll: {
                        int d = src.layout.dim;
                        o(pos) = in(owner(ranks, src.extents[d], pos[d]))(pos);
                        break;
                    }
                    case CollectiveKind::SendRecv:
                        if (src.layout.kind == LayoutKind::Sliced) {
                            // Re-sliced: each element from its owner among the senders.
                            int d = src.layout.dim;
                            o(pos) = in(owner(ranks, src.extents[d], pos[d]))(pos);
                        } else {
                            // Group rank i receives from group rank i mod (sender count).
                            o(pos) = in((r - (int)dst_ranks.begin) % (int)ranks.extent() +
                                        (int)ranks.begin)(pos);
                        }
                        break;
                    }
                });
            });
        }
        state[r][&f] = out;
    }
}

} // namespace

// A computed Func as a Halide kernel of its own: its producers are parameters,
// and so are the rank and world size.
struct Reference::Kernel {
    std::vector<const DFuncContents *> producers;
    Halide::Callable callable;
};

Reference::Reference(const Program &program)
    : program_(program), analysis_(std::make_unique<const Analysis>(analyze(program))) {}

Reference::~Reference() = default;

const Reference::Kernel &Reference::kernel_for(const DFuncContents &f) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto &slot = kernels_[&f];
    if (slot) {
        return *slot;
    }
    auto k = std::make_unique<Kernel>();
    std::map<const DFuncContents *, Halide::ImageParam> params;
    CalleeMap callee = [&](const DFuncContents &c) -> Halide::Func {
        auto it = params.find(&c);
        if (it == params.end()) {
            const FuncInfo &i = analysis_->of(&c);
            it =
                params.emplace(&c, Halide::ImageParam(c.func.type(), (int)i.extents.size(), c.name))
                    .first;
            k->producers.push_back(&c);
        }
        return Halide::Func(it->second);
    };
    Halide::Param<int32_t> rank("coconet_reference_rank"), size("coconet_reference_size");
    Halide::Func out = rebuild_compute(f, analysis_->of(&f), callee, rank, size);
    std::vector<Halide::Argument> args;
    for (const DFuncContents *p : k->producers) {
        args.push_back(params.at(p));
    }
    args.push_back(rank);
    args.push_back(size);
    for (const Halide::Argument &s : size_arguments(analysis_->sizes)) {
        args.push_back(s);
    }
    k->callable = Halide::Pipeline(out).compile_to_callable(args, jit_target());
    slot = std::move(k);
    return *slot;
}

std::vector<RankBuffers> Reference::run(int world_size, const std::vector<RankBuffers> &inputs,
                                        const Sizes &sizes) const {
    coconet_user_assert(world_size >= 1) << "Reference: world size " << world_size << " < 1.";
    coconet_user_assert((int)inputs.size() == world_size)
        << "Program " << program_.name() << ": inputs for " << inputs.size()
        << " ranks given to a reference run on " << world_size << " ranks.";
    std::vector<int32_t> size_values;
    for (const RuntimeSize &s : analysis_->sizes) {
        size_values.push_back(bind_extents({s.expr}, sizes, "Program " + program_.name())[0]);
    }
    std::vector<Materialized> state(world_size);
    for (int r = 0; r < world_size; r++) {
        RankBuffers in = check_rank_inputs(program_, *analysis_, r, world_size, inputs[r], sizes);
        for (const DFunc &f : analysis_->inputs) {
            state[r][f.get_contents().get()] = in.at(f.name());
        }
    }
    for (const DFunc &df : analysis_->order) {
        const DFuncContents &f = *df.get_contents();
        if (f.kind == FuncKind::Collective) {
            run_collective(f, *analysis_, world_size, sizes, state);
            continue;
        }
        if (f.kind != FuncKind::Compute) {
            continue;
        }
        const Kernel &k = kernel_for(f);
        const FuncInfo &info = analysis_->of(&f);
        for (int r = 0; r < world_size; r++) {
            std::vector<Range> box =
                rank_region(info.layout, bind_extents(info.extents, sizes, "Reference: " + f.name),
                            r, world_size);
            Buffer<> out = allocate_box(f.func.type(), box);
            const Range members = group_ranks(info.layout.group, world_size);
            const bool member = r >= members.begin && r < members.end;
            if (out.number_of_elements() > 0 && member) {
                HalideMessages ctx;
                Halide::JITUserContext *ctx_ptr = &ctx;
                int32_t rank = r, size = world_size;
                std::vector<const void *> argv = {&ctx_ptr};
                for (const DFuncContents *p : k.producers) {
                    argv.push_back(state[r].at(p).raw_buffer());
                }
                argv.push_back(&rank);
                argv.push_back(&size);
                for (const int32_t &v : size_values) {
                    argv.push_back(&v);
                }
                argv.push_back(out.raw_buffer());
                int status = k.callable.call_argv_fast(argv.size(), argv.data());
                coconet_user_assert(status == 0)
                    << "Reference run of " << program_.name() << ": computing " << f.name
                    << " on rank " << r << " failed (Halide error " << status
                    << (ctx.messages.empty() ? "" : ": " + ctx.messages) << ").";
            }
            state[r][&f] = out;
        }
    }
    std::vector<RankBuffers> outputs(world_size);
    for (int r = 0; r < world_size; r++) {
        for (const ProgramOutput &o : program_.outputs()) {
            outputs[r][o.func.name()] = state[r].at(o.func.get_contents().get());
        }
    }
    return outputs;
}

} // namespace coconet
