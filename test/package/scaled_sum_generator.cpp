// The consumer's generator: every rank's x (Local) summed over ranks and
// scaled, with the sum split into a reduce-scatter and an all-gather and the
// scaling computed on slices.
#include "CoCoNet.h"
#include "Generator.h"

using namespace coconet;

class ScaledSum : public Generator {
public:
    GeneratorParam<int> n{"n", 16, "elements"};
    GeneratorParam<float> scale{"scale", 1.0f, "factor applied to the sum"};

    void generate() override {
        DFunc x = input("x", Halide::Float(32), {n}, Local());
        sum = all_reduce(x, ReduceOp::Sum, "sum");
        Halide::Var i("i");
        y = DFunc("y");
        y(i) = sum(i) * scale.value();
        output(y, Replicated());
    }

    void schedule() override {
        sum.split_collective(0);
        y.compute_sliced();
    }

private:
    DFunc sum, y;
};

COCONET_REGISTER_GENERATOR(ScaledSum, scaled_sum)
