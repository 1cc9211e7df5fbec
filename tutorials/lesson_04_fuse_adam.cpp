// CoCoNet tutorial lesson 4: fusing an optimizer into its collective (fuse_with)
//
// This lesson shows the schedule that makes data-parallel Adam fast: the
// gradients' all_reduce is split into reduce_scatter + all_gather, and the
// element-wise optimizer step is fused into the reduce_scatter's pass, so each
// rank reduces a chunk of its slice of the gradients, updates the moments and
// the parameters while that chunk is in cache, and writes the new parameters
// straight into every rank's copy. The whole step is one pass over memory.
//
// We first time the three schedules of apps::adam, then write the fused
// schedule ourselves on an inline copy of the algorithm, and call it in a
// training loop.
//
// Build and run it from the repository root (./scripts/test.sh or
// ./scripts/demo.sh configures the build directory `build` first):
//
//   cmake --build build --target lesson_04_fuse_adam && ./build/tutorials/lesson_04_fuse_adam

#include <cstdio>

#include "Apps.h"
#include "lesson_util.h"

using namespace coconet;
using Halide::Float;
using Halide::Var;

int main() {
    // A quarter of a million parameters: big enough that the time of a step
    // is spent moving memory, small enough to run in about a second.
    const int n = 1 << 18;
    const int ranks = 4;

    // Step 1: the three schedules of Adam.
    //
    // apps::adam builds data-parallel Adam with bias correction: g are each
    // rank's gradients (Local), w the parameters (Replicated), m and v the
    // optimizer state, sharded across ranks (Sliced(0)). The config's
    // `schedule` field picks the schedule; the algorithm is the same.
    apps::OptimizerConfig config;
    config.n = n;
    const apps::Schedule schedules[] = {apps::Schedule::None, apps::Schedule::Split,
                                        apps::Schedule::Fused};

    // The unscheduled plan: one Halide pipeline whose stages are the
    // all_reduce of the gradients, the moments and the step (each on the
    // rank's slice) and the all_gather of the new parameters. Each stage is a
    // separate sweep over memory.
    config.schedule = apps::Schedule::None;
    printf("Unscheduled Adam:\n%s\n", print_plan(apps::adam(config), ranks).c_str());

    // The fused plan: a single pass. Look for "fused pass", the Funcs it
    // computes, the all_gather written by the pass, and the gradients'
    // all_gather marked dead (the gradients are never gathered).
    config.schedule = apps::Schedule::Fused;
    printf("Fused Adam:\n%s\n", print_plan(apps::adam(config), ranks).c_str());

    // Step 2: run and time each schedule on 4 thread ranks.
    //
    // Every program has the same signature, so one set of inputs serves them
    // all. apps::optimizer_inputs is make_inputs with v made non-negative, as
    // a second moment is in training. The reference evaluates the algorithm
    // naively in one process; schedules change how, never what, so every
    // schedule must equal it bit for bit (the fused pass adds the ranks'
    // gradients in rank order, as the reference does).
    config.schedule = apps::Schedule::None;
    const Program reference_program = apps::adam(config);
    const std::vector<RankBuffers> inputs = apps::optimizer_inputs(reference_program, ranks, 1);
    const std::vector<RankBuffers> expected = Reference(reference_program).run(ranks, inputs);

    double unscheduled_ms = 0;
    for (apps::Schedule s : schedules) {
        config.schedule = s;
        const Program p = apps::adam(config);
        std::vector<RankBuffers> outputs;
        const double ms = median_ms(JitProgram(p), ranks, inputs, outputs);
        if (!matches(apps::to_string(s), p, outputs, expected)) {
            return 1;
        }
        if (s == apps::Schedule::None) {
            unscheduled_ms = ms;
        }
        printf("%-12s %8.3f ms per step, speedup %.2fx, bit-identical\n", apps::to_string(s), ms,
               unscheduled_ms / ms);
    }
    // Split alone gains little here: even unscheduled, Halide's bounds
    // inference asks the all_reduce only for the slice the moments read, so
    // it moves no more data than the reduce_scatter does. The fused pass
    // gains by sweeping over memory once instead of once per stage.
    //
    // A few values of the new parameters, as rank 2 holds them.
    Halide::Buffer<float> w_values = expected[2].at("w_new");
    printf("w_new(0..3) on rank 2: %f %f %f %f\n\n", w_values(0), w_values(1), w_values(2),
           w_values(3));

    // Step 3: the fused schedule, written by hand.
    //
    // Here is Adam again, compactly, exactly as apps::adam writes it (step 1
    // of training, so the bias corrections are 1 - beta). The names are the
    // app's, so its inputs and its reference's outputs fit this program too.
    const float lr = config.lr, beta1 = config.beta1, beta2 = config.beta2, eps = config.eps;
    const float bc1 = 1 - beta1, bc2 = 1 - beta2;
    DFunc g = input("g", Float(32), {n}, Local());
    DFunc w = input("w", Float(32), {n}, Replicated());
    DFunc m = input("m", Float(32), {n}, Sliced(0));
    DFunc v = input("v", Float(32), {n}, Sliced(0));
    Var i("i");
    // The comments give the layouts that inference finds.
    DFunc g_sum = all_reduce(g, ReduceOp::Sum, "g_sum"); // Replicated
    DFunc m_new("m_new"), v_new("v_new"), w_slice("w_slice");
    m_new(i) = beta1 * m(i) + (1 - beta1) * g_sum(i);            // Sliced(0)
    v_new(i) = beta2 * v(i) + (1 - beta2) * g_sum(i) * g_sum(i); // Sliced(0)
    w_slice(i) = w(i) - lr * ((m_new(i) / bc1) / (Halide::sqrt(v_new(i) / bc2) + eps));
    DFunc w_new = all_gather(w_slice, "w_new"); // Replicated

    // A directive refuses what it cannot do, with a message that names the
    // Funcs. An all_reduce has no pass of its own to compute m_new in: the
    // pass belongs to the reduce_scatter that split_collective creates. So
    // fusing before splitting is refused.
    try {
        m_new.fuse_with(g_sum);
        printf("fuse_with on an unsplit all_reduce was accepted\n");
        return 1;
    } catch (const UserError &e) {
        printf("Refused, as it should be:\n  %s\n\n", e.what());
    }

    // The schedule. split_collective(0) turns the all_reduce into a
    // reduce_scatter along dimension 0 (g_sum_rs, Sliced(0)) followed by an
    // all_gather (g_sum_ag). m_new and v_new are Sliced(0), so they read their
    // own slice of the reduce_scatter, and no consumer is left for the
    // all_gather: the gradients are never gathered.
    g_sum.split_collective(0);
    // fuse_with computes each element-wise consumer inside the reduce_scatter's
    // pass. Each must read g_sum (or a Func fused with it) at its own index i:
    // m_new and v_new read g_sum(i); w_slice reads m_new(i) and v_new(i).
    m_new.fuse_with(g_sum);
    v_new.fuse_with(g_sum);
    // w_slice is gathered by w_new. Fused, the pass writes each rank's slice
    // of it straight into every rank's copy of w_new: there is no separate
    // all_gather either. fuse_with also takes FuseOptions: the chunk size
    // (by default one that stays in cache: the 131072 elements in the
    // plan above) and the path (reading peers' memory directly, or a ring).
    w_slice.fuse_with(g_sum);

    Program mine("my_fused_adam");
    mine.output(w_new, Replicated()).output(m_new, Sliced(0)).output(v_new, Sliced(0));

    // It computes exactly what the app's unscheduled program computes.
    const JitProgram jit(mine);
    std::vector<RankBuffers> outputs;
    const double mine_ms = median_ms(jit, ranks, inputs, outputs);
    if (!matches("my fused Adam", mine, outputs, expected)) {
        return 1;
    }
    printf("my fused Adam %7.3f ms per step, bit-identical to the reference\n", mine_ms);

    // The same compiled program runs on any rank count, including one that
    // does not divide n (the last slices are short) and a single rank.
    if (!matches_on("my fused Adam", jit, mine, reference_program, {1, 3},
                    apps::optimizer_inputs)) {
        return 1;
    }

    // Step 4: a training loop.
    //
    // Training calls the step again and again, each call reading the
    // parameters and moments the last one wrote. A ThreadWorld keeps the
    // ranks' threads (and what the runtime tunes per rank) across the calls,
    // and run_threads(world, inputs, outputs) writes into `outputs` again
    // when it holds the last call's buffers, so a step allocates nothing.
    // But a call never writes a buffer it reads: an output fed back as an
    // input gets new memory. So the loop keeps two sets of outputs and uses
    // them in turn: step k reads the set step k - 1 wrote and writes the
    // other one, which step k - 2 wrote.
    ThreadWorld world(ranks);
    std::vector<RankBuffers> state[2], step_inputs = inputs;
    const void *first_w_new = nullptr;
    for (int step = 0; step < 4; step++) {
        std::vector<RankBuffers> &written = state[step % 2];
        jit.run_threads(world, step_inputs, written);
        if (!matches("step " + std::to_string(step), mine, written,
                     Reference(reference_program).run(ranks, step_inputs))) {
            return 1;
        }
        first_w_new = step == 0 ? written[0].at("w_new").data() : first_w_new;
        for (int r = 0; r < ranks; r++) {
            step_inputs[r]["w"] = written[r].at("w_new");
            step_inputs[r]["m"] = written[r].at("m_new");
            step_inputs[r]["v"] = written[r].at("v_new");
        }
    }
    // Steps 0 and 2 wrote w_new into the same memory.
    const bool reused = state[0][0].at("w_new").data() == first_w_new;
    printf("4 training steps on a kept ThreadWorld, each bit-identical to the reference; "
           "step 2 wrote into step 0's outputs: %s\n",
           reused ? "yes" : "no");
    if (!reused) {
        return 1;
    }

    printf("Success!\n");
    return 0;
}
