// The fused Adam kernel of a GPU-target library (Adam fused into the
// gradients' reduce-scatter, 4 ranks; on CUDA n = 2^24) on one device, with
// every rank's buffers on that device: each rank's kernel reduces the four
// ranks' gradients over its slice and applies Adam's update there. Reported
// as achieved bandwidth against the device's copy bandwidth (a device to
// device copy through the program's device interface, bytes read plus bytes
// written), both measured here.
//
//   build/apps/bench/coconet_gpu_adam_bench [--reps 20]          (CUDA)
//   build/apps/bench/coconet_gpu_adam_bench_opencl [--reps 20]   (OpenCL)
//
// Bytes per element of a step (all ranks together): 4R (the gradients) + 4
// (the parameter) + 8 (m, v) read, 8 (m, v) + 4 (the rank's slice of the new
// parameter) written. The gather of the new parameters into every rank's copy
// is the communicator's work and not counted. Every rank's outputs are then
// checked against Adam's update computed here (the inputs are constants per
// value and rank, so every element has one expected value); an element that
// is not finite fails.
//
// The OpenCL build (a library of n = 100003, so that the slices differ) runs
// on PoCL in CI: its times mean nothing there, but the check is the same.
// COCONET_GPU_ADAM_LIBRARY names the library's header and program function;
// COCONET_GPU_ADAM_CUDA is 1 for a CUDA library.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "HalideBuffer.h"
#include "coconet_runtime.h"

#define COCONET_STRING(x) #x
#define COCONET_HEADER(x) COCONET_STRING(x.h)
#define COCONET_CONCAT(a, b) a##b
#define COCONET_PROGRAM(x) COCONET_CONCAT(x, _program)
#include COCONET_HEADER(COCONET_GPU_ADAM_LIBRARY)

namespace {

using Clock = std::chrono::steady_clock;
using FloatBuffer = Halide::Runtime::Buffer<float>;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Bytes per second of a device-to-device copy of `bytes` (read + written)
// through `device` (cuMemcpyDtoD on CUDA, as cudaMemcpy).
double copy_bandwidth(const halide_device_interface_t *device, size_t bytes, int reps) {
    FloatBuffer a((int)(bytes / 4)), b((int)(bytes / 4));
    auto copy = [&] {
        return device->buffer_copy(nullptr, a.raw_buffer(), device, b.raw_buffer()) == 0;
    };
    if (a.device_malloc(device) != 0 || b.device_malloc(device) != 0 || !copy() ||
        b.device_sync() != 0) {
        return 0;
    }
    const auto start = Clock::now();
    for (int i = 0; i < reps; i++) {
        if (!copy()) {
            return 0;
        }
    }
    b.device_sync();
    return 2.0 * bytes * reps / seconds_since(start);
}

// The constant each input holds: rank q's gradient 0.01 (q + 1), and w, m, v
// distinct values, so that a kernel mixing them up fails the check.
float input_value(const char *name, int rank) {
    return std::strcmp(name, "w") == 0   ? 0.5f
           : std::strcmp(name, "m") == 0 ? 0.25f
           : std::strcmp(name, "v") == 0 ? 0.125f
                                         : 0.01f * (rank + 1);
}

// Adam's outputs for those inputs (gradients summed over `size` ranks, step 1,
// the generator's defaults), by output name; NAN for a name it does not know.
float expected_output(const char *name, int size) {
    const float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
    float g = 0;
    for (int q = 0; q < size; q++) {
        g += input_value("g", q);
    }
    const float m = beta1 * input_value("m", 0) + (1 - beta1) * g;
    const float v = beta2 * input_value("v", 0) + (1 - beta2) * g * g;
    const float w =
        input_value("w", 0) - lr * (m / (1 - beta1)) / (std::sqrt(v / (1 - beta2)) + eps);
    return std::strcmp(name, "m_new") == 0   ? m
           : std::strcmp(name, "v_new") == 0 ? v
           : name[0] == 'w'                  ? w // w_new, or its slice
                                             : NAN;
}

// This rank's box of value v, on the device, filled with `fill`.
FloatBuffer device_box(const coconet_aot_program *p, int v, int rank, int size, float fill) {
    int32_t min[4], extent[4];
    coconet_value_box(&p->values[v], rank, size, min, extent);
    FloatBuffer b(extent[0]);
    b.set_min(min[0]);
    b.fill(fill);
    b.set_host_dirty();
    b.copy_to_device(p->device_interface);
    return b;
}

} // namespace

int main(int argc, char **argv) {
    int reps = 20;
    for (int i = 1; i + 1 < argc; i++) {
        if (std::strcmp(argv[i], "--reps") == 0) {
            reps = std::atoi(argv[++i]);
        }
    }
#if COCONET_GPU_ADAM_CUDA
    if (coconet_gpu_count() == 0) {
        std::printf("[SKIP] no GPU\n");
        return 0;
    }
#endif
    const coconet_aot_program *p = COCONET_PROGRAM(COCONET_GPU_ADAM_LIBRARY)();
    const coconet_aot_step &step = p->steps[0];
    const int size = p->ranks;
    const coconet_aot_kernel *kernel = nullptr;
    for (int k = 0; k < step.nkernels; k++) {
        kernel = step.kernels[k].nsrc == size ? &step.kernels[k] : kernel;
    }
    if (step.kind != COCONET_STEP_FUSED || step.src < 0 || !kernel) {
        std::fprintf(stderr, "%s has no fused kernel for %d sources\n", p->name, size);
        return 1;
    }
    const int64_t n = step.pass.n[0];
    // Every rank's gradient (Local: the whole value), and per rank its boxes
    // of the kernel's other inputs and its slices of the outputs.
    std::vector<FloatBuffer> grads;
    for (int q = 0; q < size; q++) {
        grads.push_back(device_box(p, step.src, q, size, input_value("g", q)));
    }
    std::vector<std::vector<FloatBuffer>> extras(size), outs(size);
    for (int r = 0; r < size; r++) {
        for (int e = 0; e < step.nextras; e++) {
            const int v = step.extras[e];
            extras[r].push_back(device_box(p, v, r, size, input_value(p->values[v].name, r)));
        }
        int64_t begin = 0, end = 0;
        coconet_slice_range(n, size, r, &begin, &end);
        for (int o = 0; o < step.pass.nout; o++) {
            FloatBuffer b((int)(end - begin));
            b.set_min((int)begin);
            b.device_malloc(p->device_interface);
            outs[r].push_back(std::move(b));
        }
    }
    auto run_all = [&]() {
        for (int r = 0; r < size; r++) {
            void *uc = nullptr;
            int32_t rank = r, world = size;
            std::vector<void *> args = {&uc};
            for (FloatBuffer &g : grads) {
                args.push_back(g.raw_buffer());
            }
            for (FloatBuffer &e : extras[r]) {
                args.push_back(e.raw_buffer());
            }
            args.push_back(&rank);
            args.push_back(&world);
            for (FloatBuffer &o : outs[r]) {
                args.push_back(o.raw_buffer());
            }
            if (kernel->function.call(kernel->function.context, args.data()) != 0) {
                return false;
            }
        }
        return outs[size - 1][0].device_sync() == 0;
    };
    if (!run_all()) {
        std::fprintf(stderr, "the fused kernel failed\n");
        return 1;
    }
    const auto start = Clock::now();
    for (int i = 0; i < reps; i++) {
        if (!run_all()) {
            std::fprintf(stderr, "the fused kernel failed\n");
            return 1;
        }
    }
    const double t = seconds_since(start) / reps;
    // Every element of every rank's outputs, against Adam's update.
    int wrong = 0;
    for (int r = 0; r < size; r++) {
        for (int o = 0; o < step.pass.nout; o++) {
            const char *name = p->values[step.pass_outs[o]].name;
            const float want = expected_output(name, size);
            FloatBuffer &b = outs[r][o];
            b.copy_to_host();
            // A NaN compares false: it counts as off.
            float worst = 0;
            int64_t off = 0;
            b.for_each_value([&](float got) {
                const float e = std::fabs(got - want) / std::max(1.0f, std::fabs(want));
                if (!(e <= 1e-5f)) {
                    off++;
                    if (!std::isnan(worst) && !(e <= worst)) {
                        worst = e; // a NaN, once seen, stays the worst
                    }
                }
            });
            if (off > 0) {
                std::fprintf(stderr,
                             "[FAIL] rank %d's %s: %lld elements off by more than 1e-5 "
                             "(relative) from %g, by up to %g\n",
                             r, name, (long long)off, want, worst);
                wrong++;
            }
        }
    }
    if (wrong > 0) {
        return 1;
    }
    std::printf("every rank's %d outputs equal Adam's update within 1e-5 (relative)\n",
                step.pass.nout);
    const double bytes = (double)n * (4.0 * size + 4 + 8 + 8 + 4);
    const double copy = copy_bandwidth(p->device_interface, (size_t)n * 4 * 4, reps);
    std::printf(
        "fused Adam kernel, n = %lld, %d ranks on one device: %.3f ms per step, %.1f GB/s\n",
        (long long)n, size, t * 1e3, bytes / t / 1e9);
    std::printf(
        "device copy bandwidth (read + write): %.1f GB/s; the kernel reaches %.0f%% of it\n",
        copy / 1e9, 100.0 * bytes / t / copy);
    return 0;
}
