// CoCoNet tutorial lesson 8: the same library under MPI
//
// Lesson 7 ran the library lesson_07_sgd on thread ranks: one process, one
// thread per rank. On a cluster every rank is a process of its own, started
// by mpirun, and only the communicator changes: the library, its header and
// the way each rank passes its own box of every argument stay exactly the
// same. This program is one rank; mpirun starts three of them.
//
// Build and run from the repository root (the build directory `build` is
// configured by ./scripts/test.sh or ./scripts/demo.sh):
//   cmake --build build --target lesson_08_mpi
//   mpirun --allow-run-as-root --oversubscribe -np 3 ./build/tutorials/lesson_08_mpi
// (--allow-run-as-root because containers run as root, --oversubscribe for
// machines with fewer cores than ranks. If shared-memory transfers fail in a
// container, also set OMPI_MCA_btl_vader_single_copy_mechanism=none.)
// Started without mpirun, it runs as a world of one rank.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "HalideBuffer.h"
#include "lesson_07_sgd.h"

// For the reference only, as in lesson 7.
#include "CoCoNet.h"

using namespace coconet;

// The arguments in the header's order (see lesson 7).
enum Arg { G, W, M, W_NEW, M_NEW, NUM_ARGS };

// The inputs' values at global index i, the same as lesson 7's: every
// process can compute any rank's inputs, which the reference needs below.
float input_value(int arg, int rank, int i) {
    switch (arg) {
    case G: return 0.001f * (float)((i * 7 + rank * 13) % 17 - 8);
    case W: return 1.0f - 0.001f * (float)i;
    case M: return 0.01f * (float)(i % 5);
    default: return 0.0f;
    }
}

// Rank `rank`'s buffers: the box coconet_arg_box gives each argument, with
// the box's min as the buffer's min (global coordinates).
std::vector<Halide::Runtime::Buffer<float>> allocate_rank_args(int rank, int ranks) {
    std::vector<Halide::Runtime::Buffer<float>> args;
    for (int a = 0; a < NUM_ARGS; a++) {
        int32_t min[1], extent[1];
        coconet_arg_box(lesson_07_sgd_program(), a, rank, ranks, min, extent);
        Halide::Runtime::Buffer<float> b(extent[0]);
        b.set_min(min[0]);
        for (int i = min[0]; i < min[0] + extent[0]; i++) {
            b(i) = input_value(a, rank, i);
        }
        args.push_back(b);
    }
    return args;
}

// Splits rank buffers into the reference's inputs and outputs, by name.
void to_rank_buffers(const std::vector<Halide::Runtime::Buffer<float>> &args, RankBuffers &inputs,
                     RankBuffers &outputs) {
    const coconet_aot_program *p = lesson_07_sgd_program();
    for (int a = 0; a < NUM_ARGS; a++) {
        Halide::Runtime::Buffer<float> b = args[a];
        (a < p->ninputs ? inputs : outputs)[p->values[p->args[a]].name] =
            Halide::Buffer<float>(std::move(b));
    }
}

int main() {
    // Step 1: the communicator.
    //
    // coconet_mpi_comm_create initializes MPI (unless the program already
    // did) and returns a communicator over MPI_COMM_WORLD; collectives on it
    // give up after 30 seconds if a peer never arrives. It returns NULL when
    // the runtime was built without MPI.
    coconet_comm *comm = coconet_mpi_comm_create(30.0);
    if (!comm) {
        printf("[SKIP] no MPI\n");
        return 0;
    }
    const int rank = coconet_comm_rank(comm), ranks = coconet_comm_size(comm);

    // Step 2: this process's buffers.
    //
    // Each process allocates only its own rank's box of every argument: the
    // whole gradients (its own, Local) and parameters (Replicated), but only
    // its slice of the momentum (Sliced(0)), which is all the memory the
    // sharded optimizer state takes on a rank.
    std::vector<Halide::Runtime::Buffer<float>> mine = allocate_rank_args(rank, ranks);

    // Step 3: run the library, exactly as on thread ranks.
    const int status =
        lesson_07_sgd(comm, mine[G].raw_buffer(), mine[W].raw_buffer(), mine[M].raw_buffer(),
                      mine[W_NEW].raw_buffer(), mine[M_NEW].raw_buffer());

    // Step 4: check this rank against the reference.
    //
    // The reference simulates all ranks in one process, so every process
    // builds every rank's inputs (they are a formula of the rank and the
    // index) and runs it, then compares its own rank's outputs. When all
    // ranks share a node, the fused pass takes the direct path (the ranks
    // read each other's memory through an MPI shared window) and adds up in
    // rank order, like the reference: the results agree bit for bit. Across
    // nodes it takes the ring path, which adds up in a rotation of rank
    // order, so float rounding may differ a little.
    const bool ring = coconet_fused_resolve_path(comm, COCONET_PATH_AUTO) == COCONET_PATH_RING;
    const double tolerance = ring ? 1e-5 : 0.0;
    double err = -1;
    if (status == COCONET_OK) {
        std::unique_ptr<Generator> generator =
            GeneratorRegistry::create(lesson_07_sgd_program()->generator);
        generator->set_params(lesson_07_sgd_program()->params);
        const Program program = generator->build();
        std::vector<RankBuffers> inputs(ranks), outputs(ranks);
        for (int r = 0; r < ranks; r++) {
            to_rank_buffers(allocate_rank_args(r, ranks), inputs[r], outputs[r]);
        }
        const std::vector<RankBuffers> want = Reference(program).run(ranks, inputs);
        RankBuffers got, unused;
        to_rank_buffers(mine, unused, got);
        err = max_abs_diff({got}, {want[rank]});
    }

    // Step 5: print, one rank after the other. A barrier between turns keeps
    // the lines in rank order (mpirun forwards each process's output).
    for (int r = 0; r < ranks; r++) {
        if (r == rank && status != COCONET_OK) {
            printf("rank %d of %d (%s): failed: %s\n", rank, ranks, coconet_comm_backend(comm),
                   coconet_comm_last_error(comm));
        } else if (r == rank) {
            printf("rank %d of %d (%s, %s path): m_new covers [%d..%d], w_new[0] = %.4f, max "
                   "error against the reference %g\n",
                   rank, ranks, coconet_comm_backend(comm), ring ? "ring" : "direct",
                   mine[M_NEW].dim(0).min(), mine[M_NEW].dim(0).max() + 1, mine[W_NEW](0), err);
        }
        fflush(stdout);
        coconet_barrier(comm, "print");
    }

    // Every process leaves MPI the way it came in: the communicator first,
    // then MPI itself (coconet_mpi_finalize does nothing if the program
    // initialized MPI on its own).
    coconet_mpi_comm_destroy(comm);
    coconet_mpi_finalize();
    if (err < 0 || err > tolerance) {
        printf("rank %d: the library does not match the reference.\n", rank);
        return 1;
    }
    printf("Success!\n");
    return 0;
}
