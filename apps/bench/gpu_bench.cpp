// Every workload the project ships, and three users write (a global norm,
// the block of UserBlock.h: a row-parallel MatMul, a LayerNorm; attention,
// UserAttention.h),
// JIT-compiled for a GPU target (coconet::JitProgram) under each of its
// schedules, run on R thread ranks sharing one device with every rank's
// inputs and outputs on that device, as a training loop keeps them; checked
// against coconet::Reference; with the device's copy bandwidth measured in
// the same run.
//
//   build/apps/bench/coconet_gpu_bench --device cuda|opencl [--sizes smoke|full]
//       [--ranks 1,2,4] [--reps 20] [--warmup 2] [--workloads adam,lamb]
//       [--budget-s SECONDS] [--out gpu_bench.json] [--plan]
//
// Writes one JSON record per workload, schedule, size and rank count (the
// keys apps/bench/torch_bench.py writes too; scripts/gpu_bench_report.py
// joins them), rewriting the file after each, and prints a markdown table.
// Every workload runs at the middle one of its sizes first, then the
// smallest, then the largest (torch_bench.py keeps the same order), so that
// a run cut short has measured each workload once. With --budget-s, no run
// starts after that many seconds: the runs left are listed, not measured.
// Exits non-zero when an output differs from its check, a run fails, or
// nothing was measured. With
// --device cuda and no GPU it prints [SKIP] no GPU. --device opencl needs
// HL_OCL_PLATFORM_NAME / HL_OCL_DEVICE_TYPE to pick a device (CTest pins PoCL).
// --plan prints each program's plan.
//
// A call is timed from the ranks' common start (after a barrier) until the
// last rank's outputs are complete on the device (device_sync); the (upper)
// median of --reps calls (fewer where calls are long: at least 3, about 2 s
// a case), after --warmup calls and after overlapped steps have chosen their
// tile count. Inputs are copied to the device once, before the warm-up; the
// ranks are a ThreadWorld kept across the calls, and each call writes the
// previous call's outputs again (JitProgram::run_rank's `outputs`), as a
// training loop does.
//
// The last call's outputs are checked against the reference (relative to the
// largest output magnitude: 1e-5 on CUDA, which contracts a * b + c, as
// test_device allows; on OpenCL exact but where the device's exp or the order
// of addition of a norm or of a few rows added in parts differ). The
// reference runs every Func serially on the host, so the MatMul workloads
// above 1e9 multiply-adds (the full sizes' blocks) are checked against their
// unscheduled schedule's output instead (the record's "check" says which).
//
// n is the parameters (optimizers, norm), hidden x tokens (blocks: size
// "HxT"), or the output's elements (embedding, expert GEMM) and the weight's
// (GEMV), as in the CPU bench. Bytes models (bytes all ranks together must
// move per call, what GB/s counts; R ranks):
//   adam         n (8R + 20): every rank's gradients read (4R), the slice of
//                w, m and v read (12), m and v written (8), every rank's copy
//                of w_new written (4R); the CPU bench's (docs/performance.md)
//   lamb         n (8R + 32): Adam's, plus the update written and read back
//                and w read again: the trust ratio needs global norms before
//                any parameter is written
//   sgd_clip     n (8R + 20): gradients read (4R), m and w read (8), m_new
//                written (4), w_new's copies written (4R), and the summed
//                gradient written and read back (8): the update waits for
//                its norm
//   global_norm  4n: every element read once
//   embedding    4n (bag + 1) + 4 bag n / dim: each output element reads its
//                bag's rows and is written once; the indices read
//   gemv         4n + 4 cols + 4 rows (3R + 1): the weight and x read, every
//                rank's partial sums written and read, the bias read, every
//                rank's copy of y written
// The MatMuls count floating-point operations (GFLOP/s): the Megatron block
// 4 h f t (two MatMuls, ffn f = 4h), the pipeline 4 h^2 t (an h x h MatMul
// per stage), the user's block 2 h^2 t, the expert GEMM 2 n hidden, the GEMV
// 2n.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

#include "AotRunner.h"
#include "TypeDispatch.h"
#include "UserAttention.h"
#include "UserBlock.h"

using namespace coconet;

namespace {

using Clock = std::chrono::steady_clock;

struct Device {
    std::string backend; // "cuda" or "opencl"
    Halide::Target target;
    Halide::DeviceAPI api;
    double tolerance; // the device's rounding: CUDA contracts a * b + c (test_device)
};

Device device_named(const std::string &name) {
    const Halide::Target host = Halide::get_host_target();
    if (name == "cuda") {
        return {
            name,
            host.with_feature(Halide::Target::CUDA).with_feature(Halide::Target::CUDACapability80),
            Halide::DeviceAPI::CUDA, 1e-5};
    }
    return {name, host.with_feature(Halide::Target::OpenCL).with_feature(Halide::Target::CLDoubles),
            Halide::DeviceAPI::OpenCL, 0.0};
}

// Which of `count` devices Halide's CUDA and OpenCL runtimes pick: the index
// HL_GPU_DEVICE gives, else the one with the most cores (the last of equals).
int halide_device_choice(int count, const std::function<int(int)> &cores) {
    if (const char *env = std::getenv("HL_GPU_DEVICE")) {
        return std::atoi(env);
    }
    int pick = 0;
    for (int i = 0, best = 0; i < count; i++) {
        if (cores(i) >= best) {
            best = cores(i);
            pick = i;
        }
    }
    return pick;
}

// The device Halide's runtime picks, by name, from its driver opened at run
// time (this program links neither CUDA nor OpenCL).
std::string device_name(const Device &d) {
    char name[256] = "unknown";
    if (d.backend == "cuda") {
        void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (!lib) {
            return name;
        }
        auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(lib, "cuInit"));
        auto count = reinterpret_cast<int (*)(int *)>(dlsym(lib, "cuDeviceGetCount"));
        auto get = reinterpret_cast<int (*)(int *, int)>(dlsym(lib, "cuDeviceGet"));
        auto attribute =
            reinterpret_cast<int (*)(int *, int, int)>(dlsym(lib, "cuDeviceGetAttribute"));
        auto get_name = reinterpret_cast<int (*)(char *, int, int)>(dlsym(lib, "cuDeviceGetName"));
        int n = 0, dev = 0;
        if (init && count && get && attribute && get_name && init(0) == 0 && count(&n) == 0) {
            auto cores = [&](int i) {
                int c = 0;
                get(&dev, i);
                attribute(&c, 16 /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */, dev);
                return c;
            };
            if (get(&dev, halide_device_choice(n, cores)) == 0) {
                get_name(name, sizeof(name), dev);
            }
        }
        dlclose(lib);
        return name;
    }
    // OpenCL: the first platform whose name contains HL_OCL_PLATFORM_NAME (or
    // the first), its devices of the types HL_OCL_DEVICE_TYPE names (or all).
    void *lib = dlopen("libOpenCL.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!lib) {
        return name;
    }
    using Platforms = int (*)(unsigned, void **, unsigned *);
    using Info = int (*)(void *, unsigned, size_t, void *, size_t *);
    using Devices = int (*)(void *, uint64_t, unsigned, void **, unsigned *);
    auto platforms = reinterpret_cast<Platforms>(dlsym(lib, "clGetPlatformIDs"));
    auto platform_info = reinterpret_cast<Info>(dlsym(lib, "clGetPlatformInfo"));
    auto devices = reinterpret_cast<Devices>(dlsym(lib, "clGetDeviceIDs"));
    auto device_info = reinterpret_cast<Info>(dlsym(lib, "clGetDeviceInfo"));
    void *ids[16], *devs[128];
    unsigned nplatforms = 0, ndevices = 0;
    if (platforms && platform_info && devices && device_info &&
        platforms(16, ids, &nplatforms) == 0) {
        const char *want = std::getenv("HL_OCL_PLATFORM_NAME");
        const char *type = std::getenv("HL_OCL_DEVICE_TYPE");
        uint64_t mask = 0;
        for (auto [word, bit] : {std::make_pair("cpu", 2), {"gpu", 4}, {"acc", 8}}) {
            mask |= type && std::strstr(type, word) ? bit : 0; // CL_DEVICE_TYPE_*
        }
        for (unsigned p = 0; p < std::min(nplatforms, 16u); p++) {
            char platform[256] = "";
            platform_info(ids[p], 0x0902 /* CL_PLATFORM_NAME */, sizeof(platform), platform,
                          nullptr);
            if (want && !std::strstr(platform, want)) {
                continue;
            }
            if (devices(ids[p], mask ? mask : ~uint64_t(0), 128, devs, &ndevices) == 0) {
                auto cores = [&](int i) {
                    unsigned c = 0;
                    device_info(devs[i], 0x1002 /* CL_DEVICE_MAX_COMPUTE_UNITS */, sizeof(c), &c,
                                nullptr);
                    return (int)c;
                };
                const int pick = halide_device_choice((int)std::min(ndevices, 128u), cores);
                if (pick >= 0 && pick < (int)ndevices) {
                    device_info(devs[pick], 0x102B /* CL_DEVICE_NAME */, sizeof(name), name,
                                nullptr);
                }
            }
            break;
        }
    }
    dlclose(lib);
    return name;
}

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Bytes per second of device-to-device copies of `bytes` (read + written),
// through Halide's device interface (halide_buffer_copy: cuMemcpyDtoD on
// CUDA, as cudaMemcpy in gpu_adam.cpp); the median of `reps`.
double copy_bandwidth(const Device &d, int64_t bytes, int reps) {
    const halide_device_interface_t *device =
        Halide::get_device_interface_for_device_api(d.api, d.target);
    Halide::Runtime::Buffer<float> a((int)(bytes / 4)), b((int)(bytes / 4));
    if (a.device_malloc(device) != 0 || b.device_malloc(device) != 0) {
        return 0;
    }
    std::vector<double> t;
    for (int i = 0; i < reps + 1; i++) {
        const auto start = Clock::now();
        if (device->buffer_copy(nullptr, a.raw_buffer(), device, b.raw_buffer()) != 0 ||
            b.device_sync() != 0) {
            return 0;
        }
        t.push_back(seconds_since(start));
    }
    t.erase(t.begin()); // the first copy warms up
    std::sort(t.begin(), t.end());
    return 2.0 * (double)bytes / t[t.size() / 2];
}

// A global norm of sharded gradients, as users write it: each rank sums the
// squares of its slice in double (a Local partial), then all_reduce.
Program global_norm(int n) {
    DFunc g = input("g", Halide::Float(32), {n}, Sliced(0));
    Halide::RDom k(0, n, "k");
    DFunc part("norm2_part");
    part() = Halide::Expr(0.0);
    part() += Halide::cast<double>(g(k)) * Halide::cast<double>(g(k));
    Program p("global_norm");
    p.output(all_reduce(part, ReduceOp::Sum, "norm2"), Replicated());
    return p;
}

// A schedule of a workload: its name, what makes the program, and whether the
// Funcs left unscheduled get the default schedule (JitOptions).
struct Schedule {
    Schedule(std::string name, std::function<Program()> make, bool default_schedule = true)
        : name(std::move(name)), make(std::move(make)), default_schedule(default_schedule) {}
    std::string name;
    std::function<Program()> make;
    bool default_schedule;
};
using Schedules = std::vector<Schedule>;

// One workload at one size: its schedules (the same algorithm, the same
// inputs), how to count its work and how exactly it must match.
struct Workload {
    std::string name, size; // size: "2^22", or hidden x tokens ("1024x2048")
    int64_t n;
    Schedules schedules;
    std::function<double(int)> bytes; // per call, for R ranks; null: compute-bound
    double flops = 0;
    double tolerance = 0; // relative, what the algorithm's device code adds
    int min_ranks = 1;
    apps::InputMaker inputs = make_inputs;
    // The reference runs every Func serially on the host: above about 1e9
    // multiply-adds (a few seconds) each schedule's output is checked against
    // the first schedule's instead.
    bool reference = true;
};

std::string power_label(int64_t n) {
    const int k = (int)std::lround(std::log2((double)n));
    return (int64_t(1) << k) == n ? "2^" + std::to_string(k) : std::to_string(n);
}

const int64_t reference_macs = 1000000000;

// Sizes (apps/bench/torch_bench.py has the same table): smoke, a few
// thousand elements per workload; full, optimizer steps of 2^22..2^26
// parameters, blocks of 1024..4096 features x 2048..8192 tokens, and the
// operators at the SC24 shapes the CPU bench uses (its n = 2^20..2^24).
struct Sizes {
    std::vector<int> params;
    std::vector<std::pair<int, int>> blocks;           // hidden, tokens
    std::vector<std::tuple<int, int, int>> attentions; // head_dim, heads, tokens
    std::vector<apps::EmbeddingConfig> embeddings;
    std::vector<apps::GemvConfig> gemvs;
    std::vector<apps::GemmConfig> gemms;
    // The split schedules (the collective split, nothing fused) and attention
    // overlapped; left out of the smoke run, which must take about a minute on
    // PoCL with its kernel cache empty (each kernel compiles in about 0.2 s
    // there, and attention's compiles for 12 s).
    bool every_schedule = true;
};

// The operators' shapes, with the CPU bench's parameters
// (apps/bench/CMakeLists.txt).
apps::EmbeddingConfig embedding(int dim, int rows, int tables, int bag, int tile, int tiles) {
    apps::EmbeddingConfig c;
    std::tie(c.dim, c.rows, c.tables, c.bag, c.tile, c.tiles) =
        std::make_tuple(dim, rows, tables, bag, tile, tiles);
    return c;
}

apps::GemvConfig gemv(int tile, int tiles, int cols) {
    apps::GemvConfig c;
    std::tie(c.tile, c.tiles, c.cols) = std::make_tuple(tile, tiles, cols);
    return c;
}

apps::GemmConfig gemm(int width, int experts, int capacity, int tiles) {
    apps::GemmConfig c;
    std::tie(c.hidden, c.out, c.experts, c.capacity, c.tiles) =
        std::make_tuple(width, width, experts, capacity, tiles);
    return c;
}

Sizes sizes_named(const std::string &name) {
    Sizes s;
    if (name == "smoke") {
        s.params = {4096};
        s.blocks = {{32, 64}};
        s.attentions = {{8, 7, 24}}; // 7 heads: every rank of 3 or 4 holds some
        s.embeddings = {embedding(16, 256, 7, 4, 8, 4)};
        s.gemvs = {gemv(16, 4, 256)};
        s.gemms = {gemm(16, 7, 8, 4)};
        s.every_schedule = false;
        return s;
    }
    s.params = {1 << 22, 1 << 24, 1 << 26};
    s.blocks = {{1024, 2048}, {2048, 4096}, {4096, 8192}};
    s.attentions = {{64, 16, 1024}, {64, 16, 4096}, {128, 32, 4096}};
    for (int e : {20, 22, 24}) {
        s.embeddings.push_back(embedding(64, 4096, 8, 8, (1 << e) / 4096, 8));
        s.gemvs.push_back(gemv((1 << e) / 8192, 8, 1024));
        s.gemms.push_back(gemm(64, 8, (1 << e) / 4096, 8));
    }
    return s;
}

// Schedules of the apps with apps::Schedule: unscheduled, split, fused, and
// with Overlap also fused with its producer overlapped in 4 chunks (the CPU
// bench's CoCoNet variant).
template<bool Overlap, typename Config, typename Make>
Schedules scheduled(Config c, Make make, const std::string &suffix = "") {
    Schedules r;
    c.gpu = true;
    for (apps::Schedule s : {apps::Schedule::None, apps::Schedule::Split, apps::Schedule::Fused}) {
        c.schedule = s;
        r.emplace_back(apps::to_string(s) + suffix, [=] { return make(c); });
    }
    if constexpr (Overlap) {
        c.overlap = 4;
        r.emplace_back("overlapped" + suffix, [=] { return make(c); });
    }
    return r;
}

// The all_to_all operators: unscheduled, and overlapped in 4 chunks.
template<typename Config, typename Make>
Schedules overlapped(Config c, Make make) {
    c.gpu = true;
    Schedules r;
    r.emplace_back("unscheduled", [=] { return make(c); });
    c.overlap = 4;
    r.emplace_back("overlapped", [=] { return make(c); });
    return r;
}

// The workloads (each listed from its smallest size) in the order they run:
// every workload at its middle size, then the others from the smallest
// (torch_bench.py's run_order).
std::vector<Workload> in_run_order(const std::vector<Workload> &w) {
    std::map<std::string, std::vector<size_t>> sizes; // each workload's entries
    for (size_t i = 0; i < w.size(); i++) {
        sizes[w[i].name].push_back(i);
    }
    std::vector<std::pair<size_t, size_t>> order; // (place of its size, entry)
    for (const auto &[name, entries] : sizes) {
        const size_t middle = entries.size() / 2;
        for (size_t k = 0; k < entries.size(); k++) {
            order.emplace_back(k == middle ? 0 : k < middle ? k + 1 : k, entries[k]);
        }
    }
    std::sort(order.begin(), order.end());
    std::vector<Workload> out;
    for (const auto &[place, entry] : order) {
        out.push_back(w[entry]);
    }
    return out;
}

// The schedules of a program users write, first without the default schedule
// where no reference checks it: that run is then the check, and shows what the
// default schedule gains.
Schedules users_schedules(bool reference, std::function<Program()> plain, Schedules schedules) {
    if (!reference) {
        schedules.insert(schedules.begin(), {"no default schedule", std::move(plain), false});
    }
    return schedules;
}

std::vector<Workload> workloads(const Sizes &s) {
    std::vector<Workload> w;
    for (int n : s.params) {
        apps::OptimizerConfig c;
        c.n = n;
        const std::string size = power_label(n);
        w.push_back({"adam", size, n, scheduled<false>(c, apps::adam),
                     [n](int r) { return (double)n * (8.0 * r + 20); }});
        w.back().inputs = apps::optimizer_inputs;
        w.push_back({"lamb", size, n, scheduled<false>(c, apps::lamb),
                     [n](int r) { return (double)n * (8.0 * r + 32); }});
        w.back().inputs = apps::optimizer_inputs;
        // The device adds a norm's parts in its own order (docs/gpu.md).
        w.back().tolerance = 1e-6;
        w.push_back({"sgd_clip", size, n, scheduled<false>(c, apps::sgd_clip),
                     [n](int r) { return (double)n * (8.0 * r + 20); }});
        w.back().tolerance = 1e-6;
        auto norm_bytes = [n](int) { return 4.0 * n; };
        w.push_back({"global_norm",
                     size,
                     n,
                     {{"unscheduled", [n] { return global_norm(n); }}},
                     norm_bytes});
        // Summed in double in another order (1.6e-12 at 2^22 on PoCL); a lost
        // element would show as about 1 / n (1.5e-8 at 2^26).
        w.back().tolerance = 1e-9;
    }
    for (auto [hidden, tokens] : s.blocks) {
        const std::string size = std::to_string(hidden) + "x" + std::to_string(tokens);
        const int64_t n = (int64_t)hidden * tokens;
        apps::MlpConfig m;
        m.hidden = hidden;
        m.ffn = 4 * hidden;
        m.batch = tokens;
        Workload mlp{"megatron_mlp", size, n, {}, nullptr, 4.0 * n * m.ffn};
        // Split along the features (tensor parallel) and along the tokens.
        for (int dim : {0, 1}) {
            m.split_dim = dim;
            auto more = scheduled<true>(m, apps::megatron_mlp, dim ? " (tokens)" : " (features)");
            mlp.schedules.insert(mlp.schedules.end(), more.begin() + (dim ? 1 : 0), more.end());
        }
        mlp.schedules.front().name = "unscheduled"; // split_dim is a schedule's
        mlp.tolerance = 1e-5;                       // GELU calls the device's exp
        mlp.reference = 2.0 * n * m.ffn <= reference_macs;
        w.push_back(mlp);
        apps::PipelineConfig p;
        p.hidden = hidden;
        p.batch = tokens;
        w.push_back({"two_stage_pipeline", size, n, scheduled<true>(p, apps::two_stage_pipeline),
                     nullptr, 4.0 * n * hidden});
        w.back().min_ranks = 2;
        w.back().reference = 2.0 * n * hidden <= reference_macs;
        // A block as a user writes it (UserBlock.h): unscheduled, fused, and
        // fused with the MatMul overlapped in 4 chunks.
        Workload user{"user_block", size, n, {}, nullptr, 2.0 * n * hidden};
        auto block = [hidden = hidden, tokens = tokens](bool fused, int overlap) {
            return [=] { return user_block(hidden, tokens, fused, overlap); };
        };
        user.reference = (double)n * hidden <= reference_macs;
        user.schedules = users_schedules(user.reference, block(false, 0),
                                         {{"unscheduled", block(false, 0)},
                                          {"fused", block(true, 0)},
                                          {"overlapped", block(true, 4)}});
        user.tolerance = 1e-5; // the device's square root and division
        w.push_back(user);
    }
    for (auto [head_dim, heads, tokens] : s.attentions) {
        // Attention as a user writes it (UserAttention.h): unscheduled, and
        // with the output projection overlapped with its all_reduce in 4 chunks.
        const int64_t hidden = (int64_t)head_dim * heads, n = hidden * tokens;
        const double macs = 4.0 * n * hidden + 2.0 * n * tokens;
        Workload attention{"user_attention",
                           std::to_string(heads) + "x" + std::to_string(head_dim) + "x" +
                               std::to_string(tokens),
                           n,
                           {},
                           nullptr,
                           2 * macs};
        auto make = [head_dim = head_dim, heads = heads, tokens = tokens](int overlap) {
            return [=] { return user_attention(head_dim, heads, tokens, overlap); };
        };
        attention.reference = macs <= reference_macs;
        attention.schedules =
            users_schedules(attention.reference, make(0), {{"unscheduled", make(0)}});
        if (s.every_schedule) {
            attention.schedules.push_back({"overlapped", make(4)});
        }
        attention.tolerance = 1e-5; // the device's exp and division
        w.push_back(attention);
    }
    for (const apps::EmbeddingConfig &c : s.embeddings) {
        const int64_t n = (int64_t)c.dim * c.tile * c.tables * c.tiles;
        w.push_back({"embedding_all_to_all", power_label(n), n,
                     overlapped(c, apps::embedding_all_to_all),
                     [n, c](int) { return 4.0 * n * (c.bag + 1) + 4.0 * c.bag * n / c.dim; }});
    }
    for (const apps::GemvConfig &c : s.gemvs) {
        const int64_t rows = (int64_t)c.tile * c.tiles, n = rows * c.cols;
        w.push_back(
            {"gemv_all_reduce", power_label(n), n, scheduled<true>(c, apps::gemv_all_reduce),
             [n, rows, c](int r) { return 4.0 * n + 4.0 * c.cols + 4.0 * rows * (3 * r + 1); },
             2.0 * n});
        // The device adds a few rows in parts, in its own order (docs/gpu.md).
        w.back().tolerance = 1e-5;
    }
    for (const apps::GemmConfig &c : s.gemms) {
        const int64_t n = (int64_t)c.out * c.capacity * c.experts * c.tiles;
        w.push_back({"gemm_all_to_all", power_label(n), n, overlapped(c, apps::gemm_all_to_all),
                     nullptr, 2.0 * n * c.hidden});
        w.back().reference = (double)n * c.hidden <= reference_macs;
    }
    auto is_split = [](const Schedule &schedule) { return schedule.name.rfind("split", 0) == 0; };
    for (Workload &x : w) {
        if (!s.every_schedule) {
            x.schedules.erase(std::remove_if(x.schedules.begin(), x.schedules.end(), is_split),
                              x.schedules.end());
        }
    }
    return in_run_order(w);
}

// Copies of the inputs on the device, newest there (a host read would be a
// counted copy).
std::vector<RankBuffers> on_device(const std::vector<RankBuffers> &inputs, const Device &d) {
    const halide_device_interface_t *device =
        Halide::get_device_interface_for_device_api(d.api, d.target);
    std::vector<RankBuffers> out(inputs.size());
    for (size_t r = 0; r < inputs.size(); r++) {
        for (const auto &[name, b] : inputs[r]) {
            Halide::Buffer<> c = b.copy();
            if (c.number_of_elements() > 0) {
                c.set_host_dirty();
                coconet_user_assert(c.copy_to_device(device) == 0)
                    << "cannot copy input " << name << " to the device";
                c.set_device_dirty(true);
            }
            out[r][name] = c;
        }
    }
    return out;
}

// The largest magnitude of any output (at least 1): what differences are
// relative to.
double output_scale(const std::vector<RankBuffers> &outputs) {
    double scale = 1;
    for (const RankBuffers &rank : outputs) {
        for (const auto &[name, b] : rank) {
            with_element_type(b.type(), [&](auto zero) {
                Halide::Buffer<const decltype(zero)>(b).for_each_value(
                    [&](auto x) { scale = std::max(scale, std::fabs((double)x)); });
            });
        }
    }
    return scale;
}

struct Options {
    Device device = device_named("opencl");
    std::string sizes = "smoke", out = "gpu_bench.json";
    std::vector<int> ranks = {1, 2, 4};
    int reps = 20, warmup = 2;
    std::set<std::string> only; // --workloads
    double budget = 0;          // --budget-s: no run starts after it (0: none)
    bool plan = false;          // --plan: print each program's plan (what runs on the device)
    double timeout = 300;       // a wait between ranks (PoCL compiles kernels on first use)
};

struct Record {
    std::string workload, schedule, size;
    int64_t n;
    int ranks, reps;
    double ms, ms_min, ms_max;
    double bytes, flops;      // 0: no model
    double host_device_bytes; // per call, all ranks (COCONET_HOST_DEVICE)
    // "reference", the schedule compared with, or "unchecked" (that schedule)
    std::string check;
    double max_rel_diff, tolerance;
    std::string tiles; // the tile counts overlapped steps chose
    bool ok;
};

// A measured program: its times and last outputs (on the host).
struct Run {
    std::vector<double> seconds;
    std::vector<RankBuffers> outputs;
    double host_device_bytes = 0;
    std::string tiles;
};

// Warm-up calls (more until every overlapped step has chosen its tile count,
// at most 64), then the timed calls, on one world of R thread ranks.
Run measure(const JitProgram &jit, const std::vector<RankBuffers> &inputs, const Options &o) {
    const int size = (int)inputs.size();
    ThreadWorld world(size, o.timeout);
    std::vector<coconet_comm *> comms;
    for (int r = 0; r < size; r++) {
        comms.push_back(world.comm(r));
    }
    Run run;
    run.outputs.resize(size);
    std::vector<Clock::time_point> start(size), end(size);
    // One call of every rank: from the ranks' common start to the last one's
    // outputs complete on the device.
    auto call = [&] {
        world.run([&](coconet_comm *comm) {
            const int r = coconet_comm_rank(comm);
            coconet_user_assert(coconet_barrier(comm, "gpu_bench") == COCONET_OK)
                << coconet_comm_last_error(comm);
            start[r] = Clock::now();
            jit.run_rank(comm, inputs[r], run.outputs[r]);
            for (auto &[name, b] : run.outputs[r]) {
                if (b.raw_buffer()->device) {
                    coconet_user_assert(b.device_sync() == 0) << "device_sync of " << name;
                }
            }
            end[r] = Clock::now();
        });
        return std::chrono::duration<double>(*std::max_element(end.begin(), end.end()) -
                                             *std::min_element(start.begin(), start.end()))
            .count();
    };
    auto settled = [&] {
        return std::all_of(comms.begin(), comms.end(),
                           [](coconet_comm *c) { return coconet_comm_overlap_settled(c) != 0; });
    };
    double last = 0;
    for (int k = 0; k < std::max(o.warmup, 1) || (!settled() && k < 64); k++) {
        last = call();
    }
    const int reps = std::min(o.reps, std::max(3, (int)(2.0 / std::max(last, 1e-9))));
    auto host_device = [&] {
        double b = 0;
        for (coconet_comm *c : comms) {
            b += (double)coconet_comm_bytes_sent(c, COCONET_HOST_DEVICE);
        }
        return b;
    };
    const double before = host_device();
    for (int i = 0; i < reps; i++) {
        run.seconds.push_back(call());
    }
    run.host_device_bytes = (host_device() - before) / reps;
    std::istringstream report(coconet_comm_overlap_report(comms[0]));
    for (std::string line; std::getline(report, line);) {
        run.tiles += (run.tiles.empty() ? "" : "; ") + line;
    }
    for (RankBuffers &rank : run.outputs) {
        for (auto &[name, b] : rank) {
            b.copy_to_host();
            b.device_free();
        }
    }
    std::sort(run.seconds.begin(), run.seconds.end());
    return run;
}

class Bench {
public:
    // `save` is given the records after each one; --budget-s counts from `start`.
    Bench(const Options &o, Clock::time_point start,
          std::function<void(const std::vector<Record> &)> save)
        : o_(o), start_(start), save_(std::move(save)) {}

    // Every schedule of w on every rank count; false when one failed.
    bool run(const Workload &w) {
        bool ok = true;
        std::vector<std::unique_ptr<JitProgram>> jits(w.schedules.size());
        for (int size : o_.ranks) {
            if (size < w.min_ranks) {
                std::printf("[gpu_bench] %s needs %d ranks: skipped on %d\n", w.name.c_str(),
                            w.min_ranks, size);
                continue;
            }
            if (out_of_time()) {
                not_started(w, size, 0);
                continue;
            }
            const Program first = w.schedules.front().make();
            const std::vector<RankBuffers> inputs = w.inputs(first, size, 17 + size);
            std::vector<RankBuffers> expected;
            std::string check = "reference";
            double scale = 1;
            if (w.reference) {
                expected = Reference(first).run(size, inputs);
                scale = output_scale(expected);
            }
            const std::vector<RankBuffers> device_inputs = on_device(inputs, o_.device);
            for (size_t s = 0; s < w.schedules.size(); s++) {
                const std::string &schedule = w.schedules[s].name;
                if (out_of_time()) {
                    not_started(w, size, s);
                    break;
                }
                try {
                    if (!jits[s]) {
                        JitOptions options;
                        options.target = o_.device.target;
                        options.default_schedule = w.schedules[s].default_schedule;
                        jits[s] = std::make_unique<JitProgram>(w.schedules[s].make(), options);
                        if (o_.plan) {
                            std::printf("[gpu_bench] %s (%s), %s: the plan on %d ranks\n%s\n",
                                        w.name.c_str(), schedule.c_str(), w.size.c_str(), size,
                                        jits[s]->plan(size).c_str());
                        }
                    }
                    Run run = measure(*jits[s], device_inputs, o_);
                    if (expected.empty()) { // no reference: the first schedule is the check
                        expected = run.outputs;
                        scale = output_scale(expected);
                        ok = record(w, schedule, size, run, "unchecked", 0) && ok;
                        check = schedule;
                        continue;
                    }
                    const double diff = max_abs_diff(run.outputs, expected) / scale;
                    ok = record(w, schedule, size, run, check, diff) && ok;
                } catch (const std::exception &e) {
                    std::printf("[gpu_bench] FAILED %s (%s), %s, %d ranks: %s\n", w.name.c_str(),
                                schedule.c_str(), w.size.c_str(), size, e.what());
                    ok = false;
                }
            }
            // Frees the allocations Halide's cache holds: the next sizes differ.
            Halide::Internal::JITSharedRuntime::reuse_device_allocations(false);
            Halide::Internal::JITSharedRuntime::reuse_device_allocations(true);
        }
        return ok;
    }

    const std::vector<Record> &records() const { return records_; }
    // The runs --budget-s left out: "workload size R=r: schedule, ...".
    const std::vector<std::string> &left_out() const { return left_out_; }

private:
    bool out_of_time() const { return o_.budget > 0 && seconds_since(start_) > o_.budget; }

    // Notes w's schedules from the `first` on, on `ranks` ranks, as not run.
    void not_started(const Workload &w, int ranks, size_t first) {
        std::string line = w.name + " " + w.size + " R=" + std::to_string(ranks) + ":";
        for (size_t s = first; s < w.schedules.size(); s++) {
            line += (s == first ? " " : ", ") + w.schedules[s].name;
        }
        left_out_.push_back(line);
    }

    bool record(const Workload &w, const std::string &schedule, int size, const Run &run,
                const std::string &check, double diff) {
        const std::vector<double> &t = run.seconds;
        const double tolerance = std::max(w.tolerance, o_.device.tolerance);
        Record r{w.name,
                 schedule,
                 w.size,
                 w.n,
                 size,
                 (int)t.size(),
                 t[t.size() / 2] * 1e3,
                 t.front() * 1e3,
                 t.back() * 1e3,
                 w.bytes ? w.bytes(size) : 0.0,
                 w.flops,
                 run.host_device_bytes,
                 check,
                 diff,
                 tolerance,
                 run.tiles,
                 diff <= tolerance};
        std::printf("[gpu_bench] %-20s %-21s %-9s R=%d  %9.3f ms  (min %.3f, max %.3f)  "
                    "rel diff %.2g%s\n",
                    r.workload.c_str(), r.schedule.c_str(), r.size.c_str(), size, r.ms, r.ms_min,
                    r.ms_max, diff, r.ok ? "" : "  MISMATCH");
        std::fflush(stdout);
        records_.push_back(r);
        save_(records_);
        return r.ok;
    }

    const Options &o_;
    const Clock::time_point start_;
    const std::function<void(const std::vector<Record> &)> save_;
    std::vector<Record> records_;
    std::vector<std::string> left_out_;
};

// JSON numbers: null where there is no value (no model, no bandwidth figure).
std::string number(double x, bool present = true) {
    if (!present || !std::isfinite(x)) {
        return "null";
    }
    std::ostringstream s;
    s.precision(9);
    s << x;
    return s.str();
}

// A JSON string: a device name or an overlap report may hold any character.
std::string quoted(const std::string &x) {
    std::string q = "\"";
    for (char c : x) {
        if (c == '"' || c == '\\') {
            q += '\\';
        }
        q += (unsigned char)c < 0x20 ? ' ' : c;
    }
    return q + "\"";
}

// Writes the records to `path` whole, through a file beside it renamed over
// it, so that a run stopped at any point leaves the records so far.
void write_json(const std::string &path, const std::vector<Record> &records,
                const std::string &device, const std::string &backend, double copy_gbps) {
    const std::string partial = path + ".partial";
    std::ofstream f(partial);
    f << "[\n";
    for (size_t i = 0; i < records.size(); i++) {
        const Record &r = records[i];
        const double s = r.ms * 1e-3;
        f << "  {\"workload\": " << quoted(r.workload) << ", \"schedule\": " << quoted(r.schedule)
          << ", \"impl\": \"coconet\", \"size\": " << quoted(r.size) << ", \"n\": " << r.n
          << ", \"ranks\": " << r.ranks << ", \"device\": " << quoted(device)
          << ", \"backend\": " << quoted(backend) << ", \"ms\": " << number(r.ms)
          << ", \"ms_min\": " << number(r.ms_min) << ", \"ms_max\": " << number(r.ms_max)
          << ", \"reps\": " << r.reps << ", \"bytes\": " << number(r.bytes, r.bytes > 0)
          << ", \"gbps\": " << number(r.bytes / s / 1e9, r.bytes > 0)
          << ", \"flops\": " << number(r.flops, r.flops > 0)
          << ", \"gflops\": " << number(r.flops / s / 1e9, r.flops > 0)
          << ", \"copy_gbps\": " << number(copy_gbps, copy_gbps > 0)
          << ", \"host_device_bytes\": " << number(r.host_device_bytes)
          << ", \"check\": " << quoted(r.check) << ", \"max_rel_diff\": " << number(r.max_rel_diff)
          << ", \"tolerance\": " << number(r.tolerance) << ", \"ok\": " << (r.ok ? "true" : "false")
          << ", \"tiles\": " << quoted(r.tiles) << "}" << (i + 1 < records.size() ? "," : "")
          << "\n";
    }
    f << "]\n";
    f.close();
    coconet_user_assert(f.good() && std::rename(partial.c_str(), path.c_str()) == 0)
        << "cannot write " << path;
}

void print_table(const std::vector<Record> &records, double copy_gbps) {
    std::printf("\n| workload | size | schedule | R | ms | GB/s | %% of copy | GFLOP/s | "
                "host<->device B/call | check | max rel diff |\n"
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (const Record &r : records) {
        const double s = r.ms * 1e-3;
        char gbps[32] = "", copy[32] = "", gflops[32] = "";
        if (r.bytes > 0) {
            std::snprintf(gbps, sizeof(gbps), "%.1f", r.bytes / s / 1e9);
            if (copy_gbps > 0) {
                std::snprintf(copy, sizeof(copy), "%.0f%%", 100 * r.bytes / s / 1e9 / copy_gbps);
            }
        }
        if (r.flops > 0) {
            std::snprintf(gflops, sizeof(gflops), "%.1f", r.flops / s / 1e9);
        }
        std::printf("| %s | %s | %s | %d | %.3f | %s | %s | %s | %.0f | %s | %.2g%s |\n",
                    r.workload.c_str(), r.size.c_str(), r.schedule.c_str(), r.ranks, r.ms, gbps,
                    copy, gflops, r.host_device_bytes, r.check.c_str(), r.max_rel_diff,
                    r.ok ? "" : " **MISMATCH**");
    }
}

// Calls item(x) for each x of the comma-separated list s.
template<typename F>
void for_each_item(const std::string &s, F item) {
    std::stringstream in(s);
    for (std::string x; std::getline(in, x, ',');) {
        item(x);
    }
}

int usage(const char *why) {
    std::fprintf(stderr,
                 "coconet_gpu_bench: %s\nusage: coconet_gpu_bench --device cuda|opencl "
                 "[--sizes smoke|full] [--ranks 1,2,4] [--reps 20] [--warmup 2] "
                 "[--workloads a,b] [--budget-s SECONDS] [--out gpu_bench.json] [--plan]\n",
                 why);
    return 2;
}

} // namespace

int main(int argc, char **argv) {
    Options o;
    std::string device;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a == "--plan") {
            o.plan = true;
            continue;
        }
        if (i + 1 >= argc) {
            return usage(("no value after " + a).c_str());
        }
        const std::string v = argv[++i];
        if (a == "--device" && (v == "cuda" || v == "opencl")) {
            device = v;
        } else if (a == "--sizes" && (v == "smoke" || v == "full")) {
            o.sizes = v;
        } else if (a == "--ranks") {
            o.ranks.clear();
            for_each_item(v,
                          [&](const std::string &r) { o.ranks.push_back(std::atoi(r.c_str())); });
            if (o.ranks.empty() || *std::min_element(o.ranks.begin(), o.ranks.end()) < 1) {
                return usage("--ranks takes positive rank counts");
            }
        } else if (a == "--reps" && std::atoi(v.c_str()) > 0) {
            o.reps = std::atoi(v.c_str());
        } else if (a == "--warmup" && std::atoi(v.c_str()) >= 0) {
            o.warmup = std::atoi(v.c_str());
        } else if (a == "--budget-s" && std::atof(v.c_str()) > 0) {
            o.budget = std::atof(v.c_str());
        } else if (a == "--workloads") {
            for_each_item(v, [&](const std::string &x) { o.only.insert(x); });
        } else if (a == "--out") {
            o.out = v;
        } else {
            return usage(("bad argument " + a + " " + v).c_str());
        }
    }
    if (device.empty()) {
        return usage("--device cuda or --device opencl is required");
    }
    o.device = device_named(device);
    if (device == "cuda" && coconet_gpu_count() == 0) {
        std::printf("[SKIP] no GPU\n");
        return 0;
    }
    // Device temporaries, and each run's first outputs, come from Halide's
    // allocation cache.
    Halide::Internal::JITSharedRuntime::reuse_device_allocations(true);
    const auto start = Clock::now();
    try {
        const std::string name = device_name(o.device);
        const std::vector<Workload> all = workloads(sizes_named(o.sizes));
        std::set<std::string> known;
        for (const Workload &w : all) {
            known.insert(w.name);
        }
        for (const std::string &asked : o.only) {
            if (!known.count(asked)) {
                std::string names;
                for (const std::string &k : known) {
                    names += (names.empty() ? "" : ", ") + k;
                }
                const std::string why =
                    "unknown workload " + asked + " (the workloads: " + names + ")";
                return usage(why.c_str());
            }
        }
        // 256 MiB as gpu_adam.cpp copies (4 MiB for the smoke run).
        const int64_t copy_bytes = int64_t(o.sizes == "full" ? 256 : 4) << 20;
        const double copy_gbps = copy_bandwidth(o.device, copy_bytes, 10) / 1e9;
        std::printf("[gpu_bench] device: %s (%s); copy bandwidth (read + write) %.1f GB/s\n",
                    name.c_str(), device.c_str(), copy_gbps);
        auto save = [&](const std::vector<Record> &records) {
            write_json(o.out, records, name, device, copy_gbps);
        };
        save({}); // no records of an earlier run left behind
        Bench bench(o, start, save);
        bool ok = true;
        for (const Workload &w : all) {
            if (o.only.empty() || o.only.count(w.name)) {
                ok = bench.run(w) && ok;
            }
        }
        const std::vector<Record> &records = bench.records();
        print_table(records, copy_gbps);
        std::printf("\n[gpu_bench] wrote %zu records to %s in %.1f s\n", records.size(),
                    o.out.c_str(), seconds_since(start));
        if (!bench.left_out().empty()) {
            std::printf("[gpu_bench] not run: no run starts after --budget-s %g s:\n", o.budget);
            for (const std::string &line : bench.left_out()) {
                std::printf("  %s\n", line.c_str());
            }
        }
        if (records.empty()) {
            std::printf("[gpu_bench] FAILED: no records\n");
            return 1;
        }
        if (!ok) {
            std::printf("[gpu_bench] FAILED: a run failed or an output differs from its check\n");
            return 1;
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "coconet_gpu_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
