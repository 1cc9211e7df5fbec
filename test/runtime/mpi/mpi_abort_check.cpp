// Under `mpirun -np 3 ./mpi_abort_check`: rank 1 aborts a communicator
// (coconet_comm_abort, as the executor does when a call of this rank fails,
// for instance at its argument check) and never calls on it again. Ranks 0
// and 2, calling a collective on it, must fail at once (well within its 10 s
// timeout) with COCONET_ERR_ABORTED and a message naming rank 1 and its
// reason. Another communicator, made before the abort and called on while the
// abort's notices wait unread, must be untouched by it: a collective there,
// with rank 1, gives the right sum; and so must one made afterwards, whatever
// the failed calls left unmatched. Last, rank 1 calls coconet_barrier while
// the others call a collective: every rank is refused at once, naming the
// other call, instead of waiting out the timeout (or of the barrier passing).
// Exits 0 on every rank when all of that holds, 1 otherwise.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "MpiCheck.h"
#include "coconet_runtime.h"

using namespace mpi_check;

namespace {

struct Vector {
    std::vector<float> data;
    halide_dimension_t dim;
    halide_buffer_t buf{};

    Vector(int n, float value) : data(n, value), dim(0, n, 1) {
        buf.type = halide_type_t(halide_type_float, 32);
        buf.dimensions = 1;
        buf.dim = &dim;
        buf.host = (uint8_t *)data.data();
    }
};

// An all-reduce of n floats, each rank's all 1 + rank.
int all_reduce(coconet_comm *c, const char *name, int n, Vector *out) {
    const int rank = coconet_comm_rank(c);
    Vector in(n, 1.0f + rank);
    coconet_collective_desc desc;
    coconet_collective_desc_init(&desc, COCONET_ALL_REDUCE);
    desc.dims = 1;
    desc.extents[0] = n;
    return coconet_collective_call(c, name, &desc, &in.buf, &out->buf);
}

} // namespace

int main() {
    coconet_comm *aborted = coconet_mpi_comm_create(10.0);
    coconet_comm *other = aborted ? coconet_mpi_comm_create(10.0) : nullptr;
    if (!other) {
        return 2;
    }
    const int rank = coconet_comm_rank(aborted), size = coconet_comm_size(aborted);
    if (size != 3) {
        if (rank == 0) {
            std::printf("[FAIL] run me with mpirun -np 3 (got %d ranks)\n", size);
        }
        return 1;
    }
    const int n = 1000;
    if (rank == 1) {
        coconet_comm_abort(aborted, "its input 'x' has the wrong extent");
    }
    MPI_Barrier(MPI_COMM_WORLD);

    Vector out(n, 0.0f);
    int rc = all_reduce(other, "summed", n, &out);
    bool ok = rc == COCONET_OK;
    for (float v : out.data) {
        ok = ok && v == 6.0f; // 1 + 2 + 3
    }
    if (!ok) {
        std::printf("[FAIL] rank %d: rc %d, out[0] %g: %s\n", rank, rc, out.data[0],
                    coconet_comm_last_error(other));
    }
    report(ok, "another communicator is untouched by the abort");

    ok = true;
    if (rank != 1) {
        const auto start = std::chrono::steady_clock::now();
        rc = all_reduce(aborted, "summed", n, &out);
        const double took =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::string msg = coconet_comm_last_error(aborted);
        ok = rc == COCONET_ERR_ABORTED &&
             contains(msg, "rank " + std::to_string(rank) +
                               ": all_reduce 'summed' aborted: rank 1 failed: its input 'x' "
                               "has the wrong extent") &&
             took < 2.0;
        std::printf("%s rank %d: failed after %.3f s: %s\n", ok ? "[PASS]" : "[FAIL]", rank, took,
                    msg.c_str());
        std::fflush(stdout);
    }
    report(ok, "peers of a rank that aborts fail at once, naming it and its reason");

    // The failed calls left their messages to rank 1 unmatched: a
    // communicator made now never reads them (a call of another name).
    coconet_mpi_comm_destroy(aborted);
    coconet_comm *fresh = coconet_mpi_comm_create(10.0);
    Vector again(n, 0.0f);
    rc = fresh ? all_reduce(fresh, "fresh", n, &again) : COCONET_ERR_BACKEND;
    ok = rc == COCONET_OK;
    for (float v : again.data) {
        ok = ok && v == 6.0f;
    }
    if (!ok) {
        std::printf("[FAIL] rank %d: rc %d, out[0] %g: %s\n", rank, rc, again.data[0],
                    coconet_comm_last_error(fresh));
    }
    report(ok, "a communicator made after the abort computes the right sum");

    ok = true;
    const auto start = std::chrono::steady_clock::now();
    rc = rank == 1 ? coconet_barrier(fresh, "between steps") : all_reduce(fresh, "step", n, &again);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string msg = coconet_comm_last_error(fresh);
    const std::string want = rank == 1 ? "rank 1: barrier 'between steps': rank 0 called "
                                         "all_reduce 'step' at the same time"
                                       : "rank " + std::to_string(rank) +
                                             ": all_reduce 'step': rank 1 called barrier "
                                             "'between steps' at the same time";
    ok = rc == COCONET_ERR_INVALID && contains(msg, want) && took < 2.0;
    std::printf("%s rank %d: refused after %.3f s: %s\n", ok ? "[PASS]" : "[FAIL]", rank, took,
                msg.c_str());
    std::fflush(stdout);
    report(ok, "a barrier met by a collective is refused on every rank, naming the other call");

    coconet_mpi_comm_destroy(fresh);
    coconet_mpi_comm_destroy(other);
    const int failed = failures();
    coconet_mpi_finalize();
    return failed ? 1 : 0;
}
