// The MPI backend against a naive reference, run as
//   mpirun --allow-run-as-root --oversubscribe -np 3 ./mpi_runtime_check
// (any -np >= 1). Every rank generates every rank's input deterministically
// from (rank, index), so each can compute the expected result of every
// collective itself: every kind, element type and reduction op, on shapes
// divisible and not by the rank count (and smaller than it), sliced along
// each dimension, within groups of world.split(2) and (3), sends between
// groups, sub-box and empty outputs, strided buffers. Also bounds queries,
// byte counters and a refused output box. Prints one [PASS]/[FAIL] line per
// check on rank 0; exits non-zero on any failure.
//
// The case generator and reference are shared with
// runtime/threads/test_runtime_threads.cpp (runtime/RuntimeCases.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include "MpiCheck.h"
#include "coconet_runtime.h"
#include "runtime/RuntimeCases.h"

using namespace mpi_check;

namespace {

const char *kind_names[] = {"all_reduce", "reduce_scatter", "all_gather", "broadcast",
                            "reduce",     "all_to_all",     "send"};

void check_collectives(coconet_comm *comm, int R, int r) {
    const std::vector<Case> cases = make_cases(R);
    std::map<int, int> ran, bad;
    std::vector<std::string> first_errors;
    for (const Case &c : cases) {
        std::string e;
        with_type(c.type, [&](auto zero) { e = run_case<decltype(zero)>(c, R, r, comm); });
        ran[c.kind]++;
        if (!e.empty()) {
            bad[c.kind]++;
            if (first_errors.size() < 5) {
                first_errors.push_back(c.str() + ": " + e);
            }
        }
    }
    for (const std::string &e : first_errors) {
        std::fprintf(stderr, "rank %d: %s\n", r, e.c_str());
    }
    for (int k = 0; k <= COCONET_SEND_RECV; k++) {
        // A send needs two groups, so none runs on 1 rank.
        const bool expected_some = k != COCONET_SEND_RECV || R >= 2;
        report(bad[k] == 0 && (ran[k] > 0 || !expected_some),
               std::string(kind_names[k]) + ": " + std::to_string(ran[k]) + " cases on " +
                   std::to_string(R) + " ranks match the reference");
    }
}

void check_counters(coconet_comm *comm, int R, int r) {
    const int n = 10;
    TBox full = empty_box(1);
    full.extent[0] = n;
    const Grp world{0, R};
    coconet_barrier(comm, "before counters");
    coconet_comm_reset_counters(comm);
    Buf in(type_of<float>(), sliced(full, 0, world, r), false), out(type_of<float>(), full, false);
    coconet_collective_desc d = make_desc(COCONET_ALL_GATHER, full);
    d.dim = 0;
    int rc = coconet_collective_call(comm, "ag", &d, &in.b, &out.b);
    const Span s = slice(n, R, r);
    const uint64_t want = (uint64_t)(s.end - s.begin) * 4 * (R - 1);
    report(rc == COCONET_OK && coconet_comm_bytes_sent(comm, COCONET_ALL_GATHER) == want &&
               coconet_comm_op_count(comm, COCONET_ALL_GATHER) == 1,
           "all_gather sends each rank's slice to the R-1 others; one op counted");
    Buf fin(type_of<float>(), full, false), fout(type_of<float>(), full, false);
    d = make_desc(COCONET_ALL_REDUCE, full);
    rc = coconet_collective_call(comm, "ar", &d, &fin.b, &fout.b);
    unsigned long long mine = coconet_comm_bytes_sent(comm, COCONET_ALL_REDUCE), total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    report(rc == COCONET_OK && total == 2ull * (R - 1) * n * 4,
           "all_reduce moves 2 (R-1) n elements in all (reduce-scatter + all-gather)");
    coconet_comm_reset_counters(comm);
    report(coconet_comm_bytes_sent(comm, COCONET_ALL_REDUCE) == 0 &&
               coconet_comm_op_count(comm, COCONET_ALL_GATHER) == 0,
           "counters reset");
}

void check_refusals(coconet_comm *comm, int R, int r) {
    // reduce_scatter: a rank may only produce its own slice (when R > 1).
    TBox full = empty_box(1);
    full.extent[0] = 10;
    Buf in(type_of<float>(), full, false), out(type_of<float>(), full, false);
    coconet_collective_desc d = make_desc(COCONET_REDUCE_SCATTER, full);
    d.dim = 0;
    const int rc = coconet_collective_call(comm, "rs", &d, &in.b, &out.b);
    const std::string msg = coconet_comm_last_error(comm);
    const std::string prefix = "rank " + std::to_string(r) + ": reduce_scatter 'rs': ";
    report(R == 1 ? rc == COCONET_OK
                  : rc == COCONET_ERR_INVALID && msg.find(prefix + "the output asks for") == 0,
           "an output box the rank cannot produce is refused with a message");
    report(R == 1 || coconet_comm_last_error_code(comm) == COCONET_ERR_INVALID,
           "the refusal's code is COCONET_ERR_INVALID");
}

} // namespace

int main() {
    coconet_comm *comm = coconet_mpi_comm_create(30.0);
    if (!comm) {
        return 2;
    }
    const int R = coconet_comm_size(comm), r = coconet_comm_rank(comm);
    report(coconet_mpi_available() == 1 && std::string(coconet_comm_backend(comm)) == "mpi",
           "MPI backend on " + std::to_string(R) + " ranks");
    report(coconet_comm_local_ranks(comm) == 1, "one rank per process");
    const int threads = coconet_comm_threads(comm);
    report(threads >= 1 && threads <= (int)std::max(1u, std::thread::hardware_concurrency()),
           "CPU threads of a rank: " + std::to_string(threads));
    // COCONET_MPI_COLLECTIVES picks the path of unfused collectives: anything
    // but "deterministic" is the native one (with a warning when unknown).
    const char *env = std::getenv("COCONET_MPI_COLLECTIVES");
    const bool det = env && std::string(env) == "deterministic";
    report(coconet_comm_deterministic(comm) == (det ? 1 : 0),
           std::string("the ") + (det ? "deterministic" : "native") +
               " path of unfused collectives (COCONET_MPI_COLLECTIVES=" + (env ? env : "") + ")");
    report(coconet_barrier(comm, "start") == COCONET_OK, "barrier");
    check_collectives(comm, R, r);
    check_counters(comm, R, r);
    check_refusals(comm, R, r);
    coconet_mpi_comm_destroy(comm);
    coconet_mpi_finalize();
    return mpi_check::failures() ? 1 : 0;
}
