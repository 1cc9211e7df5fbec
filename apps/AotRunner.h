// Running AOT libraries (add_coconet_library) from C++: one rank with its
// buffers in global coordinates, R thread ranks, and the Program the library
// was built from (its generator, built in process with the same parameters),
// whose reference the results are checked against.
#ifndef COCONET_APPS_AOT_RUNNER_H
#define COCONET_APPS_AOT_RUNNER_H

#include <functional>

#include "Apps.h"
#include "coconet_aot.h"

namespace coconet {
namespace apps {

// This rank's boxes of the library's outputs, keyed by name.
RankBuffers allocate_aot_outputs(const coconet_aot_program *p, int rank, int size);

// Window memory of an MPI communicator (coconet_mpi_alloc) for a rank's
// buffers, freed with this object (buffers placed by it must not outlive it).
// Fused passes read and write such buffers in place. Collective: every rank
// places the same buffers in the same order.
class WindowMemory {
public:
    explicit WindowMemory(coconet_comm *comm) : comm_(comm) {}
    WindowMemory(const WindowMemory &) = delete;
    WindowMemory &operator=(const WindowMemory &) = delete;
    ~WindowMemory();
    // A buffer of b's box and contents in window memory; throws RuntimeError.
    Halide::Buffer<> place(const Halide::Buffer<> &b);

private:
    coconet_comm *comm_;
    std::vector<void *> blocks_;
};

// Allocates this rank's outputs and runs the library's program on `comm`;
// throws RuntimeError with the runtime's message when it fails. With
// `window`, inputs and outputs are placed in its memory first.
RankBuffers run_aot_rank(const coconet_aot_program *p, coconet_comm *comm,
                         const RankBuffers &inputs, WindowMemory *window = nullptr);

// Runs body(comm) on a thread per communicator (the ranks of one world, in
// rank order); throws the error of a rank that failed first (the others are
// aborted).
void run_on_ranks(const std::vector<coconet_comm *> &comms,
                  const std::function<void(coconet_comm *)> &body);

// run_on_ranks on `world_size` thread ranks (threads backend).
void run_on_thread_ranks(int world_size, double timeout_seconds,
                         const std::function<void(coconet_comm *)> &body);

// R ranks as threads of this process (threads backend).
std::vector<RankBuffers> run_aot_threads(const coconet_aot_program *p, int world_size,
                                         const std::vector<RankBuffers> &inputs,
                                         double timeout_seconds = 30.0);

// The ranks of any world of this process (e.g. an NCCL world), a thread each.
std::vector<RankBuffers> run_aot_ranks(const coconet_aot_program *p,
                                       const std::vector<coconet_comm *> &comms,
                                       const std::vector<RankBuffers> &inputs);

// The generator the library was built from, with its parameters (the
// generator must be linked into this program).
Program aot_program_source(const coconet_aot_program *p);

// Test inputs for a generator's program: the optimizers' v is non-negative.
InputMaker inputs_for_generator(const std::string &generator);

} // namespace apps
} // namespace coconet

#endif
