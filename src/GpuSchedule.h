// GPU schedules for GPU-target libraries (CUDA, OpenCL). The generators'
// schedules say how computation and communication are split, fused and
// overlapped; which loops run on the GPU is decided here for every Halide
// stage the user left unscheduled, so the same generator builds for the host
// and for a GPU.
#ifndef COCONET_GPU_SCHEDULE_H
#define COCONET_GPU_SCHEDULE_H

#include <map>

#include "LowerSpmd.h"
#include "Partition.h"

namespace coconet {

// Maps f's definitions to GPU blocks and threads over the innermost one or
// two pure dimensions (tails guarded; further ones one more dimension of
// blocks; reduction loops serial inside a thread, the innermost unrolled by
// eight); with `when` defined, only in a specialization on it (otherwise f
// runs on the host). A scalar runs on one GPU thread, a reduction over one
// variable in parts first (a norm). So does a reduction into few elements
// (`elements`, estimated, the box's: a GEMV's rows) along a long innermost
// reduction variable: its parts are a kernel of their own, filling the GPU,
// and f adds them (that order of addition is not the reference's);
// `parts_of_rows`, where given, is set to their number. Returns "" when
// scheduled; otherwise leaves f alone and says why it stays on the host: a
// scalar that why_scalar_on_host names, an extern stage, Halide directives
// of the user's (or of register tiles), an update that writes other than at
// its pure variables, or a value or index that calls a host function (the
// runtime's coconet_rank / coconet_size, any extern), also through the Funcs
// inlined into it. Reduction bounds may call them: Halide computes loop
// bounds on the host and passes them to the kernel (a rank's slice of a
// sliced contraction).
std::string gpu_tile_func(Halide::Func f, const Halide::Expr &when = Halide::Expr(),
                          int64_t elements = -1, int *parts_of_rows = nullptr);

// Makes the loops of a stage's pure variables args[2..] (outside its GPU
// tiles over args[0] and args[1]) one more dimension of GPU blocks: left
// serial, they would be host loops launching the kernel once per element.
void gpu_blocks_beyond_two(Halide::Stage s, const std::vector<Halide::Var> &args);

// Why gpu_tile_func leaves scalar fn on the host wherever it is computed, or
// "": a directive of the user's, a host call in its values, indices or
// reduction bounds (also through the Funcs inlined into it), or more than one
// reduction variable or update.
std::string why_scalar_on_host(const Halide::Internal::Function &fn);

// The calling rank's range of a value along dimension d in global indices
// (empty outside the value's group), and whether its box is non-empty (rank
// and size as the segments compute them).
ExprRange rank_box_range(const FuncInfo &info, int d, const Halide::Expr &rank,
                         const Halide::Expr &size);
Halide::Expr rank_box_nonempty(const FuncInfo &info, const Halide::Expr &rank,
                               const Halide::Expr &size);

// For a Func of a segment (by name, without Halide's uniquifying suffix):
// the condition under which this rank computes a non-empty box of it, or an
// undefined Expr and the reason it must not run on the GPU. CUDA refuses a
// kernel launch of no blocks, so a Func whose box can be empty on some rank
// (a slice) runs on the GPU only where it is not.
struct GpuCondition {
    Halide::Expr when;
    std::string why_not;
    // The elements of the box, estimated (as on rank 0 of two, run-time
    // sizes at their estimates), for gpu_tile_func; -1: unknown.
    int64_t elements = -1;
};
using NonEmptyBox = std::function<GpuCondition(const std::string &)>;

// Every Func's box non-empty on every rank: a pipeline that is not one rank's
// slice of a program (a whole computation, a test's).
NonEmptyBox every_box_nonempty();

// Where the compute_root Funcs of a pipeline run, by name; `host` with the
// reason each stays there.
struct GpuPlacement {
    std::vector<std::string> gpu;
    std::vector<std::pair<std::string, std::string>> host;
    // What the GPU kernels read: Funcs computed elsewhere (plain names) and
    // image parameters (schedule_segment_for_gpu: the values they hold).
    std::vector<std::string> reads;
    // The Funcs among `gpu` whose rows are added in parts, and how many.
    std::map<std::string, int> row_parts;
    // MatMuls that the device's BLAS computes (extern stages of coconet_gemm:
    // DefaultSchedule.h); what they read is among `reads`.
    std::vector<std::string> library;
};

// Gives every compute_root Func of p that the user did not schedule a GPU
// schedule (gpu_tile_func) under its non-empty condition; the others run on
// the host, and Halide copies between host and device around them.
GpuPlacement schedule_for_gpu(const Halide::Pipeline &p, const NonEmptyBox &nonempty);

// schedule_for_gpu on a segment of the lowered program, each Func under the
// condition that the calling rank's box of it is non-empty (its slice, from
// the segment's rank and size; outside the group of a value on a group of
// world.split, empty). On the other groups' ranks, Halide still allocates a
// buffer that host and device touch, before the condition is tested, and its
// GPU runtimes abort on an empty one: such values are stored there in
// stand-ins of one element (a device stage's output bounded so; a host
// stage's result that a kernel reads, through a copy on the host stored so).
// AOT and JIT compile through it.
GpuPlacement schedule_segment_for_gpu(const HalideSegment &h, const Analysis &a,
                                      const SpmdPipeline &spmd);

// The placement as the plan dump writes it: "GPU kernels for a, b (rows
// added in 64 parts); on the host: c (a scalar)", or "no computation" for a
// pipeline of collectives.
std::string placement_text(const GpuPlacement &placement);

// The program's collective stages as the plan dump of a GPU target words
// them: those on device buffers (CollectiveStage.h: collective_on_device),
// those through host memory and why.
std::string device_collectives_text(const Analysis &a, const SpmdPipeline &spmd);

} // namespace coconet

#endif
