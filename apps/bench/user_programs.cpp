// Programs a user writes from the docs and never schedules (UserBlock.h,
// UserAttention.h, UserMlp.h, UserSgd.h), JIT-compiled and run on thread ranks with the
// default schedule off (Halide's serial loops) and on, the outputs compared: bit for bit,
// or, where the default adds a long scalar sum in parts (a norm), within 1e-6 of the
// largest output; a program whose plan lets outputs update inputs in place (the SGD step)
// is timed a third time so. apps/bench/torch_user_programs.py runs the same programs in PyTorch.
//
//   build/apps/bench/coconet_user_bench block [ranks=2] [tokens=4096] [width=1024]
//   build/apps/bench/coconet_user_bench attention [ranks=2] [tokens=1024] [heads=16] [head_dim=64]
//   build/apps/bench/coconet_user_bench mlp [ranks=2] [tokens=512] [hidden=1024] [inner=4096]
//   build/apps/bench/coconet_user_bench sgd [ranks=2] [parameters=4194304]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "UserAttention.h"
#include "UserBlock.h"
#include "UserMlp.h"
#include "UserSgd.h"

using namespace coconet;

namespace {

struct UserProgram {
    const char *name;
    // Its sizes as the command line names them, with their defaults, in order.
    std::vector<std::pair<const char *, int>> sizes;
    std::function<Program(const std::vector<int> &)> make;
    std::function<std::string(const std::vector<int> &)> shape;
    // Outputs the plan lets a caller pass in an input's memory, by name
    // (output, input): timed a third time so, with the default schedule.
    std::vector<std::pair<const char *, const char *>> in_place;
};

const std::vector<UserProgram> &user_programs() {
    static const std::vector<UserProgram> programs = {
        {"block",
         {{"tokens", 4096}, {"width", 1024}},
         [](const std::vector<int> &n) { return user_block(n[1], n[0]); },
         [](const std::vector<int> &n) {
             return std::to_string(n[0]) + " tokens x " + std::to_string(n[1]);
         }},
        {"attention",
         {{"tokens", 1024}, {"heads", 16}, {"head_dim", 64}},
         [](const std::vector<int> &n) { return user_attention(n[2], n[1], n[0]); },
         [](const std::vector<int> &n) {
             return std::to_string(n[0]) + " tokens, " + std::to_string(n[1]) + " heads of " +
                    std::to_string(n[2]);
         }},
        {"mlp",
         {{"tokens", 512}, {"hidden", 1024}, {"inner", 4096}},
         [](const std::vector<int> &n) { return user_mlp(n[1], n[2], n[0]); },
         [](const std::vector<int> &n) {
             return std::to_string(n[0]) + " tokens, " + std::to_string(n[1]) + " -> " +
                    std::to_string(n[2]) + " -> " + std::to_string(n[1]);
         }},
        {"sgd",
         {{"parameters", 1 << 22}},
         [](const std::vector<int> &n) { return user_sgd(n[0]); },
         [](const std::vector<int> &n) { return std::to_string(n[0]) + " parameters"; },
         {{"m_new", "m"}, {"w_new", "w"}}},
    };
    return programs;
}

int usage(const char *argv0) {
    for (const UserProgram &u : user_programs()) {
        std::fprintf(stderr, "%s %s %s [ranks=2]", &u == &user_programs()[0] ? "usage:" : "      ",
                     argv0, u.name);
        for (const auto &[name, value] : u.sizes) {
            std::fprintf(stderr, " [%s=%d]", name, value);
        }
        std::fprintf(stderr, "\n");
    }
    std::fprintf(stderr, "(every number >= 1)\n");
    return 2;
}

// Argument i, or `otherwise` where there is none; 0 where it is not a number >= 1.
int number(int argc, char **argv, int i, int otherwise) {
    return i < argc ? std::max(0, std::atoi(argv[i])) : otherwise;
}

} // namespace

int main(int argc, char **argv) {
    const std::string which = argc > 1 ? argv[1] : "";
    const auto u = std::find_if(user_programs().begin(), user_programs().end(),
                                [&](const UserProgram &u) { return which == u.name; });
    if (u == user_programs().end() || argc > 3 + (int)u->sizes.size()) {
        return usage(argv[0]);
    }
    const int ranks = number(argc, argv, 2, 2);
    std::vector<int> sizes;
    for (const auto &[name, value] : u->sizes) {
        sizes.push_back(number(argc, argv, 3 + (int)sizes.size(), value));
    }
    if (ranks < 1 || std::count(sizes.begin(), sizes.end(), 0)) {
        return usage(argv[0]);
    }
    const Program program = u->make(sizes);
    const std::string shape = u->shape(sizes);
    const std::vector<RankBuffers> inputs = make_inputs(program, ranks);
    std::vector<RankBuffers> outputs[2];
    double seconds[2];
    for (int on = 0; on < 2; on++) {
        JitOptions options;
        options.default_schedule = on == 1;
        const JitProgram jit(program, options);
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
    if (!u->in_place.empty()) {
        // Each call updates the state the last one left (a training loop's);
        // the first one's outputs, from the same inputs, are compared below.
        const JitProgram jit(program);
        ThreadWorld world(ranks, 600);
        std::vector<RankBuffers> state(ranks), updated(ranks);
        for (int r = 0; r < ranks; r++) {
            for (const auto &[name, buffer] : inputs[r]) {
                state[r][name] = buffer.copy();
            }
            for (const auto &[output, input] : u->in_place) {
                updated[r][output] = state[r].at(input);
            }
        }
        jit.run_threads(world, state, updated);
        for (const auto &[name, d] : output_diffs(updated, outputs[1])) {
            if (d.diff != 0) {
                std::printf("in place: %s differs by %g\n", name.c_str(), d.diff);
                return 1;
            }
        }
        double best = 1e30;
        for (int rep = 0; rep < 5; rep++) {
            const auto start = std::chrono::steady_clock::now();
            jit.run_threads(world, state, updated);
            const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
            best = std::min(best, took.count());
        }
        std::printf("user %s, %s, %d thread ranks, default schedule on, in place: %.4f s per "
                    "call (outputs written over the inputs they update; the first call's "
                    "bit-identical to the separate outputs')\n",
                    which.c_str(), shape.c_str(), ranks, best);
    }
    double diff = 0;
    bool close = true;
    for (const auto &[name, d] : output_diffs(outputs[1], outputs[0])) {
        diff = std::max(diff, d.diff);
        close = close && d.diff <= 1e-6 * d.magnitude;
    }
    std::printf("speedup %.1fx; outputs %s\n", seconds[0] / seconds[1],
                diff == 0 ? "bit-identical"
                : close   ? "within 1e-6 of their largest value"
                          : "DIFFER");
    return close ? 0 : 1;
}
