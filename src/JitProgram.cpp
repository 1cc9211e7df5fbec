#include "JitProgram.h"

#include <algorithm>

#include "Compile.h"
#include "Error.h"
#include "Lower.h"
#include "core/Box.h"
#include "executor/ExecutorState.h"

namespace coconet {

namespace {

// Halide passes JIT-compiled code its JITUserContext as user_context; ours
// carries the rank's communicator and collects Halide's error messages.
struct RankContext : Halide::JITUserContext {
    coconet_comm *comm = nullptr;
    std::string error;
};

coconet_comm *comm_of(void *uc) {
    return static_cast<RankContext *>(uc)->comm;
}

void record_error(Halide::JITUserContext *uc, const char *msg) {
    static_cast<RankContext *>(uc)->error += msg;
}

// The pipeline's memory comes from the rank's pool, kept between calls.
void *rank_malloc(Halide::JITUserContext *uc, size_t bytes) {
    return coconet_rt::pipeline_malloc(comm_of(uc), bytes);
}

void rank_free(Halide::JITUserContext *uc, void *p) {
    coconet_rt::pipeline_free(comm_of(uc), p);
}

int32_t jit_rank(void *uc) {
    return coconet_rank(comm_of(uc));
}

int32_t jit_size(void *uc) {
    return coconet_size(comm_of(uc));
}

int32_t jit_rank_threads(void *uc) {
    return coconet_rank_threads(comm_of(uc));
}

// The collective's runtime copies device buffers through the executor's
// with_device_context, so the JIT's entry only unwraps the communicator.
int jit_collective(void *uc, const char *name, const halide_buffer_t *desc, int32_t e0, int32_t e1,
                   int32_t e2, int32_t e3, halide_buffer_t *in, halide_buffer_t *out) {
    return coconet_collective(comm_of(uc), name, desc, e0, e1, e2, e3, in, out);
}

int jit_gemm(void *uc, const char *name, const halide_buffer_t *desc,
             const halide_device_interface_t *device, int32_t computes, int32_t k_min,
             int32_t k_extent, halide_buffer_t *a, halide_buffer_t *b, halide_buffer_t *out) {
    return coconet_gemm(comm_of(uc), name, desc, device, computes, k_min, k_extent, a, b, out);
}

// Device calls on a JIT program's buffers take a JIT user context (Halide's
// JIT runtime reads its handlers from it), which collects Halide's message.
int jit_with_device_context(coconet_comm *comm, coconet_device_fn fn, void *arg) {
    RankContext ctx;
    ctx.comm = comm;
    ctx.handlers.custom_error = record_error;
    const int status = fn(&ctx, arg);
    if (status != 0 && !ctx.error.empty()) {
        coconet_comm_set_error(comm, ctx.error.c_str());
    }
    return status;
}

// Whether `b` is what allocate_box makes for this box (the type, the box, host
// memory, dense from dimension 0): a caller's output buffer kept for the next
// call.
bool holds_box(const Halide::Buffer<> &b, Halide::Type type, int dims, const int32_t *min,
               const int32_t *extent) {
    if (!b.defined() || b.type() != type || b.dimensions() != dims || !b.data()) {
        return false;
    }
    int64_t stride = 1;
    for (int d = 0; d < b.dimensions(); d++) {
        if (b.dim(d).min() != min[d] || b.dim(d).extent() != extent[d] ||
            b.dim(d).stride() != stride) {
            return false;
        }
        stride *= extent[d];
    }
    return true;
}

// Whether two buffers may share memory: host bytes or a device allocation.
bool share_memory(const Halide::Buffer<> &a, const Halide::Buffer<> &b) {
    if (!a.defined() || !b.defined() || a.number_of_elements() == 0 ||
        b.number_of_elements() == 0) {
        return false;
    }
    const halide_buffer_t *x = a.raw_buffer(), *y = b.raw_buffer();
    return (x->host && y->host && x->begin() < y->end() && y->begin() < x->end()) ||
           (x->device && x->device == y->device);
}

// Whether a buffer shares memory with one of `buffers`. A loop that feeds
// outputs back as the next call's inputs (w = w_new) must not have them
// written in place, unless the plan lets that output update that input
// (run_rank checks), nor may two outputs be one memory.
bool shares_memory_with(const RankBuffers &buffers, const Halide::Buffer<> &b) {
    return std::any_of(buffers.begin(), buffers.end(),
                       [&](const auto &named) { return share_memory(named.second, b); });
}

} // namespace

// A JIT-compiled function as the executor calls it (coconet_function): the
// executor's user_context is the communicator; Halide's JIT code takes a
// JITUserContext, which carries it and collects Halide's error messages.
struct JitProgram::Function {
    Halide::Callable callable;
    size_t argc; // the user_context, the arguments and the outputs
    // A fused kernel computing every output on the device: its interface.
    const halide_device_interface_t *device_interface = nullptr;

    static int call(void *self, void **args) {
        const Function &f = *static_cast<const Function *>(self);
        coconet_comm *comm = *static_cast<coconet_comm **>(args[0]);
        RankContext ctx;
        ctx.comm = comm;
        ctx.handlers.custom_error = record_error;
        ctx.handlers.custom_malloc = rank_malloc;
        ctx.handlers.custom_free = rank_free;
        Halide::JITUserContext *uc = &ctx;
        std::vector<const void *> argv(args, args + f.argc);
        argv[0] = &uc;
        // A message of the runtime's (a collective's) says more than Halide's.
        const std::string earlier = coconet_comm_last_error(comm);
        const int status = f.callable.call_argv_fast(argv.size(), argv.data());
        if (status != 0 && !ctx.error.empty() && earlier == coconet_comm_last_error(comm)) {
            coconet_comm_set_error(comm, ctx.error.c_str());
        }
        return status;
    }

    coconet_function c_function() const {
        return coconet_function{call, const_cast<Function *>(this)};
    }

    // `device_interface`: that of a fused kernel computing every output on the device.
    static std::unique_ptr<Function>
    compile(ProgramFunction &f, const Halide::Target &target,
            const halide_device_interface_t *device_interface = nullptr) {
        if (f.calls_runtime) {
            f.pipeline.set_jit_externs({
                {"coconet_rank", Halide::JITExtern(jit_rank)},
                {"coconet_size", Halide::JITExtern(jit_size)},
                {"coconet_rank_threads", Halide::JITExtern(jit_rank_threads)},
                {"coconet_collective", Halide::JITExtern(jit_collective)},
                {"coconet_gemm", Halide::JITExtern(jit_gemm)},
            });
        }
        return std::make_unique<Function>(
            Function{f.pipeline.compile_to_callable(f.arguments, target),
                     1 + f.arguments.size() + (size_t)f.outputs, device_interface});
    }
};

// The table coconet_aot_run follows, in memory: the plan's arrays, the JIT's
// functions, and the kernels a communicator needs.
struct JitProgram::Table {
    std::string name;
    std::vector<coconet_value_info> values;
    std::vector<coconet_aot_step> steps;
    std::vector<coconet_aot_kernel> kernels; // one or two per fused step
    std::vector<coconet_value_info> device_stages;
    std::vector<const char *> size_names;
    std::vector<coconet_size_constraint> constraints;
    coconet_aot_program program{};
    // Per step, its count of kernels and each one's sources: what the
    // communicator's backend chose, the only part that differs between
    // communicators.
    std::vector<int> chosen;

    Table(const JitProgram &jit, const coconet_comm *comm)
        : name("Program " + jit.compiled_->lowered.program.name()) {
        const ProgramPlan &plan = jit.compiled_->plan;
        const Halide::Target &target = jit.compiled_->target;
        for (const ProgramValue &v : plan.values) {
            values.push_back(value_info(v));
        }
        kernels.reserve(2 * plan.steps.size()); // st.kernels point into it
        for (size_t s = 0; s < plan.steps.size(); s++) {
            const ProgramStep &p = plan.steps[s];
            coconet_aot_step st{};
            st.kind = p.kind;
            if (!p.pipeline.empty()) {
                st.pipeline = jit.functions_.at(p.pipeline)->c_function();
            }
            st.nparams = (int32_t)p.params.size();
            st.params = p.params.data();
            st.nouts = (int32_t)p.outs.size();
            st.outs = p.outs.data();
            if (p.kind == COCONET_STEP_COLLECTIVE) {
                st.collective_name = p.name.c_str();
                st.collective = p.collective;
                st.src = p.src;
                st.dst = p.dst;
                st.chunks = p.chunks;
            }
            if (p.kind == COCONET_STEP_FUSED) {
                st.pass = pass_call(p);
                st.pass.name = p.name.c_str();
                st.pass.gathered = p.gathered.data();
                st.src = p.src;
                st.pass_outs = p.pass_outs.data();
                st.slices = p.slices.data();
                st.nextras = (int32_t)p.extras.size();
                st.extras = p.extras.data();
                st.chunks = p.chunks;
                // The path's kernel, and on the device the library path's
                // (one source), which the executor takes where it can.
                std::vector<int> counts = {coconet_aot_step_sources(comm, &st)};
                const size_t first = kernels.size();
                for (size_t i = 0; i < counts.size(); i++) {
                    const Function &k = jit.fused_kernel((int)s, counts[i]);
                    kernels.push_back(coconet_aot_kernel{counts[i], k.c_function(),
                                                         target.has_gpu_feature() ? 1 : 0,
                                                         k.device_interface});
                    if (counts[i] > 1 &&
                        coconet_aot_step_takes_library(comm, &st, k.device_interface)) {
                        counts.push_back(1);
                    }
                }
                st.nkernels = (int32_t)counts.size();
                st.kernels = &kernels[first];
            }
            chosen.push_back(st.nkernels);
            for (int k = 0; k < st.nkernels; k++) {
                chosen.push_back(st.kernels[k].nsrc);
            }
            steps.push_back(st);
        }
        program.version = COCONET_AOT_VERSION;
        program.size = sizeof(coconet_aot_program);
        program.name = name.c_str();
        program.generator = program.params = "";
        program.nvalues = (int32_t)values.size();
        program.values = values.data();
        program.ninputs = plan.ninputs;
        program.noutputs = (int32_t)plan.output_values.size();
        program.args = plan.args.data();
        program.output_values = plan.output_values.data();
        program.in_place_of = plan.in_place_of.data();
        program.nsteps = (int32_t)steps.size();
        program.steps = steps.data();
        program.with_device_context = jit_with_device_context;
        if (target.has_gpu_feature()) {
            program.device_interface =
                Halide::get_device_interface_for_device_api(gpu_api(target), target);
        }
        program.device_api = plan.device_api;
        for (const ProgramValue &v : plan.device_stages) {
            device_stages.push_back(value_info(v));
        }
        program.ndevice_stages = (int32_t)device_stages.size();
        program.device_stages = device_stages.data();
        program.ncombiners = (int32_t)jit.combiners_.size();
        program.combiners = jit.combiners_.data();
        for (const std::string &s : plan.sizes) {
            size_names.push_back(s.c_str());
        }
        for (const SizeConstraint &c : plan.constraints) {
            constraints.push_back(coconet_size_constraint{c.a, c.b, c.what.c_str()});
        }
        program.nsizes = (int32_t)size_names.size();
        program.size_names = size_names.data();
        program.nconstraints = (int32_t)constraints.size();
        program.constraints = constraints.data();
    }
};

JitProgram::JitProgram(const Program &program, const Halide::Target &target)
    : JitProgram(program, [&] {
          JitOptions options;
          options.target = target;
          return options;
      }()) {}

JitProgram::JitProgram(const Program &program, const JitOptions &jit) {
    if (!jit.autoscheduler_plugin.empty()) {
        Halide::load_plugin(jit.autoscheduler_plugin);
    }
    CompileOptions options;
    options.target = jit.target.with_feature(Halide::Target::StrictFloat);
    options.function_name = program.name();
    options.autoscheduler = jit.autoscheduler;
    options.autoscheduler_params = jit.autoscheduler_params;
    options.estimate_ranks = jit.estimate_ranks;
    options.default_schedule = jit.default_schedule;
    options.gpu_matmul = jit.gpu_matmul;
    compiled_ = std::make_unique<CompiledProgram>(
        compile_program(program, options, [&](ProgramFunction &f) {
            functions_[f.name] = Function::compile(f, options.target);
        }));
    for (const ProgramCombiner &c : compiled_->plan.combiners) {
        combiners_.push_back(coconet_aot_combiner{(int32_t)c.op, c.type.code(), c.type.bits(),
                                                  functions_.at(c.function)->c_function(),
                                                  functions_.at(c.identity)->c_function()});
    }
}

JitProgram::~JitProgram() = default;

const JitProgram::Function &JitProgram::fused_kernel(int s, int nsrc) const {
    std::lock_guard<std::mutex> lock(kernels_mutex_);
    auto &k = kernels_[{s, nsrc}];
    if (!k) {
        const Halide::Target &target = compiled_->target;
        auto built = compiled_->built_kernels.extract({s, nsrc});
        StepKernel sk = built ? std::move(built.mapped()) : build_step_kernel(*compiled_, s, nsrc);
        k = Function::compile(sk.function, target,
                              sk.on_gpu
                                  ? Halide::get_device_interface_for_device_api(
                                        Halide::get_default_device_api_for_target(target), target)
                                  : nullptr);
    }
    return *k;
}

std::string JitProgram::plan(int world_size) const {
    return plan_text(*compiled_, world_size);
}

std::vector<int32_t> JitProgram::table_sizes(const Sizes &sizes) const {
    const std::string &name = compiled_->lowered.program.name();
    const std::vector<RuntimeSize> &all = compiled_->lowered.analysis.sizes;
    std::vector<int32_t> values;
    std::string known;
    for (const RuntimeSize &s : all) {
        values.push_back(bind_extents({s.expr}, sizes, "Program " + name)[0]);
        known += (known.empty() ? "" : ", ") + s.name;
    }
    for (const auto &[size, value] : sizes) {
        coconet_user_assert(std::any_of(all.begin(), all.end(),
                                        [&](const RuntimeSize &s) { return s.name == size; }))
            << "Program " << name << " has no run-time size " << size << " ("
            << (known.empty() ? "its extents are all constants" : "its sizes: " + known) << ").";
    }
    return values;
}

RankBuffers JitProgram::run_rank(coconet_comm *comm, const RankBuffers &inputs,
                                 const Sizes &sizes) const {
    RankBuffers out;
    run_rank(comm, inputs, out, sizes);
    return out;
}

const JitProgram::Table &JitProgram::table_for(const coconet_comm *comm) const {
    auto built = std::make_unique<Table>(*this, comm);
    std::lock_guard<std::mutex> lock(tables_mutex_);
    for (const std::unique_ptr<Table> &t : tables_) {
        if (t->chosen == built->chosen) {
            return *t;
        }
    }
    tables_.push_back(std::move(built));
    return *tables_.back();
}

void JitProgram::run_rank(coconet_comm *comm, const RankBuffers &inputs, RankBuffers &outputs,
                          const Sizes &sizes) const {
    // Checked against the live communicators, never read when destroyed.
    const Program &program = compiled_->lowered.program;
    const Analysis &a = compiled_->lowered.analysis;
    const ProgramPlan &plan = compiled_->plan;
    coconet_user_assert(coconet_comm_valid(comm))
        << "Program " << program.name() << ": "
        << (comm ? "the communicator does not exist (destroyed, or not a communicator)."
                 : "null communicator.");
    const int rank = coconet_comm_rank(comm), size = coconet_comm_size(comm);
    // Each rank's sizes are checked against the others' by the executor.
    std::vector<int32_t> size_values;
    RankBuffers in;
    try {
        size_values = table_sizes(sizes);
        in = check_rank_inputs(program, a, rank, size, inputs, sizes);
    } catch (const UserError &e) {
        // As a failed call does: peers waiting for this rank stop now, naming it.
        coconet_comm_abort(comm, e.what());
        throw;
    }
    const Table &table = table_for(comm);
    std::vector<halide_buffer_t *> args;
    for (const DFunc &f : a.inputs) {
        args.push_back(in.at(f.name()).raw_buffer());
    }
    // Inputs on a device (a caller keeping its data there) get the outputs
    // this call allocates on that device too, left there; a caller's output
    // buffer is written where it is (coconet_aot_run's rule).
    const halide_device_interface_t *device = nullptr;
    for (auto &[name, b] : in) {
        device = device ? device : b.raw_buffer()->device_interface;
    }
    RankBuffers out;
    for (size_t i = 0; i < program.outputs().size(); i++) {
        const int arg = plan.ninputs + (int)i;
        const ProgramValue &v = plan.values[plan.args[arg]];
        int32_t min[4], extent[4];
        coconet_arg_box_sized(&table.program, size_values.data(), arg, rank, size, min, extent);
        auto kept = outputs.find(v.name);
        // A buffer sharing an input's memory is kept only as the very
        // elements of the input this output may update in place.
        const int updates = plan.in_place_of[i];
        auto shares_only_updated = [&](const Halide::Buffer<> &b) {
            return std::all_of(inputs.begin(), inputs.end(), [&](const auto &named) {
                return !share_memory(named.second, b) ||
                       (updates >= 0 && named.first == a.inputs[updates].name() &&
                        coconet_rt::same_elements(named.second.raw_buffer(), b.raw_buffer()));
            });
        };
        Halide::Buffer<> b;
        if (kept != outputs.end() &&
            holds_box(kept->second, v.type, (int)v.extents.size(), min, extent) &&
            shares_only_updated(kept->second) && !shares_memory_with(out, kept->second)) {
            b = kept->second;
        } else {
            std::vector<Range> box;
            for (size_t d = 0; d < v.extents.size(); d++) {
                box.push_back(Range{min[d], (int64_t)min[d] + extent[d]});
            }
            b = allocate_box(v.type, box);
            if (device && b.number_of_elements() > 0) {
                b.device_malloc(device);
            }
        }
        out[v.name] = b;
        args.push_back(b.raw_buffer());
    }
    outputs = out;
    if (coconet_aot_run_sized(comm, &table.program, size_values.data(), args.data()) !=
        COCONET_OK) {
        throw RuntimeError(coconet_comm_last_error_code(comm), coconet_comm_last_error(comm));
    }
}

uint64_t RankTraffic::total_bytes() const {
    uint64_t n = 0;
    for (int k = 0; k <= COCONET_FUSED; k++) {
        n += bytes[k];
    }
    return n;
}

std::vector<RankBuffers> JitProgram::run_threads(int world_size,
                                                 const std::vector<RankBuffers> &inputs,
                                                 double timeout_seconds,
                                                 std::vector<RankTraffic> *traffic) const {
    return run_threads(world_size, inputs, Sizes(), timeout_seconds, traffic);
}

std::vector<RankBuffers> JitProgram::run_threads(int world_size,
                                                 const std::vector<RankBuffers> &inputs,
                                                 const Sizes &sizes, double timeout_seconds,
                                                 std::vector<RankTraffic> *traffic) const {
    coconet_user_assert(world_size >= 1) << "run_threads: world size " << world_size << " < 1.";
    ThreadWorld world(world_size, timeout_seconds);
    return run_threads(world, inputs, sizes, traffic);
}

std::vector<RankBuffers> JitProgram::run_threads(ThreadWorld &world,
                                                 const std::vector<RankBuffers> &inputs,
                                                 const Sizes &sizes,
                                                 std::vector<RankTraffic> *traffic) const {
    std::vector<RankBuffers> outputs;
    run_threads(world, inputs, outputs, sizes, traffic);
    return outputs;
}

void JitProgram::run_threads(ThreadWorld &world, const std::vector<RankBuffers> &inputs,
                             std::vector<RankBuffers> &outputs, const Sizes &sizes,
                             std::vector<RankTraffic> *traffic) const {
    const int world_size = world.size();
    coconet_user_assert((int)inputs.size() == world_size)
        << "Program " << compiled_->lowered.program.name() << ": inputs for " << inputs.size()
        << " ranks given to a run on " << world_size << " ranks.";
    // Bad inputs are the caller's error: report them before any rank starts.
    table_sizes(sizes);
    for (int r = 0; r < world_size; r++) {
        check_rank_inputs(compiled_->lowered.program, compiled_->lowered.analysis, r, world_size,
                          inputs[r], sizes);
    }
    // Compiles the fused kernels before any rank waits for another.
    table_for(world.comm(0));
    outputs.resize(world_size);
    // A kept output that another rank reads, or that an earlier rank keeps
    // too, is dropped here: run_rank sees only its own rank's buffers (and
    // keeps one in its own input's memory only where it updates it in place).
    for (int r = 0; r < world_size; r++) {
        for (auto b = outputs[r].begin(); b != outputs[r].end();) {
            bool shared = false;
            for (int q = 0; q < world_size; q++) {
                shared |= (q != r && shares_memory_with(inputs[q], b->second)) ||
                          (q < r && shares_memory_with(outputs[q], b->second));
            }
            b = shared ? outputs[r].erase(b) : std::next(b);
        }
    }
    std::vector<RankTraffic> sent(world_size);
    world.run([&](coconet_comm *comm) {
        const int r = coconet_comm_rank(comm);
        // The world's counters run across calls: this call's are the difference.
        RankTraffic &t = sent[r];
        for (int k = 0; k < RankTraffic::kinds; k++) {
            t.bytes[k] = coconet_comm_bytes_sent(comm, k);
            t.ops[k] = coconet_comm_op_count(comm, k);
        }
        run_rank(comm, inputs[r], outputs[r], sizes);
        for (int k = 0; k < RankTraffic::kinds; k++) {
            t.bytes[k] = coconet_comm_bytes_sent(comm, k) - t.bytes[k];
            t.ops[k] = coconet_comm_op_count(comm, k) - t.ops[k];
        }
    });
    if (traffic) {
        *traffic = std::move(sent);
    }
}

Halide::Target jit_target() {
    return Halide::get_jit_target_from_environment().with_feature(Halide::Target::StrictFloat);
}

} // namespace coconet
