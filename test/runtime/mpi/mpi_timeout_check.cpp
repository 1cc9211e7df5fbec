// Under `mpirun --allow-run-as-root --oversubscribe -np 3 ./mpi_timeout_check`:
// rank 1 skips a collective. Ranks 0 and 2 must fail within about the 1 s
// timeout with COCONET_ERR_TIMEOUT and a message naming themselves, the
// operation and rank 1 (printed), and later calls on their communicator must
// be refused at once. Exits 0 on every rank when all of that holds, 1 otherwise.
//
// Ending cleanly: the library never calls MPI_Abort (mpirun would report the
// job failed), so the test must leave MPI in a state where MPI_Finalize
// returns. After the timeout, ranks 0 and 2 have cancelled their receives from
// rank 1; their small sends to rank 1 went out eagerly (complete on the sender)
// and sit unmatched at rank 1. So: (1) everyone meets at an MPI_Barrier (rank 1
// goes straight there; the barrier does not match point-to-point messages);
// (2) rank 1 drains what was sent to it with MPI_Iprobe + MPI_Recv, so that no
// message is left in flight (this also completes sends that were too large to
// go eagerly); (3) the verdict is combined with MPI_Allreduce so that every
// rank exits with the same code, then MPI_Finalize.
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include "MpiCheck.h"
#include "coconet_runtime.h"

using namespace mpi_check;

int main() {
    coconet_comm *c = coconet_mpi_comm_create(1.0);
    if (!c) {
        return 2;
    }
    const int rank = coconet_comm_rank(c), size = coconet_comm_size(c);
    bool ok = size == 3;
    if (!ok && rank == 0) {
        std::printf("[FAIL] run me with mpirun -np 3 (got %d ranks)\n", size);
    }
    const int n = 10;
    std::vector<float> in(n, 1.0f + rank), out(n, 0.0f);
    halide_dimension_t din(0, n, 1), dout(0, n, 1);
    halide_buffer_t bi{}, bo{};
    bi.type = bo.type = halide_type_t(halide_type_float, 32);
    bi.dimensions = bo.dimensions = 1;
    bi.dim = &din;
    bo.dim = &dout;
    bi.host = (uint8_t *)in.data();
    bo.host = (uint8_t *)out.data();

    coconet_collective_desc desc;
    coconet_collective_desc_init(&desc, COCONET_ALL_REDUCE);
    desc.dims = 1;
    desc.extents[0] = n;

    // Start together, so that only rank 1 can be missing when the 1 s runs out.
    MPI_Barrier(MPI_COMM_WORLD);
    if (ok && rank != 1) {
        const auto start = std::chrono::steady_clock::now();
        const int rc = coconet_collective_call(c, "skipped", &desc, &bi, &bo);
        const double took =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::string msg = coconet_comm_last_error(c);
        const std::string want = "rank " + std::to_string(rank) +
                                 ": all_reduce 'skipped' timed out after 1.0 s waiting for rank 1";
        const bool good = rc == COCONET_ERR_TIMEOUT &&
                          coconet_comm_last_error_code(c) == COCONET_ERR_TIMEOUT &&
                          contains(msg, want) && took >= 0.9 && took < 10.0;
        std::printf("%s rank %d: timed out after %.2f s: %s\n", good ? "[PASS]" : "[FAIL]", rank,
                    took, msg.c_str());
        // The exchange with rank 1 is lost: the communicator refuses further work.
        const int rc2 = coconet_collective_call(c, "after", &desc, &bi, &bo);
        const std::string msg2 = coconet_comm_last_error(c);
        const bool refused =
            rc2 == COCONET_ERR_ABORTED && coconet_comm_last_error_code(c) == COCONET_ERR_ABORTED &&
            contains(msg2, "rank " + std::to_string(rank) + ": all_reduce 'after' aborted: ") &&
            contains(msg2, "waiting for rank 1");
        std::printf("%s rank %d: a later call is refused: %s\n", refused ? "[PASS]" : "[FAIL]",
                    rank, msg2.c_str());
        ok = good && refused;
    }
    std::fflush(stdout);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        const int drained = drain(0.3);
        std::printf("[PASS] rank 1: drained %d message(s) sent by ranks that timed out\n", drained);
        std::fflush(stdout);
    }
    int bad = ok ? 0 : 1, any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    coconet_mpi_comm_destroy(c);
    coconet_mpi_finalize();
    return any_bad ? 1 : 0;
}
