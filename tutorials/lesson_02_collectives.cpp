// CoCoNet tutorial lesson 2: collectives and the reference
//
// Layouts (lesson 1) say what each rank holds of a value; collectives are how
// a value moves from one layout to another. In CoCoNet a collective is just
// another distributed Func: it is called like a Func, its layout follows from
// its input's, and a program can read it like any other value. This lesson
// runs each of the four main collectives in a tiny program on 3 and 4 thread
// ranks, prints what every rank holds before and after, and checks the result
// against the single-process reference (and, for the sum, against a loop
// written by hand). The others are broadcast, reduce, and send, which moves a
// value between groups of ranks (pipeline parallelism).
//
// Build and run it from the repository root (./scripts/test.sh or
// ./scripts/demo.sh configure the build directory `build` first):
//
//   cmake --build build --target lesson_02_collectives && ./build/tutorials/lesson_02_collectives

#include "CoCoNet.h"

#include <cstdio>
#include <string>

using namespace coconet;
using Halide::Float;
using Halide::Var;

// Prints the box a rank holds of a 1-D buffer and its values, in global
// coordinates (element x of the buffer is element x of the whole value).
static void print_1d(const char *what, const Halide::Buffer<float> &b) {
    const int min = b.dim(0).min(), extent = b.dim(0).extent();
    printf("    %-8s [%d..%d]:", what, min, min + extent);
    for (int x = min; x < min + extent; x++) {
        printf(" %6.3f", b(x));
    }
    printf("\n");
}

// Prints the box a rank holds of a 2-D buffer, as "[x0..x1, y0..y1]".
static std::string box_2d(const Halide::Buffer<float> &b) {
    return "[" + std::to_string(b.dim(0).min()) + ".." + std::to_string(b.dim(0).max() + 1) + ", " +
           std::to_string(b.dim(1).min()) + ".." + std::to_string(b.dim(1).max() + 1) + "]";
}

// Runs `p` on `ranks` thread ranks with the inputs make_inputs gives it, and
// checks the outputs against the reference, bit for bit. Fills `inputs` and
// `outputs` so that the caller can print them.
static bool run_and_check(const Program &p, int ranks, std::vector<RankBuffers> &inputs,
                          std::vector<RankBuffers> &outputs) {
    inputs = make_inputs(p, ranks);
    outputs = JitProgram(p).run_threads(ranks, inputs);
    std::vector<RankBuffers> expected = Reference(p).run(ranks, inputs);
    double diff = max_abs_diff(outputs, expected);
    if (diff != 0 || !replicated_mismatches(p, outputs).empty()) {
        printf("Program %s on %d ranks differs from the reference (max |difference| %g)\n",
               p.name().c_str(), ranks, diff);
        return false;
    }
    printf("  %s on %d ranks: equal to the reference\n", p.name().c_str(), ranks);
    return true;
}

// Runs `p` on 3 and then 4 thread ranks with run_and_check, and prints what
// each rank of the run on 4 holds of the input `in` and the output `out`.
// That run's buffers stay in `inputs` and `outputs`.
static bool run_and_print(const Program &p, const char *in, const char *out,
                          std::vector<RankBuffers> &inputs, std::vector<RankBuffers> &outputs) {
    for (int ranks : {3, 4}) {
        if (!run_and_check(p, ranks, inputs, outputs)) {
            return false;
        }
    }
    for (int r = 0; r < 4; r++) {
        printf("  rank %d\n", r);
        print_1d(in, inputs[r][in]);
        print_1d(out, outputs[r][out]);
    }
    return true;
}

int main() {
    // Sizes that 3 and 4 ranks do not divide: slices are blocks of
    // ceil(n / R), the last one short.
    const int n = 7;
    Var i("i"), j("j");
    std::vector<RankBuffers> inputs, outputs;

    // Step 1: all_reduce, Local -> Replicated.
    //
    // Every rank holds a gradient of its own (Local). all_reduce sums them
    // (ReduceOp::Prod, Max and Min are the other operations), and every rank
    // gets the whole sum (Replicated). This is data parallelism's
    // "average the gradients" step.
    {
        printf("Step 1: all_reduce (Local -> Replicated)\n");
        DFunc g = input("g", Float(32), {n}, Local());
        DFunc g_sum = all_reduce(g, ReduceOp::Sum, "g_sum");
        Program p("all_reduce");
        p.output(g_sum, Replicated());
        // Look at the run on 4 ranks: the inputs differ, the sums agree.
        if (!run_and_print(p, "g", "g_sum", inputs, outputs)) {
            return 1;
        }
        // The reference is an independent implementation, but it is worth
        // seeing once that it means what we think: the sum over the ranks, in
        // rank order (both CoCoNet and the reference add in rank order, so the
        // results are bit-identical).
        for (int x = 0; x < n; x++) {
            float sum = 0.0f;
            for (int r = 0; r < 4; r++) {
                sum += Halide::Buffer<float>(inputs[r]["g"])(x);
            }
            if (Halide::Buffer<float>(outputs[0]["g_sum"])(x) != sum) {
                printf("g_sum(%d) is not the sum of the gradients\n", x);
                return 1;
            }
        }
    }

    // Step 2: reduce_scatter, Local -> Sliced(d).
    //
    // The same reduction, but each rank gets only its slice of it along
    // dimension d. It is an all_reduce without its second half (the gather
    // of the slices), so it moves about half the bytes; when every
    // consumer works on slices anyway (sharded optimizer state), it is all the
    // communication needed. Here we take the maximum instead of the sum, to
    // show another operation.
    {
        printf("\nStep 2: reduce_scatter (Local -> Sliced(0))\n");
        DFunc g = input("g", Float(32), {n}, Local());
        DFunc g_max = reduce_scatter(g, 0, ReduceOp::Max, "g_max");
        Program p("reduce_scatter");
        p.output(g_max, Sliced(0));
        // On 4 ranks the slices are 2, 2, 2 and 1 elements long.
        if (!run_and_print(p, "g", "g_max", inputs, outputs)) {
            return 1;
        }
    }

    // Step 3: all_gather, Sliced(d) -> Replicated.
    //
    // The inverse direction: each rank contributes its slice and every rank
    // gets the whole value. Typically the last step of a sharded optimizer,
    // which updates a slice of the parameters on each rank and then gathers
    // them. We update the slice first (a Sliced element-wise Func, lesson 1)
    // to make the point that collectives read computed Funcs as well as
    // inputs.
    {
        printf("\nStep 3: all_gather (Sliced(0) -> Replicated)\n");
        DFunc m = input("m", Float(32), {n}, Sliced(0));
        DFunc m_half("m_half");
        m_half(i) = 0.5f * m(i);
        DFunc gathered = all_gather(m_half, "gathered");
        Program p("all_gather");
        p.output(gathered, Replicated());
        // Each rank holds its slice of m, and all of the halved values after.
        if (!run_and_print(p, "m", "gathered", inputs, outputs)) {
            return 1;
        }
    }

    // Step 4: all_to_all(f, split d, concat e), Sliced(e) -> Sliced(d).
    //
    // all_to_all changes which dimension is sliced, and keeps the value: the
    // input is sliced along dimension e (concat_dim), the result along
    // dimension d (split_dim). Each rank cuts its slice into R pieces along d
    // and sends piece k to rank k, which concatenates what it receives along
    // e. This is how a model switches from one kind of parallelism to another
    // (sequence- to head-parallel attention, or expert parallelism), and what
    // makes a Sliced(1) value usable by a Sliced(0) consumer (lesson 1's
    // second error).
    {
        printf("\nStep 4: all_to_all(x, split 0, concat 1) (Sliced(1) -> Sliced(0))\n");
        DFunc x = input("x", Float(32), {n, 5}, Sliced(1));
        DFunc rows = all_to_all(x, 0, 1, "rows");
        Program p("all_to_all");
        p.output(rows, Sliced(0));
        // 4 ranks first this time, so that we can look at the run on 3.
        for (int ranks : {4, 3}) {
            if (!run_and_check(p, ranks, inputs, outputs)) {
                return 1;
            }
        }
        // On 3 ranks rank r holds some columns of x and some rows of the
        // result, shown as boxes [x0..x1, y0..y1] of the 7 x 5 value. The
        // element (2, 4) lives on rank 2 before (its column) and on rank 0
        // after (its row).
        for (int r = 0; r < 3; r++) {
            Halide::Buffer<float> before = inputs[r]["x"], after = outputs[r]["rows"];
            printf("  rank %d holds x %s and rows %s\n", r, box_2d(before).c_str(),
                   box_2d(after).c_str());
        }
        float moved = Halide::Buffer<float>(inputs[2]["x"])(2, 4);
        printf("  x(2, 4) = %.3f on rank 2, rows(2, 4) = %.3f on rank 0\n", moved,
               Halide::Buffer<float>(outputs[0]["rows"])(2, 4));
        if (Halide::Buffer<float>(outputs[0]["rows"])(2, 4) != moved) {
            printf("all_to_all did not move x(2, 4) to rank 0\n");
            return 1;
        }
    }

    // Step 5: reduce_scatter then all_gather is an all_reduce.
    //
    // Summing slices and then gathering them gives every rank the whole sum,
    // exactly what all_reduce gives, and with the same bits, because both add
    // the ranks' values in rank order. Lesson 3 uses this to split an
    // all_reduce and compute on the slices in between. print_plan shows each
    // collective with the layout it produces and the box each rank holds.
    {
        printf("\nStep 5: all_gather(reduce_scatter(g)) equals all_reduce(g)\n");
        DFunc g = input("g", Float(32), {n}, Local());
        Program two_steps("two_steps");
        two_steps.output(all_gather(reduce_scatter(g, 0, ReduceOp::Sum, "partial"), "total"),
                         Replicated());
        Program one_step("one_step");
        one_step.output(all_reduce(g, ReduceOp::Sum, "total"), Replicated());
        printf("%s", print_plan(two_steps, 3).c_str());
        for (int ranks : {3, 4}) {
            std::vector<RankBuffers> split_outputs;
            if (!run_and_check(two_steps, ranks, inputs, split_outputs) ||
                !run_and_check(one_step, ranks, inputs, outputs)) {
                return 1;
            }
            // Both programs have the same input and name their output
            // "total", so their results can be compared directly.
            if (max_abs_diff(split_outputs, outputs) != 0) {
                printf("The two-step sum differs from all_reduce on %d ranks\n", ranks);
                return 1;
            }
        }
    }

    printf("Success!\n");
    return 0;
}
