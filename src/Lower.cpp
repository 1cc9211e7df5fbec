#include "Lower.h"

#include "CollectFuncs.h"
#include "InferLayouts.h"

namespace coconet {

Analysis analyze(const Program &program) {
    Analysis analysis = collect_funcs(program);
    infer_layouts(program, analysis);
    return analysis;
}

LoweredProgram lower(const Program &program) {
    Analysis analysis = analyze(program);
    SpmdPipeline spmd = lower_spmd(program, analysis);
    return LoweredProgram{program, std::move(analysis), std::move(spmd)};
}

Halide::Target jit_target() {
    return Halide::get_jit_target_from_environment().with_feature(Halide::Target::StrictFloat);
}

} // namespace coconet
