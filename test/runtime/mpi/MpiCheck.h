// What the MPI check programs share: a verdict reduced over all ranks and
// printed once, a substring test, and draining messages that ranks which
// timed out left unmatched (so that MPI_Finalize can return).
#ifndef COCONET_TEST_MPI_CHECK_H
#define COCONET_TEST_MPI_CHECK_H

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

namespace mpi_check {

// Checks that failed on some rank, counted on every rank alike.
inline int &failures() {
    static int n = 0;
    return n;
}

// Every rank's verdict, reduced: rank 0 prints one line.
inline void report(bool ok_here, const std::string &what) {
    int bad = ok_here ? 0 : 1, total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        std::printf("%s %s%s\n", total ? "[FAIL]" : "[PASS]", what.c_str(),
                    total ? (" (" + std::to_string(total) + " ranks failed)").c_str() : "");
        std::fflush(stdout);
    }
    failures() += total != 0;
}

inline bool contains(const std::string &s, const std::string &part) {
    return s.find(part) != std::string::npos;
}

// Receives and drops every message addressed to this rank until none has
// arrived for `quiet` seconds; returns how many there were.
inline int drain(double quiet) {
    int drained = 0;
    auto last = std::chrono::steady_clock::now();
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - last).count() < quiet) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            continue;
        }
        int bytes = 0;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        std::vector<char> sink(bytes > 0 ? bytes : 1);
        MPI_Recv(sink.data(), bytes, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        drained++;
        last = std::chrono::steady_clock::now();
    }
    return drained;
}

} // namespace mpi_check

#endif
