// Per-rank data: the buffers a rank passes in and gets back, keyed by the
// distributed Func's name, in global coordinates (a buffer's min is the global
// index of its first element). Helpers to allocate, check, fill and compare them.
#ifndef COCONET_RANK_DATA_H
#define COCONET_RANK_DATA_H

#include <map>
#include <string>
#include <vector>

#include "Partition.h"
#include "Program.h"
#include "coconet_runtime.h"

namespace coconet {

struct Analysis;

using RankBuffers = std::map<std::string, Halide::Buffer<>>;

// A buffer covering `box`. Empty boxes get a valid host pointer, because Halide
// takes a buffer without one for a bounds query.
Halide::Buffer<> allocate_box(Halide::Type type, const std::vector<Range> &box);

// Checks the inputs of one rank against the program's signature (`analysis`:
// the program's, from analyze in InferLayouts.h) and returns them in global
// coordinates (buffers whose extents match but that start at 0 are moved to
// the rank's box).
// `sizes`: the values of the program's run-time sizes (Extent.h), here and below.
RankBuffers check_rank_inputs(const Program &program, const Analysis &analysis, int rank,
                              int world_size, const RankBuffers &inputs, const Sizes &sizes = {});

// Deterministic pseudo-random inputs for every rank consistent with the
// layouts: Replicated and Sliced inputs are boxes of one global value, Local
// inputs differ between ranks. Values are uniform in [-1, 1) (integers: 0..9).
std::vector<RankBuffers> make_inputs(const Program &program, int world_size, uint32_t seed = 1);
// The same for a program with run-time sizes, at `sizes`.
std::vector<RankBuffers> make_sized_inputs(const Program &program, int world_size,
                                           const Sizes &sizes, uint32_t seed = 1);

// Largest absolute difference between two runs' outputs over all ranks and
// outputs; throws if their shapes differ. Infinite where either holds a NaN or
// one holds an infinity where the other is finite; equal infinities agree.
double max_abs_diff(const std::vector<RankBuffers> &a, const std::vector<RankBuffers> &b);

// The same per output, over all ranks: the largest difference, and the largest
// magnitude of b's values (b: the reference), which a relative tolerance scales.
struct OutputDiff {
    double diff = 0, magnitude = 0;
};
std::map<std::string, OutputDiff> output_diffs(const std::vector<RankBuffers> &a,
                                               const std::vector<RankBuffers> &b);

// The largest difference from the reference a run on `comm` may show: 0 where
// it reduces in group-rank order as the reference does (threads; MPI with
// COCONET_MPI_COLLECTIVES=deterministic), else 1e-5, because MPI's own
// reductions add float sums and products up in an order of their own. Min,
// max and integer results are exact on every path; an integer error is >= 1.
double reference_tolerance(const coconet_comm *comm);

// A Replicated output whose copies differ between the ranks of its group:
// the ranks whose copy differs from the group's first rank's, and the first
// element (global index, in storage order) where ranks[0]'s does.
struct ReplicatedMismatch {
    std::string name;
    int first_rank = 0;
    std::vector<int> ranks;
    std::vector<int> index;
    double value = 0, first_value = 0; // ranks[0]'s and first_rank's element there
    // "w: ranks 1, 2 differ from rank 0, rank 1 first at [4, 0] (0.25 versus 0.5)"
    std::string to_string() const;
};
// For a driver's report line: "" when nothing differs, else
// ", replicated outputs differ across ranks: " and the mismatches' to_string()s
// joined by "; ".
std::string to_string(const std::vector<ReplicatedMismatch> &mismatches);

// The Replicated outputs whose copies differ between the ranks that hold them
// (outputs[r]: rank r's); empty when all agree. Copies agree when bitwise
// equal, or where `tolerance` > 0 within it.
std::vector<ReplicatedMismatch> replicated_mismatches(const Program &program,
                                                      const std::vector<RankBuffers> &outputs,
                                                      double tolerance = 0);

// The same where each process holds only its own rank's outputs (`mine`, on
// the host), as under MPI: every copy of each Replicated output is gathered
// over `comm`, so every rank must call it with the same program, and every
// rank gets the same answer. The tolerance is reference_tolerance(comm): MPI's
// own reductions need not give every rank the same bits.
std::vector<ReplicatedMismatch> replicated_mismatches(const Program &program, coconet_comm *comm,
                                                      const RankBuffers &mine,
                                                      const Sizes &sizes = {});

} // namespace coconet

#endif
