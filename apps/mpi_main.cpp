// Runs the example applications under MPI, one rank per process, and checks
// each rank's outputs against the single-process reference (which every rank
// computes for itself from the same deterministic inputs), and that every
// rank's copy of a Replicated output is its group's first rank's
// (replicated_mismatches, gathering the copies over MPI).
//
//   mpirun --allow-run-as-root --oversubscribe -np 3 build/apps/coconet_mpi_app
//          [--path direct|ring] ["app"...]
//
// Every app name must be one of apps::all_apps(); without names all run.
//
// --path sets COCONET_FUSED_PATH for the fused schedules. The ring adds up
// the gradients in a rotation of rank order, so their results may differ from
// the reference in the last bits: they are checked to 1e-5 there, as are
// float sums under MPI's own collectives (COCONET_MPI_COLLECTIVES=native, the
// default), which add up in an order of their own.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "Apps.h"

using namespace coconet;

int main(int argc, char **argv) {
    std::vector<std::string> names;
    bool ring = false;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--path") == 0 && i + 1 < argc) {
            setenv("COCONET_FUSED_PATH", argv[++i], 1);
            ring = std::strcmp(argv[i], "ring") == 0;
        } else {
            names.push_back(argv[i]);
        }
    }
    // A name that selects no app (a renamed one) would make the run check nothing.
    const std::vector<apps::AppCase> all = apps::all_apps();
    for (const std::string &n : names) {
        if (std::none_of(all.begin(), all.end(),
                         [&](const apps::AppCase &a) { return a.name == n; })) {
            std::string known;
            for (const apps::AppCase &a : all) {
                known += "\n  \"" + a.name + "\"";
            }
            std::fprintf(stderr, "coconet_mpi_app: no app named \"%s\"; the apps are:%s\n",
                         n.c_str(), known.c_str());
            return 2;
        }
    }
    coconet_comm *comm = coconet_mpi_comm_create(30.0);
    if (!comm) {
        std::fprintf(stderr, "coconet_mpi_app: this build has no MPI backend.\n");
        return 2;
    }
    const int rank = coconet_comm_rank(comm), size = coconet_comm_size(comm);
    int failures = 0;
    for (const apps::AppCase &app : all) {
        bool selected = names.empty();
        for (const std::string &n : names) {
            selected |= app.name == n;
        }
        if (!selected) {
            continue;
        }
        if (size < app.min_ranks) {
            std::printf("[SKIP] rank %d of %d: %s needs at least %d ranks\n", rank, size,
                        app.name.c_str(), app.min_ranks);
            continue;
        }
        try {
            Program program = app.make();
            JitProgram jit(program);
            std::vector<RankBuffers> inputs = app.inputs(program, size, 1);
            RankBuffers mine = jit.run_rank(comm, inputs[rank]);
            std::vector<RankBuffers> expected = Reference(program).run(size, inputs);
            const double err = max_abs_diff({mine}, {expected[rank]});
            const std::vector<ReplicatedMismatch> differ =
                replicated_mismatches(program, comm, mine);
            const bool rotated = ring && app.fused;
            const bool ok =
                err <= std::max({rotated ? 1e-5 : 0.0, app.tolerance, reference_tolerance(comm)}) &&
                differ.empty();
            failures += ok ? 0 : 1;
            std::printf("[%s] rank %d of %d: %s max error %g%s\n", ok ? "PASS" : "FAIL", rank, size,
                        app.name.c_str(), err, to_string(differ).c_str());
        } catch (const std::exception &e) {
            std::fprintf(stderr, "[FAIL] rank %d of %d: %s: %s\n", rank, size, app.name.c_str(),
                         e.what());
            std::fflush(stderr);
            // A failed rank cannot leave its peers waiting in a collective.
            std::abort();
        }
        std::fflush(stdout);
    }
    coconet_mpi_comm_destroy(comm);
    coconet_mpi_finalize();
    return failures ? 1 : 0;
}
