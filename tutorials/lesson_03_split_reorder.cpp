// CoCoNet tutorial lesson 3: split_collective and compute_sliced
//
// So far every program ran exactly as written. As in Halide, CoCoNet keeps
// *what* a program computes (the algorithm) apart from *how* it runs (the
// schedule). This lesson takes the most common pattern of data-parallel
// training, an all_reduce of the gradients followed by an element-wise update
// of the parameters, and schedules it with two directives:
//
//   sum.split_collective(0)   the all_reduce becomes a reduce_scatter along
//                             dimension 0 followed by an all_gather;
//   w_new.compute_sliced()    the element-wise consumer runs on each rank's
//                             slice of the sum, and the all_gather moves from
//                             the gradients to the consumer's result.
//
// It prints the plan before and after, checks that the results do not change
// by a single bit, measures the bytes each kind of collective moves, and shows
// a directive that CoCoNet refuses.
//
// Build and run it from the repository root (./scripts/test.sh or
// ./scripts/demo.sh configure the build directory `build` first):
//
//   cmake --build build --target lesson_03_split_reorder
//   ./build/tutorials/lesson_03_split_reorder

#include "CoCoNet.h"

#include <cstdio>
#include <string>

using namespace coconet;
using Halide::Float;
using Halide::Var;

// A size that neither 3 nor 4 ranks divide.
static const int n = 10;

// The algorithm: each rank holds its own gradient g (Local), all ranks hold
// the same parameters w (Replicated). Sum the gradients and take a step.
// Directives change the DFuncs they are called on, so we build the program
// afresh for each schedule.
static Program sgd_step(bool scheduled) {
    DFunc g = input("g", Float(32), {n}, Local());
    DFunc w = input("w", Float(32), {n}, Replicated());
    DFunc g_sum = all_reduce(g, ReduceOp::Sum, "g_sum");
    Var i("i");
    DFunc w_new("w_new");
    w_new(i) = w(i) - 0.125f * g_sum(i);

    if (scheduled) {
        // The schedule. split_collective must come first: compute_sliced
        // rewrites w_new's definition to read the values before their
        // gathers, so the gather must exist when it is called.
        g_sum.split_collective(0);
        w_new.compute_sliced();
    }

    Program p("sgd_step");
    p.output(w_new, Replicated());
    return p;
}

// Bytes that all ranks together sent, per collective kind.
struct Bytes {
    uint64_t all_reduce = 0, reduce_scatter = 0, all_gather = 0, total = 0;
};

static Bytes total_bytes(const std::vector<RankTraffic> &traffic) {
    Bytes b;
    for (const RankTraffic &t : traffic) {
        // RankTraffic::bytes is indexed by the runtime's collective kinds.
        b.all_reduce += t.bytes[COCONET_ALL_REDUCE];
        b.reduce_scatter += t.bytes[COCONET_REDUCE_SCATTER];
        b.all_gather += t.bytes[COCONET_ALL_GATHER];
        b.total += t.total_bytes();
    }
    return b;
}

int main() {
    Program plain = sgd_step(false);
    Program scheduled = sgd_step(true);

    // Step 1: the unscheduled plan.
    //
    // The all_reduce gives every rank the whole sum, and every rank then
    // updates all n parameters: the same work R times over.
    printf("%s\n", print_plan(plain, 3).c_str());

    // Step 2: the scheduled plan.
    //
    // g_sum is now g_sum_rs (a reduce_scatter: each rank gets its slice of
    // the sum) plus g_sum_ag (an all_gather of those slices). w_new is
    // computed as w_new_sliced, a Sliced(0) kernel that reads its slice of
    // g_sum_rs and of w, and w_new_ag gathers the new parameters. Nothing
    // reads g_sum_ag any more, so the plan lists it as dead: the summed
    // gradients are never gathered. Each rank updates only n / R parameters.
    printf("%s\n", print_plan(scheduled, 3).c_str());

    // Step 3: the schedule changes how, never what.
    //
    // The reference ignores schedules: the meaning of a program is its
    // unscheduled execution. Both versions must match it bit for bit, on any
    // number of ranks, including counts that leave the last slice short.
    JitProgram plain_jit(plain), scheduled_jit(scheduled);
    for (int ranks : {1, 3, 4}) {
        std::vector<RankBuffers> inputs = make_inputs(plain, ranks);
        std::vector<RankBuffers> expected = Reference(plain).run(ranks, inputs);
        std::vector<RankBuffers> a = plain_jit.run_threads(ranks, inputs);
        std::vector<RankBuffers> b = scheduled_jit.run_threads(ranks, inputs);
        // The output keeps its name, w_new, and its layout: the program's
        // signature does not depend on the schedule, so the same inputs work
        // for both and the outputs can be compared directly.
        double diff_plain = max_abs_diff(a, expected), diff_scheduled = max_abs_diff(b, expected);
        printf("%d ranks: max |difference| from the reference: unscheduled %g, scheduled %g; "
               "w_new(3) = %.6f\n",
               ranks, diff_plain, diff_scheduled, Halide::Buffer<float>(b[0]["w_new"])(3));
        if (diff_plain != 0 || diff_scheduled != 0 ||
            !replicated_mismatches(scheduled, b).empty()) {
            printf("A schedule changed the result on %d ranks\n", ranks);
            return 1;
        }
    }

    // Step 4: what moves between the ranks.
    //
    // run_threads's last argument, if given, receives each rank's traffic:
    // the bytes it sent, per collective kind. Let N be n * 4 bytes, the size
    // of one float value of n elements.
    //
    // Unscheduled, the all_reduce moves 2 (R - 1) N bytes in all: it is a
    // reduce-scatter (every rank sends the others the parts of its gradient
    // they add up, (R - 1) N) then an all-gather of the summed slices
    // (another (R - 1) N).
    //
    // Scheduled, the reduce_scatter moves (R - 1) N, as before; the gather of
    // the summed gradients is gone, because the only consumer now reads its
    // own slice; and the all_gather that remains gathers the new parameters,
    // (R - 1) N. The total is the same here, since the gather moved rather
    // than vanished, but each rank computes only 1/R of the update, and what
    // is gathered is the value the program actually outputs. It also puts
    // the update right after the reduce-scatter, on the slice that the
    // reduce-scatter just produced: that is what fuse_with (lesson 4) builds
    // on to do both in one pass over memory.
    //
    // (Had w_new been Sliced, sharded like Adam's moments, it would read only
    // its slice of g_sum even unscheduled. On thread ranks Halide's bounds
    // inference then asks the all_reduce for that slice alone, so it moves no
    // more than a reduce_scatter; under MPI an all_reduce always completes
    // the whole value, and split_collective is what removes the gather.)
    for (int ranks : {3, 4}) {
        std::vector<RankBuffers> inputs = make_inputs(plain, ranks);
        std::vector<RankTraffic> plain_traffic, scheduled_traffic;
        plain_jit.run_threads(ranks, inputs, 10.0, &plain_traffic);
        scheduled_jit.run_threads(ranks, inputs, 10.0, &scheduled_traffic);
        Bytes a = total_bytes(plain_traffic), b = total_bytes(scheduled_traffic);
        printf("%d ranks, bytes sent by all ranks:\n", ranks);
        printf("  unscheduled: all_reduce %3llu  reduce_scatter %3llu  all_gather %3llu  total "
               "%3llu\n",
               (unsigned long long)a.all_reduce, (unsigned long long)a.reduce_scatter,
               (unsigned long long)a.all_gather, (unsigned long long)a.total);
        printf("  scheduled:   all_reduce %3llu  reduce_scatter %3llu  all_gather %3llu  total "
               "%3llu\n",
               (unsigned long long)b.all_reduce, (unsigned long long)b.reduce_scatter,
               (unsigned long long)b.all_gather, (unsigned long long)b.total);
        const uint64_t step = (uint64_t)(ranks - 1) * n * sizeof(float);
        if (a.all_reduce != 2 * step || a.total != 2 * step || b.all_reduce != 0 ||
            b.reduce_scatter != step || b.all_gather != step || b.total != 2 * step) {
            printf("Unexpected traffic on %d ranks\n", ranks);
            return 1;
        }
    }

    // Step 5: a directive that does not apply is refused.
    //
    // Every directive checks, when it is called, that it can do what it is
    // asked, and throws a coconet::UserError naming the Funcs otherwise. Only
    // an all_reduce can be split into a reduce_scatter and an all_gather;
    // here we try to split an all_gather.
    DFunc m = input("m", Float(32), {n}, Sliced(0));
    DFunc m_all = all_gather(m, "m_all");
    std::string message;
    try {
        m_all.split_collective(0);
    } catch (const UserError &e) {
        message = e.what();
    }
    printf("\nsplit_collective on an all_gather: %s\n", message.c_str());
    if (message.find("split_collective(m_all)") == std::string::npos ||
        message.find("all_gather") == std::string::npos) {
        printf("The directive was not refused with the expected message\n");
        return 1;
    }

    printf("Success!\n");
    return 0;
}
