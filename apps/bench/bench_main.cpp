// Benchmarks of the apps' AOT libraries: the unscheduled program, the
// CoCoNet schedule with and without the hand schedules of the compute, the
// same with run-time shapes (one library for every size, called at this
// one), the Megatron block autoscheduled, and what users write today (baseline), on
// thread ranks or under mpirun, with a STREAM-like triad measured in the same
// run.
//
//   build/apps/bench/coconet_bench [--ranks 2,4] [--reps 5] [--apps adam,lamb]
//                                  [--sizes 20,22] [--collective-sizes 20,22,24]
//                                  [--check-reference] [--out results.json]
//   mpirun --allow-run-as-root --oversubscribe -np 4 build/apps/bench/coconet_bench --mpi
//
// Under MPI it also times the unfused collectives alone (collective_all_reduce,
// collective_all_to_all: the runtime's call against MPI_Allreduce and
// MPI_Alltoallv); runs with COCONET_MPI_COLLECTIVES=deterministic are labelled
// backend "mpi-deterministic". Under MPI the apps' AOT calls get their buffers
// in window memory (coconet_mpi_alloc: fused passes use them in place), as a
// user who read the docs allocates them; --plain-buffers gives them ordinary
// memory instead. scripts/bench.sh runs it all and plots it
// (docs/performance.md). Every variant's output is checked against the first's
// (the unscheduled program's), and with --check-reference that one against the
// single-process reference.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "AotRunner.h"
#include "Baselines.h"
#include "Blas.h"
#include "bench_libraries.h"

using namespace coconet;

namespace {

struct Entry {
    const char *app, *variant;
    int64_t n;
    const char *sizes; // the run-time sizes it is called at, "NAME=VALUE,...", or ""
    const coconet_aot_program *program;
};

Sizes parse_sizes(const std::string &text) {
    Sizes sizes;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
        const size_t eq = item.find('=');
        sizes[item.substr(0, eq)] = std::atoi(item.c_str() + eq + 1);
    }
    return sizes;
}

struct Options {
    std::vector<int> ranks = {2, 4};
    int reps = 5;
    std::set<std::string> apps;
    std::set<int> log2_sizes; // the apps' sizes n = 2^k measured (empty: all built)
    std::string out = "bench_results.json";
    int64_t stream_elements = int64_t(1) << 25; // doubles per array, over all ranks
    bool mpi = false;
    bool window_memory = true; // under MPI, the AOT calls' buffers (--plain-buffers: off)
    double timeout = 120;
    // The first variant of each app (its unscheduled library) against the
    // single-process reference too, from every rank's inputs (small sizes).
    bool check_reference = false;
    std::vector<int> collective_log2_sizes = {20, 22, 24}; // the collective rows' n = 2^k
};

struct Record {
    std::string app, variant, backend;
    int ranks;
    int64_t n;
    double median, min, max;
    double bytes_per_rank, stream_gbps, t_min; // t_min < 0: no memory bound (see docs)
    double max_diff;                           // against the unscheduled program
    std::string tiles; // the tile counts its overlapped steps chose (coconet_comm_overlap_report)
};

// Bytes all ranks together must move per element (docs/performance.md):
// Adam as in the north star; LAMB adds the update written and read back and
// the parameters read again (the trust ratio needs global norms before any
// parameter is written); for the Megatron block, the collective and
// epilogue only (the MatMuls are compute). 0: no model (the pipeline).
double bytes_per_element(const std::string &app, int ranks) {
    if (app == "adam") {
        return 8.0 * ranks + 20;
    }
    if (app == "lamb") {
        return 8.0 * ranks + 32;
    }
    if (app == "megatron_mlp") {
        return 8.0 * ranks + 4;
    }
    return 0;
}

const char *main_output(const std::string &app) {
    return app == "adam" || app == "lamb"  ? "w_new"
           : app == "embedding_all_to_all" ? "pooled_a2a"
           : app == "gemm_all_to_all"      ? "routed"
                                           : "y";
}

// Deterministic inputs in [0, 1): a hash of the name, the global index and,
// for Local values, the rank. Every variant sees the same values.
float fill_value(uint32_t salt, int64_t index) {
    uint32_t h = (uint32_t)index * 2654435761u ^ salt;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return (float)(h >> 8) / 16777216.0f;
}

uint32_t salt_of(const std::string &name, int rank, bool local) {
    uint32_t s = 2166136261u;
    for (char c : name) {
        s = (s ^ (uint8_t)c) * 16777619u;
    }
    return local ? s ^ (uint32_t)(rank + 1) * 40503u : s;
}

// `extents` are the value's global extents: the element's global index
// decides its value, whatever box a rank holds.
void fill(Halide::Buffer<float> b, const std::string &name, int rank, bool local,
          const int32_t *extents) {
    const uint32_t salt = salt_of(name, rank, local);
    b.for_each_element([&](const int *x) {
        int64_t index = 0, stride = 1;
        for (int d = 0; d < b.dimensions(); d++) {
            index += x[d] * stride;
            stride *= extents[d];
        }
        b(x) = fill_value(salt, index);
    });
}

// Input i of library p at `sizes` as rank `rank` of `size` holds it, filled
// as the fixed-shape libraries' are.
Halide::Buffer<> bench_input(const coconet_aot_program *p, int i, int rank, int size,
                             const Sizes &sizes) {
    coconet_value_info v = p->values[p->args[i]];
    const std::vector<int32_t> values = apps::table_sizes(p, sizes);
    for (int d = 0; d < v.dims; d++) {
        v.extents[d] = v.extents[d] >= 0 ? v.extents[d] : values[-v.extents[d] - 1];
    }
    const bool local = v.layout == COCONET_LAYOUT_LOCAL;
    Halide::Buffer<> b = apps::allocate_aot_arg(p, i, rank, size, sizes);
    if (b.type() == Halide::Int(32)) {
        // Indices: any integer (the operators wrap them around).
        Halide::Buffer<float> f = Halide::Buffer<float>::make_with_shape_of(b.as<int32_t>());
        fill(f, v.name, rank, local, v.extents);
        Halide::Buffer<int32_t>(b).for_each_element(
            [&](const int *x) { b.as<int32_t>()(x) = (int32_t)(f(x) * 1e6f); });
    } else {
        fill(Halide::Buffer<float>(b), v.name, rank, local, v.extents);
    }
    return b;
}

// One call of an AOT library on this rank with its buffers prepared: inputs
// filled (or given), outputs allocated.
struct AotCall {
    const coconet_aot_program *p;
    std::vector<int32_t> sizes; // its run-time sizes' values
    RankBuffers buffers;
    std::vector<halide_buffer_t *> args;
    std::unique_ptr<apps::WindowMemory> window; // holds the buffers placed in it

    AotCall(const coconet_aot_program *program, coconet_comm *comm, const RankBuffers &given = {},
            const Sizes &at = {})
        : p(program), sizes(apps::table_sizes(program, at)) {
        const int rank = coconet_comm_rank(comm), size = coconet_comm_size(comm);
        buffers = apps::allocate_aot_outputs(p, rank, size, at);
        for (int i = 0; i < p->ninputs + p->noutputs; i++) {
            const coconet_value_info &v = p->values[p->args[i]];
            if (i < p->ninputs) {
                auto it = given.find(v.name);
                buffers[v.name] =
                    it != given.end() ? it->second : bench_input(p, i, rank, size, at);
            }
            args.push_back(buffers.at(v.name).raw_buffer());
        }
    }

    // Moves the buffers that fused passes read as sources or gather into
    // to window memory of the communicator's, where peers reach them in
    // place. The others stay where they are: the GEMV read its weight 15%
    // slower (37 against 32 us, 2 ranks, 2^20) from window memory.
    void into_window(coconet_comm *comm) {
        window = std::make_unique<apps::WindowMemory>(comm);
        for (size_t i = 0; i < args.size(); i++) {
            if (!coconet_aot_value_in_pass(p, p->args[i])) {
                continue;
            }
            Halide::Buffer<> &b = buffers.at(p->values[p->args[i]].name);
            b = window->place(b, i < (size_t)p->ninputs);
            args[i] = b.raw_buffer();
        }
    }

    void operator()(coconet_comm *comm) {
        if (coconet_aot_run_sized(comm, p, sizes.data(), args.data()) != COCONET_OK) {
            throw RuntimeError(coconet_comm_last_error(comm));
        }
    }
};

// A whole-tensor buffer on every rank (the baselines' replicated state).
Halide::Buffer<float> whole(const std::string &name, int64_t n, int rank, bool local,
                            bool filled = true) {
    Halide::Buffer<float> b((int)n);
    const int32_t extents[1] = {(int32_t)n};
    if (filled) {
        fill(b, name, rank, local, extents);
    }
    return b;
}

class RankBench {
public:
    RankBench(coconet_comm *comm, const Options &o, std::vector<Record> *records)
        : comm_(comm), o_(o), records_(records), rank_(coconet_comm_rank(comm)),
          size_(coconet_comm_size(comm)) {}

    void run(const std::vector<Entry> &entries) {
        const size_t first_record = records_->size();
        stream_gbps_ = stream_triad();
        say("[bench] %s, %d ranks: STREAM triad %.1f GB/s\n", backend(), size_, stream_gbps_);
        run_entries(entries);
        // STREAM again at the end: one measurement on this shared machine
        // read 27 to 63 GB/s, and a low one put T_min above a measured time
        // (T/T_min 0.86). The records take the larger: the tighter bound (the
        // lines printed before used the first).
        const double again = stream_triad();
        stream_gbps_ = std::max(stream_gbps_, again);
        say("[bench] %s, %d ranks: STREAM triad at the end %.1f GB/s; the records' T_min from "
            "%.1f GB/s\n",
            backend(), size_, again, stream_gbps_);
        for (size_t i = first_record; i < records_->size(); i++) {
            Record &r = (*records_)[i];
            if (r.t_min > 0) {
                r.t_min *= r.stream_gbps / stream_gbps_;
            }
            r.stream_gbps = stream_gbps_;
        }
    }

private:
    void run_entries(const std::vector<Entry> &entries) {
        std::map<std::pair<std::string, int64_t>, std::map<std::string, const Entry *>> cases;
        std::vector<std::pair<std::string, int64_t>> order;
        for (const Entry &e : entries) {
            auto key = std::make_pair(std::string(e.app), e.n);
            if ((!o_.apps.empty() && !o_.apps.count(e.app)) ||
                (!o_.log2_sizes.empty() && !o_.log2_sizes.count((int)std::log2((double)e.n)))) {
                continue;
            }
            if (!cases.count(key)) {
                order.push_back(key);
            }
            cases[key][e.variant] = &e;
        }
        for (const auto &key : order) {
            run_case(key.first, key.second, cases[key]);
        }
        // Unfused collectives alone, the runtime's against MPI's own (on thread
        // ranks the baseline would be the runtime itself).
        if (!coconet_mpi_is_mpi_comm(comm_)) {
            return;
        }
        for (const char *app : {"collective_all_reduce", "collective_all_to_all"}) {
            for (int log2n : o_.collective_log2_sizes) {
                if (o_.apps.empty() || o_.apps.count(app)) {
                    run_collective(app, int64_t(1) << log2n);
                }
            }
        }
    }

    const char *backend() const { return coconet_comm_backend(comm_); }

    // The backend, and under MPI the path of unfused collectives.
    std::string backend_label() const {
        return coconet_mpi_is_mpi_comm(comm_) && coconet_comm_deterministic(comm_)
                   ? "mpi-deterministic"
                   : backend();
    }

    template<typename... Args>
    void say(const char *fmt, Args... args) const {
        if (rank_ == 0) {
            std::printf(fmt, args...);
            std::fflush(stdout);
        }
    }

    double reduce(double x, coconet_reduce_op op) {
        halide_dimension_t d(0, 1, 1);
        double out = 0;
        halide_buffer_t in{}, res{};
        in.host = reinterpret_cast<uint8_t *>(&x);
        res.host = reinterpret_cast<uint8_t *>(&out);
        in.type = res.type = halide_type_t(halide_type_float, 64);
        in.dimensions = res.dimensions = 1;
        in.dim = res.dim = &d;
        coconet_collective_desc desc;
        coconet_collective_desc_init(&desc, COCONET_ALL_REDUCE);
        desc.op = op;
        desc.dims = 1;
        desc.extents[0] = 1;
        if (coconet_collective_call(comm_, "bench_time", &desc, &in, &res) != COCONET_OK) {
            throw RuntimeError(coconet_comm_last_error(comm_));
        }
        return out;
    }

    // Seconds from a common start until the last rank finishes `step`.
    double timed(const std::function<void()> &step) {
        if (coconet_barrier(comm_, "bench") != COCONET_OK) {
            throw RuntimeError(coconet_comm_last_error(comm_));
        }
        // From the first rank's start to the last rank's end, on the node's
        // monotonic clock: with more ranks than cores a rank may leave the
        // barrier only once others are done, and the longest of the ranks'
        // own durations then measured half the step (STREAM at 4 ranks on 2
        // cores read 27 to 63 GB/s).
        const double t0 = seconds_now();
        step();
        const double t1 = seconds_now();
        return reduce(t1, COCONET_MAX) - reduce(t0, COCONET_MIN);
    }

    static double seconds_now() {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }

    // a = b + s * c on every rank at once; bytes counted as STREAM does (24 per element).
    double stream_triad() {
        const int64_t n = o_.stream_elements / size_;
        std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
        double best = 1e30;
        for (int rep = 0; rep < 5; rep++) {
            best = std::min(best, timed([&] {
                                const double s = 3.0;
                                double *pa = a.data();
                                const double *pb = b.data(), *pc = c.data();
#pragma omp simd
                                for (int64_t i = 0; i < n; i++) {
                                    pa[i] = pb[i] + s * pc[i];
                                }
                            }));
        }
        coconet_user_assert(a[n / 2] == 7.0) << "the triad computed a wrong value";
        return 24.0 * (double)n * size_ / best / 1e9;
    }

    // The step of one variant: runs it, and gives this rank's main output.
    struct Variant {
        std::function<void()> step;
        std::function<Halide::Buffer<>()> output;
    };

    Variant aot_variant(const Entry *e, const std::string &app) {
        auto call =
            std::make_shared<AotCall>(e->program, comm_, RankBuffers(), parse_sizes(e->sizes));
        if (o_.window_memory && coconet_mpi_is_mpi_comm(comm_)) {
            call->into_window(comm_);
        }
        const std::string out = main_output(app);
        return {[this, call] { (*call)(comm_); }, [call, out] { return call->buffers.at(out); }};
    }

    // The compute before a baseline's collective: the AOT library of the
    // app's own Halide code (the producer, the Megatron block's partial sums),
    // or with `blas` the same kernels by OpenBLAS on the same buffers.
    std::function<void()> compute(const std::string &app, const std::shared_ptr<AotCall> &call,
                                  bool blas) {
        if (!blas) {
            return [this, call] { (*call)(comm_); };
        }
        const RankBuffers &b = call->buffers;
        if (app == "megatron_mlp") {
            const Halide::Buffer<float> w1(b.at("w1")), x(b.at("x"));
            Halide::Buffer<float> act(w1.dim(0).extent(), x.dim(1).extent());
            return [b, act] {
                bench::blas_megatron_partial(b.at("x"), b.at("w1"), b.at("w2"), act,
                                             b.at("partial"));
            };
        }
        if (app == "gemv_all_reduce") {
            return [b] { bench::blas_gemv(b.at("w"), b.at("x"), b.at("partial")); };
        }
        return [b] { bench::blas_expert_gemm(b.at("w"), b.at("tokens"), b.at("expert_out")); };
    }

    static bool has_blas_kernel(const std::string &app) {
        return bench::have_blas() &&
               (app == "megatron_mlp" || app == "gemv_all_reduce" || app == "gemm_all_to_all");
    }

    // The AOT library computing what a baseline's collective reads.
    const coconet_aot_program *producer_of(const std::map<std::string, const Entry *> &v) {
        return v.at(v.count("baseline_partial") ? "baseline_partial" : "baseline_producer")
            ->program;
    }

    Variant baseline(const std::string &app, int64_t n,
                     const std::map<std::string, const Entry *> &v, bool blas = false) {
        if (v.count("baseline_producer")) {
            return producer_baseline(app, v, blas);
        }
        if (app == "megatron_mlp") {
            auto partial = std::make_shared<AotCall>(producer_of(v), comm_);
            Halide::Buffer<float> summed(partial->buffers.at("partial").dim(0).extent(),
                                         partial->buffers.at("partial").dim(1).extent());
            auto epilogue = std::make_shared<AotCall>(v.at("baseline_epilogue")->program, comm_,
                                                      RankBuffers{{"summed", summed}});
            return {
                [this, partial, epilogue, summed, step = compute(app, partial, blas)]() mutable {
                    step();
                    Halide::Buffer<float> p(partial->buffers.at("partial"));
                    bench::library_all_reduce(comm_, p.data(), summed.data(),
                                              (int64_t)p.number_of_elements());
                    (*epilogue)(comm_);
                },
                [epilogue] { return epilogue->buffers.at("y"); }};
        }
        apps::OptimizerConfig c;
        c.n = (int)n;
        struct State {
            Halide::Buffer<float> g, w, m, v, g_sum, u, w_new, m_new, v_new;
        };
        auto s = std::make_shared<State>();
        s->g = whole("g", n, rank_, true);
        s->w = whole("w", n, rank_, false);
        s->m = whole("m", n, rank_, false);
        s->v = whole("v", n, rank_, false);
        for (Halide::Buffer<float> *b : {&s->g_sum, &s->w_new, &s->m_new, &s->v_new}) {
            *b = whole("", n, rank_, false, false);
        }
        const bool lamb = app == "lamb";
        if (lamb) {
            s->u = whole("", n, rank_, false, false);
        }
        return {[this, s, c, n, lamb] {
                    bench::library_all_reduce(comm_, s->g.data(), s->g_sum.data(), n);
                    if (lamb) {
                        bench::lamb_update(c, n, s->g_sum.data(), s->w.data(), s->m.data(),
                                           s->v.data(), s->u.data(), s->w_new.data(),
                                           s->m_new.data(), s->v_new.data());
                    } else {
                        bench::adam_update(c, n, s->g_sum.data(), s->w.data(), s->m.data(),
                                           s->v.data(), s->w_new.data(), s->m_new.data(),
                                           s->v_new.data());
                    }
                },
                [s] { return Halide::Buffer<>(s->w_new); }};
    }

    // A fused operator's baseline: its producer (an AOT library of the same
    // Halide code), then the collective library's all_to_all, or its
    // all-reduce and the bias.
    Variant producer_baseline(const std::string &app, const std::map<std::string, const Entry *> &v,
                              bool blas) {
        const coconet_aot_program *p = producer_of(v);
        auto producer = std::make_shared<AotCall>(p, comm_);
        std::function<void()> step = compute(app, producer, blas);
        const coconet_value_info &info = p->values[p->args[p->ninputs]];
        Halide::Buffer<float> produced(producer->buffers.at(info.name));
        if (app == "gemv_all_reduce") {
            Halide::Buffer<float> summed(produced.dim(0).extent(), produced.dim(1).extent());
            Halide::Buffer<float> bias = summed.copy(), y = summed.copy();
            fill(bias, "bias", rank_, false, info.extents);
            return {[this, producer, produced, summed, bias, y, step]() mutable {
                        step();
                        bench::library_all_reduce(comm_, produced.data(), summed.data(),
                                                  (int64_t)produced.number_of_elements());
                        const int64_t count = y.number_of_elements();
                        const float *s = summed.data(), *b = bias.data();
                        float *out = y.data();
#pragma omp simd
                        for (int64_t i = 0; i < count; i++) {
                            out[i] = s[i] + b[i];
                        }
                    },
                    [y] { return Halide::Buffer<>(y); }};
        }
        // Both all_to_all operators split dimension 1 and concatenate 2.
        std::vector<Range> box;
        for (int d = 0; d < info.dims; d++) {
            const int b = (info.extents[1] + size_ - 1) / size_;
            box.push_back(d == 1 ? Range{std::min(info.extents[1], rank_ * b),
                                         std::min(info.extents[1], (rank_ + 1) * b)}
                                 : Range{0, info.extents[d]});
        }
        Halide::Buffer<float> out = allocate_box(Halide::Float(32), box);
        return {[this, producer, produced, out, info, step]() mutable {
                    step();
                    bench::library_all_to_all(comm_, produced, out, info.extents, 1, 2);
                },
                [out] { return Halide::Buffer<>(out); }};
    }

    // This rank's main output of library p by the single-process reference,
    // from the inputs every rank is given.
    Halide::Buffer<> reference_output(const coconet_aot_program *p, const std::string &app) {
        std::vector<RankBuffers> inputs(size_);
        for (int r = 0; r < size_; r++) {
            for (int i = 0; i < p->ninputs; i++) {
                inputs[r][p->values[p->args[i]].name] = bench_input(p, i, r, size_, {});
            }
        }
        return Reference(apps::aot_program_source(p))
            .run(size_, inputs)[rank_]
            .at(main_output(app));
    }

    void run_case(const std::string &app, int64_t n,
                  const std::map<std::string, const Entry *> &variants) {
        if (app == "pipeline_stage" && size_ < 2) {
            say("[bench] %s needs 2 ranks or more: skipped\n", app.c_str());
            return;
        }
        const bool has_baseline = app == "adam" || app == "lamb" ||
                                  variants.count("baseline_partial") ||
                                  variants.count("baseline_producer");
        std::vector<std::pair<const char *, std::function<Variant()>>> made;
        for (const char *name :
             {"unscheduled", "coconet", "default", "shapes", "autoscheduled", "baseline"}) {
            const bool is_baseline = std::strcmp(name, "baseline") == 0;
            if (is_baseline ? has_baseline : variants.count(name) > 0) {
                made.emplace_back(name, [&, name, is_baseline] {
                    return is_baseline ? baseline(app, n, variants)
                                       : aot_variant(variants.at(name), app);
                });
            }
        }
        if (has_blas_kernel(app)) {
            made.emplace_back("blas", [&] { return baseline(app, n, variants, true); });
        }
        const Entry *first = variants.count("unscheduled") ? variants.at("unscheduled") : nullptr;
        time_variants(app, n, made,
                      o_.check_reference && first ? reference_output(first->program, app)
                                                  : Halide::Buffer<>());
        if (has_blas_kernel(app)) {
            compute_alone(app, n, producer_of(variants));
        }
    }

    // Row compute_<app>: the kernels before the collective alone, the app's
    // Halide schedule (`halide`: its AOT library) against OpenBLAS (`blas`),
    // on every rank at once.
    void compute_alone(const std::string &app, int64_t n, const coconet_aot_program *p) {
        std::vector<std::pair<const char *, std::function<Variant()>>> made;
        for (const char *name : {"halide", "blas"}) {
            made.emplace_back(name, [this, app, p, name] {
                auto call = std::make_shared<AotCall>(p, comm_);
                const coconet_value_info &out = p->values[p->args[p->ninputs]];
                const std::string output = out.name;
                return Variant{compute(app, call, std::strcmp(name, "blas") == 0),
                               [call, output] { return call->buffers.at(output); }};
            });
        }
        time_variants("compute_" + app, n, made);
    }

    // An unfused collective of n floats by the runtime (coconet_collective_call,
    // as an unscheduled program's step makes it) and by MPI's own call: the
    // all-reduce of a Local value, and the all_to_all of a 256 x n/256 value
    // re-sliced from dimension 1 to dimension 0.
    void run_collective(const std::string &app, int64_t n) {
        const bool reduce = app == "collective_all_reduce";
        const int32_t extents[2] = {reduce ? (int32_t)n : 256, reduce ? 1 : (int32_t)(n / 256)};
        const int dims = reduce ? 1 : 2;
        // The whole value, or this rank's slice of it along dim.
        auto box = [&](int dim) {
            std::vector<Range> b;
            for (int d = 0; d < dims; d++) {
                const int64_t block = (extents[d] + size_ - 1) / size_;
                b.push_back(d == dim ? Range{std::min<int64_t>(extents[d], rank_ * block),
                                             std::min<int64_t>(extents[d], (rank_ + 1) * block)}
                                     : Range{0, extents[d]});
            }
            return b;
        };
        Halide::Buffer<float> in = allocate_box(Halide::Float(32), box(reduce ? -1 : 1));
        fill(in, "x", rank_, reduce, extents);
        auto output = [&] {
            Halide::Buffer<float> out = allocate_box(Halide::Float(32), box(reduce ? -1 : 0));
            return Variant{nullptr, [out] { return Halide::Buffer<>(out); }};
        };
        time_variants(app, n,
                      {{"coconet",
                        [&] {
                            Variant v = output();
                            Halide::Buffer<float> out(v.output());
                            auto desc = std::make_shared<coconet_collective_desc>();
                            coconet_collective_desc_init(desc.get(), reduce ? COCONET_ALL_REDUCE
                                                                            : COCONET_ALL_TO_ALL);
                            desc->dims = dims;
                            desc->dim = reduce ? -1 : 0;
                            desc->concat_dim = reduce ? -1 : 1;
                            std::copy(extents, extents + dims, desc->extents);
                            v.step = [this, in, out, desc]() mutable {
                                if (coconet_collective_call(comm_, "x", desc.get(), in.raw_buffer(),
                                                            out.raw_buffer()) != COCONET_OK) {
                                    throw RuntimeError(coconet_comm_last_error(comm_));
                                }
                            };
                            return v;
                        }},
                       {"baseline", [&] {
                            Variant v = output();
                            Halide::Buffer<float> out(v.output());
                            v.step = [this, in, out, reduce, extents]() mutable {
                                if (reduce) {
                                    bench::library_all_reduce(comm_, in.data(), out.data(),
                                                              (int64_t)out.number_of_elements());
                                } else {
                                    bench::library_all_to_all(comm_, in, out, extents, 0, 1);
                                }
                            };
                            return v;
                        }}});
    }

    // Times the variants and checks each one's output against the first
    // variant's. Up to 2^24 elements every variant is made first and their
    // runs interleave (two runs of each in turn, the first untimed), so that
    // a slow spell of this shared machine slows all of them alike: timed one
    // after the other, a ratio of two variants' medians moved by up to 2x
    // between runs of the bench. Each run then finds caches and idle threads
    // as the other variants left them, as a step of a training loop does
    // (sub-millisecond steps take up to 2x longer than run back to back).
    // Larger ones are made and timed one at a time, so that one variant's
    // buffers exist at once.
    // `expected`, when given, is the first variant's output by the reference.
    void time_variants(const std::string &app, int64_t n,
                       const std::vector<std::pair<const char *, std::function<Variant()>>> &made,
                       const Halide::Buffer<> &expected = Halide::Buffer<>()) {
        const bool interleave = n <= (int64_t(1) << 24);
        Halide::Buffer<> reference;
        double scale = 1;
        // Records the variant timed (its runs sorted), its output checked.
        auto finish = [&](Timing &v) {
            std::sort(v.t.begin(), v.t.end());
            Halide::Buffer<> out = v.variant.output();
            double diff = 0;
            if (!reference.defined()) {
                reference = out.copy();
                Halide::Buffer<float>(reference).for_each_value(
                    [&](float x) { scale = std::max(scale, (double)std::fabs(x)); });
                if (expected.defined()) {
                    diff = max_abs_diff({{{"out", out}}}, {{{"out", expected}}});
                }
            } else {
                diff = max_abs_diff({{{"out", out}}}, {{{"out", reference}}});
            }
            record(app, v.name, n, v.t, reduce(diff, COCONET_MAX), reduce(scale, COCONET_MAX),
                   v.tiles);
        };
        // One run of each in turn until each has its count (with several,
        // an untimed run before each timed one), then the records.
        auto time_runs = [&](std::vector<Timing> &group) {
            for (bool more = true; more;) {
                more = false;
                for (Timing &v : group) {
                    if ((int)v.t.size() < v.reps) {
                        if (group.size() > 1) {
                            v.variant.step();
                        }
                        v.t.push_back(timed(v.variant.step));
                        more = more || (int)v.t.size() < v.reps;
                    }
                }
            }
            for (Timing &v : group) {
                finish(v);
            }
        };
        std::vector<Timing> group;
        for (const auto &entry : made) {
            group.push_back(warmed(entry.first, entry.second()));
            if (!interleave) {
                time_runs(group);
                group.clear();
            }
        }
        time_runs(group);
    }

    // A variant made and warmed up, its runs' times, and how many to take.
    struct Timing {
        const char *name;
        Variant variant;
        int reps;
        std::string tiles; // the tile counts its overlapped steps chose
        std::vector<double> t;
    };

    Timing warmed(const char *name, Variant v) {
        const double warm = timed(v.step);
        // Overlapped steps tune their tile count over their first calls on a
        // communicator: time them once every rank has settled.
        for (int k = 0;
             k < 64 && reduce(coconet_comm_overlap_settled(comm_) ? 0 : 1, COCONET_MAX) > 0; k++) {
            timed(v.step);
        }
        // --reps runs (3 at least, fewer where they pass 2 s), and for steps
        // under a few ms as many as fit in 0.3 s, to 101: the median of 5
        // sub-millisecond runs on a shared 2-core machine moved by 2x between
        // runs.
        const double per = std::max(warm, 1e-9);
        const int reps =
            std::max({3, std::min(o_.reps, (int)(2.0 / per)), std::min(101, (int)(0.3 / per))});
        return Timing{name, std::move(v), reps, new_tile_choices(), {}};
    }

    // The lines of coconet_comm_overlap_report not returned before: the
    // choices of the variant just timed.
    std::string new_tile_choices() {
        std::istringstream report(coconet_comm_overlap_report(comm_));
        std::string line, fresh;
        while (std::getline(report, line)) {
            if (reported_.insert(line).second) {
                fresh += (fresh.empty() ? "" : "; ") + line;
            }
        }
        return fresh;
    }

    void record(const std::string &app, const char *variant, int64_t n,
                const std::vector<double> &t, double diff, double scale, const std::string &tiles) {
        const double b = bytes_per_element(app, size_);
        Record r{app,
                 variant,
                 backend_label(),
                 size_,
                 n,
                 t[t.size() / 2],
                 t.front(),
                 t.back(),
                 b * (double)n / size_,
                 stream_gbps_,
                 b > 0 ? b * (double)n / (stream_gbps_ * 1e9) : -1.0,
                 diff,
                 tiles};
        const std::string ratio =
            r.t_min > 0 ? "  T/T_min " + std::to_string(r.median / r.t_min).substr(0, 5) : "";
        say("[bench] %-23s %-11s %-7s R=%d n=2^%-2d  median %9.3f ms  (min %9.3f, max %9.3f)"
            "%s  max diff %.2g\n",
            app.c_str(), variant, r.backend.c_str(), size_, (int)std::log2((double)n),
            r.median * 1e3, r.min * 1e3, r.max * 1e3, ratio.c_str(), diff);
        if (!tiles.empty()) {
            say("[bench]   tiles: %s\n", tiles.c_str());
        }
        if (rank_ == 0) {
            records_->push_back(r);
        }
        // CoCoNet's libraries keep the reference's order (the direct path, the
        // default schedule; MPI's own all-reduce rounds differently). The
        // baselines add up in other orders, LAMB's norms over the whole tensor
        // in float too, so they are only checked to agree to 1e-3 of the
        // output's magnitude. The unscheduled program is the others'
        // reference, checked against the single-process one with
        // --check-reference.
        const bool unscheduled = std::strcmp(variant, "unscheduled") == 0;
        const bool ours = unscheduled || std::strcmp(variant, "coconet") == 0 ||
                          std::strcmp(variant, "default") == 0;
        const double tolerance = (ours ? 1e-6 : 1e-3) * scale;
        coconet_user_assert(diff <= tolerance)
            << app << " (" << variant << ", n = " << n << ", " << size_
            << " ranks): output differs "
            << (unscheduled ? "from the single-process reference's"
                            : "from the unscheduled program's")
            << " by " << diff;
    }

    coconet_comm *comm_;
    const Options &o_;
    std::vector<Record> *records_;
    std::set<std::string> reported_; // overlap report lines already recorded
    int rank_, size_;
    double stream_gbps_ = 0;
};

void write_json(const std::string &path, const std::vector<Record> &records) {
    std::ofstream f(path);
    f << "[\n";
    for (size_t i = 0; i < records.size(); i++) {
        const Record &r = records[i];
        f << "  {\"app\": \"" << r.app << "\", \"variant\": \"" << r.variant
          << "\", \"backend\": \"" << r.backend << "\", \"ranks\": " << r.ranks
          << ", \"n\": " << r.n << ", \"seconds_median\": " << r.median
          << ", \"seconds_min\": " << r.min << ", \"seconds_max\": " << r.max
          << ", \"bytes_per_rank\": " << r.bytes_per_rank << ", \"stream_GBps\": " << r.stream_gbps
          << ", \"t_min_seconds\": ";
        if (r.t_min > 0) {
            f << r.t_min;
        } else {
            f << "null";
        }
        f << ", \"max_diff\": " << r.max_diff << ", \"tiles\": \"" << r.tiles << "\"}"
          << (i + 1 < records.size() ? "," : "") << "\n";
    }
    f << "]\n";
    coconet_user_assert(f.good()) << "cannot write " << path;
}

std::vector<std::string> split_list(const std::string &s) {
    std::vector<std::string> r;
    std::stringstream in(s);
    for (std::string x; std::getline(in, x, ',');) {
        r.push_back(x);
    }
    return r;
}

} // namespace

int main(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        const bool has_value = i + 1 < argc;
        if (a == "--ranks" && has_value) {
            o.ranks.clear();
            for (const std::string &r : split_list(argv[++i])) {
                o.ranks.push_back(std::atoi(r.c_str()));
            }
        } else if (a == "--reps" && has_value) {
            o.reps = std::atoi(argv[++i]);
        } else if (a == "--apps" && has_value) {
            for (const std::string &x : split_list(argv[++i])) {
                o.apps.insert(x);
            }
        } else if (a == "--sizes" && has_value) {
            for (const std::string &k : split_list(argv[++i])) {
                o.log2_sizes.insert(std::atoi(k.c_str()));
            }
        } else if (a == "--out" && has_value) {
            o.out = argv[++i];
        } else if (a == "--collective-sizes" && has_value) {
            o.collective_log2_sizes.clear();
            for (const std::string &k : split_list(argv[++i])) {
                const int log2n = std::atoi(k.c_str());
                if (log2n < 8 || log2n > 30) {
                    std::fprintf(stderr,
                                 "coconet_bench: --collective-sizes takes log2 sizes "
                                 "from 8 to 30, not %s\n",
                                 k.c_str());
                    return 2;
                }
                o.collective_log2_sizes.push_back(log2n);
            }
        } else if (a == "--stream-elements" && has_value) {
            o.stream_elements = std::atoll(argv[++i]);
        } else if (a == "--check-reference") {
            o.check_reference = true;
        } else if (a == "--mpi") {
            o.mpi = true;
        } else if (a == "--plain-buffers") {
            o.window_memory = false;
        } else {
            std::fprintf(stderr, "coconet_bench: unknown argument %s\n", a.c_str());
            return 2;
        }
    }
    const std::vector<Entry> entries = COCONET_BENCH_ENTRIES;
    std::vector<Record> records;
    bench::blas_threads(1); // one thread per rank, as the Halide libraries run
    try {
        if (o.mpi) {
            coconet_comm *comm = coconet_mpi_comm_create(o.timeout);
            if (!comm) {
                std::fprintf(stderr, "coconet_bench: this build has no MPI backend.\n");
                return 2;
            }
            RankBench(comm, o, &records).run(entries);
            const bool root = coconet_comm_rank(comm) == 0;
            coconet_mpi_comm_destroy(comm);
            coconet_mpi_finalize();
            if (!root) {
                return 0;
            }
        } else {
            for (int size : o.ranks) {
                apps::run_on_thread_ranks(size, o.timeout, [&](coconet_comm *comm) {
                    RankBench(comm, o, &records).run(entries);
                });
            }
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "coconet_bench: %s\n", e.what());
        return 1;
    }
    write_json(o.out, records);
    std::printf("[bench] wrote %zu records to %s\n", records.size(), o.out.c_str());
    if (records.empty()) {
        // A run that measured nothing (an entry list or rank count that
        // selects nothing) is no benchmark.
        std::printf("[bench] FAILED: no records\n");
        return 1;
    }
    return 0;
}
