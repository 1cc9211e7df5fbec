// Runs the apps' AOT libraries (generators/, built by add_coconet_library) and
// checks every rank's outputs against the single-process reference of the
// Program each was built from, and that the ranks' copies of a Replicated
// output agree (under --mpi, gathered from the processes).
//
//   build/apps/coconet_aot_app [--ranks 1,3,4] [--repeat N] [--path direct|ring]
//                              [--tolerance [LIBRARY=]T]... [--at SIZE=V1,V2,...]...
//                              [library...]
//   mpirun --allow-run-as-root --oversubscribe -np 4 build/apps/coconet_aot_app --mpi [--window]
//
// --gpu (the CUDA-target libraries) first looks for a GPU and, without one,
// prints [SKIP] no GPU and succeeds. GPU results are checked to 1e-5: Halide's
// PTX backend contracts a * b + c into fma.rn.f32 even under strict_float
// (the libraries' PTX has no separate mul.f32 left), so they differ from the
// reference by rounding (measured on an H100: at most 1.9e-6). --nccl (the
// CUDA-target libraries, in a build with the NCCL backend) runs them on NCCL
// worlds of one GPU per rank (rank counts above the GPU count are skipped, and
// a run that failed nowhere then ends with [SKIP] no GPU for every rank);
// NCCL also adds in an order of its own. Libraries on process groups are
// skipped there (the NCCL backend has no groups yet).
//
// The OpenCL-target libraries (coconet_aot_opencl_app, run on PoCL in CI)
// need no flag: their kernels run on the OpenCL device Halide's runtime picks
// (the tests pin HL_OCL_PLATFORM_NAME / HL_OCL_DEVICE_TYPE), bit-identical to
// the reference, except in programs calling math functions (exp, tanh) whose
// device versions differ from the host's in the last place. For those,
// --tolerance [LIBRARY=]T (for LIBRARY, or without it for every library;
// repeatable) is relative: it accepts an output whose largest error is at most
// T times the largest magnitude of that output's reference values (on the
// ranks this process checks), so a last-place difference is admitted at the
// output's scale and an output of small values gets a bound as small. The
// paths' own tolerances below stay absolute; an output passes within either.
//
// --resident (GPU-target libraries, thread ranks or --nccl) passes every
// rank's inputs and outputs on the library's device, as a caller keeping its
// data there does, and fails a run whose call copies any byte between host
// and device (COCONET_HOST_DEVICE) on any rank.
//
// A library with run-time sizes runs at every combination of the values
// --at gives its sizes (e.g. --at n=1,2,1001); one with a size --at does not
// name fails.
//
// Without --mpi, each library runs on thread ranks (threads backend) for each
// count in --ranks, --repeat times, its floating-point inputs rewritten in
// place between calls (a training loop's): every call must equal the
// reference and leave no device allocation on the caller's inputs.
// --window (with --mpi) puts every rank's buffers in window memory
// (coconet_mpi_alloc), which fused passes use in place, and checks that
// coconet_aot_release frees the executor's windows of a library. --path sets COCONET_FUSED_PATH; on
// the ring, fused passes add up in a rotation of rank order, so they are checked to 1e-5, as are
// unfused MPI collectives on MPI's own reductions (reference_tolerance).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "AotRunner.h"
#include "aot_libraries.h"
#if COCONET_AOT_NCCL
#include "coconet_nccl.h"
#endif

using namespace coconet;

namespace {

bool has_fused_pass(const coconet_aot_program *p) {
    for (int s = 0; s < p->nsteps; s++) {
        if (p->steps[s].kind == COCONET_STEP_FUSED) {
            return true;
        }
    }
    return false;
}

// How the libraries run (the command line's flags).
struct RunOptions {
    bool ring = false, nccl = false, gpu = false;
    bool window = false;   // MPI: buffers in window memory (coconet_mpi_alloc)
    bool resident = false; // every rank's buffers on the library's device
    int repeat = 1;
    // --tolerance [LIBRARY=]T: by library name, "" for every library.
    std::map<std::string, double> tolerances;
    // --at SIZE=V1,V2,...: the values each run-time size runs at.
    std::map<std::string, std::vector<int>> at;

    double relative_tolerance(const std::string &library) const {
        auto it = tolerances.find(library);
        it = it != tolerances.end() ? it : tolerances.find("");
        return it != tolerances.end() ? it->second : 0.0;
    }
};

// Runs every rank of the library as a thread of this process: on thread
// ranks, or on an NCCL world of `size` GPUs. host_device[r]: the bytes rank
// r's call copied between host and device.
std::vector<RankBuffers> run_world(const coconet_aot_program *p, int size,
                                   const std::vector<RankBuffers> &inputs, const Sizes &sizes,
                                   const RunOptions &o, std::vector<uint64_t> &host_device) {
    std::vector<RankBuffers> outputs(size);
    host_device.assign(size, 0);
    auto body = [&](coconet_comm *comm) {
        const int r = coconet_comm_rank(comm);
        std::unique_ptr<apps::DeviceMemory> device;
        if (o.resident) {
            device = std::make_unique<apps::DeviceMemory>(p, comm);
        }
        coconet_comm_reset_counters(comm);
        outputs[r] = apps::run_aot_rank(p, comm, inputs.at(r), device.get(), sizes);
        host_device[r] = coconet_comm_bytes_sent(comm, COCONET_HOST_DEVICE);
    };
    if (!o.nccl) {
        apps::run_on_thread_ranks(size, 30.0, body);
        return outputs;
    }
#if COCONET_AOT_NCCL
    std::unique_ptr<coconet_nccl_world, void (*)(coconet_nccl_world *)> world(
        coconet_nccl_world_create(size, 30.0), coconet_nccl_world_destroy);
    if (!world) {
        throw RuntimeError("no NCCL world of " + std::to_string(size) + " GPUs");
    }
    std::vector<coconet_comm *> comms;
    for (int r = 0; r < size; r++) {
        comms.push_back(coconet_nccl_world_comm(world.get(), r));
    }
    apps::run_on_ranks(comms, body);
    return outputs;
#else
    throw RuntimeError("this program was built without the NCCL backend");
#endif
}

// Libraries whose fused traffic window memory lowered (--window): the
// caller's buffers there, and the executor's values there.
int libraries_saving = 0, executor_saving = 0;
// Libraries whose windows coconet_aot_release freed (--window).
int libraries_releasing = 0;
// The window bytes a library with run-time sizes held at each point of
// sizes (--window): a call at other sizes frees the executor's windows of the
// last ones, so coming back to a point holds what it held the first time.
std::map<std::pair<std::string, Sizes>, uint64_t> window_bytes_at;

// Rewrites every floating-point input in place for call k (non-negative
// values stay so: Adam's second moments must).
void rewrite_in_place(std::vector<RankBuffers> &inputs, int k) {
    for (RankBuffers &rank : inputs) {
        for (auto &[name, b] : rank) {
            if (b.type() == Halide::Float(32)) {
                Halide::Buffer<float>(b).for_each_value(
                    [&](float &x) { x = 0.75f * x + 0.01f * (float)k; });
                b.set_host_dirty(true);
            }
        }
    }
}

// ", call k left a device allocation on input ..." when a call attached one
// to a caller's host input (the caller's buffers are never the executor's to
// keep on a device), else "".
std::string device_allocation_left(const std::vector<RankBuffers> &inputs, int k) {
    for (size_t r = 0; r < inputs.size(); r++) {
        for (const auto &[name, b] : inputs[r]) {
            if (b.raw_buffer()->device) {
                return ", call " + std::to_string(k) + " left a device allocation on input " +
                       name + " of rank " + std::to_string(r);
            }
        }
    }
    return "";
}

// Checks one library on `size` ranks; comm == NULL runs them all as threads
// (or on an NCCL world), otherwise only this process's rank of an MPI world.
bool check(const coconet_aot_program *p, int size, const Sizes &sizes, coconet_comm *comm,
           const RunOptions &o) {
    const Program program = apps::aot_program_source(p);
    std::vector<RankBuffers> inputs = apps::library_inputs(p, program, size, sizes);
    std::vector<RankBuffers> expected = Reference(program).run(size, inputs, sizes);
    const int rank = comm ? coconet_comm_rank(comm) : 0;
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<apps::WindowMemory> window; // outlives `got`, which it may hold
    std::vector<RankBuffers> got, want;
    std::vector<uint64_t> host_device;
    // Every output's largest error must be within the path's (absolute)
    // tolerance or the library's relative one times the largest magnitude of
    // that output's reference values.
    const double tolerance =
        std::max(o.gpu || (o.ring && has_fused_pass(p)) ? 1e-5 : 0.0, reference_tolerance(comm));
    const double relative = o.relative_tolerance(p->name);
    double err = 0, relative_err = 0;
    bool within = true;
    auto compare = [&](const std::vector<RankBuffers> &a, const std::vector<RankBuffers> &b) {
        for (const auto &[name, d] : output_diffs(a, b)) {
            err = std::max(err, d.diff);
            relative_err = std::max(relative_err, d.diff > 0 ? d.diff / d.magnitude : 0.0);
            within &= d.diff <= std::max(tolerance, relative * d.magnitude);
        }
    };
    std::string left_on_device;
    for (int k = 0; k < o.repeat; k++) {
        if (k > 0) {
            // A training loop rewrites its host inputs in place between calls:
            // every call must read them fresh.
            rewrite_in_place(inputs, k);
            expected = Reference(program).run(size, inputs, sizes);
        }
        if (comm) {
            if (o.window) {
                window = std::make_unique<apps::WindowMemory>(comm);
            }
            got = {apps::run_aot_rank(p, comm, inputs[rank], window.get(), sizes)};
            want = {expected[rank]};
        } else {
            got = run_world(p, size, inputs, sizes, o, host_device);
            want = expected;
        }
        compare(got, want);
        if (left_on_device.empty()) {
            left_on_device = device_allocation_left(inputs, k);
        }
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count() /
        o.repeat;
    // Every rank's copy of a Replicated output must be the same: under MPI
    // the copies are gathered from the processes (every rank checks alike).
    const std::vector<ReplicatedMismatch> differ =
        comm ? replicated_mismatches(program, comm, got[0], sizes)
             : replicated_mismatches(program, got);
    const std::string replicated = to_string(differ);
    // Window memory must never cost fused traffic: the caller's buffers
    // there save the copies of passes over them, the executor's values there
    // (the default) those of passes over values computed inside the program. Overlapped steps keep
    // the schedule's tile count for this (COCONET_OVERLAP_TUNING=off), or the two calls would
    // differ in it.
    std::string traffic;
    bool saved = true;
    if (o.window && comm && size > 1 && has_fused_pass(p)) {
        auto fused_bytes = [&](apps::WindowMemory *w) {
            coconet_comm_reset_counters(comm);
            apps::run_aot_rank(p, comm, inputs[rank], w, sizes);
            return coconet_comm_bytes_sent(comm, COCONET_FUSED);
        };
        apps::WindowMemory w(comm);
        // By default the executor places only values of 64 KiB per rank or
        // more (the test's are smaller); `window` places every one. Every
        // rank sets the same at the same point.
        const uint64_t automatic = fused_bytes(nullptr);
        setenv("COCONET_MPI_VALUE_MEMORY", "window", 1);
        const uint64_t placed = fused_bytes(&w), plain = fused_bytes(nullptr);
        // The executor's own values in ordinary memory too.
        setenv("COCONET_MPI_VALUE_MEMORY", "ordinary", 1);
        const uint64_t ordinary = fused_bytes(nullptr);
        setenv("COCONET_MPI_VALUE_MEMORY", "window", 1);
        // coconet_aot_release frees the executor's windows of p (the
        // callers' stay), and p's next call makes them again and agrees.
        const uint64_t held = coconet_mpi_window_bytes(comm);
        const bool released = coconet_aot_release(comm, p) == COCONET_OK;
        const uint64_t after = coconet_mpi_window_bytes(comm);
        coconet_comm_reset_counters(comm);
        const RankBuffers again = apps::run_aot_rank(p, comm, inputs[rank], nullptr, sizes);
        const uint64_t again_bytes = coconet_comm_bytes_sent(comm, COCONET_FUSED);
        compare({again}, want);
        unsetenv("COCONET_MPI_VALUE_MEMORY");
        const auto point = window_bytes_at.emplace(std::make_pair(p->name, sizes), held);
        const bool bounded = point.first->second == held;
        saved = placed <= plain && plain <= ordinary && plain <= automatic &&
                automatic <= ordinary && released && after <= held && again_bytes == plain &&
                coconet_mpi_window_bytes(comm) == held && bounded;
        libraries_saving += placed < plain ? 1 : 0;
        executor_saving += plain < ordinary ? 1 : 0;
        libraries_releasing += after < held ? 1 : 0;
        traffic = ", fused traffic " + std::to_string(placed) +
                  " bytes (plain buffers: " + std::to_string(plain) +
                  ", the executor's values in ordinary memory too: " + std::to_string(ordinary) +
                  ", by default: " + std::to_string(automatic) + "), window bytes " +
                  std::to_string(held) + ", after coconet_aot_release " + std::to_string(after) +
                  (bounded ? ""
                           : " (at these sizes before: " + std::to_string(point.first->second) +
                                 ": other sizes' windows were kept)");
    }
    if (o.resident) {
        // A caller keeping its data on the device: the call copies nothing
        // between host and device on any rank.
        traffic = ", host<->device bytes per rank:";
        for (uint64_t b : host_device) {
            traffic += " " + std::to_string(b);
            saved &= b == 0;
        }
    }
    const bool ok = within && differ.empty() && saved && left_on_device.empty();
    char relative_note[96] = "";
    if (relative > 0) {
        std::snprintf(relative_note, sizeof relative_note,
                      " (%.3g of the output's magnitude, tolerance %.3g)", relative_err, relative);
    }
    std::string at;
    for (const auto &[name, value] : sizes) {
        at += ", " + name + "=" + std::to_string(value);
    }
    std::printf("[%s] %-24s %d ranks (%s%s%s): max error %.3g%s, %.2f ms%s%s%s\n",
                ok ? "PASS" : "FAIL", p->name, size,
                comm         ? (o.window ? "mpi, window memory, rank " : "mpi, rank ")
                : o.nccl     ? (o.resident ? "nccl, on the device" : "nccl")
                : o.resident ? "threads, on the device"
                             : "threads",
                comm ? std::to_string(rank).c_str() : "", at.c_str(), err, relative_note, ms,
                traffic.c_str(), replicated.c_str(), left_on_device.c_str());
    return ok;
}

// The run-time sizes library p runs at: every combination of the --at
// values of its sizes (one empty point for a library without).
std::vector<Sizes> size_points(const coconet_aot_program *p, const RunOptions &o) {
    std::vector<Sizes> points = {{}};
    for (int k = 0; k < p->nsizes; k++) {
        auto it = o.at.find(p->size_names[k]);
        if (it == o.at.end()) {
            throw UserError(std::string(p->name) + " takes the run-time size " + p->size_names[k] +
                            "; give its values with --at " + p->size_names[k] + "=V1,V2,...");
        }
        std::vector<Sizes> more;
        for (const Sizes &point : points) {
            for (int v : it->second) {
                Sizes s = point;
                s[p->size_names[k]] = v;
                more.push_back(s);
            }
        }
        points = more;
    }
    return points;
}

std::vector<int> int_list(const std::string &text) {
    std::vector<int> values;
    std::stringstream list(text);
    for (std::string n; std::getline(list, n, ',');) {
        values.push_back(std::atoi(n.c_str()));
    }
    return values;
}

} // namespace

int main(int argc, char **argv) {
    std::vector<int> rank_counts = {1, 3, 4};
    RunOptions o;
    std::vector<std::string> names;
    bool mpi = false;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--ranks") == 0 && i + 1 < argc) {
            rank_counts = int_list(argv[++i]);
        } else if (std::strcmp(argv[i], "--at") == 0 && i + 1 < argc) {
            const std::string arg = argv[++i];
            const size_t eq = arg.find('=');
            if (eq == std::string::npos) {
                std::fprintf(stderr, "coconet_aot_app: --at %s: expected SIZE=V1,V2,...\n",
                             arg.c_str());
                return 2;
            }
            o.at[arg.substr(0, eq)] = int_list(arg.substr(eq + 1));
        } else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            o.repeat = std::max(1, std::atoi(argv[++i]));
        } else if (std::strcmp(argv[i], "--path") == 0 && i + 1 < argc) {
            setenv("COCONET_FUSED_PATH", argv[++i], 1);
            o.ring = std::strcmp(argv[i], "ring") == 0;
        } else if (std::strcmp(argv[i], "--tolerance") == 0 && i + 1 < argc) {
            const std::string arg = argv[++i];
            const size_t eq = arg.find('=');
            if (eq == std::string::npos) {
                o.tolerances[""] = std::atof(arg.c_str());
            } else {
                o.tolerances[arg.substr(0, eq)] = std::atof(arg.c_str() + eq + 1);
            }
        } else if (std::strcmp(argv[i], "--mpi") == 0) {
            mpi = true;
        } else if (std::strcmp(argv[i], "--window") == 0) {
            o.window = true;
        } else if (std::strcmp(argv[i], "--resident") == 0) {
            o.resident = true;
        } else if (std::strcmp(argv[i], "--nccl") == 0) {
            o.nccl = true;
        } else if (std::strcmp(argv[i], "--gpu") == 0) {
            o.gpu = true;
            if (coconet_gpu_count() == 0) {
                std::printf("[SKIP] no GPU\n");
                return 0;
            }
        } else {
            names.push_back(argv[i]);
        }
    }
    coconet_comm *comm = nullptr;
    if (mpi) {
        comm = coconet_mpi_comm_create(30.0);
        if (!comm) {
            std::fprintf(stderr, "coconet_aot_app: this build has no MPI backend.\n");
            return 2;
        }
        rank_counts = {coconet_comm_size(comm)};
    }
    // A name that selects no library is a mistake, not a pass.
    std::vector<std::string> named = names;
    for (const auto &[library, t] : o.tolerances) {
        if (!library.empty()) {
            named.push_back(library);
        }
    }
    for (const std::string &n : named) {
        bool known = false;
        for (const coconet_aot_program *p : COCONET_AOT_PROGRAMS) {
            known |= n == p->name;
        }
        if (!known) {
            std::fprintf(stderr, "coconet_aot_app: no library named '%s' in this program\n",
                         n.c_str());
            return 2;
        }
    }
    int failures = 0, runs = 0;
    std::set<int> short_of_gpus; // rank counts skipped for want of GPUs (--nccl)
    for (const coconet_aot_program *p : COCONET_AOT_PROGRAMS) {
        bool selected = names.empty();
        for (const std::string &n : names) {
            selected |= n == p->name;
        }
        for (int size : selected ? rank_counts : std::vector<int>{}) {
            const int min_ranks = std::strcmp(p->generator, "pipeline_stage") == 0 ? 2 : 1;
            if (size < min_ranks) {
                std::printf("[SKIP] %-24s %d ranks: needs at least %d\n", p->name, size, min_ranks);
                continue;
            }
            if (o.nccl && min_ranks == 1 && size > coconet_gpu_count()) {
                short_of_gpus.insert(size);
            }
            if (o.nccl && (min_ranks > 1 || size > coconet_gpu_count())) {
                std::printf("[SKIP] %-24s %d ranks: %s\n", p->name, size,
                            min_ranks > 1 ? "process groups are not on the NCCL backend yet"
                                          : "more ranks than GPUs");
                continue;
            }
            runs++;
            const auto start = std::chrono::steady_clock::now();
            try {
                for (const Sizes &sizes : size_points(p, o)) {
                    failures += check(p, size, sizes, comm, o) ? 0 : 1;
                }
            } catch (const std::exception &e) {
                const double s =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                std::printf("[FAIL] %s on %d ranks, after %.1f s: %s\n", p->name, size, s,
                            e.what());
                failures++;
            }
        }
    }
    if (o.window && comm && coconet_comm_size(comm) > 1 &&
        (libraries_saving == 0 || executor_saving == 0)) {
        std::printf("[FAIL] window memory lowered the fused traffic of no library (%s)\n",
                    libraries_saving == 0 ? "the caller's buffers" : "the executor's values");
        failures++;
    }
    if (o.window && comm && coconet_comm_size(comm) > 1 && libraries_releasing == 0) {
        std::printf("[FAIL] coconet_aot_release freed the window memory of no library\n");
        failures++;
    }
    if (comm) {
        coconet_mpi_comm_destroy(comm);
        coconet_mpi_finalize();
    }
    std::printf("%s: %d of %d run(s) failed\n", failures || !runs ? "FAILED" : "OK", failures,
                runs);
    if (!failures && !short_of_gpus.empty()) {
        // The test did less than it names: CTest reports it skipped (its
        // SKIP_REGULAR_EXPRESSION), never where a run failed.
        std::string counts;
        for (int n : short_of_gpus) {
            counts += (counts.empty() ? "" : ", ") + std::to_string(n);
        }
        std::printf("[SKIP] no GPU for every rank at %s ranks (%d GPU(s))\n", counts.c_str(),
                    coconet_gpu_count());
    }
    return failures || !runs ? 1 : 0;
}
