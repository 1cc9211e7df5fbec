// The executor's call on one rank: the checks before any step, the lookup
// of kernels, and Halide steps (see Executor.h).
#include "executor/Executor.h"

#include <atomic>
#include <cctype>
#include <cstring>
#include <mutex>
#include <set>

#include "core/Env.h"

namespace {

// What a library's Halide runtime had before ours (Halide's defaults, or the
// application's): they serve the pipelines of others.
std::atomic<halide_error_handler_t> previous_handler{nullptr};
std::atomic<halide_malloc_t> previous_malloc{nullptr};
std::atomic<halide_free_t> previous_free{nullptr};

// Halide names the Funcs it lowers after the user's, made unique with `$`
// and a number (`g$1`): messages name them as the user wrote them.
std::string user_names(const std::string &m) {
    std::string out;
    for (size_t i = 0; i < m.size(); i++) {
        if (m[i] == '$' && i > 0 && (std::isalnum((unsigned char)m[i - 1]) || m[i - 1] == '_') &&
            i + 1 < m.size() && std::isdigit((unsigned char)m[i + 1])) {
            while (i + 1 < m.size() && std::isdigit((unsigned char)m[i + 1])) {
                i++;
            }
            continue;
        }
        out += m[i];
    }
    return out;
}

// A pipeline's error on a rank's communicator becomes the rank's error (the
// pipeline then returns its code to the executor) instead of Halide's
// default, which aborts the process. An extern stage of ours that failed has
// recorded a better message already.
void rank_error_handler(void *user_context, const char *msg) {
    if (coconet_rt::is_live_comm(user_context)) {
        if (!std::strstr(msg, "external stage coconet_")) {
            auto *comm = static_cast<coconet_comm *>(user_context);
            std::string m = user_names(msg);
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

// A pipeline on a rank's communicator allocates from the rank's pool.
void *rank_malloc(void *user_context, size_t bytes) {
    if (coconet_rt::is_live_comm(user_context)) {
        return coconet_rt::pipeline_malloc(static_cast<coconet_comm *>(user_context), bytes);
    }
    const halide_malloc_t m = previous_malloc.load();
    return m ? m(user_context, bytes) : nullptr;
}

void rank_free(void *user_context, void *p) {
    if (coconet_rt::is_live_comm(user_context)) {
        coconet_rt::pipeline_free(static_cast<coconet_comm *>(user_context), p);
    } else if (const halide_free_t f = previous_free.load()) {
        f(user_context, p);
    }
}

// Installs the handlers above in the program's Halide runtime, once.
void chain_runtime_handlers(const coconet_aot_program &p) {
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
        const halide_free_t old_free = p.set_custom_free(rank_free);
        if (old_free != rank_free) {
            previous_free = old_free;
        }
        const halide_malloc_t old_malloc = p.set_custom_malloc(rank_malloc);
        if (old_malloc != rank_malloc) {
            previous_malloc = old_malloc;
        }
    }
}

} // namespace

namespace coconet_rt {

Executor::Executor(coconet_comm *comm, const SizedProgram &sized)
    : comm_(comm), sized_(sized), p_(sized.program()), rank_(coconet_comm_rank(comm)),
      size_(coconet_comm_size(comm)), values_(p_.nvalues, nullptr, &scratch_), args_(&scratch_),
      caller_device_(&scratch_), caller_had_device_(&scratch_), owned_(&scratch_),
      outer_context_(comm->with_device_context), outer_running_(comm->running) {
    // Collectives the pipelines call copy device data with it too, and
    // reduce on the device with its combiners.
    comm->with_device_context = p_.with_device_context;
    comm->running = &p_;
    // The pipelines allocate from its pool (pipeline_malloc).
    executor_state(comm);
}

Executor::~Executor() {
    for (OwnedBuffer &b : owned_) {
        if (!b.borrowed_device) {
            free_device(&b.buf);
        }
    }
    give_back_caller_buffers();
    comm_->with_device_context = outer_context_;
    comm_->running = outer_running_;
}

void Executor::run(halide_buffer_t *const *args) {
    chain_runtime_handlers(p_);
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

void fail_call(const coconet_comm *comm, const coconet_aot_program &p, int code,
               const std::string &what) {
    throw AotError{code, std::string(p.name) + ", rank " + std::to_string(coconet_comm_rank(comm)) +
                             " of " + std::to_string(coconet_comm_size(comm)) + " (" +
                             coconet_comm_backend(comm) + "): " + what};
}

void Executor::fail(int code, const std::string &what) const {
    fail_call(comm_, p_, code, what);
}

bool Executor::is_device_stage(int v) const {
    for (int k = 0; k < p_.ndevice_stages; k++) {
        if (std::strcmp(p_.device_stages[k].name, info(v).name) == 0) {
            return true;
        }
    }
    return false;
}

void Executor::check_device_slices() const {
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
                     (count == size_ ? std::to_string(count) + " ranks"
                                     : "the " + std::to_string(count) + " ranks of its group (" +
                                           std::to_string(first) + " to " +
                                           std::to_string(first + count - 1) + ")") +
                     ", which leaves rank " + std::to_string(first + count - 1) +
                     (stage ? " none; it is a collective's result on the device"
                            : " none; a GPU kernel computes or reads it") +
                     ", and needs a non-empty slice on every rank (Halide's GPU runtimes "
                     "abort on an empty device buffer): use fewer ranks");
        }
    }
}

void Executor::check_world() const {
    if (p_.ranks > 0 && size_ != p_.ranks) {
        fail(COCONET_ERR_INVALID,
             "the library was built for " + std::to_string(p_.ranks) +
                 " ranks (generator parameter ranks=" + std::to_string(p_.ranks) +
                 "), but the communicator has " + std::to_string(size_) +
                 "; rebuild it with ranks=" + std::to_string(size_) + " or ranks=0 (any count)");
    }
}

int Executor::kernel_sources(const coconet_aot_step &s) const {
    return coconet_aot_step_sources(comm_, &s);
}

const coconet_aot_kernel *Executor::kernel_of(const coconet_aot_step &s, int nsrc) {
    for (int k = 0; k < s.nkernels; k++) {
        if (s.kernels[k].nsrc == nsrc) {
            return &s.kernels[k];
        }
    }
    return nullptr;
}

const coconet_aot_kernel *Executor::library_kernel(const coconet_aot_step &s) const {
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

const coconet_aot_kernel *Executor::kernel_for(const coconet_aot_step &s) const {
    const coconet_aot_kernel *lib = library_kernel(s);
    return lib ? lib : kernel_of(s, kernel_sources(s));
}

void Executor::check_kernels() const {
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
                     "; rebuild it with ranks=" + std::to_string(size_) + " or a larger max_ranks");
        }
    }
}

void Executor::call(const coconet_function &f, coconet_rt::ScratchVector<void *> &argv,
                    int s) const {
    const std::string earlier = coconet_comm_last_error(comm_);
    const int status = f.call(f.context, argv.data());
    if (status != 0) {
        std::string msg = coconet_comm_last_error(comm_);
        if (msg == earlier) {
            msg = "Halide pipeline " + std::to_string(s) + " failed with Halide error " +
                  std::to_string(status) + " (Halide printed the reason)";
        }
        // An extern stage of ours returns a COCONET_ERR_* code; Halide's own
        // codes are mapped to them, as coconet_comm_last_error_code promises.
        const bool ours = status <= COCONET_ERR_TIMEOUT && status >= COCONET_ERR_INTERNAL;
        if (!ours) {
            msg = user_names(msg);
        }
        const bool too_large = status == halide_error_code_buffer_allocation_too_large ||
                               status == halide_error_code_buffer_extents_too_large;
        if (too_large) {
            msg += " (a Halide buffer holds at most 2^31 - 1 bytes: slice the value over more "
                   "ranks, or make it smaller)";
        }
        fail(ours ? status : too_large ? COCONET_ERR_INVALID : COCONET_ERR_BACKEND, msg);
    }
}

void Executor::run_pipeline(int s, const coconet_aot_step &step, halide_buffer_t *only_output) {
    coconet_rt::Scratch<512> scratch; // this may be an overlapped producer's thread
    void *uc = comm_;
    coconet_rt::ScratchVector<void *> argv({&uc}, &scratch);
    argv.reserve(1 + step.nparams + sized_.nsizes() + step.nouts);
    InputCopies copies(&scratch);
    copies.inputs.reserve(step.nparams);
    for (int i = 0; i < step.nparams; i++) {
        mark_host_newest(value(step.params[i]));
        copies.add(value(step.params[i]));
        argv.push_back(value(step.params[i]));
    }
    push_sizes(argv);
    for (int i = 0; i < step.nouts; i++) {
        halide_buffer_t *b = only_output ? only_output : output_buffer(step.outs[i]);
        if (!only_output && !b->device && is_device_stage(step.outs[i])) {
            // Halide launches the step's kernels that read a collective's
            // result the step also returns without copying that result to
            // the device: the collective must write it there.
            device_check(coconet_rt::device_malloc(*comm_, b, p_.device_interface),
                         std::string("allocating ") + info(step.outs[i]).name + " on the device");
        }
        argv.push_back(b);
    }
    call(step.pipeline, argv, s);
    coconet_comm_count_bytes(comm_, COCONET_HOST_DEVICE, copies.bytes());
}

} // namespace coconet_rt
