// The oracle: a single-process evaluator that simulates R ranks naively. Each
// distributed Func is materialized for every rank in turn over the box its
// layout gives the rank (a small Halide kernel per Func), and collectives are
// plain loops over all ranks' buffers, reducing in rank order. It shares only
// the layout analysis with the lowered pipeline, none of its runtime.
#ifndef COCONET_REFERENCE_H
#define COCONET_REFERENCE_H

#include <memory>
#include <mutex>

#include "RankData.h"

namespace coconet {

struct Analysis;

class Reference {
public:
    explicit Reference(const Program &program);
    ~Reference();

    // inputs[r] is rank r's box of every input; returns each rank's outputs.
    // `sizes`: the values of the program's run-time sizes (Extent.h).
    std::vector<RankBuffers> run(int world_size, const std::vector<RankBuffers> &inputs,
                                 const Sizes &sizes = {}) const;

private:
    struct Kernel;
    const Kernel &kernel_for(const DFuncContents &f) const;

    Program program_;
    std::unique_ptr<const Analysis> analysis_; // analyze(program_) (InferLayouts.h)
    mutable std::mutex mutex_;
    mutable std::map<const DFuncContents *, std::unique_ptr<Kernel>> kernels_;
};

} // namespace coconet

#endif
