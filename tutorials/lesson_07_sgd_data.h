// The data every lesson on the lesson_07_sgd library uses (lessons 7, 8 and
// 9): the library's arguments, the inputs' values, a rank's buffers, and what
// checking them against the reference needs. Lesson 7 explains each piece.
// The functions take the library's program table, so that they serve both
// the host library (lesson_07_sgd_program()) and the CUDA-target one
// (lesson_07_sgd_cuda_program()), which share one signature.
#ifndef LESSON_07_SGD_DATA_H
#define LESSON_07_SGD_DATA_H

#include <memory>
#include <utility>
#include <vector>

#include "CoCoNet.h"
#include "HalideBuffer.h"
#include "coconet_aot.h"

// The arguments, in the order of the library's signature (the run-time size
// n first, then the inputs, then the outputs).
enum Arg { G, W, M, W_NEW, M_NEW, NUM_ARGS };

// The size lessons 8 and 9 run at (lesson 7 runs several).
constexpr int32_t kLessonN = 1000;

// The inputs' values at global index i on rank `rank`: a formula, so that any
// process can build any rank's inputs.
inline float input_value(int arg, int rank, int i) {
    switch (arg) {
    case G: return 0.001f * (float)((i * 7 + rank * 13) % 17 - 8);
    case W: return 1.0f - 0.001f * (float)i;
    case M: return 0.01f * (float)(i % 5);
    default: return 0.0f; // outputs: the library overwrites them
    }
}

// One rank's buffers, indexed by Arg.
using RankArgs = std::vector<Halide::Runtime::Buffer<float>>;

// Rank `rank` of `ranks`'s buffers for n parameters: each argument's box
// from coconet_arg_box_sized, filled with input_value. With global_mins a
// buffer's min is its box's min (global coordinates); without, it is 0.
inline RankArgs allocate_rank_args(const coconet_aot_program *p, int32_t n, int rank, int ranks,
                                   bool global_mins = true) {
    RankArgs args;
    for (int a = 0; a < NUM_ARGS; a++) {
        int32_t min[1], extent[1];
        coconet_arg_box_sized(p, &n, a, rank, ranks, min, extent);
        Halide::Runtime::Buffer<float> b(extent[0]);
        if (global_mins) {
            b.set_min(min[0]);
        }
        for (int k = 0; k < extent[0]; k++) {
            b(b.dim(0).min() + k) = input_value(a, rank, min[0] + k);
        }
        args.push_back(b);
    }
    return args;
}

// The Program the library was compiled from, rebuilt through the generator
// registry with the parameters the table records.
inline coconet::Program library_program(const coconet_aot_program *p) {
    std::unique_ptr<coconet::Generator> generator =
        coconet::GeneratorRegistry::create(p->generator);
    generator->set_params(p->params);
    return generator->build();
}

// Adds one rank's buffers (in global coordinates), by name, to the
// reference's maps: the inputs to `inputs`, the outputs to `outputs`.
inline void to_rank_buffers(const coconet_aot_program *p, const RankArgs &args,
                            coconet::RankBuffers &inputs, coconet::RankBuffers &outputs) {
    for (int a = 0; a < NUM_ARGS; a++) {
        Halide::Runtime::Buffer<float> b = args[a];
        (a < p->ninputs ? inputs : outputs)[p->values[p->args[a]].name] =
            Halide::Buffer<float>(std::move(b));
    }
}

#endif
