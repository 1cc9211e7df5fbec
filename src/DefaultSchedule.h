// The default schedule: what a CPU library or JIT program gives each Func of
// a Halide segment that the user left unscheduled (no Halide directives, no
// accumulate_in_registers), so that a program nobody scheduled runs at about
// the speed of a hand-scheduled one. Every choice but the last keeps each
// element's reduction in the order its definitions give, so results stay the
// reference's bit for bit:
//   - a MatMul-like reduction (its updates write f(x, y, ...) at its own pure
//     variables from one operand that does not depend on y and one that does
//     not depend on x, both indexed by the reduction): register tiles of 16
//     along x by register_tile_columns along y, the tiles along y inside
//     those along x, each tile along x reading the operands read along x
//     (a weight, in either order: nn.Linear's W(f, o) read as W(r, o) too)
//     from a panel it copies first, its 16 rows innermost, so that the
//     tiles' vectors along x load contiguous memory and stay in cache;
//     where y is the longer and that operand fits in L2, the tiles along x
//     inside instead, that operand read in place or, where it reads x in
//     another dimension than its innermost, from a copy of it with that
//     dimension innermost, made once per call;
//   - any other Func: vectors along its first dimension (no wider than it);
//     updates that write at its own pure variables, and read along that
//     dimension only in their operands' innermost one (contiguous vectors),
//     run their reduction loops just outside the vector (outside all its
//     loops where the Func fits in L1), a long innermost one in unrolled
//     steps of 8 inside it, so that the partial sums stay in a register for
//     8 terms (a GEMV's or a pooling's loop order). Other updates that
//     write at its pure variables (a LayerNorm's mean over each token's
//     features) add one sum per lane at once instead of a chain of
//     additions: where an operand's rows lie along the innermost reduction
//     (x(f, t) summed over f), in steps of 8 of it just outside vectors of
//     at most 8 lanes, each step reading a tile of the operand transposed in
//     registers; otherwise in Halide's loop order, vectorized along that
//     dimension (a strided element per lane). Updates writing elsewhere keep
//     Halide's serial loops;
//   - Funcs read only a row at a time by the Funcs after them (a LayerNorm's
//     y, mean and variance): computed at each tile of the last reader's rows
//     (group_rows), so that those rows stay in cache between the passes;
//   - a long scalar reduction (a norm's sum of squares), or a few elements
//     of long reductions (a norm per layer): added in parts, in an order of
//     its own (see DefaultSchedule::part_rows), so the result is the
//     reference's within rounding.
// On a GPU target, a MatMul of the device's BLAS (library_gemm_api) whose
// form is a plain product (gemm_form) is one call of it; another MatMul-like
// reduction gets register tiles
// of 4 x 8, one per GPU thread, computed whole at the box's edge from
// operands read at clamped indices (on GPU loops only where the rank's box is
// non-empty), unless its tiles are too few to fill a GPU along a long
// contraction (a few tokens by a large weight); everything else goes to the
// GPU pass (GpuSchedule.h), which adds such a MatMul in parts. Funcs of a
// fused pass have the pass's own schedule (FusedKernel.h); an autoscheduler,
// when one is named, replaces the default.
#ifndef COCONET_DEFAULT_SCHEDULE_H
#define COCONET_DEFAULT_SCHEDULE_H

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "Liveness.h"
#include "Placement.h"

namespace coconet {

// A MatMul that BLAS computes: f(x, y, batch...) = init and one update
// f(x, y, batch...) += a(..) * b(..) of float32, over one reduction variable
// r without a predicate, where a's arguments are x, r and any of f's batch
// variables (up to four dimensions), and b's r, y and any batch variables,
// each plain and once, in any order. `a_walks` says what each argument of a
// walks: f's dimension of that index, or the sum (COCONET_GEMM_K); b_walks
// the same. An init other than 0 (a bias) is added to the product after it.
struct GemmForm {
    const Halide::Internal::Call *a = nullptr, *b = nullptr;
    std::vector<int> a_walks, b_walks;
    bool zero_init = true;
};
std::optional<GemmForm> gemm_form(const Halide::Internal::Function &fn);

// The device whose BLAS computes the MatMuls of GPU target t, or
// DeviceAPI::None, as `mode` says: "library", CUDA's or OpenCL's; "kernels",
// none; "auto", CUDA's only (OpenCL has no BLAS everywhere); "" as
// COCONET_GPU_MATMUL says (auto when unset). Another mode is a UserError.
Halide::DeviceAPI library_gemm_api(const Halide::Target &t, const std::string &mode = "");

struct DefaultSchedule {
    // A MatMul of gemm_form: one call of this device's BLAS (coconet_gemm).
    Halide::DeviceAPI library_gemm = Halide::DeviceAPI::None;
    // A MatMul-like reduction: these tiles; on a GPU target, each a GPU
    // thread's, in blocks of gpu_block threads (along x, along y).
    std::optional<DFuncContents::RegisterTile> tile;
    std::optional<std::pair<int, int>> gpu_block;
    // On a CPU, the loop over the tiles along y runs inside the one along x,
    // unless y is the longer and the operand read along x fits in L2: each
    // tile along x then first copies its rows of the operands read along x
    // into a panel (read_operands_in_panels; their names in `panels`), so
    // that they stay in cache, contiguous, while the other operand streams
    // past, and the tasks (below) are the tiles along x, one each, where
    // `tasks` is x.
    bool y_tiles_inside = false;
    std::vector<std::string> panels;
    // Otherwise, the names of the tiles' operands read through a copy with x
    // innermost (transposed_operand_names).
    std::vector<std::string> transposed;
    // Otherwise: vectors of `lanes` along pure variable `x`, and the updates
    // (by index) whose reduction loops move just outside them; of those, the
    // ones whose innermost reduction loop runs in unrolled steps of
    // `unroll` inside the vector.
    // The updates that read across the vectors keep Halide's loop order,
    // vectorized along x (gathered_updates), or, where an operand's rows lie
    // along their innermost reduction (transposed_updates), read it in tiles
    // transposed in registers, the reduction's steps just outside the vector.
    std::string x;
    int lanes = 0;
    std::vector<int> reordered_updates, unrolled_updates, gathered_updates, transposed_updates;
    // Where those reduction loops go: outside all its pure loops (an output
    // small enough to stay in L1 while they sweep it); just outside each
    // vector where every reduction is short (a stencil's taps, a pooling's
    // bag: each vector's sums stay in a register across them); else just
    // outside the loop along x.
    enum class Reductions { Outermost, AroundVectors, OutsideRows };
    Reductions reductions = Reductions::OutsideRows;
    // A reduction of fewer iterations than this (all constant) is short.
    static constexpr int64_t short_reduction = 16;
    static constexpr int unroll = 8;
    // The pure variable whose loop (a MatMul's: its loop over tiles) a rank
    // splits into as many parallel tasks as it has CPU threads
    // (coconet_rank_threads), or "": too little work to share. A MatMul's x:
    // a task per tile along x instead.
    std::string tasks;
    // A row group (group_rows): its root (row_tile > 0), a Func of two or
    // more dimensions, runs its outermost pure variable in tiles of
    // `row_tile` rows, and each member (rows_of: the root) is computed and
    // stored at each such tile, only the tile's rows, rather than whole: a
    // LayerNorm's y, mean and variance of a few tokens then stay in cache
    // between the passes that read them. Members have no tasks of their own
    // (the root's tasks are its tiles).
    int row_tile = 0;
    const DFuncContents *rows_of = nullptr;
    // A scalar reduction of min_part_steps steps or more (global extents),
    // one update whose operation Halide proves associative and commutative
    // (a norm: f() += e(r), or over a matrix, e(r.x, r.y); of floats, a sum
    // only), or a Func of a
    // few such elements (its update at its pure variables): added in parts
    // (Halide's rfactor) of part_rows (> 0) steps of its outermost reduction
    // variable (about part_steps steps in all), each part adding its
    // innermost variable's steps in part_vectors vectors of `lanes`
    // interleaved sums (several additions in flight rather than a chain of
    // them; where the update reads along x, part_vectors interleaved sums of
    // its vectors along x), the parts in tasks on the rank's threads, then
    // the parts' sums in order. The parts depend on the rank's slice only, not on its
    // threads, so a result is the same on every run; but the order of
    // additions is not the definition's.
    int64_t part_rows = 0;
    static constexpr int64_t part_steps = 1 << 14, min_part_steps = part_steps;
    static constexpr int part_vectors = 4;
    std::string why; // what the plan says of the choice, but its tasks
};

using DefaultSchedules = std::map<const DFuncContents *, DefaultSchedule>;

// The default for every Func a Halide segment computes that carries no
// schedule of the user's, for `target`: on a GPU target, MatMuls through the
// device's BLAS (library_gemm_api(target, gpu_matmul)) or in register tiles
// (the GPU pass schedules the rest).
DefaultSchedules choose_default_schedules(const Analysis &a, const Liveness &liveness,
                                          const Halide::Target &target,
                                          const std::string &gpu_matmul = "");

// Pass: row groups among the CPU defaults of `d`. A Func whose default is
// vectors, of two or more dimensions, no updates, tasks (if any) along its
// outermost pure variable, and at least min_row_tiles tiles of a vector's
// width along that variable (global extents: all ranks' rows), roots a group.
// Funcs of its segment whose default is vectors join, last first, while each
// is read only by the group, by every reader at that reader's outermost pure
// variable in its own outermost argument (a token's row), writes every update
// at its own, is not exported (an output, or read by a collective, a fused
// pass or a later segment) and not a chunked source, and the members' rows
// of one tile take at most row_group_bytes (run-time sizes at their
// estimates). Nothing is grouped on a GPU target. Values stay the same: only
// where each row is computed changes.
void group_rows(DefaultSchedules &d, const Analysis &a, const Liveness &liveness,
                const Placement &placement, const Halide::Target &target);

// The loop over a row group's tiles: the root's outermost pure variable split
// into `<row>_o` (the tiles, which its tasks split further) and `<row>_i`.
std::string row_tiles_loop(const Halide::Internal::Function &root);

// The vectors of `s` (not its tiles: rebuild_scheduled makes those) on the
// Func a lowering rebuilt.
void apply_default_vectors(const DefaultSchedule &s, Halide::Func f);

// The parts of `s` (part_rows) on the scalar Func a lowering rebuilt, their
// tasks on the rank's `threads` (rank_threads).
void add_in_parts(const DefaultSchedule &s, Halide::Func f, const Halide::Expr &threads);

// The pure variable of fn (of these global extents, run-time sizes at their
// estimates) whose loop a rank shares among its CPU threads: `tiled`
// (register tiles along its first two), its second; otherwise the one of most
// iterations after its first, or its first in a Func of one dimension. ""
// where fn computes too little for tasks to pay.
std::string task_variable(const Halide::Internal::Function &fn, const Extents &extents, bool tiled);

// The calling rank's CPU threads (coconet_rank_threads on the rank's
// user_context, known only when it runs).
Halide::Expr rank_threads(const Halide::Expr &user_context);

// Where `threads` > 1, splits the loop `loop` of `stage` (`iterations` long)
// into `threads` tasks run in parallel, the task loop outermost, where only
// loops of pure variables, serial, enclose it: a reduction loop outside it
// would start the tasks at each of its steps. Each element is computed as
// before, so results stay bit for bit. Call it after the stage's other
// directives: they apply to both specializations.
void run_in_tasks(Halide::Stage stage, const std::string &loop, const Halide::Expr &iterations,
                  const Halide::Expr &threads);

// The plain names of the operands that fn's updates read varying along x in
// one argument other than their first, in the order they are read: those
// read_operands_transposed reads through a copy.
std::vector<std::string> transposed_operand_names(const Halide::Internal::Function &fn,
                                                  const std::string &x);

// Makes the updates of acc (a Func a lowering rebuilt, tiled along pure
// variable x on a CPU, by the default or by accumulate_in_registers) read each operand that varies
// along x in one argument other than its first from a copy of it with that argument first
// (`<callee>_transposed`), computed at the root, on the rank's `threads`
// (rank_threads) where given (acc's tiles run in tasks). Values stay the
// same: the copy only changes where each element is stored.
void read_operands_transposed(Halide::Func acc, const std::string &x,
                              const Halide::Expr &threads = Halide::Expr());

// The plain names of the operands that fn's updates read at pure variable x
// itself in one argument and at a reduction variable in another, in the
// order they are read: those read_operands_in_panels reads through panels.
std::vector<std::string> panel_operand_names(const Halide::Internal::Function &fn,
                                             const std::string &x);

// Makes the updates of acc (tiles of `rows` along pure variable x, computed
// in the tiles of `out`) read each operand of panel_operand_names from a
// copy of it (`<callee>_panel`) computed at loop `at` of out (its loop over
// the tiles along x) and stored as `rows` along x innermost, so that each
// step of the contraction loads the next vector of one contiguous panel
// rather than a vector a whole row of the operand away (a page further, for
// a large weight). Values stay the same: the copy only changes where each
// element is stored.
void read_operands_in_panels(Halide::Func acc, const std::string &x, int rows, Halide::Func out,
                             const Halide::Var &at);

// One line per Func: its name and what its default is.
std::string dump_default_schedules(const DefaultSchedules &d, const Analysis &a);

} // namespace coconet

#endif
