// Just-in-time execution of a program, compiled by the same driver as an AOT
// library (Compile.h): its Halide segments and fused kernels compiled in
// memory, run on any communicator (threads or MPI backend) by the runtime's
// executor (coconet_aot_run) from the same table an AOT library holds; and
// helpers that run R ranks as threads of this process.
#ifndef COCONET_JIT_PROGRAM_H
#define COCONET_JIT_PROGRAM_H

#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "RankData.h"
#include "ThreadWorld.h"
#include "coconet_aot.h"

namespace coconet {

struct CompiledProgram;

// The target JIT compilation uses (the pipeline and the reference's kernels):
// the host with strict_float, so that no code shape contracts or reassociates
// floating-point operations and results are bit-identical to the reference.
Halide::Target jit_target();

// What each rank sent while a program ran: bytes and operations per
// collective kind (indexed by CollectiveKind; index COCONET_FUSED: the memory
// traffic of fused passes).
struct RankTraffic {
    static constexpr int kinds = COCONET_HOST_DEVICE + 1;
    uint64_t bytes[kinds] = {};
    uint64_t ops[kinds] = {};
    // Bytes the collectives and fused passes moved (host<->device copies aside).
    uint64_t total_bytes() const;
};

// How a JitProgram compiles, as a generator's parameters and add_coconet_library's
// options say for an AOT library.
struct JitOptions {
    // By default Halide's JIT target, from HL_JIT_TARGET; always with
    // strict_float. With a GPU feature (e.g. host-opencl), the segments get
    // the GPU schedules of GPU-target libraries and the fused kernels run on
    // the device, as in an AOT library for that target.
    Halide::Target target = jit_target();
    // The Funcs the user left unscheduled get the default schedule
    // (docs/scheduling.md; on a GPU target, MatMuls' register tiles), unless
    // an autoscheduler is named.
    bool default_schedule = true;
    // Its MatMuls on a GPU target: "auto" (cuBLAS on CUDA), "library" (also
    // CLBlast on OpenCL), "kernels" (register tiles), or "" for
    // COCONET_GPU_MATMUL's (auto when unset).
    std::string gpu_matmul;
    // A Halide autoscheduler (Adams2019, Li2018, Mullapudi2016) for the
    // segments the user left unscheduled, CPU targets; its plugin is loaded
    // from `autoscheduler_plugin` when that is given (else it must be loaded
    // already: Halide::load_plugin). Its estimates are for `estimate_ranks`.
    std::string autoscheduler, autoscheduler_plugin;
    // Its parameters (Halide's AutoschedulerParams::extra, e.g. Adams2019's
    // "beam_size"); "parallelism" is 1 unless given (a thread per rank).
    std::map<std::string, std::string> autoscheduler_params;
    int estimate_ranks = 2;
};

class JitProgram {
public:
    // Lowers and compiles for `target`, with the default JitOptions otherwise.
    explicit JitProgram(const Program &program, const Halide::Target &target = jit_target());
    JitProgram(const Program &program, const JitOptions &options);
    ~JitProgram();

    // Runs one rank: `inputs` holds this rank's box of every input (a
    // buffer under a name that is no input is refused). Bad inputs or sizes
    // throw UserError naming them, a failed call RuntimeError naming the rank
    // and the failing operation; either aborts the communicator first
    // (coconet_comm_abort), so that peers stop too, naming this rank. Inputs with a
    // device allocation (of this program's target) are read there, and the
    // outputs are then returned on that device, device-dirty. Host inputs are read
    // from the host on every call and keep no device allocation after it
    // (coconet_aot_run's rule), so they may be rewritten in place between
    // calls; after writing the host of a buffer that has a device
    // allocation, call set_host_dirty() on it.
    // `sizes` gives the program's run-time sizes (Extent.h), the same on
    // every rank; the program runs at any.
    RankBuffers run_rank(coconet_comm *comm, const RankBuffers &inputs,
                         const Sizes &sizes = {}) const;
    // The same into `outputs`: a buffer there of an output's type and box,
    // dense with host memory (what the previous call returned) and sharing
    // no memory with an input, is written again, so that a loop allocates
    // nothing per call: on its device, device-dirty, if it has a device
    // allocation, else on the host, keeping none. So is the very buffer of
    // an input the output may update in place (the plan lists them;
    // docs/semantics.md), without a device allocation: the call writes the
    // new values over that input. Others are allocated as above. `outputs`
    // then holds this call's outputs only.
    void run_rank(coconet_comm *comm, const RankBuffers &inputs, RankBuffers &outputs,
                  const Sizes &sizes = {}) const;

    // Runs `world_size` ranks as threads (threads backend) of a world made for
    // this call; inputs[r] is rank r's. If `traffic` is given, it receives
    // each rank's traffic.
    std::vector<RankBuffers> run_threads(int world_size, const std::vector<RankBuffers> &inputs,
                                         double timeout_seconds = 10.0,
                                         std::vector<RankTraffic> *traffic = nullptr) const;
    std::vector<RankBuffers> run_threads(int world_size, const std::vector<RankBuffers> &inputs,
                                         const Sizes &sizes, double timeout_seconds = 10.0,
                                         std::vector<RankTraffic> *traffic = nullptr) const;
    // The same on a world kept across calls (a training loop's): no world
    // or thread is made per call, and the overlap tuning of its
    // communicators carries over from call to call. `traffic` is this
    // call's.
    std::vector<RankBuffers> run_threads(ThreadWorld &world, const std::vector<RankBuffers> &inputs,
                                         const Sizes &sizes = {},
                                         std::vector<RankTraffic> *traffic = nullptr) const;
    // The same into `outputs` (outputs[r] as run_rank's for rank r; none
    // kept that any rank's inputs share memory with): a loop that passes the
    // previous call's outputs allocates none.
    void run_threads(ThreadWorld &world, const std::vector<RankBuffers> &inputs,
                     std::vector<RankBuffers> &outputs, const Sizes &sizes = {},
                     std::vector<RankTraffic> *traffic = nullptr) const;

    // The plan on `world_size` ranks as an AOT library's header gives it:
    // the steps, then where the code runs on a GPU target and what the
    // default schedule or the autoscheduler did.
    std::string plan(int world_size) const;

private:
    struct Function;
    // The table the executor follows on a communicator (its kernels compiled).
    struct Table;
    // The table for comm's backend, built on its first call and kept: the
    // executor knows a program across calls by its table's address (the
    // sizes the ranks last agreed on, window memory), so every call, from
    // whatever frame or thread, must pass the same one.
    const Table &table_for(const coconet_comm *comm) const;
    // The run-time sizes' values in the table's order; a size missing from
    // `sizes`, negative, or not the program's is a UserError.
    std::vector<int32_t> table_sizes(const Sizes &sizes) const;
    // The fused kernel of plan step s for nsrc sources (compiled on first use).
    const Function &fused_kernel(int s, int nsrc) const;

    std::unique_ptr<CompiledProgram> compiled_; // the lowered program, its plan and target
    // The segments' and the combiners' functions, by the names the plan gives them.
    std::map<std::string, std::unique_ptr<Function>> functions_;
    std::vector<coconet_aot_combiner> combiners_; // the device collectives' (a GPU target)
    mutable std::mutex kernels_mutex_;
    mutable std::map<std::pair<int, int>, std::unique_ptr<Function>> kernels_;
    mutable std::mutex tables_mutex_;
    mutable std::vector<std::unique_ptr<Table>> tables_; // one per set of kernels chosen
};

} // namespace coconet

#endif
