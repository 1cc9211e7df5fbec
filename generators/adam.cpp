// Data-parallel Adam (apps/adam.cpp) as a generator: gradients Local,
// parameters Replicated, moments Sliced(0). The default schedule fuses the
// moments and the step into the gradients' reduce-scatter.
#include "AppParams.h"

namespace coconet {
namespace generators {

class Adam : public Generator {
public:
    OptimizerParams opt;
    GeneratorParam<int> step{"step", 1, "optimizer step, for the bias correction"};
    ShapeParams shape;

    void generate() override {
        apps::OptimizerConfig c = opt.config();
        c.step = step;
        shape.apply(c);
        set_program(apps::adam(c));
    }
};

} // namespace generators
} // namespace coconet

COCONET_REGISTER_GENERATOR(coconet::generators::Adam, adam)
