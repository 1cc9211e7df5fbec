// The example applications, written as distributed algorithms (unscheduled):
// data-parallel Adam and LAMB, a Megatron-style MLP block, and a two-stage
// pipeline. Each returns a Program whose outputs have declared layouts.
#ifndef COCONET_APPS_H
#define COCONET_APPS_H

#include <functional>
#include <string>
#include <vector>

#include "CoCoNet.h"

namespace coconet {
namespace apps {

// How an app is scheduled (the algorithm is the same): not at all; with its
// collectives split and consumers computed on slices; or split and with the
// element-wise consumers fused into the reduce_scatter's pass.
enum class Schedule { None, Split, Fused };
const char *to_string(Schedule s);

// The apps' MatMuls on a CPU: C(x, y) += A(x, k) * B(k, y) in register tiles
// of 16 x 6 (12 AVX2 registers of partial sums, A read as 2 vectors and B
// broadcast 6 times per k), the Halide schedule of a BLAS micro-kernel; `cols`
// other than 6 where the target has the registers for them.
inline void schedule_matmul(DFunc &c, const Halide::Var &x, const Halide::Var &y, int cols = 6) {
    c.accumulate_in_registers(x, y, 16, cols);
}

struct OptimizerConfig {
    int n = 1000; // parameters
    float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
    float weight_decay = 0.01f; // LAMB only
    int step = 1;               // for bias correction, >= 1
    // Split: split_collective on the gradients' all_reduce. Fused: also the
    // moments (and Adam's step, LAMB's update) inside the reduce_scatter's
    // pass, with the new parameters written straight into every rank's copy.
    Schedule schedule = Schedule::None;
    FuseOptions fuse;
    // For a GPU target: no CPU schedule (vector loops) of the compute, which
    // the GPU pass of CUDA-target libraries then maps to the GPU.
    bool gpu = false;
    // false: no hand schedule of the compute (LAMB's norm lanes), left to
    // the default schedule or an autoscheduler.
    bool hand_schedule = true;
    // true: the parameter count is the run-time size "n" (Extent.h), given
    // at each call, and `n` above is only its estimate.
    bool runtime_size = false;
};

// An app's extent: `value`, or with `runtime` the run-time size `name`
// (Extent.h) with `value` as its estimate.
Halide::Expr app_extent(int value, bool runtime, const std::string &name);

// What Adam and LAMB share: the inputs, the gradients summed over ranks, and
// the new moments computed on each rank's slice of the state.
struct AdamState {
    Halide::Expr n; // the parameter count, app_extent(c.n, c.runtime_size, "n")
    DFunc g, w, m, v, g_sum, m_new, v_new;
};
AdamState adam_state(const OptimizerConfig &c);
// Adam's bias-corrected step direction m_hat / (sqrt(v_hat) + eps) at index i.
Halide::Expr adam_direction(const OptimizerConfig &c, const AdamState &s, Halide::Expr i);

// Data-parallel Adam. Inputs: g (Local gradients), w (Replicated parameters),
// m and v (Sliced(0) optimizer state). Outputs: w_new (Replicated), m_new and
// v_new (Sliced(0)).
Program adam(const OptimizerConfig &c);

// Data-parallel SGD with momentum (beta1), weight decay and a clip of the
// global gradient norm to 1: the momentum can only start once the norm is
// reduced across ranks, so the update runs after it, in the all_gather of the
// new weights. Inputs: g (Local), w (Replicated), m (Sliced(0)). Outputs:
// w_new (Replicated), m_new (Sliced(0)). Split: w_slice computed in w_new's
// pass; Fused: the momentum and the update too.
struct ClipParts {
    DFunc m_new, update, w_slice, w_new;
};
ClipParts sgd_clip_parts(const OptimizerConfig &c); // unscheduled
Program sgd_clip_program(const ClipParts &parts);
Program sgd_clip(const OptimizerConfig &c);

// Data-parallel LAMB: Adam's moments, a weight-decayed update and a trust ratio
// ||w|| / ||update|| from global norms (the update's norm is reduced across ranks).
Program lamb(const OptimizerConfig &c);

struct MlpConfig {
    int batch = 8, hidden = 16, ffn = 64;
    float dropout = 0.1f;
    int seed = 7;
    // Split: split the all_reduce, compute bias, dropout and residual on
    // slices, gather the output. Fused: that epilogue and the gather inside
    // the reduce_scatter's pass.
    Schedule schedule = Schedule::None;
    FuseOptions fuse;
    int overlap = 0; // > 0: the second MatMul and the reduce_scatter (or its fused pass) in chunks
    // The dimension the all_reduce is split along: 0, the hidden features
    // (tensor parallelism), or 1, the batch's tokens (sequence parallelism:
    // the epilogue runs on each rank's tokens, and an overlap's chunks are
    // pieces of every rank's tokens).
    int split_dim = 0;
    bool gpu = false; // as OptimizerConfig::gpu
    // false: no hand schedule of the compute (the MatMuls' register tiles,
    // the activation's vectors), left to the default schedule or an
    // autoscheduler.
    bool hand_schedule = true;
    bool runtime_size = false; // the batch is the run-time size "batch"
};

// The Megatron block's parts: its inputs and the Local partial sums of its
// two MatMuls; and its epilogue (bias, dropout, residual) of the summed value.
// A baseline that runs them with a collective library in between uses them.
struct MlpParts {
    DFunc x, w1, w2, b2, partial;
};
MlpParts megatron_partial(const MlpConfig &c);
DFunc megatron_epilogue(const MlpConfig &c, const DFunc &x, const DFunc &summed, const DFunc &b2);

// Megatron-style MLP block: y = x + dropout(all_reduce(gelu(x W1) W2) + b2), with
// W1 sliced by columns and W2 by rows, so the second MatMul yields Local partial
// sums. Inputs x(h, b) Replicated, w1(f, h) Sliced(0), w2(h, f) Sliced(1), b2(h)
// Replicated. Output y(h, b) Replicated.
Program megatron_mlp(const MlpConfig &c);

struct PipelineConfig {
    int batch = 4, hidden = 16;
    // Split: split both stages' all_reduce, compute the activations on slices
    // and send only slices across stages. Fused: the activations inside the
    // reduce_scatters' passes.
    Schedule schedule = Schedule::None;
    FuseOptions fuse;
    int overlap = 0;           // > 0 (with Fused): each stage's MatMul overlapped with its pass
    bool gpu = false;          // as OptimizerConfig::gpu
    bool hand_schedule = true; // as OptimizerConfig::hand_schedule
    bool runtime_size = false; // the batch is the run-time size "batch"
};

// Two pipeline stages on world.split(2), each a model-parallel layer
// relu(all_reduce(W x)) with W sliced along the contraction; stage 0 sends its
// activations to stage 1. Output y(h, b) Replicated on stage 1.
Program two_stage_pipeline(const PipelineConfig &c);

// The fused computation-collective operators (apps/fused_ops.cpp). Each has
// a tile dimension (outermost); overlap > 0 computes its producer and runs
// its collective in that many chunks of tiles, a chunk moving while the next
// is computed.

struct EmbeddingConfig {
    int dim = 8, rows = 50, tables = 7, bag = 3; // embedding width, rows per table
    int tile = 6, tiles = 4;                     // samples per tile
    int overlap = 0;
    bool producer_only = false; // output pooled (Sliced(2)), for a baseline
    bool gpu = false;           // as OptimizerConfig::gpu
    bool hand_schedule = true;  // as OptimizerConfig::hand_schedule
    bool runtime_size = false;  // the tile count is the run-time size "tiles"
};

// DLRM-style embedding lookup and sum pooling, then all_to_all: inputs
// tables(e, row, t) Sliced(2), indices(k, s, t, j) Replicated (sample s of
// tile j); output pooled_a2a(e, s, t, j) Sliced(1): each rank gets its
// samples' pooled embeddings of every table.
Program embedding_all_to_all(const EmbeddingConfig &c);

struct GemvConfig {
    int tile = 16, tiles = 4, cols = 40; // rows = tile * tiles
    Schedule schedule = Schedule::None;  // Split / Fused: as the Megatron block
    FuseOptions fuse;
    int overlap = 0;
    bool producer_only = false; // output partial (Local), for a baseline
    bool gpu = false;           // as OptimizerConfig::gpu
    bool hand_schedule = true;  // as OptimizerConfig::hand_schedule
    bool runtime_size = false;  // the tile count is the run-time size "tiles"
};

// Model-parallel GEMV then all_reduce and a bias: inputs w(o, j, k) Sliced(2)
// (row o of tile j), x(k) Sliced(0), bias(o, j) Replicated; output y(o, j)
// Replicated.
Program gemv_all_reduce(const GemvConfig &c);

struct GemmConfig {
    int hidden = 12, out = 10, experts = 7; // tokens' width in and out
    int capacity = 6, tiles = 4;            // token slots per expert and tile
    // Token slots per register tile (schedule_matmul's 6 fit AVX2's 16
    // registers; with AVX-512's 32, 8 divide the ranks' parts of a tile).
    int register_cols = 6;
    int overlap = 0;
    bool producer_only = false; // output expert_out (Sliced(2)), for a baseline
    bool gpu = false;           // as OptimizerConfig::gpu
    bool hand_schedule = true;  // as OptimizerConfig::hand_schedule
    bool runtime_size = false;  // the tile count is the run-time size "tiles"
};

// Mixture-of-experts GEMM then all_to_all: inputs tokens(k, s, x, j) and
// w(h, k, x), both Sliced(2) (experts); output routed(h, s, x, j) Sliced(1):
// each rank gets every expert's output for its token slots.
Program gemm_all_to_all(const GemmConfig &c);

using InputMaker = std::function<std::vector<RankBuffers>(const Program &, int, uint32_t)>;

// make_inputs, with the optimizers' second moment v made non-negative as it
// is in training (a negative v would make every result NaN).
std::vector<RankBuffers> optimizer_inputs(const Program &p, int world_size, uint32_t seed);
// Makes the optimizers' second moments v non-negative, as optimizer_inputs does.
void make_second_moments_nonnegative(std::vector<RankBuffers> &inputs);

struct AppCase {
    std::string name;
    std::function<Program()> make;
    double tolerance;  // max abs error allowed against the reference
    int min_ranks = 1; // e.g. 2 for a pipeline of two stages
    InputMaker inputs = make_inputs;
    // Whether it has fused passes (on the ring path they add up in another
    // order than the reference).
    bool fused = false;
};

// Every app under every Schedule ("adam", "adam (split)", "adam (fused)", ...),
// the Megatron block fused and overlapped (tensor and sequence parallel), and
// the clipped SGD unscheduled and fused, at small test sizes or the
// demo's sizes; `gpu`: configured for a GPU target (OptimizerConfig::gpu).
std::vector<AppCase> all_apps(bool demo_sizes = false, bool gpu = false);

} // namespace apps
} // namespace coconet

#endif
