// The Megatron-style MLP block (apps/megatron_mlp.cpp) as a generator: W1
// sliced by columns, W2 by rows. The default schedule fuses the epilogue
// into the reduce-scatter and overlaps the second MatMul with it.
#include "AppParams.h"

namespace coconet {
namespace generators {

class MegatronMlp : public Generator {
public:
    GeneratorParam<int> batch{"batch", 8, "tokens"};
    GeneratorParam<int> hidden{"hidden", 16, "model width"};
    GeneratorParam<int> ffn{"ffn", 64, "feed-forward width"};
    GeneratorParam<float> dropout{"dropout", 0.1f, "dropout probability"};
    GeneratorParam<int> seed{"seed", 7, "dropout seed"};
    GeneratorParam<int> overlap{"overlap", 4, "chunks of the overlapped MatMul (0: none)"};
    ScheduleParams sched;

    void generate() override {
        apps::MlpConfig c;
        c.batch = batch;
        c.hidden = hidden;
        c.ffn = ffn;
        c.dropout = dropout;
        c.seed = seed;
        sched.apply(c);
        c.overlap = overlap;
        set_program(apps::megatron_mlp(c));
    }
};

} // namespace generators
} // namespace coconet

COCONET_REGISTER_GENERATOR(coconet::generators::MegatronMlp, megatron_mlp)
