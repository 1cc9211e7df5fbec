// CoCoNet tutorial lesson 7: ahead-of-time compilation (part 1 of 2, the generator)
//
// Lessons 1 to 6 compiled their programs just in time, inside the program
// that ran them. That needs the whole compiler (CoCoNet and libHalide) at run
// time and compiles on every start. Like Halide, CoCoNet can instead compile a
// program at build time into a static library and a C header: the program
// that runs it links only the library and the small CoCoNet runtime.
//
// This file is the first half of the lesson: a *generator*, a class that
// builds the distributed program and schedules it. It has no main(); the
// generator driver (the library coconet_generator_main) supplies one. The
// second half, lesson_07_aot_run.cpp, calls the library built from it.
//
// The build does everything (tutorials/aot_lessons.cmake says how):
//   cmake --build build --target lesson_07_aot_run && ./build/tutorials/lesson_07_aot_run
// (the build directory `build` is configured by ./scripts/test.sh or
// ./scripts/demo.sh). To see what the generator executable offers:
//   ./build/tutorials/lesson_07_aot_generate -l

#include "CoCoNet.h"

using namespace coconet;

// One step of data-parallel SGD with momentum. Every rank computed its own
// gradients on its own data (Local); the parameters are the same on every
// rank (Replicated); the momentum buffer is sharded, each rank keeping only
// its slice (Sliced(0)), as ZeRO-style optimizers do to save memory:
//
//   g_sum = sum over ranks of g
//   m_new = momentum * m + g_sum            (on each rank's slice)
//   w_new = w - lr * m_new                  (everywhere)
//
// A generator is a class deriving coconet::Generator, registered under a name
// with COCONET_REGISTER_GENERATOR at the bottom of this file.
class SgdMomentum : public Generator {
public:
    // GeneratorParams are the knobs the build turns. Each has a name, a
    // default and a help text; add_coconet_library(... PARAMS lr=0.05) sets
    // them when it runs the generator. They are fixed when the library is
    // compiled: the learning rate below is baked into its code. Every
    // generator also has `ranks` (0, the default, runs on any number of
    // ranks) and `max_ranks`.
    GeneratorParam<float> lr{"lr", 0.01f, "learning rate"};
    GeneratorParam<float> momentum{"momentum", 0.9f, "momentum coefficient"};

    // The number of parameters is a run-time size, as a Halide generator's
    // Input<int> is: a Halide Param<int32_t> used as an extent. The library
    // takes it as an argument of each call (int32_t n, before the buffers),
    // so one library serves a model of any size. A fixed extent (a
    // GeneratorParam<int>, or a constant) is baked in instead, which lets
    // Halide specialise the code for it.
    Halide::Param<int32_t> n{"n"};

    // generate() states the algorithm, exactly as lessons 1 to 6 did in
    // main(): inputs with their global shapes and layouts, Funcs in global
    // coordinates, collectives, and the outputs with their declared layouts.
    // The library's arguments are the inputs in the order they are declared
    // here, then the outputs in the order output() is called.
    void generate() override {
        DFunc g = input("g", Halide::Float(32), {n}, Local());
        DFunc w = input("w", Halide::Float(32), {n}, Replicated());
        DFunc m = input("m", Halide::Float(32), {n}, Sliced(0));
        Halide::Var i("i");

        // Local -> Replicated: every rank gets the sum of all gradients.
        g_sum = all_reduce(g, ReduceOp::Sum, "g_sum");

        // Sliced op Replicated -> Sliced: each rank updates its slice of the
        // momentum only.
        m_new = DFunc("m_new");
        m_new(i) = momentum.value() * m(i) + g_sum(i);

        // Replicated op Sliced -> Sliced: the step on the slice, then an
        // all_gather so that every rank has all the new parameters.
        w_slice = DFunc("w_slice");
        w_slice(i) = w(i) - lr.value() * m_new(i);
        DFunc w_new = all_gather(w_slice, "w_new");

        output(w_new, Replicated());
        output(m_new, Sliced(0));
    }

    // schedule() says how to run it; it never changes what is computed, so
    // the library's results equal the reference of the unscheduled program.
    // The Funcs it schedules are members, set by generate() (which the
    // driver always runs first).
    void schedule() override {
        // The all_reduce becomes a reduce_scatter followed by an all_gather.
        // m_new and w_slice are sliced, so they read their slice of the
        // reduce_scatter directly, and the gather of the gradients is never
        // needed: it disappears from the plan.
        g_sum.split_collective(0);
        // Then both updates run inside the reduce_scatter's pass: each rank
        // reduces a cache-sized chunk of its slice of the gradients, updates
        // that chunk of the momentum and of the parameters in one vectorized
        // kernel, and writes the new parameters straight into every rank's
        // w_new (the all_gather happens in the same pass). One pass over
        // memory instead of four.
        m_new.fuse_with(g_sum);
        w_slice.fuse_with(g_sum);
    }

private:
    DFunc g_sum, m_new, w_slice;
};

// The name the build refers to: add_coconet_library(... GENERATOR sgd_momentum).
// At build time, add_coconet_library runs this file's executable as
//   lesson_07_aot_generate -g sgd_momentum -f lesson_07_sgd -n lesson_07_sgd
//       -o <dir> target=host lr=0.05 momentum=0.9
// The driver creates the generator, sets the parameters, calls generate()
// and schedule(), lowers the program as lessons 1 to 6 did in process, and
// compiles every Halide pipeline and fused kernel of the plan for the target
// into one object. It writes that object, a small C++ file with the plan as
// a table and the typed entry point, and the header lesson_07_sgd.h; CMake
// then compiles them into the static library lesson_07_sgd.
COCONET_REGISTER_GENERATOR(SgdMomentum, sgd_momentum)
