// A block a user writes from the docs and never schedules: a row-parallel
// MatMul (hidden x ffn over the tokens), a reduce_scatter along the tokens,
// bias + residual + LayerNorm per token, an all_gather. JIT-compiled and run
// on thread ranks with the default schedule off (Halide's serial loops) and
// on, the outputs compared bit for bit. apps/bench/torch_user_block.py runs
// the same block in PyTorch.
//
//   build/apps/bench/coconet_user_block_bench [ranks=2] [tokens=4096] [width=1024]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "CoCoNet.h"

using namespace coconet;

namespace {

Program user_block(int width, int tokens) {
    DFunc x = input("x", Halide::Float(32), {width, tokens}, Sliced(0));
    DFunc w = input("w", Halide::Float(32), {width, width}, Sliced(1));
    DFunc bias = input("bias", Halide::Float(32), {width}, Replicated());
    DFunc residual = input("residual", Halide::Float(32), {width, tokens}, Sliced(1));
    Halide::Var h("h"), t("t");
    Halide::RDom f(0, width, "f"), k(0, width, "k");
    DFunc partial("partial");
    partial(h, t) = 0.0f;
    partial(h, t) += w(h, f) * x(f, t);
    DFunc summed = reduce_scatter(partial, 1, ReduceOp::Sum, "summed");
    DFunc y("y");
    y(h, t) = summed(h, t) + bias(h) + residual(h, t);
    DFunc mean("mean"), var("var");
    mean(t) = 0.0f;
    mean(t) += y(k, t) / width;
    var(t) = 0.0f;
    var(t) += (y(k, t) - mean(t)) * (y(k, t) - mean(t)) / width;
    DFunc normed("normed");
    normed(h, t) = (y(h, t) - mean(t)) / Halide::sqrt(var(t) + 1e-5f);
    Program p("user_block");
    p.output(all_gather(normed, "out"), Replicated());
    return p;
}

} // namespace

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
        outputs[on] = jit.run_threads(ranks, inputs, 600); // a warm-up, its result kept
        seconds[on] = 1e30;
        for (int rep = 0; rep < (on ? 5 : 1); rep++) {
            const auto start = std::chrono::steady_clock::now();
            jit.run_threads(ranks, inputs, 600);
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
