// CoCoNet tutorial lesson 5: overlapping a MatMul with its collective (overlap)
//
// This lesson schedules the MLP block of Megatron-LM, the standard example of
// model (tensor) parallelism: two MatMuls whose weights are split across the
// ranks, so that the second one leaves each rank with partial sums that an
// all_reduce completes. The schedule splits that all_reduce, fuses the
// element-wise epilogue into it (as lesson 4 did for Adam), and overlaps the
// second MatMul with the communication: the MatMul computes the next chunk of
// the batch while the previous chunk is being reduced. Its last step does the
// same for sequence parallelism, where the chunks cut the sliced dimension.
//
// Build and run it from the repository root (./scripts/test.sh or
// ./scripts/demo.sh configures the build directory `build` first):
//
//   cmake --build build --target lesson_05_overlap_megatron
//   ./build/tutorials/lesson_05_overlap_megatron

#include <cstdio>
#include <thread>

#include "Apps.h"
#include "lesson_util.h"

using namespace coconet;

int main() {
    // Step 1: the algorithm, and why the second MatMul's output is Local.
    //
    // apps::megatron_mlp computes, for activations x(h, b) (hidden size h,
    // batch b),
    //
    //   y = x + dropout(all_reduce(gelu(x W1) W2) + b2)
    //
    // with x Replicated and the two weights split across the ranks:
    //
    // - W1 (w1(f, h), Sliced(0)) is split along the FFN features f. The first
    //   MatMul hidden(f, b) = sum over h of w1(f, h) x(h, b) sums over the
    //   whole hidden dimension, which every rank holds, so each rank computes
    //   complete values of its own features: hidden, and gelu of it, are
    //   Sliced(0). This is the column-parallel MatMul (W1's columns, in the
    //   usual x W1 notation); it needs no communication.
    //
    // - W2 (w2(h, f), Sliced(1)) is split along the same features f. The
    //   second MatMul partial(h, b) = sum over f of w2(h, f) act(f, b) sums
    //   over f, the dimension that is sliced: each rank can add up only its
    //   own features' terms. Its result has the full shape on every rank, but
    //   each rank holds a different part of the sum. That is exactly the
    //   Local layout (layout inference: a reduction over a sliced dimension
    //   gives a Local result), and all_reduce turns it into the Replicated
    //   sum. This is the row-parallel MatMul.
    //
    // The epilogue (bias, dropout, residual) is element-wise and reads the
    // sum; dropout's mask depends only on a seed and the global index, so
    // every rank and every schedule drop the same elements.
    //
    // The config's `schedule` and `overlap` fields pick the schedule:
    // Split splits the all_reduce and computes the epilogue on slices, Fused
    // also fuses it into the reduce_scatter's pass, and overlap = k computes
    // the second MatMul and the collective in k chunks of the batch.
    apps::MlpConfig config;
    config.batch = 32;
    config.hidden = 256;
    config.ffn = 1024;

    // Step 2: the plan, fused and overlapped.
    //
    // In the plan below, the kernel `partial` (the second MatMul) is
    // "computed chunk by chunk, overlapped with the fused pass of
    // summed_rs", and the pass itself says how many tiles of which dimension
    // (the outermost, the batch) it runs in. While the pass reduces chunk j, a
    // second thread of the rank computes chunk j + 1 of the MatMul.
    config.schedule = apps::Schedule::Fused;
    config.overlap = 4;
    printf("%s\n", print_plan(apps::megatron_mlp(config), 2).c_str());

    // Step 3: run every schedule on 2 and 3 thread ranks.
    //
    // 3 ranks divide neither hidden (256) nor ffn (1024): the last slices
    // are short, and the results must still equal the reference bit for bit.
    struct Variant {
        const char *name;
        apps::Schedule schedule;
        int overlap;
    };
    const Variant variants[] = {{"unscheduled", apps::Schedule::None, 0},
                                {"split", apps::Schedule::Split, 0},
                                {"fused", apps::Schedule::Fused, 0},
                                {"fused+overlapped", apps::Schedule::Fused, 4}};
    config.schedule = apps::Schedule::None;
    config.overlap = 0;
    const Program reference_program = apps::megatron_mlp(config);
    for (int ranks : {2, 3}) {
        const std::vector<RankBuffers> inputs = make_inputs(reference_program, ranks, 1);
        const std::vector<RankBuffers> expected = Reference(reference_program).run(ranks, inputs);
        double unscheduled_ms = 0;
        for (const Variant &v : variants) {
            config.schedule = v.schedule;
            config.overlap = v.overlap;
            const Program p = apps::megatron_mlp(config);
            std::vector<RankBuffers> outputs;
            const double ms = median_ms(JitProgram(p), ranks, inputs, outputs);
            if (!matches(v.name, p, outputs, expected)) {
                return 1;
            }
            unscheduled_ms = v.schedule == apps::Schedule::None ? ms : unscheduled_ms;
            printf("%d ranks  %-17s %8.3f ms, speedup %.2fx, bit-identical\n", ranks, v.name, ms,
                   unscheduled_ms / ms);
        }
        Halide::Buffer<float> y = expected[ranks - 1].at("y");
        printf("y(0..2, 0) on rank %d: %f %f %f\n\n", ranks - 1, y(0, 0), y(1, 0), y(2, 0));
    }
    // The values of y differ between 2 and 3 ranks in the last digits: the
    // sum over f is cut into per-rank partial sums at other places, so it
    // rounds differently. That is why each rank count is compared with the
    // reference run on the same number of ranks.
    //
    // A word on these times. Overlap hides communication behind computation
    // when both can run at once: the rank's second thread computes the
    // MatMul while the first reduces. Here every rank is a thread of one
    // process, the "communication" is copying from the peers' memory, and
    // the ranks' threads compete for the same few cores. On a machine with
    // no spare core (this lesson is tested on 2 cores) overlap has nothing
    // to hide the reduction behind. The overlapped step then does not keep
    // its 4 tiles: over its first calls on a world it times 4, 2 and 1
    // tiles and keeps the fewest within 5% of the fastest (median_ms times
    // the calls after that), so it runs about as the fused schedule does.
    // Overlap pays off when ranks have their own cores or devices and the
    // collective crosses a real network. Times on a shared machine also vary
    // by tens of percent between runs.
    printf("This machine has %u hardware threads; overlap needs spare cores to gain.\n\n",
           std::thread::hardware_concurrency());

    // Step 4: the same schedule, written by hand.
    //
    // apps::megatron_partial gives the block's inputs and its two MatMuls up
    // to the Local partial sums (parts.partial), and apps::megatron_epilogue
    // the bias, dropout and residual; between them goes the all_reduce. This is what
    // apps::megatron_mlp does, so the app's reference fits this program.
    config.schedule = apps::Schedule::None;
    config.overlap = 0;
    const apps::MlpParts parts = apps::megatron_partial(config);
    DFunc summed = all_reduce(parts.partial, ReduceOp::Sum, "summed");
    DFunc y = apps::megatron_epilogue(config, parts.x, summed, parts.b2);

    // overlap pairs a collective with the Func it reads: the collective's
    // own producer, which is the one that can be computed chunk by chunk
    // while earlier chunks are reduced. Naming another Func, here the
    // epilogue that reads the collective, is refused.
    try {
        summed.overlap(y, 4);
        printf("overlap with a consumer was accepted\n");
        return 1;
    } catch (const UserError &e) {
        printf("Refused, as it should be:\n  %s\n\n", e.what());
    }

    // The schedule, one directive at a time:
    // - split the all_reduce into reduce_scatter (along h) + all_gather;
    summed.split_collective(0);
    // - compute the Replicated epilogue on each rank's slice, moving the
    //   all_gather to its output (y_sliced, then y_ag);
    y.compute_sliced();
    // - compute the MatMul and the reduce_scatter in 4 chunks of the batch,
    //   the MatMul one chunk ahead;
    summed.overlap(parts.partial, 4);
    // - and run the epilogue inside the reduce_scatter's pass, which then
    //   also writes each rank's slice of y into every rank's copy.
    y.fuse_with(summed);

    Program mine("my_megatron");
    mine.output(y, Replicated());
    // It computes what the app's unscheduled program computes, on a single
    // rank too.
    if (!matches_on("my fused, overlapped block", JitProgram(mine), mine, reference_program,
                    {1, 2, 3}, make_inputs)) {
        return 1;
    }

    // Step 5: sequence parallelism, overlapped along the sliced dimension.
    //
    // Megatron-LM's sequence parallelism keeps the epilogue's activations
    // split along the tokens (here the batch b, dimension 1) instead of
    // replicated: the row-parallel MatMul's partial sums are reduce-scattered
    // along the tokens, the epilogue runs on each rank's tokens, and an
    // all_gather rebuilds the whole activation where the next layer needs it.
    const apps::MlpParts sp = apps::megatron_partial(config);
    DFunc tokens = reduce_scatter(sp.partial, 1, ReduceOp::Sum, "tokens");
    DFunc y_tokens = apps::megatron_epilogue(config, sp.x, tokens, sp.b2);
    DFunc y_all = all_gather(y_tokens, "y_all");
    // The chunks of an overlap run along the outermost dimension that works,
    // here the tokens, which are also the sliced dimension: chunk j is then
    // piece j of every rank's slice, so that every rank sends and receives
    // in every step. overlap(producer, k, dim) picks another dimension.
    tokens.overlap(sp.partial, 4);
    y_tokens.fuse_with(tokens);
    Program sequence("my_sequence_parallel");
    sequence.output(y_all, Replicated());
    printf("%s\n", print_plan(sequence, 3).c_str());
    // Its reference is its own program's, unscheduled (the reference ignores
    // schedules).
    if (!matches_on("sequence parallel, overlapped along the tokens", JitProgram(sequence),
                    sequence, sequence, {1, 2, 3}, make_inputs)) {
        return 1;
    }

    printf("Success!\n");
    return 0;
}
