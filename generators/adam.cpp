// Data-parallel Adam (apps/adam.cpp) as a generator: gradients Local,
// parameters Replicated, moments Sliced(0). The default schedule fuses the
// moments and the step into the gradients' reduce-scatter.
#include "AppParams.h"

namespace coconet {
namespace generators {

class Adam : public Generator {
public:
    GeneratorParam<int> n{"n", 1 << 16, "parameters"};
    GeneratorParam<float> lr{"lr", 1e-3f, "learning rate"};
    GeneratorParam<int> step{"step", 1, "optimizer step, for the bias correction"};
    ScheduleParams sched;

    void generate() override {
        apps::OptimizerConfig c;
        c.n = n;
        c.lr = lr;
        c.step = step;
        c.schedule = sched.parsed_schedule();
        c.fuse = sched.fuse();
        set_program(apps::adam(c));
    }
};

} // namespace generators
} // namespace coconet

COCONET_REGISTER_GENERATOR(coconet::generators::Adam, adam)
