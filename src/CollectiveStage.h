// A collective as a Halide extern stage of the runtime (coconet_collective):
// the communicator comes through Halide's user_context, and the stage answers
// Halide's bounds queries with the box of its input the rank must provide.
// For a GPU target, the stages that can move their data on the device (ranks
// sharing it read each other's device buffers) are extern stages on that
// device, and their reductions use combiner kernels compiled with the program.
#ifndef COCONET_COLLECTIVE_STAGE_H
#define COCONET_COLLECTIVE_STAGE_H

#include <cstring>
#include <tuple>

#include "Analysis.h"
#include "coconet_runtime.h"

namespace coconet {

// A runtime descriptor (coconet_collective_desc, coconet_gemm_desc) as the
// constant byte buffer its extern stage receives: a Halide extern argument is
// an Expr, a Func or a Buffer, and a Buffer keeps the fields named and
// versioned (AOT embeds it as constant data). Its name, after `name`, is
// unique in the module.
template<typename Desc>
Halide::Buffer<uint8_t> desc_buffer(const Desc &d, const std::string &name) {
    Halide::Buffer<uint8_t> b((int)sizeof(d), name + "_coconet_desc");
    std::memcpy(b.data(), &d, sizeof(d));
    return b;
}

// The runtime's descriptor of collective `f`; chunk_dim >= 0: of one chunk
// of it along that dimension (an overlapped collective).
coconet_collective_desc collective_desc(const DFuncContents &f, const Analysis &a, int chunk_dim);

// Why collective f's stage cannot run on the device of a GPU target, or ""
// when it can: any collective of the world or of a group of world.split, and
// a send between groups; a scalar only where every scalar reading it is a
// GPU kernel. Halide allocates a device stage's output on the device before
// the call, and its GPU runtimes abort on an empty allocation: on the ranks
// outside a group the output is a stand-in of one element that the call
// leaves alone (GpuSchedule.h), and the executor refuses a world leaving a
// rank of the group an empty slice. Halide copies a buffer between host and
// device around the statements that touch it, taking loop-free ones
// together, so a scalar computed on the host right after the stage would
// read the host copy from before it.
std::string why_not_on_device(const DFuncContents &f, const Analysis &a);
inline bool collective_on_device(const DFuncContents &f, const Analysis &a) {
    return why_not_on_device(f, a).empty();
}

// The extern stage computing collective `f` from the Func `source` (its
// input in the segment); `uc` is the user_context. `device`: the GPU API of
// the target (DeviceAPI::None for the host), which the stage runs on when
// collective_on_device.
Halide::Func collective_stage(const DFuncContents &f, const Analysis &a, const Halide::Func &source,
                              Halide::Expr uc, Halide::DeviceAPI device);

// A reduction op and element type a device stage combines with.
struct Combiner {
    ReduceOp op;
    Halide::Type type;
    bool operator<(const Combiner &o) const {
        return std::make_tuple(op, type.code(), type.bits()) <
               std::make_tuple(o.op, o.type.code(), o.type.bits());
    }
};

// "sum_float32": how function names tell combiners apart.
std::string combiner_name(const Combiner &c);

// The combiners the device stages of a program lowered for a GPU target use.
std::vector<Combiner> device_combiners(const Analysis &a);

// The combiner kernel coconet_aot_combiner describes, for `target`'s GPU:
// out(x) = op(a(x), b(x)) over 1-D buffers, the arguments a and b.
struct CombinerPipeline {
    Halide::Pipeline pipeline;
    std::vector<Halide::Argument> arguments;
};
CombinerPipeline build_combiner(const Combiner &c);

// The identity kernel coconet_aot_combiner describes: out(x) = the op's
// identity (the host's: infinities for float max and min), no arguments.
CombinerPipeline build_identity(const Combiner &c);

} // namespace coconet

#endif
