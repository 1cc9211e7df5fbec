// The executor of CoCoNet programs, AOT libraries and JIT programs alike:
// checks a rank's arguments against the program's signature, allocates the
// values that cross steps, and runs the steps (Halide pipelines, fused
// passes, overlapped passes and collectives) in order. One Executor runs one
// call on one rank; what outlives a call lives in the communicator's
// ExecutorState. Its parts, by what they do: Executor.cpp (the call, the
// kernels' lookup, Halide steps), Arguments.cpp (the caller's buffers
// checked and bound), Values.cpp (values, residency, outputs),
// FusedSteps.cpp (fused passes), CollectiveSteps.cpp (collectives,
// overlapped or not, and their tile tuning), CApi.cpp (the C ABI).
#ifndef COCONET_RUNTIME_EXECUTOR_EXECUTOR_H
#define COCONET_RUNTIME_EXECUTOR_EXECUTOR_H

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "coconet_aot.h"
#include "core/Box.h"
#include "core/Comm.h"
#include "core/Scratch.h"
#include "device/Device.h"
#include "executor/ChunkLoop.h"
#include "executor/ExecutorState.h"
#include "executor/SizedProgram.h"

namespace coconet_rt {

struct AotError {
    int code;
    std::string message;
};

// Throws AotError: "<program>, rank r of R (<backend>): what".
[[noreturn]] void fail_call(const coconet_comm *comm, const coconet_aot_program &p, int code,
                            const std::string &what);

// A buffer the executor owns: a value that crosses steps, or a view. A
// view of a caller's buffer shares its device allocation (borrowed: the
// caller frees it); any other device allocation on it is the executor's.
struct OwnedBuffer {
    halide_buffer_t buf{};
    halide_dimension_t dim[4]{};
    coconet_rt::HostPool::Block data;
    bool borrowed_device = false;
};

// The start of the keys of program p's value memory (Comm::value_memory):
// its name and table, then each value's name and extents.
std::string value_memory_prefix(const coconet_aot_program &p);

class Executor {
public:
    // Runs `sized`'s program (its run-time sizes resolved for this call).
    Executor(coconet_comm *comm, const SizedProgram &sized);

    ~Executor();

    void run(halide_buffer_t *const *args);

    [[noreturn]] void fail(int code, const std::string &what) const;

private:
    const coconet_value_info &info(int v) const { return p_.values[v]; }

    void box(int v, int32_t *min, int32_t *extent) const;

    // Halide's GPU runtimes abort on an empty device buffer: a world where a
    // rank holds none of a sliced value a GPU kernel computes or reads (more ranks
    // than blocks) is refused, by every rank at once.
    void check_device_slices() const;

    void check_world() const;

    // "input 'g' (float32, Local)": argument i in messages (built only for
    // one: a call's checks run on every call).
    std::string argument_label(int i) const;

    // Checks argument i against its value's type and this rank's box, and
    // returns it in global coordinates.
    halide_buffer_t *checked_argument(int i, halide_buffer_t *b);

    // The runtime's row copies take dense buffers: an input with gaps between
    // its elements is copied into one once (an output is written through a
    // dense buffer of the executor's and copied out at the end).
    halide_buffer_t *dense_input(int i, halide_buffer_t *b);

    // Memory the steps can address: extents >= 0, positive strides where
    // the box is not empty (Halide takes others, the runtime's copies do
    // not; an empty buffer's strides address nothing, and Halide's copy of
    // one has zeros), a byte span that fits in 64 bits, and host memory
    // behind a non-empty box: a buffer without is a bounds query to Halide,
    // which would return without computing anything, and the runtime's
    // passes and copies read and write host memory even where a pipeline
    // runs on a device.
    void check_layout(int i, const halide_buffer_t *b) const;

    // An output whose elements share memory (a stride smaller than the span
    // of the dimensions inside it) would hold whichever write came last.
    void check_no_self_overlap(int i, const halide_buffer_t *b) const;

    std::string argument_name(int i) const;

    // An output may not share memory with another argument: the steps write
    // outputs while later steps (and peers) still read the inputs, so an
    // in-place call would compute from half-updated values.
    void check_no_aliasing(halide_buffer_t *const *args) const;

    void bind_arguments(halide_buffer_t *const *args);

    bool holds_box_of(const halide_buffer_t *b, int v) const;

    bool is_slice_view(int v) const;

    OwnedBuffer &own() { return owned_.emplace_back(); }

    // The buffer of value v, allocated over this rank's box unless bound.
    halide_buffer_t *output_buffer(int v);
    // Whether value v is the result of a collective stage on the device.
    bool is_device_stage(int v) const;

    // The values fused passes reduce or gather get memory the backend's
    // passes use in place (MPI: window memory; a program's first call on a
    // communicator allocates it, collectively), where they are not the
    // caller's buffers.
    void place_pass_values();

    // Value v's bytes over its group's members: the same on every rank, so
    // that every rank asks value_memory for the same values.
    size_t member_share_bytes(int v) const;

    // A dense buffer over this rank's box of value v.
    OwnedBuffer &allocate(int v);

    // b: a dense buffer of `type` over `box`, with host memory (`memory` when
    // given, of the box's size; else the communicator's pool's).
    void dense_box(OwnedBuffer &b, halide_type_t type, const Box &box,
                   uint8_t *memory = nullptr) const;

    halide_buffer_t *value(int v) const;

    // Host code (passes, final copies) reads what a GPU pipeline left on the device.
    void to_host(halide_buffer_t *b) const;

    void free_device(halide_buffer_t *b) const { coconet_rt::device_free(*comm_, b); }

    void device_check(int status, const std::string &what) const;

    // Counts the inputs Halide copied between host and device during a
    // call: to the device, those newer on the host before it and on the
    // device after it; to the host (for host code of the call), those newer
    // on the device before it and not after it.
    struct InputCopies {
        struct Before {
            halide_buffer_t *b;
            bool host_newest, device_newest;
        };
        explicit InputCopies(std::pmr::memory_resource *memory) : inputs(memory) {}
        coconet_rt::ScratchVector<Before> inputs;
        void add(halide_buffer_t *b) {
            inputs.push_back(Before{b, b->host_dirty(), b->device_dirty()});
        }
        uint64_t bytes() const {
            uint64_t n = 0;
            for (const Before &in : inputs) {
                const bool down = in.host_newest && coconet_rt::on_device(in.b);
                const bool up = in.device_newest && !in.b->device_dirty();
                if (down || up) {
                    n += (uint64_t)coconet_rt::box_of(in.b).count() * in.b->type.bytes();
                }
            }
            return n;
        }
    };

    // Marks where b's newest data is (a buffer without a device allocation,
    // empty ones among them, has it on the host).
    static void set_newest(halide_buffer_t *b, bool on_device);

    // Halide copies an input to the device only when its host is dirty; host
    // data without a device allocation is always the newest.
    static void mark_host_newest(halide_buffer_t *b);

    int kernel_sources(const coconet_aot_step &s) const;

    static const coconet_aot_kernel *kernel_of(const coconet_aot_step &s, int nsrc);

    // The kernel of step s on the library path (COCONET_PATH_LIBRARY), or
    // null where the pass does not take it: its device kernel of one source
    // (none without a source), when the backend's library moves the device's
    // memory and the pass's element types. Every rank decides alike.
    const coconet_aot_kernel *library_kernel(const coconet_aot_step &s) const;

    const coconet_aot_kernel *kernel_for(const coconet_aot_step &s) const;

    // Every rank finds a missing kernel before any of them waits for a peer.
    void check_kernels() const;

    // The run-time sizes, as the functions take them (Halide scalar arguments).
    void push_sizes(coconet_rt::ScratchVector<void *> &argv) const {
        for (int k = 0; k < sized_.nsizes(); k++) {
            argv.push_back(const_cast<int32_t *>(sized_.sizes() + k));
        }
    }

    // Runs step s's pipeline (its message, built only on failure, names it).
    void call(const coconet_function &f, coconet_rt::ScratchVector<void *> &argv, int s) const;

    // Halide step s; with `only_output`, into that buffer (a chunk of an
    // overlapped pass's source).
    void run_pipeline(int s, const coconet_aot_step &step, halide_buffer_t *only_output);

    struct KernelContext {
        Executor *self;
        const coconet_aot_kernel *kernel;
        coconet_rt::ScratchVector<halide_buffer_t *> extras;
        int32_t rank, size;
        int nout;
        // The pass stays on the device (see device_pass): the pass's outputs,
        // and the last chunk's outputs, which the kernel computed into
        // device buffers of their own (OpenCL cannot hand a kernel an output
        // at an arbitrary offset) and copies reach the members' outputs from.
        bool on_device = false;
        coconet_rt::ScratchVector<halide_buffer_t *> parents;
        std::vector<std::unique_ptr<OwnedBuffer>> chunk_outs;
    };

    static int run_kernel_chunk(void *p, int32_t nsrc, const halide_buffer_t *const *srcs,
                                halide_buffer_t *const *outs);

    // The kernel's arguments after the sources: the values it reads besides
    // (counted over the chunk), the rank, the size and the outputs.
    void push_kernel_tail(KernelContext &k, coconet_rt::ScratchVector<void *> &argv,
                          InputCopies &copies, halide_buffer_t *const *outs);

    int call_kernel(KernelContext &k, coconet_rt::ScratchVector<void *> &argv,
                    const InputCopies &copies);

    // The pass on host memory: a device kernel gets views of its own of the
    // sources (peers' buffers among them), so that its device allocations
    // are private, and its outputs come back to the host.
    int host_kernel_chunk(KernelContext &k, const halide_buffer_t *const *srcs,
                          halide_buffer_t *const *outs);

    // The pass on the device: the kernel reads the members' sources where
    // they are and writes the chunk into buffers of its own, copied into
    // this rank's outputs here and into peers' by gather_chunk.
    int device_kernel_chunk(KernelContext &k, const halide_buffer_t *const *srcs,
                            halide_buffer_t *const *outs);

    void release_chunk_outs(KernelContext &k) const;

    // coconet_fused_call::gather on the device: the last chunk of output i
    // into a peer's output.
    static int gather_chunk(void *p, int32_t i, halide_buffer_t *peer, const int32_t *min,
                            const int32_t *extent);

    // Whether step s's pass stays on the device: its kernel computes every
    // output there, and the ranks share the device and read each other's
    // memory (peers_share_device) on the direct path. Every rank decides
    // alike (the program, the backend and the path are the same on all).
    bool device_pass(const coconet_aot_step &st, const coconet_aot_kernel &kernel) const;

    void run_pass(int s);

    Box box_of_value(int v) const;

    halide_buffer_t *host_slice(halide_buffer_t *gathered, int v);

    // A copy on the device (OpenCL cannot hand a kernel an input at an
    // arbitrary offset of another buffer).
    halide_buffer_t *device_slice(halide_buffer_t *gathered, int v);

    // Runs step s's pipeline into [min, min + extent) of `source` along
    // `dim`; a rank whose box of the source is empty computes nothing. With
    // `device`, the source stays on the device: the chunk is computed into a
    // device buffer of its own (no kernel output at an unaligned OpenCL
    // offset) and copied into the source there, unless it is the whole
    // source (one tile), computed in place.
    void produce_chunk(int s, halide_buffer_t *source, int dim, int min, int extent,
                       const halide_device_interface_t *device);
    // produce_chunk over each range of `parts`, adjacent ones as one.
    void produce_parts(int s, halide_buffer_t *source, int dim,
                       const std::vector<coconet_rt::Range> &parts,
                       const halide_device_interface_t *device);

    // How an overlapped step cuts its value of extent n along `dim` into
    // `chunks`: when that is the dimension the value is sliced along
    // (`sliced`) among `group`, piece j of every member's slice, else ranges.
    static coconet_rt::Chunking chunking(int chunks, int dim, int sliced, int64_t n,
                                         const coconet_rt::Group &group);

    // "<program> step <s> (<collective or pass>)": how reports name step s.
    std::string step_key(int s) const;

    // Runs overlapped step s, run(chunks) returning an error code, in the
    // tile count its tuner on this communicator gives (OverlapTuning.h; with
    // `direct`, kDirect among them), timing the call while it tunes. A step
    // on a device (`device_value`: one of its device buffers, else NULL)
    // waits for the device before the clock starts and before it stops:
    // kernels and device copies return before they finish.
    template<typename Run>
    void run_tuned(int s, bool direct, halide_buffer_t *device_value, Run &&run);

    // The maximum of `seconds` over the world's ranks.
    double slowest_rank(double seconds, const std::string &what);

    // This rank's part of chunk j along `dim` of a value whose box it holds
    // in `b`: the range, or its piece of its slice.
    static Box own_part(const coconet_rt::Chunking &ch, const coconet_rt::Group &group, int rank,
                        Box b, int dim, int j);

    // The producer computes chunk j of the source (on its own thread for all
    // but the first) while the pass reduces chunk j - 1.
    void run_overlapped(int s, coconet_fused_call &c, const halide_device_interface_t *device);

    // An unfused collective overlapped with its producer: chunk j's
    // collective on this thread while the producer computes chunk j + 1.
    void run_collective(int s);

    // Whether a step other than s (a fused pass, which `overlap` does not
    // refuse as a reader of its producer) or the program's outputs read v.
    bool read_elsewhere(int v, int s) const;

    // Overlapped all_to_all step s, direct (ranks reach each other's
    // memory): the producer computes each member's part of the source
    // straight into that member's output `dst` (what the fused operators'
    // kernels do, sending each tile as it is done), so the source is not
    // written and nothing is copied; taken only where nothing else reads the
    // source (read_elsewhere).
    int run_produced(int s, halide_buffer_t *dst);

    // `box` of a value's buffer; with `device` (the chunks live there), a
    // crop of its device allocation too, released with the view.
    struct DeviceView {
        DeviceView(const Executor &e, halide_buffer_t *parent, const Box &box,
                   const halide_device_interface_t *device)
            : comm(*e.comm_), view(parent, box) {
            if (device && !box.empty()) {
                e.device_check(coconet_rt::device_crop(comm, parent, &view.buf),
                               "cropping a chunk on the device");
                view.buf.flags = 0;
                view.buf.set_device_dirty(true); // chunks are produced and moved there
            }
        }
        ~DeviceView() { coconet_rt::device_release_crop(comm, &view.buf); }
        coconet_comm &comm;
        coconet_rt::BufferView view;
    };

    // Residency is the caller's choice: a caller's buffer that had no device
    // allocation when the call began has none when it ends (Halide's copies
    // to the device attach one), its data on the host, so that no later call
    // takes it for device-resident.
    void give_back_caller_buffers();

    // Outputs return where the caller keeps them: a caller's buffer with a
    // device allocation gets the value on the device (left device-dirty,
    // no host copy), any other on the host.
    void finish_outputs(halide_buffer_t *const *args);

    // Before the members it gives memory to (destroyed after them).
    coconet_rt::Scratch<4096> scratch_;
    coconet_comm *comm_;
    const SizedProgram &sized_;
    const coconet_aot_program &p_; // sized_'s
    int rank_, size_;
    coconet_rt::ScratchVector<halide_buffer_t *> values_;
    coconet_rt::ScratchVector<halide_buffer_t *> args_;
    // Per output: the caller's buffer has a device allocation.
    coconet_rt::ScratchVector<bool> caller_device_;
    // The caller's arguments, and which had a device allocation at the start.
    halide_buffer_t *const *caller_args_ = nullptr;
    coconet_rt::ScratchVector<bool> caller_had_device_;
    std::pmr::deque<OwnedBuffer> owned_; // stays where it is as it grows
    std::map<int, uint8_t *> placed_;    // values in memory from place_pass_values
    int (*outer_context_)(coconet_comm *, coconet_device_fn, void *);
    const coconet_aot_program *outer_running_;
};

} // namespace coconet_rt

#endif
