// The executor of CoCoNet programs, AOT libraries and JIT programs alike:
// checks a rank's arguments against the program's signature, allocates the
// values that cross steps, and runs the steps (Halide pipelines, fused
// passes, overlapped passes and collectives) in order.
#include "coconet_aot.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "Box.h"
#include "ChunkLoop.h"
#include "Comm.h"
#include "Device.h"
#include "DeviceCollective.h"
#include "Env.h"
#include "OverlapTuning.h"
#include "Scratch.h"

namespace {

using coconet_rt::Box;

// The error handler a library's Halide runtime had before ours (Halide's
// default, or the application's): it gets the errors of other pipelines.
std::atomic<halide_error_handler_t> previous_handler{nullptr};

// A pipeline's error on a rank's communicator becomes the rank's error (the
// pipeline then returns its code to the executor) instead of Halide's
// default, which aborts the process. An extern stage of ours that failed has
// recorded a better message already.
void rank_error_handler(void *user_context, const char *msg) {
    if (coconet_rt::is_live_comm(user_context)) {
        if (!std::strstr(msg, "external stage coconet_")) {
            auto *comm = static_cast<coconet_comm *>(user_context);
            std::string m(msg);
            while (!m.empty() && m.back() == '\n') {
                m.pop_back();
            }
            comm->fail(COCONET_ERR_BACKEND,
                       "rank " + std::to_string(comm->rank) + ": Halide pipeline error: " + m);
        }
        return;
    }
    if (halide_error_handler_t h = previous_handler.load()) {
        h(user_context, msg);
    }
}

// Installs rank_error_handler in the program's Halide runtime, once.
void chain_error_handler(const coconet_aot_program &p) {
    if (!p.set_error_handler) {
        return;
    }
    static std::mutex mutex;
    static std::set<halide_error_handler_t (*)(halide_error_handler_t)> done;
    std::lock_guard<std::mutex> lock(mutex);
    if (done.insert(p.set_error_handler).second) {
        const halide_error_handler_t old = p.set_error_handler(rank_error_handler);
        if (old != rank_error_handler) {
            previous_handler = old;
        }
    }
}

struct AotError {
    int code;
    std::string message;
};

std::string type_name(int code, int bits, int lanes = 1) {
    static const char *names[] = {"int", "uint", "float", "handle", "bfloat"};
    return std::string(code >= 0 && code < 5 ? names[code] : "type") + std::to_string(bits) +
           (lanes != 1 ? "x" + std::to_string(lanes) : "");
}

std::string layout_name(const coconet_value_info &v) {
    std::string s = v.layout == COCONET_LAYOUT_SLICED  ? "Sliced(" + std::to_string(v.dim) + ")"
                    : v.layout == COCONET_LAYOUT_LOCAL ? "Local"
                                                       : "Replicated";
    if (v.nsplit > 1) {
        s += " on group " + std::to_string(v.group) + " of world.split(" +
             std::to_string(v.nsplit) + ")";
    }
    return s;
}

std::string box_text(int dims, const int32_t *min, const int32_t *extent) {
    std::ostringstream s;
    s << "[";
    for (int d = 0; d < dims; d++) {
        s << (d ? ", " : "") << min[d] << ".." << (int64_t)min[d] + extent[d];
    }
    s << "]";
    return s.str();
}

std::string shape_text(const coconet_value_info &v) {
    std::string s = "[";
    for (int d = 0; d < v.dims; d++) {
        s += (d ? ", " : "") + std::to_string(v.extents[d]);
    }
    return s + "]";
}

// The start of the keys of program p's value memory (Comm::value_memory):
// its name and table, then each value's name and extents.
std::string value_memory_prefix(const coconet_aot_program &p) {
    char table[32];
    std::snprintf(table, sizeof(table), "%p", (const void *)&p);
    return std::string(p.name) + "@" + table + " ";
}

// A buffer the executor owns: a value that crosses steps, or a view. A
// view of a caller's buffer shares its device allocation (borrowed: the
// caller frees it); any other device allocation on it is the executor's.
struct OwnedBuffer {
    halide_buffer_t buf{};
    halide_dimension_t dim[4]{};
    coconet_rt::HostPool::Block data;
    bool borrowed_device = false;
};

class Executor {
public:
    Executor(coconet_comm *comm, const coconet_aot_program &p)
        : comm_(comm), p_(p), rank_(coconet_comm_rank(comm)), size_(coconet_comm_size(comm)),
          values_(p.nvalues, nullptr, &scratch_), args_(&scratch_), caller_device_(&scratch_),
          owned_(&scratch_), outer_context_(comm->with_device_context),
          outer_running_(comm->running) {
        // Collectives the pipelines call copy device data with it too, and
        // reduce on the device with its combiners.
        comm->with_device_context = p.with_device_context;
        comm->running = &p;
    }

    ~Executor() {
        for (OwnedBuffer &b : owned_) {
            if (!b.borrowed_device) {
                free_device(&b.buf);
            }
        }
        comm_->with_device_context = outer_context_;
        comm_->running = outer_running_;
    }

    void run(halide_buffer_t *const *args) {
        chain_error_handler(p_);
        check_world();
        check_device_slices();
        bind_arguments(args);
        check_kernels();
        place_pass_values();
        for (int s = 0; s < p_.nsteps; s++) {
            const coconet_aot_step &step = p_.steps[s];
            if (step.kind == COCONET_STEP_FUSED) {
                run_pass(s);
            } else if (step.kind == COCONET_STEP_COLLECTIVE) {
                run_collective(s);
            } else {
                run_pipeline(s, step, nullptr);
            }
        }
        finish_outputs(args);
    }

    [[noreturn]] void fail(int code, const std::string &what) const {
        throw AotError{code, std::string(p_.name) + ", rank " + std::to_string(rank_) + " of " +
                                 std::to_string(size_) + " (" + coconet_comm_backend(comm_) +
                                 "): " + what};
    }

private:
    const coconet_value_info &info(int v) const { return p_.values[v]; }

    void box(int v, int32_t *min, int32_t *extent) const {
        coconet_value_box(&info(v), rank_, size_, min, extent);
    }

    // Halide's GPU runtimes abort on an empty device buffer: a world where a
    // rank holds none of a sliced value a GPU kernel computes or reads (more ranks
    // than blocks) is refused, by every rank at once.
    void check_device_slices() const {
        for (int v = 0; v < p_.nvalues + p_.ndevice_stages; v++) {
            const bool stage = v >= p_.nvalues;
            const coconet_value_info &vi = stage ? p_.device_stages[v - p_.nvalues] : info(v);
            if (!vi.device || vi.layout != COCONET_LAYOUT_SLICED) {
                continue;
            }
            int first = 0, count = 0;
            coconet_group_range(size_, vi.nsplit, vi.group, &first, &count);
            if (count == 0) {
                continue;
            }
            // The group's last rank holds the last block, the first to be empty.
            int32_t min[4], extent[4];
            coconet_value_box(&vi, first + count - 1, size_, min, extent);
            if (extent[vi.dim] == 0) {
                const int64_t n = vi.extents[vi.dim], block = (n + count - 1) / count;
                fail(COCONET_ERR_INVALID,
                     std::string("'") + vi.name + "' is sliced along dimension " +
                         std::to_string(vi.dim) + " of " + std::to_string(n) +
                         " elements in blocks of " + std::to_string(block) + " over " +
                         std::to_string(count) + " ranks, which leaves rank " +
                         std::to_string(first + count - 1) +
                         (stage ? " none; it is a collective's result on the device"
                                : " none; a GPU kernel computes or reads it") +
                         ", and needs a non-empty slice on every rank (Halide's GPU runtimes "
                         "abort on an empty device buffer): use fewer ranks");
            }
        }
    }

    void check_world() const {
        if (p_.ranks > 0 && size_ != p_.ranks) {
            fail(COCONET_ERR_INVALID,
                 "the library was built for " + std::to_string(p_.ranks) +
                     " ranks (generator parameter ranks=" + std::to_string(p_.ranks) +
                     "), but the communicator has " + std::to_string(size_) +
                     "; rebuild it with ranks=" + std::to_string(size_) +
                     " or ranks=0 (any count)");
        }
    }

    // Checks argument i against its value's type and this rank's box, and
    // returns it in global coordinates.
    // "input 'g' (float32, Local)": argument i in messages (built only for
    // one: a call's checks run on every call).
    std::string argument_label(int i) const {
        const coconet_value_info &vi = info(p_.args[i]);
        return std::string(i < p_.ninputs ? "input" : "output") + " '" + vi.name + "' (" +
               type_name(vi.type_code, vi.type_bits) + ", " + layout_name(vi) + ")";
    }

    halide_buffer_t *checked_argument(int i, halide_buffer_t *b) {
        const int v = p_.args[i];
        const coconet_value_info &vi = info(v);
        auto what = [&] { return argument_label(i); };
        if (!b) {
            fail(COCONET_ERR_INVALID, what() + ": the buffer is NULL");
        }
        if (b->type.code != vi.type_code || b->type.bits != vi.type_bits || b->type.lanes != 1) {
            fail(COCONET_ERR_INVALID, what() + ": the buffer holds " +
                                          type_name(b->type.code, b->type.bits, b->type.lanes));
        }
        if (b->dimensions != vi.dims) {
            fail(COCONET_ERR_INVALID, what() + ": the buffer has " + std::to_string(b->dimensions) +
                                          " dimensions, the value " + std::to_string(vi.dims));
        }
        if (vi.dims > 0 && !b->dim) {
            fail(COCONET_ERR_INVALID, what() + ": the buffer's dim array is NULL");
        }
        check_layout(i, b);
        if (i >= p_.ninputs) {
            check_no_self_overlap(i, b);
        }
        int32_t min[4], extent[4], got_min[4], got_extent[4];
        box(v, min, extent);
        bool at_zero = true, same = true, same_extents = true;
        for (int d = 0; d < vi.dims; d++) {
            got_min[d] = b->dim[d].min;
            got_extent[d] = b->dim[d].extent;
            at_zero &= got_min[d] == 0;
            same &= got_min[d] == min[d] && got_extent[d] == extent[d];
            same_extents &= got_extent[d] == extent[d];
        }
        if (same) {
            return dense_input(i, b);
        }
        if (!(at_zero && same_extents)) {
            fail(COCONET_ERR_INVALID,
                 what() + " of global shape " + shape_text(vi) + ": this rank's box is " +
                     box_text(vi.dims, min, extent) + ", the buffer covers " +
                     box_text(vi.dims, got_min, got_extent) + " (see coconet_arg_box)");
        }
        // The rank's box, with its mins moved to global coordinates: the same
        // memory, on the host and on the device alike.
        OwnedBuffer &view = own();
        view.buf = *b;
        view.borrowed_device = b->device != 0;
        view.buf.dim = view.dim;
        for (int d = 0; d < vi.dims; d++) {
            view.dim[d] = b->dim[d];
            view.dim[d].min = min[d];
        }
        return dense_input(i, &view.buf);
    }

    // The runtime's row copies take dense buffers: an input with gaps between
    // its elements is copied into one once (an output is written through a
    // dense buffer of the executor's and copied out at the end).
    halide_buffer_t *dense_input(int i, halide_buffer_t *b) {
        if (i >= p_.ninputs || coconet_rt::is_dense(b)) {
            return b;
        }
        to_host(b);
        halide_buffer_t *copy = &allocate(p_.args[i]).buf;
        coconet_rt::copy_box(b, copy, coconet_rt::box_of(b));
        return copy;
    }

    // Memory the steps can address: extents >= 0, positive strides where
    // the box is not empty (Halide takes others, the runtime's copies do
    // not; an empty buffer's strides address nothing, and Halide's copy of
    // one has zeros), a byte span that fits in 64 bits, and host memory
    // behind a non-empty box: a buffer without is a bounds query to Halide,
    // which would return without computing anything, and the runtime's
    // passes and copies read and write host memory even where a pipeline
    // runs on a device.
    void check_layout(int i, const halide_buffer_t *b) const {
        auto what = [&] { return argument_label(i); };
        int64_t span = 1;
        bool empty = false;
        for (int d = 0; d < b->dimensions; d++) {
            if (b->dim[d].extent < 0) {
                fail(COCONET_ERR_INVALID, what() + ": dimension " + std::to_string(d) +
                                              " has extent " + std::to_string(b->dim[d].extent));
            }
            empty |= b->dim[d].extent == 0;
        }
        for (int d = 0; d < b->dimensions; d++) {
            const halide_dimension_t &dim = b->dim[d];
            auto where = [&] { return what() + ": dimension " + std::to_string(d); };
            if (!empty && dim.extent > 1 && dim.stride <= 0) {
                fail(COCONET_ERR_INVALID, where() + " has stride " + std::to_string(dim.stride) +
                                              "; the runtime takes positive strides");
            }
            int64_t reach = 0;
            if (__builtin_mul_overflow((int64_t)(dim.extent > 0 ? dim.extent - 1 : 0),
                                       (int64_t)dim.stride, &reach) ||
                __builtin_add_overflow(span, reach, &span)) {
                fail(COCONET_ERR_INVALID, where() + ": the buffer's span overflows 64 bits");
            }
        }
        int64_t bytes = 0;
        if (__builtin_mul_overflow(span, (int64_t)b->type.bytes(), &bytes)) {
            fail(COCONET_ERR_INVALID, what() + ": the buffer's byte size overflows 64 bits");
        }
        if (!empty && !b->host) {
            fail(COCONET_ERR_INVALID,
                 what() + (b->device ? ": the buffer has no memory (host is NULL; a device "
                                       "allocation alone is not enough, the runtime reads and "
                                       "writes host memory)"
                                     : ": the buffer has no memory (host is NULL and it has no "
                                       "device allocation)"));
        }
        if (b->device && !b->device_interface) {
            fail(COCONET_ERR_INVALID, what() + ": the buffer has a device allocation but no "
                                               "device_interface");
        }
    }

    // An output whose elements share memory (a stride smaller than the span
    // of the dimensions inside it) would hold whichever write came last.
    void check_no_self_overlap(int i, const halide_buffer_t *b) const {
        int dims[COCONET_MAX_DIMS];
        int n = 0;
        for (int d = 0; d < b->dimensions; d++) {
            if (b->dim[d].extent > 1) {
                dims[n++] = d;
            }
        }
        std::sort(dims, dims + n,
                  [&](int x, int y) { return b->dim[x].stride < b->dim[y].stride; });
        for (int k = 1; k < n; k++) {
            const halide_dimension_t &inner = b->dim[dims[k - 1]], &outer = b->dim[dims[k]];
            if ((int64_t)outer.stride < (int64_t)inner.stride * inner.extent) {
                fail(COCONET_ERR_INVALID,
                     argument_label(i) + ": dimensions " + std::to_string(dims[k - 1]) + " and " +
                         std::to_string(dims[k]) + " overlap (stride " +
                         std::to_string(outer.stride) + " < " + std::to_string(inner.stride) +
                         " x " + std::to_string(inner.extent) +
                         "); an output's elements may not share memory");
            }
        }
    }

    std::string argument_name(int i) const {
        return std::string(i < p_.ninputs ? "input '" : "output '") + info(p_.args[i]).name + "'";
    }

    // An output may not share memory with another argument: the steps write
    // outputs while later steps (and peers) still read the inputs, so an
    // in-place call would compute from half-updated values.
    void check_no_aliasing(halide_buffer_t *const *args) const {
        // The host bytes a buffer spans; none for an empty box (whose
        // begin() and end() are not meaningful) or a device-only buffer.
        auto bytes = [](const halide_buffer_t *b) {
            return b->host && b->number_of_elements() > 0 ? std::make_pair(b->begin(), b->end())
                                                          : std::make_pair(b->host, b->host);
        };
        for (int o = p_.ninputs; o < p_.ninputs + p_.noutputs; o++) {
            const auto [ob, oe] = bytes(args[o]);
            for (int i = 0; i < o && ob != oe; i++) {
                const auto [ib, ie] = bytes(args[i]);
                if (ib != ie && ob < ie && ib < oe) {
                    fail(COCONET_ERR_INVALID, argument_name(o) + " shares memory with " +
                                                  argument_name(i) +
                                                  "; pass outputs that alias no other argument");
                }
            }
        }
    }

    void bind_arguments(halide_buffer_t *const *args) {
        args_.reserve(p_.ninputs + p_.noutputs);
        caller_device_.reserve(p_.noutputs);
        for (int i = 0; i < p_.ninputs + p_.noutputs; i++) {
            args_.push_back(checked_argument(i, args[i]));
        }
        for (int i = 0; i < p_.noutputs; i++) {
            caller_device_.push_back(args[p_.ninputs + i]->device != 0);
        }
        check_no_aliasing(args);
        for (int i = 0; i < p_.ninputs; i++) {
            values_[p_.args[i]] = args_[i];
        }
        // A step writes an output straight into the caller's buffer, unless
        // the output is an input, a view of another value or held in another
        // box (copied at the end).
        for (int i = 0; i < p_.noutputs; i++) {
            const int v = p_.output_values[i];
            halide_buffer_t *user = args_[p_.ninputs + i];
            if (!values_[v] && !is_slice_view(v) && holds_box_of(user, v) &&
                coconet_rt::is_dense(user)) {
                values_[v] = user;
            }
        }
    }

    bool holds_box_of(const halide_buffer_t *b, int v) const {
        int32_t min[4], extent[4];
        box(v, min, extent);
        if (b->dimensions != info(v).dims) {
            return false;
        }
        for (int d = 0; d < b->dimensions; d++) {
            if (b->dim[d].min != min[d] || b->dim[d].extent != extent[d]) {
                return false;
            }
        }
        return true;
    }

    bool is_slice_view(int v) const {
        for (int s = 0; s < p_.nsteps; s++) {
            const coconet_aot_step &st = p_.steps[s];
            for (int o = 0; st.kind == COCONET_STEP_FUSED && o < st.pass.nout; o++) {
                if (st.slices[o] == v && st.pass.gathered[o]) {
                    return true;
                }
            }
        }
        return false;
    }

    OwnedBuffer &own() { return owned_.emplace_back(); }

    // The buffer of value v, allocated over this rank's box unless bound.
    halide_buffer_t *output_buffer(int v) {
        if (!values_[v]) {
            values_[v] = &allocate(v).buf;
        }
        return values_[v];
    }

    // The values fused passes reduce or gather get memory the backend's
    // passes use in place (MPI: window memory; a program's first call on a
    // communicator allocates it, collectively), where they are not the
    // caller's buffers.
    void place_pass_values() {
        const size_t from = comm_->places_values_from();
        if (from == SIZE_MAX) {
            return;
        }
        std::vector<int> values;
        for (int v = 0; v < p_.nvalues; v++) {
            // The size first: whether a value is in a pass takes longer to say.
            if (member_share_bytes(v) >= from && coconet_aot_value_in_pass(&p_, v)) {
                values.push_back(v);
            }
        }
        if (values.empty()) {
            return; // nor the key, on every call of a program with small values
        }
        std::vector<size_t> bytes;
        std::string key = value_memory_prefix(p_);
        for (int v : values) {
            bytes.push_back((size_t)box_of_value(v).count() * (info(v).type_bits / 8));
            key += info(v).name;
            for (int32_t e : info(v).extents) {
                key += "," + std::to_string(e);
            }
            key += " ";
        }
        std::vector<uint8_t *> memory;
        const int rc = comm_->value_memory(key, bytes, &memory);
        if (rc != COCONET_OK) {
            fail(rc, coconet_comm_last_error(comm_));
        }
        for (size_t i = 0; i < memory.size(); i++) {
            placed_[values[i]] = memory[i];
        }
    }

    // Value v's bytes over its group's members: the same on every rank, so
    // that every rank asks value_memory for the same values.
    size_t member_share_bytes(int v) const {
        const coconet_value_info &vi = info(v);
        size_t bytes = vi.type_bits / 8;
        for (int d = 0; d < vi.dims; d++) {
            bytes *= (size_t)vi.extents[d];
        }
        int first = 0, count = 1;
        if (vi.layout == COCONET_LAYOUT_SLICED) {
            coconet_group_range(size_, vi.nsplit, vi.group, &first, &count);
        }
        return bytes / (size_t)std::max(count, 1);
    }

    // A dense buffer over this rank's box of value v.
    OwnedBuffer &allocate(int v) {
        const coconet_value_info &vi = info(v);
        OwnedBuffer &b = own();
        auto placed = placed_.find(v);
        dense_box(b, halide_type_t((halide_type_code_t)vi.type_code, vi.type_bits),
                  box_of_value(v), placed == placed_.end() ? nullptr : placed->second);
        return b;
    }

    // b: a dense buffer of `type` over `box`, with host memory (`memory` when
    // given, of the box's size; else the communicator's pool's).
    void dense_box(OwnedBuffer &b, halide_type_t type, const Box &box,
                   uint8_t *memory = nullptr) const {
        b.buf.type = type;
        b.buf.dimensions = box.dims;
        b.buf.dim = b.dim;
        int64_t count = 1;
        for (int d = 0; d < box.dims; d++) {
            b.dim[d] = halide_dimension_t((int32_t)box.min[d], (int32_t)box.extent[d], (int32_t)count);
            count *= box.extent[d];
        }
        // Empty boxes get a valid host pointer too: Halide takes a buffer
        // without one for a bounds query.
        if (memory && count > 0) {
            b.buf.host = memory;
            return;
        }
        b.data = comm_->host_pool.take(std::max<int64_t>(count, 1) * type.bytes());
        b.buf.host = b.data.get();
    }

    halide_buffer_t *value(int v) const {
        if (!values_[v]) {
            fail(COCONET_ERR_INVALID, std::string("internal error: '") + info(v).name +
                                          "' is read before any step computed it");
        }
        return values_[v];
    }

    // Host code (passes, final copies) reads what a GPU pipeline left on the device.
    void to_host(halide_buffer_t *b) const {
        device_check(coconet_rt::device_to_host(*comm_, b), "copying a buffer to the host");
    }

    void free_device(halide_buffer_t *b) const { coconet_rt::device_free(*comm_, b); }

    void device_check(int status, const std::string &what) const {
        if (status != 0) {
            const std::string why = coconet_comm_last_error(comm_);
            fail(COCONET_ERR_BACKEND, what + " failed (Halide error " + std::to_string(status) +
                                          (why.empty() ? ")" : "): " + why));
        }
    }

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
    static void set_newest(halide_buffer_t *b, bool on_device) {
        on_device = on_device && b->device;
        b->set_host_dirty(!on_device);
        b->set_device_dirty(on_device);
    }

    // Halide copies an input to the device only when its host is dirty; host
    // data without a device allocation is always the newest.
    static void mark_host_newest(halide_buffer_t *b) {
        if (b->host && !b->device) {
            b->set_host_dirty(true);
        }
    }

    int kernel_sources(const coconet_aot_step &s) const {
        return coconet_aot_step_sources(comm_, &s);
    }

    static const coconet_aot_kernel *kernel_of(const coconet_aot_step &s, int nsrc) {
        for (int k = 0; k < s.nkernels; k++) {
            if (s.kernels[k].nsrc == nsrc) {
                return &s.kernels[k];
            }
        }
        return nullptr;
    }

    // The kernel of step s on the library path (COCONET_PATH_LIBRARY), or
    // null where the pass does not take it: its device kernel of one source
    // (none without a source), when the backend's library moves the device's
    // memory and the pass's element types. Every rank decides alike.
    const coconet_aot_kernel *library_kernel(const coconet_aot_step &s) const {
        const coconet_aot_kernel *k = kernel_of(s, s.src >= 0 ? 1 : 0);
        if (!k || !k->device_interface ||
            !coconet_aot_step_takes_library(comm_, &s, k->device_interface)) {
            return nullptr;
        }
        auto type_of = [&](int v) {
            return halide_type_t((halide_type_code_t)info(v).type_code, info(v).type_bits);
        };
        std::vector<halide_type_t> gathered;
        for (int o = 0; o < s.pass.nout; o++) {
            if (s.pass.gathered[o]) {
                gathered.push_back(type_of(s.pass_outs[o]));
            }
        }
        const halide_type_t reduced = s.src >= 0 ? type_of(s.src) : halide_type_t();
        if (!coconet_rt::pass_types_refused(*comm_->device_library(k->device_interface), s.pass.op,
                                            s.src >= 0 ? &reduced : nullptr, gathered)
                 .empty()) {
            return nullptr;
        }
        return k;
    }

    const coconet_aot_kernel *kernel_for(const coconet_aot_step &s) const {
        const coconet_aot_kernel *lib = library_kernel(s);
        return lib ? lib : kernel_of(s, kernel_sources(s));
    }

    // Every rank finds a missing kernel before any of them waits for a peer.
    void check_kernels() const {
        for (int s = 0; s < p_.nsteps; s++) {
            const coconet_aot_step &st = p_.steps[s];
            if (st.kind == COCONET_STEP_FUSED && !kernel_for(st)) {
                std::string built;
                for (int k = 0; k < st.nkernels; k++) {
                    built += (k ? ", " : "") + std::to_string(st.kernels[k].nsrc);
                }
                fail(COCONET_ERR_INVALID,
                     std::string("the fused pass of '") + st.pass.name + "' needs a kernel for " +
                         std::to_string(kernel_sources(st)) +
                         " sources on this communicator, and the library has kernels for " + built +
                         "; rebuild it with ranks=" + std::to_string(size_) +
                         " or a larger max_ranks");
            }
        }
    }

    // Runs step s's pipeline (its message, built only on failure, names it).
    void call(const coconet_function &f, coconet_rt::ScratchVector<void *> &argv, int s) const {
        const std::string earlier = coconet_comm_last_error(comm_);
        const int status = f.call(f.context, argv.data());
        if (status != 0) {
            std::string msg = coconet_comm_last_error(comm_);
            if (msg == earlier) {
                msg = "Halide pipeline " + std::to_string(s) + " failed with Halide error " +
                      std::to_string(status) + " (Halide printed the reason)";
            }
            fail(status, msg);
        }
    }

    // Halide step s; with `only_output`, into that buffer (a chunk of an
    // overlapped pass's source).
    void run_pipeline(int s, const coconet_aot_step &step, halide_buffer_t *only_output) {
        coconet_rt::Scratch<512> scratch; // this may be an overlapped producer's thread
        void *uc = comm_;
        coconet_rt::ScratchVector<void *> argv({&uc}, &scratch);
        argv.reserve(1 + step.nparams + step.nouts);
        InputCopies copies(&scratch);
        copies.inputs.reserve(step.nparams);
        for (int i = 0; i < step.nparams; i++) {
            mark_host_newest(value(step.params[i]));
            copies.add(value(step.params[i]));
            argv.push_back(value(step.params[i]));
        }
        for (int i = 0; i < step.nouts; i++) {
            argv.push_back(only_output ? only_output : output_buffer(step.outs[i]));
        }
        call(step.pipeline, argv, s);
        coconet_comm_count_bytes(comm_, COCONET_HOST_DEVICE, copies.bytes());
    }

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
                                halide_buffer_t *const *outs) {
        auto *k = static_cast<KernelContext *>(p);
        coconet_comm *comm = k->self->comm_;
        if (nsrc != k->kernel->nsrc) {
            const std::string msg = "the kernel was compiled for " +
                                    std::to_string(k->kernel->nsrc) +
                                    " sources, the runtime passed " + std::to_string(nsrc);
            coconet_comm_set_error(comm, msg.c_str());
            return COCONET_ERR_INVALID;
        }
        try {
            return k->on_device ? k->self->device_kernel_chunk(*k, srcs, outs)
                                : k->self->host_kernel_chunk(*k, srcs, outs);
        } catch (const AotError &e) {
            coconet_comm_set_error(comm, e.message.c_str());
            return e.code;
        }
    }

    // The kernel's arguments after the sources: the values it reads besides
    // (counted over the chunk), the rank, the size and the outputs.
    void push_kernel_tail(KernelContext &k, coconet_rt::ScratchVector<void *> &argv,
                          InputCopies &copies, halide_buffer_t *const *outs) {
        uint64_t extra_bytes = 0;
        const Box chunk = coconet_rt::box_of(outs[0]);
        for (halide_buffer_t *e : k.extras) {
            const Box mine = coconet_rt::box_of(e);
            const Box read = mine.dims == chunk.dims ? coconet_rt::intersect(mine, chunk) : mine;
            extra_bytes += (uint64_t)read.count() * e->type.bytes();
            mark_host_newest(e);
            copies.add(e);
            argv.push_back(e);
        }
        argv.push_back(&k.rank);
        argv.push_back(&k.size);
        for (int i = 0; i < k.nout; i++) {
            argv.push_back(outs[i]);
        }
        coconet_comm_count_bytes(comm_, COCONET_FUSED, extra_bytes);
    }

    int call_kernel(KernelContext &k, coconet_rt::ScratchVector<void *> &argv,
                    const InputCopies &copies) {
        const int status = k.kernel->function.call(k.kernel->function.context, argv.data());
        coconet_comm_count_bytes(comm_, COCONET_HOST_DEVICE, copies.bytes());
        if (status != 0 && std::strlen(coconet_comm_last_error(comm_)) == 0) {
            coconet_comm_set_error(comm_, "the fused kernel failed (Halide printed the reason)");
        }
        return status;
    }

    // The pass on host memory: a device kernel gets views of its own of the
    // sources (peers' buffers among them), so that its device allocations
    // are private, and its outputs come back to the host.
    int host_kernel_chunk(KernelContext &k, const halide_buffer_t *const *srcs,
                          halide_buffer_t *const *outs) {
        coconet_rt::Scratch<1024> scratch;
        void *uc = comm_;
        coconet_rt::ScratchVector<void *> argv({&uc}, &scratch);
        argv.reserve(1 + k.kernel->nsrc + k.extras.size() + 2 + k.nout);
        InputCopies copies(&scratch);
        const bool device = k.kernel->device != 0;
        std::pmr::deque<coconet_rt::BufferView> views(&scratch);
        for (int i = 0; i < k.kernel->nsrc; i++) {
            halide_buffer_t *src = const_cast<halide_buffer_t *>(srcs[i]);
            if (device) {
                views.emplace_back(srcs[i], coconet_rt::box_of(srcs[i]));
                src = &views.back().buf;
                mark_host_newest(src);
                copies.add(src);
            }
            argv.push_back(src);
        }
        push_kernel_tail(k, argv, copies, outs);
        int status = call_kernel(k, argv, copies);
        for (int i = 0; device && i < k.nout; i++) {
            if (status == 0) {
                status = coconet_rt::device_to_host(*comm_, outs[i]);
            }
            free_device(outs[i]);
        }
        for (coconet_rt::BufferView &v : views) {
            free_device(&v.buf);
        }
        return status;
    }

    // The pass on the device: the kernel reads the members' sources where
    // they are and writes the chunk into buffers of its own, copied into
    // this rank's outputs here and into peers' by gather_chunk.
    int device_kernel_chunk(KernelContext &k, const halide_buffer_t *const *srcs,
                            halide_buffer_t *const *outs) {
        coconet_rt::Scratch<512> scratch;
        void *uc = comm_;
        coconet_rt::ScratchVector<void *> argv({&uc}, &scratch);
        for (int i = 0; i < k.kernel->nsrc; i++) {
            argv.push_back(const_cast<halide_buffer_t *>(srcs[i]));
        }
        release_chunk_outs(k);
        std::vector<halide_buffer_t *> chunk_outs;
        for (int i = 0; i < k.nout; i++) {
            k.chunk_outs.push_back(std::make_unique<OwnedBuffer>());
            OwnedBuffer &b = *k.chunk_outs.back();
            dense_box(b, outs[i]->type, coconet_rt::box_of(outs[i]));
            device_check(coconet_rt::device_malloc(*comm_, &b.buf, k.kernel->device_interface),
                         "allocating a fused kernel's output on the device");
            chunk_outs.push_back(&b.buf);
        }
        InputCopies copies(&scratch);
        push_kernel_tail(k, argv, copies, chunk_outs.data());
        int status = call_kernel(k, argv, copies);
        for (int i = 0; status == 0 && i < k.nout; i++) {
            status = coconet_rt::device_copy_box(*comm_, chunk_outs[i], k.parents[i],
                                                 coconet_rt::box_of(outs[i]));
        }
        return status;
    }

    void release_chunk_outs(KernelContext &k) const {
        for (auto &b : k.chunk_outs) {
            free_device(&b->buf);
        }
        k.chunk_outs.clear();
    }

    // coconet_fused_call::gather on the device: the last chunk of output i
    // into a peer's output.
    static int gather_chunk(void *p, int32_t i, halide_buffer_t *peer, const int32_t *min,
                            const int32_t *extent) {
        auto *k = static_cast<KernelContext *>(p);
        Box box = coconet_rt::box_of(peer);
        for (int d = 0; d < box.dims; d++) {
            box.min[d] = min[d];
            box.extent[d] = extent[d];
        }
        return coconet_rt::device_copy_box(*k->self->comm_, &k->chunk_outs[i]->buf, peer, box);
    }

    // Whether step s's pass stays on the device: its kernel computes every
    // output there, and the ranks share the device and read each other's
    // memory (the threads backend on the direct path). Every rank decides
    // alike (the program, the backend and the path are the same on all).
    bool device_pass(const coconet_aot_step &st, const coconet_aot_kernel &kernel) const {
        return kernel.device_interface && std::strcmp(coconet_comm_backend(comm_), "threads") == 0 &&
               coconet_fused_resolve_path(comm_, st.pass.path) == COCONET_PATH_DIRECT;
    }

    void run_pass(int s) {
        const coconet_aot_step &st = p_.steps[s];
        const coconet_aot_kernel *on_library = library_kernel(st);
        const bool library = on_library != nullptr;
        const coconet_aot_kernel *kernel = library ? on_library : kernel_of(st, kernel_sources(st));
        KernelContext k{this,
                        kernel,
                        coconet_rt::ScratchVector<halide_buffer_t *>(&scratch_),
                        rank_,
                        size_,
                        st.pass.nout,
                        false,
                        coconet_rt::ScratchVector<halide_buffer_t *>(&scratch_),
                        {}};
        k.on_device = library || device_pass(st, *k.kernel);
        const halide_device_interface_t *iface = k.kernel->device_interface;
        for (int i = 0; i < st.nextras; i++) {
            k.extras.push_back(value(st.extras[i]));
            if (!k.on_device) {
                to_host(k.extras.back());
            }
        }
        coconet_rt::ScratchVector<halide_buffer_t *> outs(&scratch_);
        for (int o = 0; o < st.pass.nout; o++) {
            outs.push_back(output_buffer(st.pass_outs[o]));
            if (k.on_device) {
                // Peers write into it from the device before this rank reads it.
                device_check(coconet_rt::device_malloc(*comm_, outs.back(), iface),
                             "allocating a fused pass's output on the device");
            } else {
                to_host(outs.back());
            }
        }
        coconet_fused_call c = st.pass;
        c.outs = outs.data();
        c.kernel = run_kernel_chunk;
        c.kernel_context = &k;
        if (k.on_device) {
            k.parents = outs;
            // The library gathers the outputs itself; ranks sharing the
            // device copy each chunk into their peers'.
            if (library) {
                c.path = COCONET_PATH_LIBRARY;
            } else {
                c.gather = gather_chunk;
            }
            // Chunks keep a CPU's cache warm; a device takes the slice at once.
            c.chunk_elements = INT64_MAX;
        }
        if (st.chunks > 0) {
            run_overlapped(s, c, k.on_device ? iface : nullptr);
        } else {
            if (st.src >= 0) {
                halide_buffer_t *src = value(st.src);
                if (k.on_device) {
                    device_check(coconet_rt::host_to_device(*comm_, src, iface),
                                 "copying a fused pass's source to the device");
                } else {
                    to_host(src);
                }
                c.src = src;
            }
            const int rc = coconet_fused_reduce_scatter(comm_, &c);
            release_chunk_outs(k);
            if (rc != COCONET_OK) {
                fail(rc, coconet_comm_last_error(comm_));
            }
        }
        for (halide_buffer_t *b : outs) {
            set_newest(b, k.on_device);
        }
        // A slice read after the pass is the rank's part of the gathered value.
        for (int o = 0; o < st.pass.nout; o++) {
            if (st.pass.gathered[o] && st.slices[o] >= 0) {
                values_[st.slices[o]] =
                    k.on_device ? device_slice(outs[o], st.slices[o]) : host_slice(outs[o], st.slices[o]);
            }
        }
    }

    Box box_of_value(int v) const {
        int32_t min[4], extent[4];
        box(v, min, extent);
        Box b;
        b.dims = info(v).dims;
        for (int d = 0; d < b.dims; d++) {
            b.min[d] = min[d];
            b.extent[d] = extent[d];
        }
        return b;
    }

    halide_buffer_t *host_slice(halide_buffer_t *gathered, int v) {
        OwnedBuffer &view = own();
        coconet_rt::BufferView b(gathered, box_of_value(v));
        view.buf = b.buf;
        std::copy(b.dims, b.dims + 4, view.dim);
        view.buf.dim = view.dim;
        return &view.buf;
    }

    // A copy on the device (OpenCL cannot hand a kernel an input at an
    // arbitrary offset of another buffer).
    halide_buffer_t *device_slice(halide_buffer_t *gathered, int v) {
        halide_buffer_t *b = &allocate(v).buf;
        device_check(coconet_rt::device_malloc(*comm_, b, gathered->device_interface),
                     "allocating a slice on the device");
        device_check(coconet_rt::device_copy_box(*comm_, gathered, b, coconet_rt::box_of(b)),
                     "copying a slice on the device");
        set_newest(b, true);
        return b;
    }

    // Runs step s's pipeline into [min, min + extent) of `source` along
    // `dim`; a rank whose box of the source is empty computes nothing. With
    // `device`, the source stays on the device: the chunk is computed into a
    // device buffer of its own (no kernel output at an unaligned OpenCL
    // offset) and copied into the source there.
    void produce_chunk(int s, halide_buffer_t *source, int dim, int min, int extent,
                       const halide_device_interface_t *device) {
        Box b = coconet_rt::box_of(source);
        if (b.count() == 0) {
            return;
        }
        b.min[dim] = min;
        b.extent[dim] = extent;
        if (!device) {
            coconet_rt::BufferView chunk(source, b);
            run_pipeline(s, p_.steps[s], &chunk.buf);
            // A chunk of an overlapped source is moved on the host.
            to_host(&chunk.buf);
            free_device(&chunk.buf);
            return;
        }
        OwnedBuffer chunk;
        dense_box(chunk, source->type, b);
        int rc = coconet_rt::device_malloc(*comm_, &chunk.buf, device);
        if (rc == 0) {
            run_pipeline(s, p_.steps[s], &chunk.buf);
            // A producer computing its output on the host leaves it there.
            rc = coconet_rt::host_to_device(*comm_, &chunk.buf, device);
        }
        if (rc == 0) {
            rc = coconet_rt::device_copy_box(*comm_, &chunk.buf, source, b);
        }
        free_device(&chunk.buf);
        device_check(rc, "computing a chunk of an overlapped source on the device");
    }

    // How an overlapped step cuts its value of extent n along `dim` into
    // `chunks`: when that is the dimension the value is sliced along
    // (`sliced`) among `group`, piece j of every member's slice, else ranges.
    static coconet_rt::Chunking chunking(int chunks, int dim, int sliced, int64_t n,
                                         const coconet_rt::Group &group) {
        return coconet_rt::Chunking{n, chunks, dim == sliced ? group.size : 0};
    }

    // "<program> step <s> (<collective or pass>)": how reports name step s.
    std::string step_key(int s) const {
        const coconet_aot_step &st = p_.steps[s];
        const char *what = st.kind == COCONET_STEP_FUSED ? st.pass.name : st.collective_name;
        return std::string(p_.name) + " step " + std::to_string(s) + " (" + (what ? what : "") +
               ")";
    }

    // Runs overlapped step s, run(chunks) returning an error code, in the
    // tile count its tuner on this communicator gives (OverlapTuning.h; with
    // `direct`, kDirect among them), timing the call while it tunes.
    template<typename Run>
    void run_tuned(int s, bool direct, Run &&run) {
        const coconet_aot_step &st = p_.steps[s];
        const bool tune = coconet_rt::overlap_tuning_enabled();
        coconet_comm::StepTuner &found = comm_->overlap_tuner_of_step[&st];
        if (found.step != s || found.program != p_.name) {
            // As named (programs of one name share their steps' tuners).
            auto it = comm_->overlap_tuners.try_emplace(step_key(s), st.chunks, tune, direct).first;
            found = {p_.name, s, &it->second};
        }
        // Whether `direct` may run changes with where the step runs
        // (COCONET_DEVICE_COLLECTIVES, programs sharing the name), and
        // tuning may be turned off between calls (COCONET_OVERLAP_TUNING).
        coconet_rt::OverlapTuner *tuner = found.tuner;
        if (tuner->scheduled() != st.chunks || tuner->direct() != (direct && tune) ||
            (!tune && !tuner->settled())) {
            *tuner = coconet_rt::OverlapTuner(st.chunks, tune, direct);
        }
        // Timed only while it tunes, from a start the ranks share: timed from
        // its own arrival, a rank that arrives last finds its peers waiting
        // and measures its step short, which favoured counts that compute
        // before they meet where ranks outnumber cores (docs/performance.md).
        // The same all_reduce agrees on the call before: its slowest rank's
        // time, since ranks that leave a step early do not make it shorter.
        const bool tuning = !tuner->settled();
        auto agree = [&] { tuner->agree(slowest_rank(tuner->unagreed(), step_key(s))); };
        if (tuner->timing()) {
            agree();
        }
        const auto start =
            tuning ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
        const int rc = run(tuner->chunks());
        if (rc != COCONET_OK) {
            fail(rc, coconet_comm_last_error(comm_));
        }
        if (tuning) {
            const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
            if (tuner->record(took.count())) {
                agree();
            }
        }
    }

    // The maximum of `seconds` over the world's ranks.
    double slowest_rank(double seconds, const std::string &what) {
        halide_dimension_t d(0, 1, 1);
        halide_buffer_t in{};
        in.host = reinterpret_cast<uint8_t *>(&seconds);
        in.type = halide_type_t(halide_type_float, 64);
        in.dimensions = 1;
        in.dim = &d;
        double slowest = 0;
        halide_buffer_t res = in;
        res.host = reinterpret_cast<uint8_t *>(&slowest);
        coconet_collective_desc desc;
        coconet_collective_desc_init(&desc, COCONET_ALL_REDUCE);
        desc.op = COCONET_MAX;
        desc.dims = 1;
        desc.extents[0] = 1;
        const std::string name = "the tile-count tuning of " + what;
        if (coconet_collective_call(comm_, name.c_str(), &desc, &in, &res) != COCONET_OK) {
            fail(coconet_comm_last_error_code(comm_), coconet_comm_last_error(comm_));
        }
        return slowest;
    }

    // This rank's part of chunk j along `dim` of a value whose box it holds
    // in `b`: the range, or its piece of its slice.
    static Box own_part(const coconet_rt::Chunking &ch, const coconet_rt::Group &group, int rank,
                        Box b, int dim, int j) {
        const coconet_rt::Range r = ch.slices > 0 ? ch.piece(j, group.local(rank)) : ch.parts(j)[0];
        b.min[dim] = r.begin;
        b.extent[dim] = r.size();
        return b;
    }

    // The producer computes chunk j of the source (on its own thread for all
    // but the first) while the pass reduces chunk j - 1.
    void run_overlapped(int s, coconet_fused_call &c, const halide_device_interface_t *device) {
        const coconet_aot_step &st = p_.steps[s];
        halide_buffer_t *source = output_buffer(st.src);
        if (device) {
            device_check(coconet_rt::device_malloc(*comm_, source, device),
                         "allocating an overlapped source on the device");
            set_newest(source, true);
        }
        c.src = source;
        const int dim = st.pass.range_dim;
        run_tuned(s, false, [&](int chunks) {
            const coconet_rt::Chunking ch =
                chunking(chunks, dim, st.pass.dim, st.pass.n[dim],
                         coconet_rt::group_of(size_, c.nsplit, c.group));
            auto produce = [&](int j) {
                for (const coconet_rt::Range &r : ch.parts(j)) {
                    produce_chunk(s, source, dim, (int)r.begin, (int)r.size(), device);
                }
            };
            int rc = COCONET_OK;
            auto reduce = [&](int j) {
                c.ranged = 1;
                const coconet_rt::Range r =
                    ch.parts(j).empty() ? coconet_rt::Range{} : ch.parts(j)[0];
                c.range_min = (int32_t)r.begin;
                c.range_extent = (int32_t)r.size();
                c.pieces = ch.chunks;
                c.piece = j;
                rc = coconet_fused_reduce_scatter(comm_, &c);
                return rc == COCONET_OK;
            };
            coconet_rt::run_steps(ch.count(), produce, reduce);
            return rc;
        });
    }

    // An unfused collective overlapped with its producer: chunk j's
    // collective on this thread while the producer computes chunk j + 1.
    void run_collective(int s) {
        const coconet_aot_step &st = p_.steps[s];
        coconet_collective_desc desc = st.collective;
        halide_buffer_t *source = output_buffer(st.src);
        halide_buffer_t *dst = output_buffer(st.dst);
        // Among ranks sharing a device, chunks are produced and moved there
        // (the world's collectives, as the compiler's plan says).
        const halide_device_interface_t *device =
            desc.nsplit == 1 && coconet_rt::runs_on_device(*comm_, desc.kind, desc.op, dst->type)
                ? p_.device_interface
                : nullptr;
        if (device) {
            desc.device = 1;
            // The chunks write every element of both, there.
            for (halide_buffer_t *b : {source, dst}) {
                device_check(coconet_rt::device_malloc(*comm_, b, device),
                             "allocating an overlapped collective's value on the device");
                set_newest(b, true);
            }
        } else {
            to_host(dst);
        }
        const int dim = desc.chunk_dim;
        const coconet_rt::Group group = coconet_rt::group_of(size_, desc.nsplit, desc.group);
        const bool direct = !device && desc.kind == COCONET_ALL_TO_ALL &&
                            comm_->writes_peer_outputs() && !read_elsewhere(st.src, s);
        run_tuned(s, direct, [&](int chunks) {
            if (chunks == coconet_rt::OverlapTuner::kDirect) {
                return run_produced(s, dst);
            }
            const coconet_rt::Chunking ch =
                chunking(chunks, dim, desc.dim, desc.extents[dim], group);
            auto produce = [&](int j) {
                for (const coconet_rt::Range &r : ch.parts(j)) {
                    produce_chunk(s, source, dim, (int)r.begin, (int)r.size(), device);
                }
            };
            int rc = COCONET_OK;
            auto move = [&](int j) {
                // A piece of every slice reads the source wherever the pieces are.
                std::unique_ptr<DeviceView> in;
                if (ch.slices == 0) {
                    in = std::make_unique<DeviceView>(
                        *this, source,
                        own_part(ch, group, rank_, coconet_rt::box_of(source), dim, j), device);
                }
                DeviceView out(*this, dst,
                               own_part(ch, group, rank_, coconet_rt::box_of(dst), dim, j),
                               device);
                desc.chunks = ch.chunks;
                desc.chunk_index = j;
                rc = coconet_collective_call(comm_, st.collective_name, &desc,
                                             in ? &in->view.buf : source, &out.view.buf);
                return rc == COCONET_OK;
            };
            coconet_rt::run_steps(ch.count(), produce, move);
            return rc;
        });
        set_newest(dst, device != nullptr);
    }

    // Whether a step other than s (a fused pass, which `overlap` does not
    // refuse as a reader of its producer) or the program's outputs read v.
    bool read_elsewhere(int v, int s) const {
        for (int t = 0; t < p_.nsteps; t++) {
            const coconet_aot_step &st = p_.steps[t];
            const bool reads =
                std::find(st.params, st.params + st.nparams, v) != st.params + st.nparams ||
                std::find(st.extras, st.extras + st.nextras, v) != st.extras + st.nextras ||
                st.src == v;
            if (t != s && reads) {
                return true;
            }
        }
        return std::find(p_.output_values, p_.output_values + p_.noutputs, v) !=
               p_.output_values + p_.noutputs;
    }

    // Overlapped all_to_all step s, direct (ranks reach each other's
    // memory): the producer computes each member's part of the source
    // straight into that member's output `dst` (what the fused operators'
    // kernels do, sending each tile as it is done), so the source is not
    // written and nothing is copied; taken only where nothing else reads the
    // source (read_elsewhere).
    int run_produced(int s, halide_buffer_t *dst) {
        const coconet_aot_step &st = p_.steps[s];
        OwnedBuffer source; // the source's box and type, no memory
        source.buf.type = dst->type;
        source.buf.dimensions = info(st.src).dims;
        source.buf.dim = source.dim;
        coconet_rt::set_box(&source.buf, box_of_value(st.src));
        auto produce = [&](halide_buffer_t *view) -> int {
            try {
                run_pipeline(s, st, view);
                to_host(view);
                free_device(view);
                return COCONET_OK;
            } catch (const AotError &e) {
                coconet_comm_set_error(comm_, e.message.c_str());
                return e.code;
            } catch (const std::exception &e) {
                // Peers are writing into this rank's output: it must still
                // meet them before it returns.
                coconet_comm_set_error(comm_, e.what());
                return COCONET_ERR_INTERNAL;
            }
        };
        return coconet_rt::produced_all_to_all(comm_, st.collective_name, st.collective,
                                               &source.buf, dst, produce);
    }

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

    // Outputs return where the caller keeps them: a caller's buffer with a
    // device allocation gets the value on the device (left device-dirty,
    // no host copy), any other on the host.
    void finish_outputs(halide_buffer_t *const *args) {
        for (int i = 0; i < p_.noutputs; i++) {
            halide_buffer_t *from = value(p_.output_values[i]);
            halide_buffer_t *to = args_[p_.ninputs + i];
            halide_buffer_t *caller = args[p_.ninputs + i];
            const bool on_device = caller_device_[i] && coconet_rt::device_newest(from);
            if (on_device && from != to) {
                device_check(coconet_rt::device_copy_box(*comm_, from, to, coconet_rt::box_of(to)),
                             "copying an output on the device");
                set_newest(to, true);
            } else if (!on_device) {
                to_host(from);
                if (from != to) {
                    // Every element is written: the device copy, if any, is stale.
                    coconet_rt::copy_box(from, to, coconet_rt::box_of(to));
                }
                set_newest(to, false);
                if (caller_device_[i]) {
                    // The value ended on the host (a collective wrote it last).
                    device_check(coconet_rt::host_to_device(*comm_, to, to->device_interface),
                                 "copying an output to the caller's device buffer");
                    set_newest(to, true);
                }
            }
            // `to` may be a view of the caller's buffer (the same memory).
            if (caller != to) {
                caller->set_host_dirty(to->host_dirty());
                caller->set_device_dirty(to->device_dirty());
            }
        }
    }

    // Before the members it gives memory to (destroyed after them).
    coconet_rt::Scratch<4096> scratch_;
    coconet_comm *comm_;
    const coconet_aot_program &p_;
    int rank_, size_;
    coconet_rt::ScratchVector<halide_buffer_t *> values_;
    coconet_rt::ScratchVector<halide_buffer_t *> args_;
    // Per output: the caller's buffer has a device allocation.
    coconet_rt::ScratchVector<bool> caller_device_;
    std::pmr::deque<OwnedBuffer> owned_; // stays where it is as it grows
    std::map<int, uint8_t *> placed_; // values in memory from place_pass_values
    int (*outer_context_)(coconet_comm *, coconet_device_fn, void *);
    const coconet_aot_program *outer_running_;
};

} // namespace

extern "C" {

void coconet_value_box(const coconet_value_info *v, int rank, int size, int32_t *min,
                       int32_t *extent) {
    int first = 0, count = 0;
    coconet_group_range(size, v->nsplit, v->group, &first, &count);
    const bool member = rank >= first && rank < first + count;
    for (int d = 0; d < v->dims; d++) {
        int64_t lo = 0, hi = v->extents[d];
        if (!member) {
            hi = 0;
        } else if (v->layout == COCONET_LAYOUT_SLICED && d == v->dim) {
            coconet_slice_range(v->extents[d], count, rank - first, &lo, &hi);
        }
        min[d] = (int32_t)lo;
        extent[d] = (int32_t)(hi - lo);
    }
}

int32_t coconet_aot_step_sources(const coconet_comm *comm, const coconet_aot_step *step) {
    if (step->src < 0) {
        return 0;
    }
    int first = 0, count = 0;
    coconet_group_range(coconet_comm_size(comm), step->pass.nsplit, step->pass.group, &first,
                        &count);
    return coconet_fused_sources(comm, step->pass.path, count);
}

int coconet_aot_step_takes_library(const coconet_comm *comm, const coconet_aot_step *step,
                                   const halide_device_interface_t *device) {
    // The comm is not changed: asking for the library only looks it up.
    auto *c = const_cast<coconet_comm *>(comm);
    return device && step->pass.nsplit == 1 && c->device_library(device) ? 1 : 0;
}

int coconet_aot_value_in_pass(const coconet_aot_program *p, int v) {
    for (int s = 0; p && v >= 0 && v < p->nvalues && s < p->nsteps; s++) {
        const coconet_aot_step &st = p->steps[s];
        for (int o = -1; st.kind == COCONET_STEP_FUSED && o < st.pass.nout; o++) {
            if (v == (o < 0 ? st.src : st.pass.gathered[o] ? st.pass_outs[o] : -1)) {
                return 1;
            }
        }
    }
    return 0;
}

int coconet_arg_box(const coconet_aot_program *p, int arg, int rank, int size, int32_t *min,
                    int32_t *extent) {
    std::string problem;
    if (!p || !min || !extent) {
        problem = std::string(!p ? "the program table" : !min ? "min" : "extent") + " is NULL";
    } else if (arg < 0 || arg >= p->ninputs + p->noutputs) {
        problem = std::string(p->name) + " has arguments 0.." +
                  std::to_string(p->ninputs + p->noutputs - 1) + ", not " + std::to_string(arg);
    } else if (size < 1 || rank < 0 || rank >= size) {
        problem = "rank " + std::to_string(rank) + " of " + std::to_string(size) +
                  " is not a rank of a world (0 <= rank < size)";
    }
    if (!problem.empty()) {
        return coconet_rt::fail(nullptr, COCONET_ERR_INVALID, "coconet_arg_box: " + problem);
    }
    coconet_value_box(&p->values[p->args[arg]], rank, size, min, extent);
    return COCONET_OK;
}

int coconet_aot_release(coconet_comm *comm, const coconet_aot_program *p) {
    if (!p || !coconet_rt::is_live_comm(comm)) {
        return coconet_rt::fail(comm, COCONET_ERR_INVALID,
                                std::string("coconet_aot_release: ") +
                                    (p ? "not a live communicator" : "the program table is NULL"));
    }
    comm->host_pool.release();
    return comm->release_value_memory(value_memory_prefix(*p));
}

int coconet_aot_run(coconet_comm *comm, const coconet_aot_program *p,
                    halide_buffer_t *const *args) {
    // Without a live communicator the message goes to coconet_comm_last_error(NULL).
    if (!p) {
        return coconet_rt::fail(comm, COCONET_ERR_INVALID,
                                "coconet_aot_run: the program table is NULL");
    }
    if (!comm) {
        return coconet_rt::fail(
            comm, COCONET_ERR_INVALID,
            std::string(p->name) +
                ": the communicator is NULL. Create one with coconet_threads_world_comm()" +
                (coconet_mpi_available()
                     ? " or coconet_mpi_comm_create()"
                     : " (this runtime was built without MPI, so there is no MPI backend)"));
    }
    if (!coconet_rt::is_live_comm(comm)) {
        std::ostringstream pointer;
        pointer << (const void *)comm;
        return coconet_rt::fail(comm, COCONET_ERR_INVALID,
                                std::string(p->name) + ": the communicator " + pointer.str() +
                                    " does not exist (destroyed, or not a communicator)");
    }
    if (p->version != COCONET_AOT_VERSION || p->size != sizeof(coconet_aot_program)) {
        return comm->fail(COCONET_ERR_INVALID,
                          std::string("coconet_aot_run: the library's table has version ") +
                              std::to_string(p->version) + " (" + std::to_string(p->size) +
                              " bytes), this runtime reads version " +
                              std::to_string(COCONET_AOT_VERSION) + " (" +
                              std::to_string(sizeof(coconet_aot_program)) +
                              " bytes); rebuild the library with this CoCoNet's generator driver");
    }
    if (!args) {
        return comm->fail(COCONET_ERR_INVALID,
                          std::string(p->name) + ": the argument array is NULL");
    }
    // A failing rank aborts the communicator, so that peers waiting for it
    // fail at once (threads) or at their next call (MPI) instead of at the
    // timeout; the message stays this rank's.
    auto failed = [&](int code, const std::string &message) {
        coconet_comm_abort(comm, message.c_str());
        comm->set_error(code, message);
        return code;
    };
    try {
        const coconet_rt::EnvScope switches; // read as they are now, once
        Executor(comm, *p).run(args);
        return COCONET_OK;
    } catch (const AotError &e) {
        return failed(e.code, e.message);
    } catch (const std::exception &e) {
        return failed(COCONET_ERR_INVALID, std::string(p->name) + ": " + e.what());
    }
}

} // extern "C"
