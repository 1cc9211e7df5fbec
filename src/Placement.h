// Pass: where every value is computed and what crosses segments. A Halide Func
// runs in the first Halide segment after everything it reads is available (an
// overlapped collective: chunk by chunk after that segment, with its source
// in a pipeline of its own, and available from the next segment on); a
// fused pass runs after the Halide segment that computes the last value it
// reads (its slot), and what it computes is available from the next segment
// on. A value read after the segment (or pass) that computes it is exported:
// it lives in a buffer covering the rank's box of its layout.
#ifndef COCONET_PLACEMENT_H
#define COCONET_PLACEMENT_H

#include "Liveness.h"

namespace coconet {

struct Placement {
    std::map<const DFuncContents *, int> segment; // every Halide Func: its Halide segment
    std::vector<int> slot; // every fused pass: the Halide segment after which it runs
    // The last Halide segment that computes a live Func or after which a live
    // pass runs (-1: none).
    int last = -1;
    std::set<const DFuncContents *> exported; // Halide Funcs read after their segment
    // By pass index: the values the pass leaves for what follows, in the order
    // they are first read.
    std::vector<std::vector<FusedOutput>> pass_outputs;
};

// Refuses a fused pass that reads a value needing the pass's own result.
Placement place(const Analysis &analysis, const std::vector<FusedPass> &passes,
                const Liveness &liveness);

} // namespace coconet

#endif
