// CoCoNet tutorial lesson 6: pipeline parallelism (groups, send, sliced sends)
//
// So far every distributed Func lived on all ranks. Pipeline parallelism runs
// different layers of a model on different groups of ranks, the stages, and
// moves activations from one stage to the next. This lesson shows process
// groups (Group::world().split(2)), layouts on a group, send between groups,
// and the schedule that sends each rank's slice instead of whole copies.
//
// Build and run it from the repository root (./scripts/test.sh or
// ./scripts/demo.sh configures the build directory `build` first):
//
//   cmake --build build --target lesson_06_pipeline && ./build/tutorials/lesson_06_pipeline

#include <cstdio>
#include <string>

#include "Apps.h"
#include "lesson_util.h"

using namespace coconet;
using Halide::Float;
using Halide::Var;

namespace {

// A two-stage relay of n elements. Stage 0 holds x in slices, computes
// a = 2x + 1 on its slices and gathers it, so each of its ranks holds all of
// a; it sends a to stage 1, which squares it. With `send_slices`, the send is
// scheduled to move only slices.
Program relay(int n, bool send_slices) {
    // world.split(2): two groups of contiguous ranks. With R ranks, group k
    // holds ranks [floor(k R / 2), floor((k + 1) R / 2)): on 5 ranks, stage 0
    // is ranks 0-1 and stage 1 is ranks 2-4.
    const std::vector<Group> stages = Group::world().split(2);

    // A layout names its group: x is sliced over the ranks of stage 0 only.
    DFunc x = input("x", Float(32), {n}, Sliced(0, stages[0]));
    Var i("i");
    DFunc a("a");
    a(i) = 2.0f * x(i) + 1.0f; // Sliced(0) on stage 0
    // Collectives on a group's Funcs run within the group: this all_gather
    // involves the ranks of stage 0 only.
    DFunc a_all = all_gather(a, "a_all"); // Replicated on stage 0

    // send moves a value to another group and keeps its layout there: rank i
    // of stage 1 receives a whole copy of a_all from rank i mod |stage 0| of
    // stage 0, so the stages may differ in size.
    DFunc b = send(a_all, stages[1], "b"); // Replicated on stage 1
    DFunc y("y");
    y(i) = b(i) * b(i); // Replicated on stage 1
    // Funcs of different groups cannot be combined directly (stage 1 cannot
    // read x); send is the only way across.

    if (send_slices) {
        // compute_sliced on a send of a gathered value: each rank of stage 0
        // sends only its slice of a (re-sliced for the receiving group, whose
        // size may differ), and stage 1 gathers the slices among its own
        // ranks. Stage 0's all_gather has no reader left and disappears.
        b.compute_sliced();
    }

    Program p(send_slices ? "relay_sliced" : "relay");
    p.output(y, Replicated(stages[1]));
    return p;
}

// The box of a 1-D buffer as the plan writes it, [min..end], or "nothing".
std::string box_of(const Halide::Buffer<> &b) {
    if (b.number_of_elements() == 0) {
        return "nothing";
    }
    return "[" + std::to_string(b.dim(0).min()) + ".." +
           std::to_string(b.dim(0).min() + b.dim(0).extent()) + "]";
}

} // namespace

int main() {
    const int n = 10; // divisible by neither 3 nor 4

    // The relay, unscheduled and with the sliced send. A program runs on any
    // number of ranks, so each is compiled once.
    const Program plain = relay(n, false), sliced = relay(n, true);
    const JitProgram plain_jit(plain), sliced_jit(sliced);

    // Step 1: the plans on 4 and 5 ranks.
    //
    // The plan gives each rank's box of every Func, and a Func's layout names
    // its group. Ranks outside the group have an empty box: on 4 ranks x
    // lives on ranks 0-1 and y on ranks 2-3. On 5 ranks (the second plan,
    // with the sliced send) the world splits unevenly, 2 + 3: stage 0 holds
    // x in halves, and stage 1 receives a in thirds, which it gathers.
    printf("%s\n", print_plan(plain, 4).c_str());
    printf("%s\n", print_plan(sliced, 5).c_str());

    // Step 2: run both schedules on thread ranks, check them, and count the
    // bytes they move.
    //
    // run_threads takes an optional vector of RankTraffic: the bytes and
    // operations each rank sent, per collective kind. Unscheduled, stage 0
    // gathers a, and every rank of stage 1 then receives a whole copy of it.
    // With the sliced send, each element crosses between the stages once,
    // and stage 1 makes its copies with an all_gather among its own ranks.
    // That is the point: in a real pipeline the stages sit on different
    // nodes, and the link between them is the slow one. (The gather moves to
    // the receiving stage, so on 5 ranks, where stage 1 is the larger one,
    // the gathered bytes grow while the bytes across stages shrink.)
    for (int ranks : {2, 4, 5}) {
        const std::vector<RankBuffers> inputs = make_inputs(plain, ranks, 1);
        const std::vector<RankBuffers> expected = Reference(plain).run(ranks, inputs);
        for (bool send_slices : {false, true}) {
            const Program &p = send_slices ? sliced : plain;
            std::vector<RankTraffic> traffic;
            const std::vector<RankBuffers> outputs =
                (send_slices ? sliced_jit : plain_jit).run_threads(ranks, inputs, 10.0, &traffic);
            if (!matches(p.name(), p, outputs, expected)) {
                return 1;
            }
            uint64_t sent = 0, gathered = 0;
            for (const RankTraffic &t : traffic) {
                sent += t.bytes[COCONET_SEND_RECV];
                gathered += t.bytes[COCONET_ALL_GATHER];
            }
            printf("%d ranks, %-13s bit-identical, bytes across stages %3llu, gathered %3llu\n",
                   ranks, send_slices ? "sliced send:" : "whole copies:", (unsigned long long)sent,
                   (unsigned long long)gathered);
            // a is n floats, and stage 1 has ranks - ranks / 2 ranks.
            const uint64_t expected_sent = send_slices ? n * 4 : (ranks - ranks / 2) * n * 4;
            if (sent != expected_sent) {
                printf("expected %llu bytes across the stages\n",
                       (unsigned long long)expected_sent);
                return 1;
            }
        }
    }
    printf("\n");

    // Step 3: what each rank holds.
    //
    // A rank outside a layout's group holds nothing of the Func: its input
    // buffer for x is empty (make_inputs gives it an empty box), and so is
    // its buffer for the output y. Ranks of stage 0 compute nothing of stage
    // 1 and vice versa: Halide's bounds inference gives them empty boxes.
    {
        const int ranks = 5;
        const std::vector<RankBuffers> inputs = make_inputs(sliced, ranks, 1);
        const std::vector<RankBuffers> outputs = sliced_jit.run_threads(ranks, inputs);
        for (int r = 0; r < ranks; r++) {
            printf("rank %d: x %-8s y %s\n", r, box_of(inputs[r].at("x")).c_str(),
                   box_of(outputs[r].at("y")).c_str());
        }
        Halide::Buffer<float> y = outputs[4].at("y");
        printf("y(0..2) on rank 4: %f %f %f\n\n", y(0), y(1), y(2));
    }

    // Step 4: a real pipeline.
    //
    // apps::two_stage_pipeline has two model-parallel layers, one per stage:
    // relu(all_reduce(W x)) with W sliced along the contraction inside each
    // stage (the all_reduce runs on the stage's ranks only), and stage 0's
    // activations sent to stage 1, which adds them back as a residual. Its
    // Split schedule splits both all_reduces, computes the activations on
    // slices and sends slices across (the plan below: a1_sliced, a1_ag);
    // Fused also fuses the activations into the reduce_scatters' passes.
    apps::PipelineConfig config;
    config.batch = 4;
    config.hidden = 30;
    config.schedule = apps::Schedule::Split;
    printf("%s\n", print_plan(apps::two_stage_pipeline(config), 5).c_str());

    const int rank_counts[] = {2, 4, 5};
    config.schedule = apps::Schedule::None;
    const Program reference_program = apps::two_stage_pipeline(config);
    std::vector<std::vector<RankBuffers>> inputs, expected;
    for (int ranks : rank_counts) {
        inputs.push_back(make_inputs(reference_program, ranks, 1));
        expected.push_back(Reference(reference_program).run(ranks, inputs.back()));
    }
    for (apps::Schedule s : {apps::Schedule::None, apps::Schedule::Split, apps::Schedule::Fused}) {
        config.schedule = s;
        const Program p = apps::two_stage_pipeline(config);
        const JitProgram jit(p);
        for (size_t k = 0; k < inputs.size(); k++) {
            const int ranks = rank_counts[k];
            std::vector<RankTraffic> traffic;
            if (!matches(apps::to_string(s), p, jit.run_threads(ranks, inputs[k], 10.0, &traffic),
                         expected[k])) {
                return 1;
            }
            uint64_t sent = 0;
            for (const RankTraffic &t : traffic) {
                sent += t.bytes[COCONET_SEND_RECV];
            }
            printf("pipeline %-12s on %d ranks: bit-identical, %4llu bytes across stages\n",
                   apps::to_string(s), ranks, (unsigned long long)sent);
            // The activations are hidden x batch floats.
            const uint64_t activations = (uint64_t)config.hidden * config.batch * 4;
            const uint64_t copies = s == apps::Schedule::None ? ranks - ranks / 2 : 1;
            if (sent != copies * activations) {
                printf("expected %llu bytes across the stages\n",
                       (unsigned long long)(copies * activations));
                return 1;
            }
        }
    }

    printf("Success!\n");
    return 0;
}
