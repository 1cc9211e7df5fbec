// The block a user writes from the docs and never schedules (UserBlock.h),
// JIT-compiled and run on thread ranks with the default schedule off
// (Halide's serial loops) and on, the outputs compared bit for bit.
// apps/bench/torch_user_block.py runs the same block in PyTorch.
//
//   build/apps/bench/coconet_user_block_bench [ranks=2] [tokens=4096] [width=1024]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "UserBlock.h"

using namespace coconet;

int main(int argc, char **argv) {
    const int ranks = argc > 1 ? std::atoi(argv[1]) : 2;
    const int tokens = argc > 2 ? std::atoi(argv[2]) : 4096;
    const int width = argc > 3 ? std::atoi(argv[3]) : 1024;
    if (ranks < 1 || tokens < 1 || width < 1) {
        std::fprintf(stderr, "usage: %s [ranks >= 1] [tokens >= 1] [width >= 1]\n", argv[0]);
        return 2;
    }
    const Program p = user_block(width, tokens);
    const std::vector<RankBuffers> inputs = make_inputs(p, ranks);
    std::vector<RankBuffers> outputs[2];
    double seconds[2];
    for (int on = 0; on < 2; on++) {
        JitOptions options;
        options.default_schedule = on == 1;
        const JitProgram jit(p, options);
        ThreadWorld world(ranks, 600);
        jit.run_threads(world, inputs, outputs[on]); // a warm-up
        seconds[on] = 1e30;
        for (int rep = 0; rep < (on ? 5 : 1); rep++) {
            const auto start = std::chrono::steady_clock::now();
            jit.run_threads(world, inputs, outputs[on]);
            const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
            seconds[on] = std::min(seconds[on], took.count());
        }
        std::printf("user block, %d tokens x %d, %d thread ranks, default schedule %s: %.4f s "
                    "per call\n",
                    tokens, width, ranks, on ? "on " : "off", seconds[on]);
    }
    const double diff = max_abs_diff(outputs[0], outputs[1]);
    std::printf("speedup %.1fx; outputs %s\n", seconds[0] / seconds[1],
                diff == 0 ? "bit-identical" : "DIFFER");
    return diff == 0 ? 0 : 1;
}
