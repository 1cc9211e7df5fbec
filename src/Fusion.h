// Pass: the fused passes of a scheduled program (fuse_with). Each groups a
// reduce_scatter or an all_gather with the Funcs computed inside its pass, and
// checks what only the whole program can tell: every fused Func is sliced
// exactly like the collective's slices, fused Funcs read each other
// element-wise, and a gather's pass computes the gathered Func with every
// fused producer feeding it through fused Funcs.
#ifndef COCONET_FUSION_H
#define COCONET_FUSION_H

#include "Analysis.h"

namespace coconet {

// A value the pass leaves in a rank's buffers.
struct FusedOutput {
    const DFuncContents *member; // computed in the pass (the reduce_scatter: the reduced value)
    const DFuncContents *slice_value = nullptr;    // its slice, where read after the pass
    const DFuncContents *gathered_value = nullptr; // its all_gather, where read after the pass
};

struct FusedPass {
    // The collective whose pass it is: a reduce_scatter, or an all_gather (a
    // pass that computes the gathered Func's slices and writes them into
    // every rank's copy, with nothing to reduce).
    std::shared_ptr<DFuncContents> scatter;
    std::vector<const DFuncContents *> members; // computed in the pass, producers first
    // Filled by lower_spmd, from what liveness and placement found.
    std::vector<FusedOutput> outputs;
    std::vector<const DFuncContents *> extra_inputs; // other values the members read
    bool reduces() const;
    // The layout and shape the pass computes slice by slice.
    const FuncInfo &sliced_info(const Analysis &a) const;
    // Whether `f` is the reduce_scatter or one of the members.
    bool computes(const DFuncContents *f) const;
    // Whether `f` is the all_gather of a member.
    bool gathers(const DFuncContents &f) const;
};

std::vector<FusedPass> find_fused_passes(const Analysis &analysis);

} // namespace coconet

#endif
