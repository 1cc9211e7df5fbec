// CoCoNet tutorial lesson 7: ahead-of-time compilation (part 2 of 2, using the library)
//
// Part 1 (lesson_07_aot_generate.cpp) wrote a generator for one step of SGD
// with momentum. At build time, add_coconet_library (tutorials/aot_lessons.cmake)
// ran it and compiled the static library lesson_07_sgd and its header
// lesson_07_sgd.h, with lr = 0.05 and momentum = 0.9 baked in and the number
// of parameters n a run-time size. This program calls that one library at
// three sizes on thread ranks, as any C or C++ program would, and checks it
// against the reference of the program it was built from.
//
// Build and run from the repository root (the build directory `build` is
// configured by ./scripts/test.sh or ./scripts/demo.sh):
//   cmake --build build --target lesson_07_aot_run && ./build/tutorials/lesson_07_aot_run
// The generated header is worth reading; it lists the arguments and the plan:
//   build/tutorials/lesson_07_sgd.coconet/lesson_07_sgd.h

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

// The library needs only its header, the CoCoNet runtime and Halide's
// runtime buffer type. A program that just runs the library stops there.
#include "HalideBuffer.h"
#include "lesson_07_sgd.h"

// This lesson also checks the library against the reference, which needs the
// CoCoNet compiler and the generator itself (aot_lessons.cmake links its
// objects in as well).
#include "CoCoNet.h"

// What lessons 7, 8 and 9 share about the library's data, explained here:
//
// Arg names the arguments, in the order of the header's signature:
//   int lesson_07_sgd(coconet_comm *comm, int32_t n, halide_buffer_t *g,
//                     halide_buffer_t *w, halide_buffer_t *m, halide_buffer_t *w_new,
//                     halide_buffer_t *m_new);
// The run-time sizes first (here n), then the inputs in the order generate()
// declared them, then the outputs in the order it passed them to output().
//
// input_value(arg, rank, i) is an input's value at global index i. The
// Replicated parameters and the Sliced momentum are one global value whatever
// the rank, so they depend only on i; the Local gradients differ between
// ranks, so they depend on the rank.
//
// allocate_rank_args(program, n, rank, ranks, global_mins) allocates each of
// a rank's arguments with the box coconet_arg_box_sized gives it for n
// parameters (step 1 prints them) and fills the inputs. With global_mins the buffer's min is the
// box's min, so that x(i) is element i of the global array; without, it starts at 0, which the
// library also accepts (it then takes the buffer as the rank's box).
//
// library_program and to_rank_buffers serve the check against the reference
// (steps 2 and 3).
#include "lesson_07_sgd_data.h"

using namespace coconet;

const char *layout_name(const coconet_value_info &v) {
    switch (v.layout) {
    case COCONET_LAYOUT_REPLICATED: return "Replicated";
    case COCONET_LAYOUT_SLICED:
        return "Sliced(0)"; // the only sliced dimension this 1-D program has
    default: return "Local";
    }
}

struct Run {
    std::vector<RankArgs> args; // every rank's buffers after the call, in global coordinates
    std::vector<int> status;    // what the library returned on each rank
    std::vector<std::string> errors;
};

// Runs the library for n parameters on `ranks` thread ranks. With
// wrong_m_box, every rank passes the whole momentum instead of its slice
// (step 4's mistake).
Run run_on_threads(int32_t n, int ranks, bool global_mins, bool wrong_m_box = false) {
    Run run{std::vector<RankArgs>(ranks), std::vector<int>(ranks), std::vector<std::string>(ranks)};
    // The threads backend: `ranks` communicators in this process. Collectives
    // give up after 10 seconds if a peer never arrives.
    coconet_threads_world *world = coconet_threads_world_create(ranks, 10.0);
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; r++) {
        threads.emplace_back([&, r] {
            coconet_comm *comm = coconet_threads_world_comm(world, r);
            RankArgs a = allocate_rank_args(lesson_07_sgd_program(), n, r, ranks, global_mins);
            if (wrong_m_box) {
                a[M] = Halide::Runtime::Buffer<float>(n);
            }
            // Every rank calls the entry point with its own communicator and
            // buffers; the call returns when this rank's outputs are ready.
            run.status[r] =
                lesson_07_sgd(comm, n, a[G].raw_buffer(), a[W].raw_buffer(), a[M].raw_buffer(),
                              a[W_NEW].raw_buffer(), a[M_NEW].raw_buffer());
            if (run.status[r] != COCONET_OK) {
                run.errors[r] = coconet_comm_last_error(comm);
            }
            // Buffers passed with mins at 0 are moved to their boxes, so that
            // the check below reads them in global coordinates.
            for (int i = 0; i < NUM_ARGS && !global_mins; i++) {
                int32_t min[1], extent[1];
                coconet_arg_box_sized(lesson_07_sgd_program(), &n, i, r, ranks, min, extent);
                a[i].set_min(min[0]);
            }
            run.args[r] = a;
        });
    }
    for (std::thread &t : threads) {
        t.join();
    }
    coconet_threads_world_destroy(world);
    return run;
}

// Compares a run with the reference of `program` on the same inputs. The
// reference works on maps from each value's name to a Halide::Buffer in
// global coordinates; a Halide::Buffer can wrap the runtime buffers without
// copying them, which to_rank_buffers does.
bool matches_reference(const Program &program, int32_t n, int ranks, const Run &run) {
    std::vector<RankBuffers> inputs(ranks), got(ranks);
    for (int r = 0; r < ranks; r++) {
        if (run.status[r] != COCONET_OK) {
            printf("  rank %d failed: %s\n", r, run.errors[r].c_str());
            return false;
        }
        to_rank_buffers(lesson_07_sgd_program(), run.args[r], inputs[r], got[r]);
    }
    // The reference takes the run-time sizes by name.
    const std::vector<RankBuffers> want = Reference(program).run(ranks, inputs, {{"n", n}});
    const double err = max_abs_diff(got, want);
    const std::vector<ReplicatedMismatch> differ = replicated_mismatches(program, got);
    const RankArgs &last = run.args[ranks - 1];
    printf("  n = %d, %d rank(s): w_new starts %.4f on rank 0; the last rank's m_new "
           "covers [%d..%d]; max error against the reference %g\n",
           n, ranks, run.args[0][W_NEW](0), last[M_NEW].dim(0).min(),
           last[M_NEW].dim(0).min() + last[M_NEW].dim(0).extent(), err);
    if (!differ.empty()) {
        printf("  the ranks' copies differ: %s\n", differ[0].to_string().c_str());
    }
    return err == 0 && differ.empty();
}

int main() {
    const coconet_aot_program *p = lesson_07_sgd_program();

    // Step 1: what the library says about itself.
    //
    // Besides the entry point, the header declares lesson_07_sgd_program(),
    // the table the runtime follows: the generator and parameters it was
    // built with, each argument's type, global shape and layout, and the
    // steps of the plan, and its run-time sizes (p->size_names; an extent
    // that is one reads COCONET_SIZE_REF(k) in the table).
    // coconet_arg_box_sized(program, sizes, i, rank, size, min, extent) turns
    // an argument's layout into the box a rank must pass at those sizes.
    // Replicated and Local arguments are the whole array on every rank; a
    // Sliced one is block `rank` of ceil(n / size) elements, the last one
    // shorter. Boxes print as the plans and messages print them: [a..b] holds
    // the elements a to b - 1.
    printf("Step 1: %s, from generator %s (%s), run-time size %s\n", p->name, p->generator,
           p->params, p->size_names[0]);
    const int32_t n = kLessonN;
    for (int a = 0; a < p->ninputs + p->noutputs; a++) {
        const coconet_value_info &v = p->values[p->args[a]];
        printf("  %d %-6s %-5s float%d [%s] %-10s boxes for n = %d on 3 ranks:", a,
               a < p->ninputs ? "input" : "output", v.name, v.type_bits,
               v.extents[0] == COCONET_SIZE_REF(0) ? p->size_names[0] : "?", layout_name(v), n);
        for (int r = 0; r < 3; r++) {
            int32_t min[1], extent[1];
            coconet_arg_box_sized(p, &n, a, r, 3, min, extent);
            printf(" r%d:[%d..%d]", r, min[0], min[0] + extent[0]);
        }
        printf("\n");
    }

    // Step 2: the reference program.
    //
    // To check the library we need the Program it was compiled from. The
    // generator's objects are linked into this program, so its registration
    // (COCONET_REGISTER_GENERATOR) put it in the registry: library_program
    // (lesson_07_sgd_data.h) creates it by the name the table records, gives
    // it the same parameters and builds it. The schedule in it does not
    // matter to the reference, which always runs the unscheduled meaning of
    // the program.
    const Program program = library_program(p);
    printf("Step 2: rebuilt program '%s' from the generator registry\n", program.name().c_str());

    // Step 3: run the one library at three sizes on 1, 3 and 4 thread ranks.
    //
    // The library runs on any number of ranks (the generator's ranks
    // parameter is 0) and at any n. With 3 ranks and n = 1000 the momentum's
    // slices are 334, 334 and 332 elements; with n = 2 the last rank's is
    // empty. On 4 ranks the buffers start at 0 instead of their boxes' mins,
    // which the library accepts as well.
    printf("Step 3: one library, three sizes, on thread ranks\n");
    for (int32_t size : {kLessonN, 2, (1 << 16) + 3}) {
        for (int ranks : {1, 3, 4}) {
            const bool global_mins = ranks != 4;
            if (!matches_reference(program, size, ranks,
                                   run_on_threads(size, ranks, global_mins))) {
                printf("The library does not match the reference on %d ranks at n = %d.\n", ranks,
                       size);
                return 1;
            }
        }
    }

    // Step 4: a mistake and its message.
    //
    // A common mistake is to pass a sliced argument whole. The library
    // checks every buffer's type, dimensions and box before it communicates,
    // returns COCONET_ERR_INVALID, and coconet_comm_last_error on the rank's
    // communicator says which argument is wrong and which box was expected.
    // Every rank makes the mistake here, so every rank returns at once. (A
    // program in which only some ranks fail should call coconet_comm_abort
    // on them, so that their peers stop waiting for them.)
    printf("Step 4: every rank of 3 passes the whole momentum\n");
    const Run bad = run_on_threads(kLessonN, 3, true, true);
    for (int r = 0; r < 3; r++) {
        if (bad.status[r] != COCONET_ERR_INVALID ||
            bad.errors[r].find("this rank's box is") == std::string::npos) {
            printf("Expected COCONET_ERR_INVALID with the expected box on rank %d, got %d: %s\n", r,
                   bad.status[r], bad.errors[r].c_str());
            return 1;
        }
    }
    printf("  rank 1 returned %d: %s\n", bad.status[1], bad.errors[1].c_str());

    printf("Success!\n");
    return 0;
}
