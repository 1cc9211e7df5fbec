// Programs a user writes from the docs and never schedules (UserBlock.h,
// UserAttention.h, UserMlp.h), JIT-compiled and run on thread ranks with the default
// schedule off (Halide's serial loops) and on, the outputs compared bit for
// bit. apps/bench/torch_user_programs.py runs the same programs in PyTorch.
//
//   build/apps/bench/coconet_user_bench block [ranks=2] [tokens=4096] [width=1024]
//   build/apps/bench/coconet_user_bench attention [ranks=2] [tokens=1024] [heads=16] [head_dim=64]
//   build/apps/bench/coconet_user_bench mlp [ranks=2] [tokens=512] [hidden=1024] [inner=4096]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "UserAttention.h"
#include "UserBlock.h"
#include "UserMlp.h"

using namespace coconet;

namespace {

int usage(const char *argv0) {
    std::fprintf(stderr,
                 "usage: %s block [ranks=2] [tokens=4096] [width=1024]\n"
                 "       %s attention [ranks=2] [tokens=1024] [heads=16] [head_dim=64]\n"
                 "       %s mlp [ranks=2] [tokens=512] [hidden=1024] [inner=4096]\n"
                 "(every number >= 1)\n",
                 argv0, argv0, argv0);
    return 2;
}

// Argument i, or `otherwise` where there is none; 0 where it is not a number >= 1.
int number(int argc, char **argv, int i, int otherwise) {
    return i < argc ? std::max(0, std::atoi(argv[i])) : otherwise;
}

} // namespace

int main(int argc, char **argv) {
    const std::string which = argc > 1 ? argv[1] : "";
    const int ranks = number(argc, argv, 2, 2);
    std::optional<Program> p;
    std::string shape;
    if (which == "block" && argc <= 5) {
        const int tokens = number(argc, argv, 3, 4096), width = number(argc, argv, 4, 1024);
        if (tokens < 1 || width < 1) {
            return usage(argv[0]);
        }
        p = user_block(width, tokens);
        shape = std::to_string(tokens) + " tokens x " + std::to_string(width);
    } else if (which == "attention" && argc <= 6) {
        const int tokens = number(argc, argv, 3, 1024), heads = number(argc, argv, 4, 16),
                  head_dim = number(argc, argv, 5, 64);
        if (tokens < 1 || heads < 1 || head_dim < 1) {
            return usage(argv[0]);
        }
        p = user_attention(head_dim, heads, tokens);
        shape = std::to_string(tokens) + " tokens, " + std::to_string(heads) + " heads of " +
                std::to_string(head_dim);
    } else if (which == "mlp" && argc <= 6) {
        const int tokens = number(argc, argv, 3, 512), hidden = number(argc, argv, 4, 1024),
                  inner = number(argc, argv, 5, 4096);
        if (tokens < 1 || hidden < 1 || inner < 1) {
            return usage(argv[0]);
        }
        p = user_mlp(hidden, inner, tokens);
        shape = std::to_string(tokens) + " tokens, " + std::to_string(hidden) + " -> " +
                std::to_string(inner) + " -> " + std::to_string(hidden);
    } else {
        return usage(argv[0]);
    }
    if (ranks < 1) {
        return usage(argv[0]);
    }
    const std::vector<RankBuffers> inputs = make_inputs(*p, ranks);
    std::vector<RankBuffers> outputs[2];
    double seconds[2];
    for (int on = 0; on < 2; on++) {
        JitOptions options;
        options.default_schedule = on == 1;
        const JitProgram jit(*p, options);
        ThreadWorld world(ranks, 600);
        jit.run_threads(world, inputs, outputs[on]); // a warm-up
        seconds[on] = 1e30;
        for (int rep = 0; rep < (on ? 5 : 1); rep++) {
            const auto start = std::chrono::steady_clock::now();
            jit.run_threads(world, inputs, outputs[on]);
            const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
            seconds[on] = std::min(seconds[on], took.count());
        }
        std::printf("user %s, %s, %d thread ranks, default schedule %s: %.4f s per call\n",
                    which.c_str(), shape.c_str(), ranks, on ? "on " : "off", seconds[on]);
    }
    const double diff = max_abs_diff(outputs[0], outputs[1]);
    std::printf("speedup %.1fx; outputs %s\n", seconds[0] / seconds[1],
                diff == 0 ? "bit-identical" : "DIFFER");
    return diff == 0 ? 0 : 1;
}
