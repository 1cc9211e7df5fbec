// Pass: the SPMD program every rank runs, as a sequence of segments. A Halide
// segment is one pipeline in global coordinates: computed Funcs are rebuilt
// with the rank and world size read from the communicator, collectives are
// extern stages of the runtime (coconet_collective) that get the communicator
// through Halide's user_context, and Halide's bounds inference gives each rank
// the box of every Func it needs. A fused segment is the pass of a
// reduce_scatter with the Funcs fused into it (fuse_with), run by the runtime
// (coconet_fused_reduce_scatter) with a Halide kernel per chunk. An overlapped
// unfused collective is a segment of its own too: the executor calls it chunk
// by chunk while the pipeline of its source computes the next chunk. Without
// fuse_with or overlap the whole program is one Halide segment. Liveness and
// placement (the passes before) say what is computed where; this pass builds it.
//
// A split all_reduce becomes its reduce_scatter and all_gather; a consumer
// sliced like the reduce_scatter reads it directly, and an all_gather that no
// consumer reads is never emitted. Values that cross segments live in buffers
// covering the rank's box of their layout.
#ifndef COCONET_LOWER_SPMD_H
#define COCONET_LOWER_SPMD_H

#include <map>

#include "DefaultSchedule.h"
#include "Placement.h"

namespace coconet {

struct HalideSegment {
    Halide::Pipeline pipeline;
    std::vector<Halide::ImageParam> params;          // in argument order
    std::vector<const DFuncContents *> param_values; // the value each param holds
    std::vector<const DFuncContents *> outputs;      // values it leaves for what follows
};

struct SpmdSegment {
    int fused_pass = -1; // >= 0: the pass of SpmdPipeline::passes[fused_pass]
    // An unfused collective overlapped with its producer: the executor runs
    // the collective chunk by chunk, on the rank's own thread, while the
    // producer computes the next chunk (never inside a Halide task, whose
    // thread pool cannot see a wait on another rank).
    const DFuncContents *collective = nullptr;
    HalideSegment halide; // otherwise; for an overlapped pass or collective,
                          // the pipeline computing its source, run chunk by chunk
    int chunks = 0;       // overlapped: chunks (along the collective's overlap_dim)
};

// What the lowering did with a Func, for the plan (PrintPlan words it).
enum class StepRole {
    Input,
    Computed,         // by the Halide segment `segment`
    Dead,             // no consumer reads it: not emitted
    ChunkedSource,    // computed chunk by chunk with the overlapped collective or fused pass
                      // (`fused_pass`) of segment `segment`
    Split,            // a split all_reduce: its sliced part and its gather
    ComputedOnSlices, // compute_sliced: its sliced part, then its gather
    SendsSlices,      // a send of a gathered value: the slices sent, gathered on arrival
    PassCollective,   // the collective whose pass `fused_pass` is
    FusedMember,      // computed inside the fused pass `fused_pass`
    FusedGather,      // written into every rank's copy by the fused pass `fused_pass`
    FusedDead,        // in a fused pass no consumer reads: not emitted
};

// One Func of the lowered plan, with the segment that computes it (-1: an
// input, a Func that stands for others after scheduling, or a dead one).
struct PlanStep {
    const DFuncContents *func = nullptr;
    StepRole role = StepRole::Input;
    int segment = -1;
    int fused_pass = -1; // the pass of a fused or chunked Func
    // Computed: the gathered Funcs it reads at its own slice only (it reads
    // their sliced parts).
    std::vector<const DFuncContents *> slice_reads;
    // An overlapped collective (Computed) or reducing pass (PassCollective):
    // the producer computed chunk by chunk, and the number of chunks.
    const DFuncContents *overlapped_with = nullptr;
    int chunks = 0;
    int chunk_dim = -1; // the dimension they run along
};

struct SpmdPipeline {
    std::vector<SpmdSegment> segments; // in execution order
    std::vector<FusedPass> passes;     // with their extra inputs and outputs
    std::vector<PlanStep> steps;       // every Func, producers first
    // Collectives whose extern stage runs on the target's device.
    std::vector<const DFuncContents *> device_stages;
    // The value that holds program output i after the last segment.
    std::vector<const DFuncContents *> output_values;
    // The rank and world size in the segments: runtime calls on their
    // user_context (the communicator).
    Halide::Expr rank, size;
};

// Rank 0 of `ranks` in place of the rank and size a segment reads at run
// time (SpmdPipeline::rank, size), for what is chosen when compiling: the
// autoschedulers' estimates, the GPU schedule's sizes. A reduction domain
// (shared with the segment) is replaced, not changed.
class AsRankZero : public Halide::Internal::IRMutator {
public:
    explicit AsRankZero(int ranks) : ranks(ranks) {}

private:
    using IRMutator::visit;
    using Domain = Halide::Internal::ReductionDomain;
    const int ranks;
    std::map<Domain, Domain, Domain::Compare> replaced;

    Halide::Expr visit(const Halide::Internal::Call *op) override;
    Halide::Expr visit(const Halide::Internal::Variable *op) override;
    Domain replacement(const Domain &d);
};

// Refuses an overlap whose collective and producer cannot run chunk by chunk.
// `device`: the GPU API of the target (DeviceAPI::None: the host), which the
// collectives that can run on it become extern stages on (CollectiveStage.h).
// `defaults`: the schedules of the Funcs the user left unscheduled.
SpmdPipeline lower_spmd(const Analysis &analysis, const std::vector<FusedPass> &passes,
                        const Liveness &liveness, const Placement &placement,
                        Halide::DeviceAPI device, const DefaultSchedules &defaults);

// What lower() (Lower.h) leaves: the program, what the analysis passes found,
// the default schedules it gave, and the SPMD pipeline built from it.
struct LoweredProgram {
    Program program;
    Analysis analysis;
    DefaultSchedules defaults;
    SpmdPipeline spmd;
};

} // namespace coconet

#endif
