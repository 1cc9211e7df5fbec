#include "JitProgram.h"

#include <thread>

#include "Error.h"

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

int jit_collective(void *uc, const char *name, int32_t kind, int32_t op, int32_t root, int32_t a,
                   int32_t b, int32_t nsplit, int32_t group, int32_t dst_group, int32_t n0,
                   int32_t n1, int32_t n2, int32_t n3, halide_buffer_t *in, halide_buffer_t *out) {
    return coconet_collective(comm_of(uc), name, kind, op, root, a, b, nsplit, group, dst_group, n0,
                              n1, n2, n3, in, out);
}

} // namespace

JitProgram::JitProgram(const Program &program) : lowered_(lower(program)) {
    Halide::Pipeline &p = lowered_.spmd.pipeline;
    p.set_jit_externs({
        {"coconet_rank", Halide::JITExtern(jit_rank)},
        {"coconet_size", Halide::JITExtern(jit_size)},
        {"coconet_collective", Halide::JITExtern(jit_collective)},
    });
    std::vector<Halide::Argument> args(lowered_.spmd.inputs.begin(), lowered_.spmd.inputs.end());
    callable_ = p.compile_to_callable(args, jit_target());
}

RankBuffers JitProgram::run_rank(coconet_comm *comm, const RankBuffers &inputs) const {
    coconet_user_assert(comm) << "Program " << lowered_.program.name() << ": null communicator.";
    const int rank = coconet_comm_rank(comm), size = coconet_comm_size(comm);
    const Program &program = lowered_.program;
    RankBuffers in = check_rank_inputs(program, lowered_.analysis, rank, size, inputs);
    RankBuffers out = allocate_rank_outputs(program, lowered_.analysis, rank, size);

    RankContext ctx;
    ctx.comm = comm;
    ctx.handlers.custom_error = record_error;
    Halide::JITUserContext *ctx_ptr = &ctx;
    std::vector<const void *> argv = {&ctx_ptr};
    for (const DFunc &f : lowered_.analysis.inputs) {
        argv.push_back(in.at(f.name()).raw_buffer());
    }
    for (const ProgramOutput &o : program.outputs()) {
        argv.push_back(out.at(o.func.name()).raw_buffer());
    }
    // A communicator that failed before keeps its old message: only a new one is this run's.
    const std::string earlier = coconet_comm_last_error(comm);
    int status = callable_.call_argv_fast(argv.size(), argv.data());
    if (status != 0) {
        std::string runtime_msg = coconet_comm_last_error(comm);
        std::string msg = runtime_msg == earlier ? ctx.error : runtime_msg;
        throw RuntimeError("Program " + program.name() + ", rank " + std::to_string(rank) + " of " +
                           std::to_string(size) + " (" + coconet_comm_backend(comm) + "): " + msg);
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
            for (int k = 0; k < 7; k++) {
                (*traffic)[r].bytes[k] = coconet_comm_bytes_sent(comm, k);
                (*traffic)[r].ops[k] = coconet_comm_op_count(comm, k);
            }
        }
    }
    return outputs;
}

} // namespace coconet
