// Under mpirun -np 3: rank 1 skips a collective. Ranks 0 and 2 must fail with
// a timeout that names the operation and rank 1, not hang. Each rank prints
// what it saw; the test fails on any [FAIL] line or a non-zero exit.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include "coconet_runtime.h"

int main() {
    coconet_comm *c = coconet_mpi_comm_create(1.0);
    const int rank = coconet_comm_rank(c);
    std::vector<float> in(10, 1.0f), out(10);
    halide_dimension_t din(0, 10, 1), dout(0, 10, 1);
    halide_buffer_t bi{}, bo{};
    bi.type = bo.type = halide_type_t(halide_type_float, 32);
    bi.dimensions = bo.dimensions = 1;
    bi.dim = &din;
    bo.dim = &dout;
    bi.host = (uint8_t *)in.data();
    bo.host = (uint8_t *)out.data();
    bool failed = false;
    if (rank != 1) {
        int rc = coconet_collective(c, "skipped", COCONET_ALL_REDUCE, COCONET_SUM, 0, -1, -1, 1, 0,
                                    0, 10, 1, 1, 1, &bi, &bo);
        std::string msg = coconet_comm_last_error(c);
        const bool ok = rc == COCONET_ERR_TIMEOUT &&
                        msg.find("rank " + std::to_string(rank) +
                                 ": all_reduce 'skipped' timed out") != std::string::npos &&
                        msg.find("waiting for rank(s) 1") != std::string::npos;
        std::printf("%s rank %d: %s\n", ok ? "[PASS]" : "[FAIL]", rank, msg.c_str());
        failed = !ok;
    }
    std::fflush(stdout);
    // The timed-out requests were cancelled, so the job ends cleanly.
    MPI_Barrier(MPI_COMM_WORLD);
    coconet_mpi_finalize();
    return failed ? 1 : 0;
}
