// Data-parallel LAMB (apps/lamb.cpp) as a generator. The default schedule
// fuses the moments and the update into the reduce-scatter, and the step
// into the parameters' all-gather.
#include "AppParams.h"

namespace coconet {
namespace generators {

class Lamb : public Generator {
public:
    OptimizerParams opt;
    GeneratorParam<float> weight_decay{"weight_decay", 0.01f, "weight decay"};
    ComputeParams compute;
    ShapeParams shape;

    void generate() override {
        apps::OptimizerConfig c = opt.config();
        c.weight_decay = weight_decay;
        compute.apply(c, target());
        shape.apply(c);
        set_program(apps::lamb(c));
    }
};

} // namespace generators
} // namespace coconet

COCONET_REGISTER_GENERATOR(coconet::generators::Lamb, lamb)
