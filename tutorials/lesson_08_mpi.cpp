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

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "HalideBuffer.h"
#include "lesson_07_sgd.h"

// For the reference only, as in lesson 7.
#include "CoCoNet.h"

// The arguments (Arg), the inputs' values, a rank's buffers and the helpers
// for the reference check, as in lesson 7, which explains them.
#include "lesson_07_sgd_data.h"

using namespace coconet;

int main() {
    // Step 1: the communicator.
    //
    // coconet_mpi_comm_create initializes MPI (unless the program already
    // did) and returns a communicator over MPI_COMM_WORLD; collectives on it
    // give up after 30 seconds if a peer never arrives. It returns NULL when
    // the runtime was built without MPI, or when MPI fails to start.
    coconet_comm *comm = coconet_mpi_comm_create(30.0);
    if (!comm) {
        if (coconet_mpi_available()) {
            printf("[FAIL] MPI did not start\n");
            return 1;
        }
        printf("[SKIP] no MPI\n");
        return 0;
    }
    const int rank = coconet_comm_rank(comm), ranks = coconet_comm_size(comm);

    // Step 2: this process's buffers.
    //
    // Each process allocates only its own rank's box of every argument: the
    // whole gradients (its own, Local) and parameters (Replicated), but only
    // its slice of the momentum (Sliced(0)), which is all the memory the
    // sharded optimizer state takes on a rank. As in lesson 7, each buffer's
    // min is its box's min, so that it is indexed in global coordinates.
    const coconet_aot_program *p = lesson_07_sgd_program();
    RankArgs mine = allocate_rank_args(p, kLessonN, rank, ranks);

    // Step 3: run the library, exactly as on thread ranks.
    const int status =
        lesson_07_sgd(comm, kLessonN, mine[G].raw_buffer(), mine[W].raw_buffer(),
                      mine[M].raw_buffer(), mine[W_NEW].raw_buffer(), mine[M_NEW].raw_buffer());

    // Step 4: check this rank against the reference.
    //
    // The reference simulates all ranks in one process, so every process
    // builds every rank's inputs (they are a formula of the rank and the
    // index) and runs it, then compares its own rank's outputs. When all
    // ranks share a node, the fused pass takes the direct path (the ranks
    // read each other's memory through an MPI shared window) and adds up in
    // rank order, like the reference: the results agree bit for bit. Across
    // nodes it takes the ring path, which adds up in a rotation of rank
    // order, so float rounding may differ a little. So may unfused
    // collectives, which by default run on MPI's own reductions in the order
    // MPI picks; COCONET_MPI_COLLECTIVES=deterministic keeps rank order, and
    // reference_tolerance says which the communicator does.
    const bool ring = coconet_fused_resolve_path(comm, COCONET_PATH_AUTO) == COCONET_PATH_RING;
    const double tolerance = std::max(ring ? 1e-5 : 0.0, reference_tolerance(comm));
    double err = -1;
    if (status == COCONET_OK) {
        const Program program = library_program(p);
        std::vector<RankBuffers> inputs(ranks), outputs(ranks);
        for (int r = 0; r < ranks; r++) {
            to_rank_buffers(p, allocate_rank_args(p, kLessonN, r, ranks), inputs[r], outputs[r]);
        }
        const std::vector<RankBuffers> want =
            Reference(program).run(ranks, inputs, {{"n", kLessonN}});
        RankBuffers got, unused;
        to_rank_buffers(p, mine, unused, got);
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
