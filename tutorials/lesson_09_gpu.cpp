// CoCoNet tutorial lesson 9: the CUDA target
//
// A Halide target names the machine the code is compiled for. Lesson 7's
// library was built for `host`; where the CUDA toolkit is installed, the
// build also compiles the same generator for `host-cuda-cuda_capability_80`
// (an x86 host with an NVIDIA GPU of compute capability 8.0 or later: A100,
// H100), as the library lesson_07_sgd_cuda:
//
//   add_coconet_library(lesson_07_sgd_cuda FROM lesson_07_aot_generate
//                       GENERATOR sgd_momentum TARGETS host
//                       FEATURES cuda cuda_capability_80 PARAMS ...)
//
// Compiling for CUDA needs no GPU, only the toolkit, so that library is built
// and linked in every build that finds /usr/local/cuda; running its GPU code
// needs a GPU, so this lesson first looks for one.
//
// For a CUDA target the library compiler gives every Func the generator did
// not schedule a GPU schedule (Halide's gpu_tile) and compiles the fused
// pass's kernel for the GPU; the header's plan says which run there. Values
// that cross steps stay on the device; the caller's buffers stay where the
// caller keeps them: host buffers, as here, are read from and returned on
// the host (buffers with a device allocation would be read and returned on
// the device). Any communicator runs it (here thread ranks sharing the GPU;
// the NCCL backend of docs/gpu.md gives each rank a GPU), and the code below
// does not change with that, which is the point of keeping the schedule
// apart from the program.
//
// Build and run from the repository root (the build directory `build` is
// configured by ./scripts/test.sh or ./scripts/demo.sh):
//   cmake --build build --target lesson_09_gpu && ./build/tutorials/lesson_09_gpu
// Without the CUDA toolkit at build time it prints [SKIP] no CUDA toolkit at
// build time; without a GPU, [SKIP] no GPU. CTest reports both as skipped.

#include <cstdio>

#if LESSON_09_HAVE_CUDA
#include <string>
#include <thread>
#include <vector>

#include "CoCoNet.h"
#include "HalideBuffer.h"
#include "lesson_07_sgd_cuda.h"

// The arguments (Arg), the inputs' values, a rank's buffers and the helpers
// for the reference check, as in lessons 7 and 8 (lesson 7 explains them). The CUDA-target library
// has the same arguments as lesson 7's, so the same code serves it.
#include "lesson_07_sgd_data.h"

using namespace coconet;
#endif

int main() {
#if !LESSON_09_HAVE_CUDA
    // The build found no CUDA toolkit when it was configured, so
    // lesson_07_sgd_cuda was never built (aot_lessons.cmake tells this file
    // so with LESSON_09_HAVE_CUDA=0).
    printf("[SKIP] no CUDA toolkit at build time\n");
    return 0;
#else
    // Step 1: is there a GPU?
    //
    // coconet_gpu_count() (from the CoCoNet runtime) asks the CUDA driver how
    // many devices it sees. It opens the driver library at run time rather
    // than linking it, so this program also starts on machines without one,
    // where it reports 0.
    if (coconet_gpu_count() == 0) {
        printf("[SKIP] no GPU\n");
        return 0;
    }
    const coconet_aot_program *p = lesson_07_sgd_cuda_program();
    printf("Step 1: a GPU is present; running %s (generator %s, %s)\n", p->name, p->generator,
           p->params);

    // Step 2: run the CUDA-target library on 2 thread ranks.
    //
    // Nothing differs from lesson 7: the same arguments, boxes and
    // communicator. The buffers live on the host, so outputs the pipelines
    // left on the GPU come back before the call returns (a caller's buffer
    // that carries a device allocation gets its output there instead).
    const int ranks = 2;
    std::vector<RankArgs> args(ranks);
    std::vector<int> status(ranks);
    std::vector<std::string> errors(ranks);
    coconet_threads_world *world = coconet_threads_world_create(ranks, 30.0);
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; r++) {
        threads.emplace_back([&, r] {
            coconet_comm *comm = coconet_threads_world_comm(world, r);
            args[r] = allocate_rank_args(p, kLessonN, r, ranks);
            RankArgs &a = args[r];
            status[r] =
                lesson_07_sgd_cuda(comm, kLessonN, a[G].raw_buffer(), a[W].raw_buffer(),
                                   a[M].raw_buffer(), a[W_NEW].raw_buffer(), a[M_NEW].raw_buffer());
            if (status[r] != COCONET_OK) {
                errors[r] = coconet_comm_last_error(comm);
            }
        });
    }
    for (std::thread &t : threads) {
        t.join();
    }
    coconet_threads_world_destroy(world);
    for (int r = 0; r < ranks; r++) {
        if (status[r] != COCONET_OK) {
            printf("rank %d failed: %s\n", r, errors[r].c_str());
            return 1;
        }
    }
    printf("Step 2: both ranks returned COCONET_OK\n");

    // Step 3: check it against the reference of the generator's program,
    // rebuilt through the registry as in lesson 7.
    const Program program = library_program(p);
    std::vector<RankBuffers> inputs(ranks), got(ranks);
    for (int r = 0; r < ranks; r++) {
        to_rank_buffers(p, args[r], inputs[r], got[r]);
    }
    const double err = max_abs_diff(got, Reference(program).run(ranks, inputs, {{"n", kLessonN}}));
    printf("Step 3: %d ranks, w_new starts %.4f %.4f %.4f, max error against the reference %g\n",
           ranks, args[0][W_NEW](0), args[0][W_NEW](1), args[0][W_NEW](2), err);
    // On the CPU the library matched the reference bit for bit. On a GPU it
    // matches to rounding: Halide's PTX backend turns m * momentum + g into
    // one fused multiply-add (fma.rn.f32), which rounds once where the
    // reference rounds twice.
    if (err > 1e-5) {
        printf("The CUDA-target library does not match the reference.\n");
        return 1;
    }
    printf("Success!\n");
    return 0;
#endif
}
