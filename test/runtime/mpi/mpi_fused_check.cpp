// Fused reduce-scatters (coconet_fused_reduce_scatter) on the MPI backend
// against a naive reference, run as
//   mpirun --allow-run-as-root --oversubscribe -np 3 ./mpi_fused_check [--auto-ring]
// (any -np >= 1; --auto-ring sets COCONET_FUSED_PATH=ring, which the AUTO
// path then takes, as it does when the environment sets it). The cases
// (runtime/FusedCases.h, shared with runtime/threads/test_runtime_threads.cpp)
// run on the direct path (shared-memory window), the ring and AUTO; then the paths each request
// resolves to, a mismatched call on both paths, counters, replicated passes
// forced on and off (and ranks disagreeing), a rank that aborts (its peers
// fail at their next call naming it), and a missing rank and a slow one
// (timeouts naming them). Prints one [PASS]/[FAIL] line per
// check on rank 0; exits non-zero on any failure.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include "MpiCheck.h"
#include "coconet_runtime.h"
#include "runtime/FusedCases.h"

using namespace fused_test;
using namespace mpi_check;

namespace {

const char *path_name(int path) {
    return path == COCONET_PATH_RING ? "ring" : path == COCONET_PATH_DIRECT ? "direct" : "auto";
}

void check_cases(coconet_comm *comm, int R, int r, int path) {
    size_t ncases = 0;
    const std::vector<std::string> bad = run_fused_cases(R, r, comm, path, &ncases, 5);
    for (const std::string &e : bad) {
        std::fprintf(stderr, "rank %d: %s\n", r, e.c_str());
    }
    report(bad.empty() && ncases >= 30, std::string("path ") + path_name(path) + " (takes " +
                                            path_name(coconet_fused_resolve_path(comm, path)) +
                                            "): " + std::to_string(ncases) + " cases on " +
                                            std::to_string(R) + " ranks match the reference");
}

// One small call over the world (1-D float sum of n elements); `name` per rank.
int one_call(coconet_comm *comm, int R, int r, int path, const char *name, int64_t n = 10,
             coconet_fused_kernel kernel = fused_kernel, bool replicable = false) {
    SmallCall one(comm, R, r, name, path, n, nullptr, replicable);
    one.call.kernel = kernel;
    return coconet_fused_reduce_scatter(comm, &one.call);
}

void check_paths(coconet_comm *comm, int R, bool auto_ring) {
    // mpirun on this machine: every rank on one node.
    const bool ok = coconet_fused_resolve_path(comm, COCONET_PATH_RING) == COCONET_PATH_RING &&
                    coconet_fused_resolve_path(comm, COCONET_PATH_DIRECT) == COCONET_PATH_DIRECT &&
                    coconet_fused_resolve_path(comm, COCONET_PATH_AUTO) ==
                        (auto_ring ? COCONET_PATH_RING : COCONET_PATH_DIRECT) &&
                    coconet_fused_sources(comm, COCONET_PATH_RING, R) == std::min(R, 2) &&
                    coconet_fused_sources(comm, COCONET_PATH_DIRECT, R) == R;
    report(ok, std::string("paths: ring, direct (one node), auto ") +
                   (auto_ring ? "(COCONET_FUSED_PATH=ring) " : "") +
                   "resolve as expected; the kernel gets min(R, 2) sources on the ring, R direct");
}

// `other_n`: the size of the last rank's call. Larger than the shared window
// holds, that rank checks the call before growing it while the others check
// it at their pass's first meeting.
void check_mismatch(coconet_comm *comm, int R, int r, int path, int64_t other_n = 10) {
    // The last rank calls another fused reduce-scatter: every member fails at once.
    const auto start = std::chrono::steady_clock::now();
    const char *name = r == R - 1 ? "other" : "fm";
    const int rc = one_call(comm, R, r, path, name, r == R - 1 ? other_n : 10);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string msg = coconet_comm_last_error(comm);
    const std::string who =
        r == R - 1 ? "rank 0 called fused reduce_scatter 'fm'"
                   : "rank " + std::to_string(R - 1) + " called fused reduce_scatter 'other'";
    const bool ok = rc == COCONET_ERR_INVALID && took < 5.0 &&
                    contains(msg, "rank " + std::to_string(r) + ": fused reduce_scatter '" + name +
                                      "': " + who);
    if (!ok) {
        std::fprintf(stderr, "rank %d: rc %d after %.2f s: %s\n", r, rc, took, msg.c_str());
    }
    // The communicator still works: nothing moved before the calls were compared.
    const int again = one_call(comm, R, r, path, "fm_again");
    report(ok && again == COCONET_OK,
           std::string("path ") + path_name(path) +
               ": a rank calling another fused reduce_scatter" +
               (other_n > 10 ? " (of " + std::to_string(other_n) + " elements)" : "") +
               " makes every member fail at once with a message naming the rank and both "
               "calls; later calls work");
}

// Replicable cases on the direct path both ways: `always` replicates each
// (on a communicator of its own: the first call makes the window), `never`
// takes the slices' path. Then a member that never replicates against peers
// on the default: it meets them with another signature (the default
// replicates a call this small), and every member fails naming it. Every
// rank sets the switch at the same point.
void check_replication(coconet_comm *comm, int R, int r) {
    for (const char *mode : {"always", "never"}) {
        setenv("COCONET_FUSED_REPLICATE", mode, 1);
        coconet_comm *fresh = mode[0] == 'a' ? coconet_mpi_comm_create(30.0) : comm;
        size_t ncases = 0;
        const std::vector<std::string> bad =
            run_fused_cases(R, r, fresh, COCONET_PATH_DIRECT, &ncases, 5, nullptr, true);
        if (fresh != comm) {
            coconet_mpi_comm_destroy(fresh);
        }
        for (const std::string &e : bad) {
            std::fprintf(stderr, "rank %d: %s\n", r, e.c_str());
        }
        report(bad.empty() && ncases >= 10, std::string("COCONET_FUSED_REPLICATE=") + mode + ": " +
                                                std::to_string(ncases) +
                                                " replicable cases on the direct path match the "
                                                "reference");
    }
    if (R < 2) {
        unsetenv("COCONET_FUSED_REPLICATE");
        return;
    }
    // A replicated call's memory traffic on each rank: its source posted,
    // then every member's source read and both outputs written, over the
    // whole box (the direct path reads and writes the rank's slice).
    const int64_t n = 30;
    unsetenv("COCONET_FUSED_REPLICATE"); // the default replicates a call this small
    coconet_comm_reset_counters(comm);
    const int rc = one_call(comm, R, r, COCONET_PATH_DIRECT, "fb", n, fused_kernel, true);
    const uint64_t bytes = coconet_comm_bytes_sent(comm, COCONET_FUSED);
    const uint64_t want_bytes = 4 * n + 4 * n * (R + 2);
    if (rc != COCONET_OK || bytes != want_bytes) {
        std::fprintf(stderr, "rank %d: rc %d, %llu bytes counted, %llu expected\n", r, rc,
                     (unsigned long long)bytes, (unsigned long long)want_bytes);
    }
    report(rc == COCONET_OK && bytes == want_bytes &&
               coconet_comm_op_count(comm, COCONET_FUSED) == 1,
           "a replicated call counts its source posted, every member's source read and its "
           "outputs written over the whole box");
    if (r == R - 1) {
        setenv("COCONET_FUSED_REPLICATE", "never", 1);
    } else {
        unsetenv("COCONET_FUSED_REPLICATE");
    }
    FusedCase c = SmallCall::one_dim(10);
    c.name = "fr";
    c.replicable = true;
    const std::string e = run_fused_case<float>(c, R, r, comm, COCONET_PATH_DIRECT, nullptr);
    unsetenv("COCONET_FUSED_REPLICATE");
    const std::string want =
        r == R - 1 ? "rank 0 called fused reduce_scatter 'fr' with other arguments"
                     " at the same time: every group member must make the same collective calls "
                     "in the same order (rank 0 takes the replicated direct path, this rank the "
                     "direct path)"
                   : "rank " + std::to_string(R - 1) +
                         " called fused reduce_scatter 'fr' with other arguments at the same "
                         "time: every group member must make the same collective calls in the "
                         "same order (rank " +
                         std::to_string(R - 1) +
                         " takes the direct path, this rank the replicated direct path)";
    const bool ok = contains(e, want);
    if (!ok) {
        std::fprintf(stderr, "rank %d: %s\n", r, e.c_str());
    }
    c.name = "fr_again";
    const std::string again = run_fused_case<float>(c, R, r, comm, COCONET_PATH_DIRECT, nullptr);
    report(ok && again.empty(), "a member that does not replicate a pass its peers replicate by "
                                "default makes every member fail naming it and both paths; "
                                "later calls work");
}

void check_counters(coconet_comm *comm, int R, int r, int path) {
    coconet_comm_reset_counters(comm);
    const int rc = one_call(comm, R, r, path, "fc", 30);
    const bool ok = rc == COCONET_OK && coconet_comm_op_count(comm, COCONET_FUSED) == 1 &&
                    coconet_comm_bytes_sent(comm, COCONET_FUSED) > 0 &&
                    coconet_comm_op_count(comm, COCONET_REDUCE_SCATTER) == 0;
    report(ok, std::string("path ") + path_name(path) +
                   ": one fused op counted, with its memory traffic");
}

// Buffers in window memory (coconet_mpi_alloc): every case on the direct
// path (sources read in place, gathered slices written straight into peers'
// outputs; strided buffers, not usable in place, meet placed ones in the same
// calls) and on the ring, against the reference; the direct path then copies
// only each rank's slices into peers' outputs.
void check_window_memory(coconet_comm *comm, int R, int r) {
    Arena arena;
    arena.bytes = 1 << 20;
    arena.base = static_cast<uint8_t *>(coconet_mpi_alloc(comm, arena.bytes));
    report(arena.base != nullptr, "coconet_mpi_alloc: 1 MiB of window memory per rank");
    if (!arena.base) {
        return;
    }
    for (int path : {COCONET_PATH_DIRECT, COCONET_PATH_RING}) {
        size_t ncases = 0;
        const std::vector<std::string> bad = run_fused_cases(R, r, comm, path, &ncases, 5, &arena);
        for (const std::string &e : bad) {
            std::fprintf(stderr, "rank %d: %s\n", r, e.c_str());
        }
        report(bad.empty() && ncases >= 30,
               std::string("path ") + path_name(path) +
                   ", buffers in window memory: " + std::to_string(ncases) + " cases match");
    }
    // Bytes the direct path copies for one call of n elements.
    const int64_t n = 3000;
    auto bytes_of = [&](Arena *in) {
        if (in) {
            in->used = 0;
        }
        SmallCall one(comm, R, r, "fw", COCONET_PATH_DIRECT, n, in);
        coconet_comm_reset_counters(comm);
        const int rc = coconet_fused_reduce_scatter(comm, &one.call);
        return rc == COCONET_OK ? (int64_t)coconet_comm_bytes_sent(comm, COCONET_FUSED) : -1;
    };
    const int64_t plain = bytes_of(nullptr), placed = bytes_of(&arena);
    int64_t begin = 0, end = 0;
    coconet_slice_range(n, R, r, &begin, &end);
    // Both: the kernel reads R sources and writes two outputs over the slice.
    // Plain adds the source's parts peers read (n - slice) posted, the slice
    // posted, the others' slices copied out (n - slice); placed, this rank's
    // slice written into R - 1 peers' outputs.
    const int64_t slice = end - begin, kernel = 4 * (R + 2) * slice;
    const int64_t want_plain = kernel + (R > 1 ? 4 * (2 * n - slice) : 0),
                  want_placed = kernel + 4 * (R - 1) * slice;
    if (plain != want_plain || placed != want_placed) {
        std::fprintf(stderr,
                     "rank %d: fused bytes %lld plain (expected %lld), %lld placed "
                     "(expected %lld)\n",
                     r, (long long)plain, (long long)want_plain, (long long)placed,
                     (long long)want_placed);
    }
    report(plain == want_plain && placed == want_placed,
           "fused traffic on rank " + std::to_string(r) + ": " + std::to_string(placed) +
               " bytes with window memory, " + std::to_string(plain) +
               " with plain buffers (the source posted and the slices copied out: gone)");
    const bool freed = coconet_mpi_free(comm, arena.base) == COCONET_OK;
    const bool again = coconet_mpi_free(comm, arena.base) == COCONET_ERR_INVALID &&
                       contains(coconet_comm_last_error(comm), "not memory from coconet_mpi_alloc");
    report(freed && again, "coconet_mpi_free frees it; a second free is refused with a message");
}

// On a communicator of its own (a timeout leaves it refusing calls): the last
// rank skips a fused call; the others time out naming it.
void check_timeout(int R, int r, int path, bool replicable = false) {
    coconet_comm *comm = coconet_mpi_comm_create(1.0);
    MPI_Barrier(MPI_COMM_WORLD);
    bool ok = true;
    if (r != R - 1) {
        const auto start = std::chrono::steady_clock::now();
        const int rc = one_call(comm, R, r, path, "late", 10, fused_kernel, replicable);
        const double took =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::string msg = coconet_comm_last_error(comm);
        ok = rc == COCONET_ERR_TIMEOUT && took >= 0.9 && took < 10.0 &&
             contains(msg, "rank " + std::to_string(r) +
                               ": fused reduce_scatter 'late' timed out after 1.0 s waiting for "
                               "rank " +
                               std::to_string(R - 1));
        if (!ok) {
            std::fprintf(stderr, "rank %d: rc %d after %.2f s: %s\n", r, rc, took, msg.c_str());
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == R - 1) {
        drain(0.3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    coconet_mpi_comm_destroy(comm);
    report(ok, std::string("path ") + path_name(path) + (replicable ? ", replicated" : "") +
                   ": a missing rank makes the others time out naming it");
}

// A kernel slower than the 1 s timeout.
int slow_kernel(void *context, int32_t nsrc, const halide_buffer_t *const *srcs,
                halide_buffer_t *const *outs) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    return fused_kernel(context, nsrc, srcs, outs);
}

// On a communicator of its own: the last rank's kernel outlasts the timeout;
// the others time out inside the pass (direct: at a window barrier, which
// MPI cannot cancel) naming it, and nobody hangs.
void check_slow_rank(int R, int r, int path) {
    coconet_comm *comm = coconet_mpi_comm_create(1.0);
    const int warm = one_call(comm, R, r, path, "warm"); // creates the window
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    const int rc = one_call(comm, R, r, path, "slow", 10, r == R - 1 ? slow_kernel : fused_kernel);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string msg = coconet_comm_last_error(comm);
    const std::string label = "rank " + std::to_string(r) + ": fused reduce_scatter 'slow' (";
    const std::string whom = "timed out after 1.0 s waiting for rank " + std::to_string(R - 1);
    const bool ok =
        warm == COCONET_OK && took < 10.0 &&
        (r == R - 1 || (rc == COCONET_ERR_TIMEOUT && contains(msg, label) && contains(msg, whom)));
    if (!ok) {
        std::fprintf(stderr, "rank %d: rc %d after %.2f s: %s\n", r, rc, took, msg.c_str());
    }
    MPI_Barrier(MPI_COMM_WORLD);
    drain(0.3); // what the slow rank sent to ranks that had given up
    MPI_Barrier(MPI_COMM_WORLD);
    coconet_mpi_comm_destroy(comm);
    report(ok, std::string("path ") + path_name(path) +
                   ": a rank slower than the timeout inside the pass is named by the others");
}

int failing_kernel(void *, int32_t, const halide_buffer_t *const *, halide_buffer_t *const *) {
    return COCONET_ERR_INVALID;
}

// The last rank's kernel fails in a replicated pass, which its peers finish
// alone (each computes everything itself), and it then aborts its
// communicator as the AOT executor does: the peers fail at their next call,
// naming it and its reason, well before their timeout (30 s), on both paths.
void check_abort_announced(int R, int r, int path) {
    coconet_comm *comm = coconet_mpi_comm_create(30.0);
    const int made = one_call(comm, R, r, COCONET_PATH_DIRECT, "fa_window", 10, fused_kernel, true);
    const bool last = r == R - 1;
    const int failed = one_call(comm, R, r, COCONET_PATH_DIRECT, "fa_failing", 10,
                                last ? failing_kernel : fused_kernel, true);
    if (last) {
        coconet_comm_abort(comm, "its kernel failed");
    }
    const auto start = std::chrono::steady_clock::now();
    const int rc = one_call(comm, R, r, path, "fa_next");
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string msg = coconet_comm_last_error(comm);
    const std::string want =
        last ? "aborted: rank " + std::to_string(r) + " failed: its kernel failed"
             : "fused reduce_scatter 'fa_next' aborted: rank " + std::to_string(R - 1) +
                   " failed: its kernel failed";
    const bool ok = made == COCONET_OK && (failed == COCONET_OK) != last &&
                    rc == COCONET_ERR_ABORTED && contains(msg, want) && took < 5.0;
    if (!ok) {
        std::fprintf(stderr, "rank %d: made %d, failed %d, rc %d after %.2f s: %s\n", r, made,
                     failed, rc, took, msg.c_str());
    }
    coconet_mpi_comm_destroy(comm);
    report(ok, std::string("path ") + path_name(path) +
                   ": a rank that aborts after its replicated kernel failed is named by its "
                   "peers at their next call, before their timeout");
}

} // namespace

int main(int argc, char **argv) {
    if (argc > 1 && std::strcmp(argv[1], "--auto-ring") == 0) {
        setenv("COCONET_FUSED_PATH", "ring", 1);
    }
    const char *env = std::getenv("COCONET_FUSED_PATH");
    const bool auto_ring = env && std::strcmp(env, "ring") == 0;
    coconet_comm *comm = coconet_mpi_comm_create(30.0);
    if (!comm) {
        return 2;
    }
    const int R = coconet_comm_size(comm), r = coconet_comm_rank(comm);
    report(std::string(coconet_comm_backend(comm)) == "mpi",
           "MPI backend on " + std::to_string(R) + " ranks");
    check_paths(comm, R, auto_ring);
    for (int path : {COCONET_PATH_DIRECT, COCONET_PATH_RING, COCONET_PATH_AUTO}) {
        check_cases(comm, R, r, path);
    }
    for (int path : {COCONET_PATH_DIRECT, COCONET_PATH_RING}) {
        if (R >= 2) {
            check_mismatch(comm, R, r, path);
            check_mismatch(comm, R, r, path, int64_t(1) << 20);
        }
        check_counters(comm, R, r, path);
    }
    check_replication(comm, R, r);
    check_window_memory(comm, R, r);
    // Frees the shared windows (collective over each group).
    coconet_mpi_comm_destroy(comm);
    if (R >= 2) {
        for (int path : {COCONET_PATH_DIRECT, COCONET_PATH_RING}) {
            check_abort_announced(R, r, path);
            check_timeout(R, r, path);
            check_slow_rank(R, r, path);
        }
        check_timeout(R, r, COCONET_PATH_DIRECT, true);
    }
    coconet_mpi_finalize();
    return mpi_check::failures() ? 1 : 0;
}
