// Pass: what a scheduled program computes and reads. Every Func gets a role
// (an input, computed by a Halide segment, computed or gathered by a fused
// pass, or standing for its sliced part and gather); every computed Func and
// every fused pass gets what it reads once the schedule is applied; the
// program's outputs get the values that hold them; and the live set is what
// the outputs need. Nothing here depends on segments: placement comes next.
#ifndef COCONET_LIVENESS_H
#define COCONET_LIVENESS_H

#include <set>

#include "Fusion.h"
#include "Program.h"

namespace coconet {

enum class FuncRole {
    Input,
    Halide,   // computed by a Halide segment
    Fused,    // computed (or gathered) by a fused pass
    StandsFor // scheduled away: its reads go to its sliced part or its gather
};

// What a fused pass reads, besides what it computes itself.
struct FusedPassReads {
    const DFuncContents *source = nullptr;           // what a reducing pass reduces
    std::vector<const DFuncContents *> extra_inputs; // the other values its members read
    // The source first, then the extra inputs.
    std::vector<const DFuncContents *> all() const;
};

struct Liveness {
    std::map<const DFuncContents *, FuncRole> role; // every Func
    // Fused Funcs: the index of the pass that computes or gathers it.
    std::map<const DFuncContents *, int> pass_of;
    // Halide and fused Funcs: what each reads once scheduled, in order of first
    // read (a collective: its source).
    std::map<const DFuncContents *, std::vector<const DFuncContents *>> reads;
    std::vector<FusedPassReads> pass_reads; // by pass index
    // The source of an overlapped collective, computed chunk by chunk with it
    // in a pipeline of its own: that collective (an unfused collective, which
    // the executor runs chunk by chunk after its segment, or the
    // reduce_scatter of a fused pass).
    std::map<const DFuncContents *, const DFuncContents *> chunked_source_of;
    // The value that holds program output i.
    std::vector<const DFuncContents *> output_values;
    std::set<const DFuncContents *> live;             // what the outputs need
    std::vector<const DFuncContents *> live_in_order; // the same, producers first

    // The pass f is the chunked source of, or -1.
    int chunked_pass(const DFuncContents *f) const;
    // Whether f is an unfused collective the executor runs chunk by chunk.
    bool chunked_collective(const DFuncContents *f) const;
};

// Refuses a fused Func that reads the gathered result of its own pass.
Liveness find_liveness(const Program &program, const Analysis &analysis,
                       const std::vector<FusedPass> &passes);

} // namespace coconet

#endif
