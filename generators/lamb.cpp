// Data-parallel LAMB (apps/lamb.cpp) as a generator. The default schedule
// fuses the moments and the update into the reduce-scatter, and the step
// into the parameters' all-gather.
#include "AppParams.h"

namespace coconet {
namespace generators {

class Lamb : public Generator {
public:
    GeneratorParam<int> n{"n", 1 << 16, "parameters"};
    GeneratorParam<float> lr{"lr", 1e-3f, "learning rate"};
    GeneratorParam<float> weight_decay{"weight_decay", 0.01f, "weight decay"};
    ScheduleParams sched;

    void generate() override {
        apps::OptimizerConfig c;
        c.n = n;
        c.lr = lr;
        c.weight_decay = weight_decay;
        c.schedule = sched.parsed_schedule();
        c.fuse = sched.fuse();
        set_program(apps::lamb(c));
    }
};

} // namespace generators
} // namespace coconet

COCONET_REGISTER_GENERATOR(coconet::generators::Lamb, lamb)
