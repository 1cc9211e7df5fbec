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

// The library's run-time sizes as its calls take them (in the order of
// p->size_names), from `sizes` by name; a size missing there is a UserError.
std::vector<int32_t> table_sizes(const coconet_aot_program *p, const Sizes &sizes);

// This rank's box of argument i (an input or output) of the library at
// `sizes` (its run-time sizes), unset.
Halide::Buffer<> allocate_aot_arg(const coconet_aot_program *p, int i, int rank, int size,
                                  const Sizes &sizes = {});

// This rank's boxes of the library's outputs, keyed by name.
RankBuffers allocate_aot_outputs(const coconet_aot_program *p, int rank, int size,
                                 const Sizes &sizes = {});

// Where a rank's buffers are placed for a call (run_aot_rank). Every rank
// places the same buffers in the same order.
class BufferPlacement {
public:
    virtual ~BufferPlacement() = default;
    // A buffer of b's box for the call; an input gets b's contents. Throws
    // RuntimeError.
    virtual Halide::Buffer<> place(const Halide::Buffer<> &b, bool input) = 0;
    // After the call: the outputs readable on the host.
    virtual void collect(RankBuffers &outputs) { (void)outputs; }
};

// Window memory of an MPI communicator (coconet_mpi_alloc) for a rank's
// buffers, freed with this object (buffers placed by it must not outlive it).
// Fused passes read and write such buffers in place. Collective: every rank
// places the same buffers in the same order.
class WindowMemory : public BufferPlacement {
public:
    explicit WindowMemory(coconet_comm *comm) : comm_(comm) {}
    WindowMemory(const WindowMemory &) = delete;
    WindowMemory &operator=(const WindowMemory &) = delete;
    ~WindowMemory() override;
    Halide::Buffer<> place(const Halide::Buffer<> &b, bool input) override;

private:
    coconet_comm *comm_;
    std::vector<void *> blocks_;
};

// The device of a GPU-target library (coconet_aot_program::device_interface),
// as a caller keeping its data there passes it: inputs copied there (their
// host copies then hold garbage, to show they are not read), outputs
// allocated there. collect() checks that every output was left newest on the
// device and copies it to the host. Allocations are made and freed with the
// communicator as Halide's user context (under NCCL: its CUDA context), so
// this object must not outlive the communicator.
class DeviceMemory : public BufferPlacement {
public:
    DeviceMemory(const coconet_aot_program *p, coconet_comm *comm);
    DeviceMemory(const DeviceMemory &) = delete;
    DeviceMemory &operator=(const DeviceMemory &) = delete;
    ~DeviceMemory() override;
    Halide::Buffer<> place(const Halide::Buffer<> &b, bool input) override;
    void collect(RankBuffers &outputs) override;

private:
    const halide_device_interface_t *device_;
    coconet_comm *comm_;
    std::vector<Halide::Buffer<>> placed_;
};

// Allocates this rank's outputs and runs the library's program on `comm`;
// throws RuntimeError with the runtime's message when it fails. With
// `placement`, inputs and outputs are placed by it first, and the outputs
// collected by it after the call.
RankBuffers run_aot_rank(const coconet_aot_program *p, coconet_comm *comm,
                         const RankBuffers &inputs, BufferPlacement *placement = nullptr,
                         const Sizes &sizes = {});

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
                                         double timeout_seconds = 30.0, const Sizes &sizes = {});

// The generator the library was built from, with its parameters (the
// generator must be linked into this program).
Program aot_program_source(const coconet_aot_program *p);

// Test inputs for a generator's program: the optimizers' v is non-negative.
InputMaker inputs_for_generator(const std::string &generator);

// The same for library p's program at `sizes` (its run-time sizes).
std::vector<RankBuffers> library_inputs(const coconet_aot_program *p, const Program &program,
                                        int world_size, const Sizes &sizes);

} // namespace apps
} // namespace coconet

#endif
