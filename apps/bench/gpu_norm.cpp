// A squared norm (LAMB's ||update||^2, summed in double) as the GPU pass
// schedules a scalar reduction (src/GpuSchedule.cpp: parts, parts of parts,
// one thread), JIT-compiled for a CUDA GPU, with its input on the device;
// against the same reduction on the host after copying the input there (what
// the pass did before: the Func stayed on the host). Reported as achieved
// bandwidth over the input's bytes.
//
//   build/apps/bench/coconet_gpu_norm_bench [--reps 20] [--log2n 24] [--opencl]
//                                           [--reuse-allocations]
//
// --opencl runs it on Halide's OpenCL device instead (PoCL here: a check of
// the program, not a GPU's figure). --reuse-allocations lets Halide's runtime
// keep the parts' device buffers between calls instead of allocating and
// freeing them in every call.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "GpuSchedule.h"
#include "coconet_runtime.h"

namespace {

using Clock = std::chrono::steady_clock;

// The median of `reps` timed runs of fn, in seconds.
template<typename F>
double median_seconds(int reps, F fn) {
    std::vector<double> t;
    for (int i = 0; i < reps; i++) {
        const auto start = Clock::now();
        fn();
        t.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

Halide::Func squared_norm(Halide::ImageParam in, int n) {
    Halide::RDom k(0, n, "k");
    Halide::Func norm("norm");
    norm() = Halide::Expr(0.0);
    norm() += Halide::cast<double>(in(k)) * Halide::cast<double>(in(k));
    norm.compute_root();
    return norm;
}

} // namespace

int main(int argc, char **argv) {
    int reps = 20, log2n = 24;
    bool opencl = false, reuse = false;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = std::atoi(argv[++i]);
        } else if (std::strcmp(argv[i], "--log2n") == 0 && i + 1 < argc) {
            log2n = std::atoi(argv[++i]);
        } else if (std::strcmp(argv[i], "--opencl") == 0) {
            opencl = true;
        } else if (std::strcmp(argv[i], "--reuse-allocations") == 0) {
            reuse = true;
        }
    }
    if (!opencl && coconet_gpu_count() == 0) {
        std::printf("[SKIP] no GPU\n");
        return 0;
    }
    const int n = 1 << log2n;
    const Halide::DeviceAPI api = opencl ? Halide::DeviceAPI::OpenCL : Halide::DeviceAPI::CUDA;
    const Halide::Target gpu = opencl ? Halide::get_host_target()
                                            .with_feature(Halide::Target::OpenCL)
                                            .with_feature(Halide::Target::CLDoubles)
                                      : Halide::get_host_target()
                                            .with_feature(Halide::Target::CUDA)
                                            .with_feature(Halide::Target::CUDACapability80);
    Halide::Buffer<float> x(n);
    double want = 0;
    for (int i = 0; i < n; i++) {
        x(i) = (float)((i % 1013) - 506) / 512.0f;
        want += (double)x(i) * x(i);
    }

    Halide::ImageParam in(Halide::Float(32), 1, "in");
    Halide::Func on_device = squared_norm(in, n);
    coconet::schedule_for_gpu(Halide::Pipeline(on_device), coconet::every_box_nonempty());
    Halide::Pipeline device_pipeline(on_device);
    device_pipeline.compile_jit(gpu);
    Halide::Internal::JITSharedRuntime::reuse_device_allocations(reuse);
    Halide::Buffer<float> x_dev = x.copy();
    x_dev.set_host_dirty();
    x_dev.copy_to_device(api, gpu);
    in.set(x_dev);
    Halide::Buffer<double> out = Halide::Buffer<double>::make_scalar();
    auto run_device = [&] {
        device_pipeline.realize(out, gpu);
        out.copy_to_host();
    };
    run_device();
    const double got_device = out();
    const double t_device = median_seconds(reps, run_device);

    // The host's reduction of a device-resident input: copied down first.
    Halide::ImageParam in_host(Halide::Float(32), 1, "in");
    Halide::Pipeline host_pipeline(squared_norm(in_host, n));
    host_pipeline.compile_jit(Halide::get_host_target());
    in_host.set(x_dev);
    auto run_host = [&] {
        x_dev.set_device_dirty(true);
        x_dev.copy_to_host();
        host_pipeline.realize(out);
    };
    run_host();
    const double got_host = out();
    const double t_host = median_seconds(reps, run_host);

    const double bytes = 4.0 * n;
    std::printf("squared norm of n = 2^%d floats, in double, input on the %s device%s:\n", log2n,
                opencl ? "OpenCL" : "CUDA", reuse ? ", device allocations reused" : "");
    std::printf("  on the device (parts, parts of parts, one thread): %.3f ms, %.1f GB/s, "
                "relative error %.2e\n",
                t_device * 1e3, bytes / t_device / 1e9, std::abs(got_device - want) / want);
    std::printf("  copied to the host, reduced there: %.3f ms (%.1fx the device's), relative "
                "error %.2e\n",
                t_host * 1e3, t_host / t_device, std::abs(got_host - want) / want);
    const bool ok = std::abs(got_device - want) <= 1e-9 * want;
    if (!ok) {
        std::printf("[FAIL] the device's norm is off\n");
    }
    return ok ? 0 : 1;
}
