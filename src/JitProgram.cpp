#include "JitProgram.h"

#include <algorithm>
#include <functional>
#include <thread>

#include "Error.h"
#include "FusedKernel.h"
#include "OverlappedPass.h"
#include "ScheduledReads.h"

namespace coconet {

namespace {

// Halide passes JIT-compiled code its JITUserContext as user_context; ours
// carries the rank's communicator and collects Halide's error messages.
struct RankContext : Halide::JITUserContext {
    coconet_comm *comm = nullptr;
    std::string error;
};

coconet_comm *comm_of(void *uc) {
    return static_cast<RankContext *>(uc)->comm;
}

void record_error(Halide::JITUserContext *uc, const char *msg) {
    static_cast<RankContext *>(uc)->error += msg;
}

int32_t jit_rank(void *uc) {
    return coconet_rank(comm_of(uc));
}

int32_t jit_size(void *uc) {
    return coconet_size(comm_of(uc));
}

int jit_collective(void *uc, const char *name, const halide_buffer_t *desc, halide_buffer_t *in,
                   halide_buffer_t *out) {
    return coconet_collective(comm_of(uc), name, desc, in, out);
}

// The fused kernel of one pass on one rank: what the runtime's chunk
// callback needs besides the chunk's sources and outputs.
struct KernelCall {
    const Halide::Callable *callable;
    int nsrc;
    RankContext *context;
    std::vector<const halide_buffer_t *> extras;
    int32_t rank, size;
    int nout;
};

// Elements of b inside the box of `chunk` (all of b when their dimensions differ).
uint64_t elements_within(const halide_buffer_t *b, const halide_buffer_t *chunk) {
    uint64_t n = 1;
    for (int d = 0; d < b->dimensions; d++) {
        int64_t lo = b->dim[d].min, hi = lo + b->dim[d].extent;
        if (b->dimensions == chunk->dimensions) {
            lo = std::max<int64_t>(lo, chunk->dim[d].min);
            hi = std::min<int64_t>(hi, (int64_t)chunk->dim[d].min + chunk->dim[d].extent);
        }
        n *= (uint64_t)std::max<int64_t>(hi - lo, 0);
    }
    return n;
}

int run_kernel_chunk(void *p, int32_t nsrc, const halide_buffer_t *const *srcs,
                     halide_buffer_t *const *outs) {
    auto *k = static_cast<KernelCall *>(p);
    if (nsrc != k->nsrc) {
        const std::string msg = "the kernel was compiled for " + std::to_string(k->nsrc) +
                                " sources, the runtime passed " + std::to_string(nsrc);
        coconet_comm_set_error(k->context->comm, msg.c_str());
        return COCONET_ERR_INVALID;
    }
    Halide::JITUserContext *ctx = k->context;
    std::vector<const void *> argv = {&ctx};
    for (int i = 0; i < nsrc; i++) {
        argv.push_back(srcs[i]);
    }
    uint64_t extra_bytes = 0;
    for (const halide_buffer_t *e : k->extras) {
        argv.push_back(e);
        extra_bytes += elements_within(e, outs[0]) * e->type.bytes();
    }
    argv.push_back(&k->rank);
    argv.push_back(&k->size);
    for (int i = 0; i < k->nout; i++) {
        argv.push_back(outs[i]);
    }
    coconet_comm_count_bytes(k->context->comm, COCONET_FUSED, extra_bytes);
    const int status = k->callable->call_argv_fast(argv.size(), argv.data());
    if (status != 0) {
        coconet_comm_set_error(k->context->comm, k->context->error.c_str());
    }
    return status;
}

std::vector<Range> box_of(const Analysis &a, const DFuncContents *f, int rank, int size) {
    const FuncInfo &info = a.of(f);
    return rank_region(info.layout, info.extents, rank, size);
}

// An overlapped collective blocks a Halide worker while it waits for its
// peers, and its producer needs others for the next chunks. Halide adds
// threads for its own async waits but cannot see ours, so a process running
// `ranks` ranks keeps coconet_rt::async_workers(ranks) workers.
void reserve_async_workers(const SpmdPipeline &spmd, int ranks) {
    if (!spmd.overlapped) {
        return;
    }
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    const int want = coconet_rt::async_workers(ranks);
    if (Halide::Internal::JITSharedRuntime::get_num_threads() < want) {
        Halide::Internal::JITSharedRuntime::set_num_threads(want);
    }
}

int group_size(const FuncInfo &info, int world_size) {
    return (int)group_ranks(info.layout.group, world_size).extent();
}

} // namespace

JitProgram::JitProgram(const Program &program) : lowered_(lower(program)) {
    for (SpmdSegment &seg : lowered_.spmd.segments) {
        callables_.emplace_back();
        if (!seg.halide.pipeline.defined()) {
            continue; // a fused pass without a producer of its own
        }
        Halide::Pipeline &p = seg.halide.pipeline;
        p.set_jit_externs({
            {"coconet_rank", Halide::JITExtern(jit_rank)},
            {"coconet_size", Halide::JITExtern(jit_size)},
            {"coconet_collective", Halide::JITExtern(jit_collective)},
        });
        std::vector<Halide::Argument> args(seg.halide.params.begin(), seg.halide.params.end());
        callables_.back() = p.compile_to_callable(args, jit_target());
    }
}

int JitProgram::sources(const FusedPass &g, const coconet_comm *comm) const {
    if (!g.reduces()) {
        return 0;
    }
    const int n = group_size(g.sliced_info(lowered_.analysis), coconet_comm_size(comm));
    return coconet_fused_sources(comm, (int)g.scatter->fuse_options.path, n);
}

const Halide::Callable &JitProgram::fused_kernel(int group, int nsrc) const {
    std::lock_guard<std::mutex> lock(kernels_mutex_);
    auto &k = kernels_[{group, nsrc}];
    if (!k) {
        // The runtime calls JIT kernels on host memory: a host schedule.
        FusedKernelPipeline kp = build_fused_kernel(lowered_.spmd.passes[group], lowered_.analysis,
                                                    nsrc, Halide::get_host_target());
        k = std::make_unique<Halide::Callable>(
            kp.pipeline.compile_to_callable(kp.arguments, jit_target()));
    }
    return *k;
}

void JitProgram::prepare_kernels(const coconet_comm *comm) const {
    const auto &groups = lowered_.spmd.passes;
    for (const SpmdSegment &seg : lowered_.spmd.segments) {
        if (seg.fused_pass >= 0) {
            fused_kernel(seg.fused_pass, sources(groups[seg.fused_pass], comm));
        }
    }
}

void JitProgram::run_halide(size_t index, coconet_comm *comm, void *rank_context,
                            std::map<const DFuncContents *, Halide::Buffer<>> &values,
                            const Halide::Buffer<> *only_output) const {
    const SpmdSegment &seg = lowered_.spmd.segments[index];
    RankContext &ctx = *static_cast<RankContext *>(rank_context);
    const int rank = coconet_comm_rank(comm), size = coconet_comm_size(comm);
    Halide::JITUserContext *ctx_ptr = &ctx;
    std::vector<const void *> argv = {&ctx_ptr};
    for (const DFuncContents *v : seg.halide.param_values) {
        argv.push_back(values.at(v).raw_buffer());
    }
    for (const DFuncContents *v : seg.halide.outputs) {
        if (only_output) {
            argv.push_back(only_output->raw_buffer());
            continue;
        }
        Halide::Buffer<> &b = values[v] =
            allocate_box(v->func.type(), box_of(lowered_.analysis, v, rank, size));
        argv.push_back(b.raw_buffer());
    }
    // A communicator that failed before keeps its old message: only a new one is this run's.
    const std::string earlier = coconet_comm_last_error(comm);
    int status = callables_[index].call_argv_fast(argv.size(), argv.data());
    if (status != 0) {
        std::string runtime_msg = coconet_comm_last_error(comm);
        std::string msg = runtime_msg == earlier ? ctx.error : runtime_msg;
        throw RuntimeError("Program " + lowered_.program.name() + ", rank " + std::to_string(rank) +
                           " of " + std::to_string(size) + " (" + coconet_comm_backend(comm) +
                           "): " + msg);
    }
}

void JitProgram::run_fused(size_t index, coconet_comm *comm, void *rank_context,
                           std::map<const DFuncContents *, Halide::Buffer<>> &values) const {
    const SpmdSegment &segment = lowered_.spmd.segments[index];
    const Analysis &a = lowered_.analysis;
    const FusedPass &g = lowered_.spmd.passes[segment.fused_pass];
    const int rank = coconet_comm_rank(comm), size = coconet_comm_size(comm);
    const FuncInfo &info = g.sliced_info(a);
    const FuseOptions &options = g.scatter->fuse_options;
    const int nsrc = sources(g, comm);
    KernelCall k{&fused_kernel(segment.fused_pass, nsrc),
                 nsrc,
                 static_cast<RankContext *>(rank_context),
                 {},
                 rank,
                 size,
                 (int)g.outputs.size()};
    for (const DFuncContents *e : g.extra_inputs) {
        k.extras.push_back(values.at(e).raw_buffer());
    }
    std::vector<halide_buffer_t *> outs;
    std::vector<int32_t> gathered;
    for (const FusedOutput &o : g.outputs) {
        const DFuncContents *v = o.gathered_value ? o.gathered_value : o.slice_value;
        Halide::Buffer<> &b = values[v] = allocate_box(v->func.type(), box_of(a, v, rank, size));
        outs.push_back(b.raw_buffer());
        gathered.push_back(o.gathered_value ? 1 : 0);
    }
    coconet_fused_call call{};
    call.name = g.scatter->name.c_str();
    call.op = (int32_t)g.scatter->collective->op;
    call.dim = info.layout.dim;
    call.nsplit = info.layout.group.nsplit;
    call.group = info.layout.group.index;
    call.dims = (int32_t)info.extents.size();
    for (int d = 0; d < 4; d++) {
        call.n[d] = d < call.dims ? info.extents[d] : 1;
    }
    if (g.reduces() && segment.chunks == 0) {
        const DFuncContents *src = scheduled_target(nullptr, *g.scatter->collective->source, a);
        call.src = values.at(src).raw_buffer();
    }
    call.nout = (int32_t)outs.size();
    call.outs = outs.data();
    call.gathered = gathered.data();
    call.kernel = run_kernel_chunk;
    call.kernel_context = &k;
    call.chunk_elements = options.chunk_elements;
    call.path = (int32_t)options.path;
    auto fail = [&] {
        throw RuntimeError("Program " + lowered_.program.name() + ", rank " + std::to_string(rank) +
                           " of " + std::to_string(size) + " (" + coconet_comm_backend(comm) +
                           "): " + coconet_comm_last_error(comm));
    };
    if (segment.chunks == 0) {
        if (coconet_fused_reduce_scatter(comm, &call) != COCONET_OK) {
            fail();
        }
    } else {
        run_overlapped(index, comm, rank_context, values, call, fail);
    }
    // A slice read after the pass is the rank's part of the gathered value.
    for (const FusedOutput &o : g.outputs) {
        if (o.gathered_value && o.slice_value) {
            // cropped(), not crop(): copies of a Halide::Buffer share one shape.
            Halide::Buffer<> slice = values.at(o.gathered_value);
            const std::vector<Range> box = box_of(a, o.slice_value, rank, size);
            for (size_t d = 0; d < box.size(); d++) {
                slice = slice.cropped((int)d, (int)box[d].begin, (int)box[d].extent());
            }
            values[o.slice_value] = slice;
        }
    }
}

void JitProgram::run_overlapped(size_t index, coconet_comm *comm, void *rank_context,
                                std::map<const DFuncContents *, Halide::Buffer<>> &values,
                                coconet_fused_call &call, const std::function<void()> &fail) const {
    const SpmdSegment &segment = lowered_.spmd.segments[index];
    const int rank = coconet_comm_rank(comm), size = coconet_comm_size(comm);
    const DFuncContents *p = segment.halide.outputs.at(0);
    Halide::Buffer<> &source = values[p] =
        allocate_box(p->func.type(), box_of(lowered_.analysis, p, rank, size));
    call.src = source.raw_buffer();
    const int c = call.dims - 1;
    const bool member = source.number_of_elements() > 0 || call.n[c] == 0;
    // The second thread reports Halide's errors into a context of its own.
    RankContext helper_context;
    helper_context.comm = comm;
    helper_context.handlers.custom_error = record_error;
    auto produce = [&](int min, int extent, bool on_caller) {
        if (member) {
            Halide::Buffer<> chunk = source.cropped(c, min, extent);
            run_halide(index, comm, on_caller ? rank_context : &helper_context, values, &chunk);
        }
    };
    if (!coconet_rt::run_overlapped_pass(comm, call, segment.chunks, produce)) {
        fail();
    }
}

RankBuffers JitProgram::run_rank(coconet_comm *comm, const RankBuffers &inputs) const {
    coconet_user_assert(comm) << "Program " << lowered_.program.name() << ": null communicator.";
    const int rank = coconet_comm_rank(comm), size = coconet_comm_size(comm);
    const Program &program = lowered_.program;
    const Analysis &a = lowered_.analysis;
    RankBuffers in = check_rank_inputs(program, a, rank, size, inputs);
    prepare_kernels(comm);
    reserve_async_workers(lowered_.spmd, 1);
    std::map<const DFuncContents *, Halide::Buffer<>> values;
    for (const DFunc &f : a.inputs) {
        values[f.get_contents().get()] = in.at(f.name());
    }

    RankContext ctx;
    ctx.comm = comm;
    ctx.handlers.custom_error = record_error;
    for (size_t s = 0; s < lowered_.spmd.segments.size(); s++) {
        const SpmdSegment &seg = lowered_.spmd.segments[s];
        if (seg.fused_pass >= 0) {
            run_fused(s, comm, &ctx, values);
        } else {
            run_halide(s, comm, &ctx, values, nullptr);
        }
    }
    RankBuffers out;
    for (size_t i = 0; i < program.outputs().size(); i++) {
        const DFuncContents *v = lowered_.spmd.output_values[i];
        Halide::Buffer<> b = values.at(v);
        // An input returned as is: the caller gets a copy, not its own buffer.
        out[program.outputs()[i].func.name()] = v->kind == FuncKind::Input ? b.copy() : b;
    }
    return out;
}

uint64_t RankTraffic::total_bytes() const {
    uint64_t n = 0;
    for (uint64_t b : bytes) {
        n += b;
    }
    return n;
}

std::vector<RankBuffers> JitProgram::run_threads(int world_size,
                                                 const std::vector<RankBuffers> &inputs,
                                                 double timeout_seconds,
                                                 std::vector<RankTraffic> *traffic) const {
    coconet_user_assert(world_size >= 1) << "run_threads: world size " << world_size << " < 1.";
    coconet_user_assert((int)inputs.size() == world_size)
        << "Program " << lowered_.program.name() << ": inputs for " << inputs.size()
        << " ranks given to a run on " << world_size << " ranks.";
    // Bad inputs are the caller's error: report them before any rank starts.
    for (int r = 0; r < world_size; r++) {
        check_rank_inputs(lowered_.program, lowered_.analysis, r, world_size, inputs[r]);
    }
    std::unique_ptr<coconet_threads_world, void (*)(coconet_threads_world *)> world(
        coconet_threads_world_create(world_size, timeout_seconds), coconet_threads_world_destroy);
    coconet_internal_assert(world) << "could not create a threads world";
    prepare_kernels(coconet_threads_world_comm(world.get(), 0));
    reserve_async_workers(lowered_.spmd, world_size);
    std::vector<RankBuffers> outputs(world_size);
    std::vector<std::string> errors(world_size);
    std::vector<char> aborted(world_size, 0); // not vector<bool>: threads write neighbours
    std::vector<std::thread> threads;
    for (int r = 0; r < world_size; r++) {
        threads.emplace_back([&, r] {
            coconet_comm *comm = coconet_threads_world_comm(world.get(), r);
            try {
                outputs[r] = run_rank(comm, inputs[r]);
            } catch (const std::exception &e) {
                errors[r] = e.what();
                aborted[r] =
                    std::string(coconet_comm_last_error(comm)).find("aborted") != std::string::npos;
                coconet_comm_abort(comm, e.what());
            }
        });
    }
    for (auto &t : threads) {
        t.join();
    }
    // Report the ranks that failed first, not those that stopped because of them.
    std::string report;
    for (int pass = 0; pass < 2 && report.empty(); pass++) {
        for (int r = 0; r < world_size; r++) {
            if (!errors[r].empty() && (pass == 1 || !aborted[r])) {
                report += (report.empty() ? "" : "\n") + errors[r];
            }
        }
    }
    if (!report.empty()) {
        throw RuntimeError(report);
    }
    if (traffic) {
        traffic->assign(world_size, RankTraffic{});
        for (int r = 0; r < world_size; r++) {
            const coconet_comm *comm = coconet_threads_world_comm(world.get(), r);
            for (int k = 0; k < RankTraffic::kinds; k++) {
                (*traffic)[r].bytes[k] = coconet_comm_bytes_sent(comm, k);
                (*traffic)[r].ops[k] = coconet_comm_op_count(comm, k);
            }
        }
    }
    return outputs;
}

} // namespace coconet
