// A fault under `mpirun -np 3`, run by mpi_fault_driver.py (ctest -L fault):
//   mpi_fault_check <kill|stop> <collective|fused|overlap|blocking|create> <dir>
// Rank 1 kills (SIGKILL) or freezes (SIGSTOP) itself in the middle of
//   collective: an all_reduce its peers are already in;
//   fused:      a fused reduce_scatter (direct path), in its kernel's second
//               chunk, after the sources were posted;
//   overlap:    an all_reduce overlapped with its producer by the executor's
//               chunk loop, while producing the second chunk (the first moves);
//   blocking:   a fused reduce_scatter, just before the shared window's
//               allocation (MPI_Win_allocate_shared, which blocks): the
//               survivors' watchdog (runtime/core/Watchdog.h) names the call and
//               ends them (COCONET_FAULT=stop:1:blocking fires there);
//   create:     before coconet_mpi_comm_create, which the others are in (its
//               MPI calls block too: their watchdog ends them).
// Every rank writes its pid to <dir>/pid.<rank>, so that the driver can check
// that none outlives the job; rank 1 writes the CLOCK_MONOTONIC time of the
// fault (ns) to <dir>/fault just before it. Each survivor prints
//   survivor rank <r>: code <c> after <s> s: <message>
// and then, after a grace period in which the other survivor prints too,
// aborts the job (MPI_Finalize would wait for rank 1 forever): ending the job
// is the application's decision, the runtime never calls MPI_Abort.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include "coconet_runtime.h"
#include "executor/ChunkLoop.h"
#include "runtime/FusedCases.h"

namespace {

constexpr int kFaulty = 1;

int fault_signal = SIGKILL;
std::string dir;

void write_file(const std::string &name, const std::string &text) {
    if (FILE *f = std::fopen((dir + "/" + name).c_str(), "w")) {
        std::fputs(text.c_str(), f);
        std::fclose(f);
    }
}

// Records the time and kills or freezes this process (every thread of it).
void fault() {
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    write_file("fault", std::to_string(std::chrono::nanoseconds(now).count()));
    std::raise(fault_signal);
}

// A 1-D float buffer of n elements from min, over `data`.
struct Buffer1D {
    halide_dimension_t dim;
    halide_buffer_t b{};
    Buffer1D(float *data, int min, int n, int stride = 1) : dim(min, n, stride) {
        b.type = halide_type_t(halide_type_float, 32);
        b.dimensions = 1;
        b.dim = &dim;
        b.host = (uint8_t *)data;
    }
};

// A 2-D float value of 4 x 12, as the executor crops it: columns [min, min + n).
struct Buffer2D {
    halide_dimension_t dim[2];
    halide_buffer_t b{};
    Buffer2D(float *data, int min, int n) {
        dim[0] = halide_dimension_t(0, 4, 1);
        dim[1] = halide_dimension_t(min, n, 4);
        b.type = halide_type_t(halide_type_float, 32);
        b.dimensions = 2;
        b.dim = dim;
        b.host = (uint8_t *)(data + 4 * min);
    }
};

int collective(coconet_comm *comm, int rank) {
    std::vector<float> in(64, 1.0f + rank), out(64);
    Buffer1D i(in.data(), 0, 64), o(out.data(), 0, 64);
    coconet_collective_desc desc;
    coconet_collective_desc_init(&desc, COCONET_ALL_REDUCE);
    desc.dims = 1;
    desc.extents[0] = 64;
    if (rank == kFaulty) {
        // Its peers are in the all_reduce by now.
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        fault();
    }
    return coconet_collective_call(comm, "grad", &desc, &i.b, &o.b);
}

int faulty_kernel(void *context, int32_t nsrc, const halide_buffer_t *const *srcs,
                  halide_buffer_t *const *outs) {
    if (static_cast<fused_test::KernelLog *>(context)->calls == 1) {
        fault();
    }
    return fused_test::fused_kernel(context, nsrc, srcs, outs);
}

// A fused reduce_scatter on the direct path; `in_kernel`: rank 1 faults in
// its kernel's second chunk.
int fused(coconet_comm *comm, int rank, bool in_kernel) {
    fused_test::SmallCall one(comm, 3, rank, "update", COCONET_PATH_DIRECT, 48);
    one.call.chunk_elements = 4;
    if (rank == kFaulty && in_kernel) {
        one.call.kernel = faulty_kernel;
    }
    return coconet_fused_reduce_scatter(comm, &one.call);
}

// As the executor runs an overlapped all_reduce: chunk j + 1 produced on a
// thread of its own while chunk j moves on this one.
int overlap(coconet_comm *comm, int rank) {
    std::vector<float> in(48), out(48);
    coconet_collective_desc desc;
    coconet_collective_desc_init(&desc, COCONET_ALL_REDUCE);
    desc.dims = 2;
    desc.extents[0] = 4;
    desc.extents[1] = 12;
    desc.chunk_dim = 1;
    const coconet_rt::Chunking chunking{12, 3};
    auto produce = [&](int j) {
        const coconet_rt::Range r = chunking.parts(j)[0];
        if (rank == kFaulty && r.begin > 0) {
            fault();
        }
        std::fill(in.begin() + 4 * r.begin, in.begin() + 4 * r.end, 1.0f + rank);
    };
    auto move = [&](int j) {
        const coconet_rt::Range r = chunking.parts(j)[0];
        Buffer2D i(in.data(), (int)r.begin, (int)r.size()),
            o(out.data(), (int)r.begin, (int)r.size());
        return coconet_collective_call(comm, "activations", &desc, &i.b, &o.b) == COCONET_OK;
    };
    coconet_rt::ProducerThread producer;
    return coconet_rt::run_steps(producer, chunking.count(), produce, move)
               ? COCONET_OK
               : coconet_comm_last_error_code(comm);
}

} // namespace

int main(int argc, char **argv) {
    if (argc != 4) {
        std::fprintf(stderr,
                     "usage: %s <kill|stop> <collective|fused|overlap|blocking|create> <dir>\n",
                     argv[0]);
        return 2;
    }
    fault_signal = std::strcmp(argv[1], "stop") == 0 ? SIGSTOP : SIGKILL;
    const std::string where = argv[2];
    dir = argv[3];
    if (where == "create") {
        int provided = 0, rank = 0;
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        write_file("pid." + std::to_string(rank), std::to_string(getpid()));
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == kFaulty) {
            fault();
        }
        coconet_mpi_comm_create(3.0); // never returns: rank 1 is not there
        return 1;
    }
    // The timeout: COCONET_TIMEOUT_S (the driver sets it), else 3 s.
    coconet_comm *comm = coconet_mpi_comm_create(3.0);
    if (!comm) {
        return 2;
    }
    const int rank = coconet_comm_rank(comm);
    write_file("pid." + std::to_string(rank), std::to_string(getpid()));
    if (where == "blocking") {
        // The runtime stops rank 1 inside the call, a moment after this.
        setenv("COCONET_FAULT", (std::string(argv[1]) + ":1:blocking").c_str(), 1);
        if (rank == kFaulty) {
            const auto now = std::chrono::steady_clock::now().time_since_epoch();
            write_file("fault", std::to_string(std::chrono::nanoseconds(now).count()));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    const int rc = where == "collective" ? collective(comm, rank)
                   : where == "fused"    ? fused(comm, rank, true)
                   : where == "blocking" ? fused(comm, rank, false)
                                         : overlap(comm, rank);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("survivor rank %d: code %d after %.2f s: %s\n", rank, rc, took,
                coconet_comm_last_error(comm));
    std::fflush(stdout);
    // The survivors' timeouts fire within milliseconds of each other.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}
