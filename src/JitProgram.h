// Just-in-time execution of a lowered program: one compiled pipeline that any
// rank runs with its own communicator (threads or MPI backend), and a helper
// that runs R ranks as threads of this process.
#ifndef COCONET_JIT_PROGRAM_H
#define COCONET_JIT_PROGRAM_H

#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "Lower.h"
#include "RankData.h"

namespace coconet {

// What each rank sent while a program ran: bytes and operations per
// collective kind (indexed by CollectiveKind; index COCONET_FUSED: the memory
// traffic of fused passes).
struct RankTraffic {
    static constexpr int kinds = COCONET_FUSED + 1;
    uint64_t bytes[kinds] = {};
    uint64_t ops[kinds] = {};
    uint64_t total_bytes() const;
};

class JitProgram {
public:
    // Lowers and compiles for the host.
    explicit JitProgram(const Program &program);

    // Runs one rank: `inputs` holds this rank's box of every input. Throws
    // RuntimeError naming the rank and the failing operation.
    RankBuffers run_rank(coconet_comm *comm, const RankBuffers &inputs) const;

    // Runs `world_size` ranks as threads (threads backend); inputs[r] is rank r's.
    // If `traffic` is given, it receives each rank's traffic.
    std::vector<RankBuffers> run_threads(int world_size, const std::vector<RankBuffers> &inputs,
                                         double timeout_seconds = 10.0,
                                         std::vector<RankTraffic> *traffic = nullptr) const;

    const LoweredProgram &lowered() const { return lowered_; }

private:
    // The compiled kernel of fused group g for nsrc sources (compiled on first use).
    const Halide::Callable &fused_kernel(int group, int nsrc) const;
    // How many sources the kernel of pass g gets on `comm`.
    int sources(const FusedPass &g, const coconet_comm *comm) const;
    // Compiles the fused kernels a run on `comm` needs, before any rank waits.
    void prepare_kernels(const coconet_comm *comm) const;
    // Runs Halide segment `index` (or the producer of an overlapped pass); with
    // `only_output`, into that buffer instead of fresh ones.
    void run_halide(size_t index, coconet_comm *comm, void *rank_context,
                    std::map<const DFuncContents *, Halide::Buffer<>> &values,
                    const Halide::Buffer<> *only_output) const;
    void run_fused(size_t index, coconet_comm *comm, void *rank_context,
                   std::map<const DFuncContents *, Halide::Buffer<>> &values) const;
    // An overlapped pass: the producer and the pass, chunk by chunk.
    void run_overlapped(size_t index, coconet_comm *comm, void *rank_context,
                        std::map<const DFuncContents *, Halide::Buffer<>> &values,
                        coconet_fused_call &call, const std::function<void()> &fail) const;

    LoweredProgram lowered_;
    std::vector<Halide::Callable> callables_; // per segment (unused for fused ones)
    mutable std::mutex kernels_mutex_;
    mutable std::map<std::pair<int, int>, std::unique_ptr<Halide::Callable>> kernels_;
};

} // namespace coconet

#endif
