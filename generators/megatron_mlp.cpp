// The Megatron-style MLP block (apps/megatron_mlp.cpp) as a generator: W1
// sliced by columns, W2 by rows. The default schedule fuses the epilogue
// into the reduce-scatter and overlaps the second MatMul with it.
//
// Its parts, for the benchmark's baseline (MatMuls, then a collective
// library's all-reduce, then a separate epilogue): megatron_partial (the
// Local partial sums) and megatron_epilogue (bias, dropout and residual of
// the summed value, on every rank).
#include "AppParams.h"

namespace coconet {
namespace generators {

class MegatronMlp : public Generator {
public:
    MlpParams mlp;
    GeneratorParam<int> overlap{"overlap", 4, "chunks of the overlapped MatMul (0: none)"};
    ComputeParams compute;
    GeneratorParam<int> split_dim{"split_dim", 0,
                                  "the dimension the split all_reduce slices: 0 the features "
                                  "(tensor parallel), 1 the tokens (sequence parallel)"};
    ScheduleParams sched;
    ShapeParams shape;

    void generate() override {
        apps::MlpConfig c = mlp.config();
        sched.apply(c);
        coconet_user_assert(split_dim == 0 || split_dim == 1)
            << "GeneratorParam split_dim=" << split_dim
            << " is not 0 (the features) or 1 (the tokens).";
        c.split_dim = split_dim;
        c.overlap = overlap;
        compute.apply(c, target());
        shape.apply(c);
        set_program(apps::megatron_mlp(c));
    }
};

class MegatronPartial : public Generator {
public:
    MlpParams mlp;
    ComputeParams compute;
    ShapeParams shape;

    void generate() override {
        apps::MlpConfig c = mlp.config();
        compute.apply(c, target());
        shape.apply(c);
        apps::MlpParts m = apps::megatron_partial(c);
        output(m.partial, Local());
    }
};

class MegatronEpilogue : public Generator {
public:
    MlpParams mlp;

    void generate() override {
        const apps::MlpConfig c = mlp.config();
        DFunc x = input("x", Halide::Float(32), {c.hidden, c.batch}, Replicated());
        DFunc summed = input("summed", Halide::Float(32), {c.hidden, c.batch}, Replicated());
        DFunc b2 = input("b2", Halide::Float(32), {c.hidden}, Replicated());
        DFunc y = apps::megatron_epilogue(c, x, summed, b2);
        y.func().vectorize(y.func().args()[0], 8, Halide::TailStrategy::GuardWithIf);
        output(y, Replicated());
    }
};

} // namespace generators
} // namespace coconet

COCONET_REGISTER_GENERATOR(coconet::generators::MegatronMlp, megatron_mlp)
COCONET_REGISTER_GENERATOR(coconet::generators::MegatronPartial, megatron_partial)
COCONET_REGISTER_GENERATOR(coconet::generators::MegatronEpilogue, megatron_epilogue)
