// Matrix products of float32 on a device through its vendor's BLAS, as
// PyTorch's matmul calls cuBLAS: cuBLAS for CUDA buffers, CLBlast for OpenCL
// ones, each loaded at its first use (the runtime links neither). A GPU
// schedule makes a MatMul the user left unscheduled one extern stage,
// coconet_gemm (coconet_runtime.h), which lands here.
#ifndef COCONET_RUNTIME_DEVICE_GEMM_H
#define COCONET_RUNTIME_DEVICE_GEMM_H

#include <cstdint>

#include "coconet_runtime.h"

struct coconet_comm;

namespace coconet_rt {

// out = the product of a and b as `d` describes it (coconet_runtime.h:
// coconet_gemm), k over [k_min, k_min + k_extent), a strided-batched BLAS
// call along out's dimension 2 per index of its dimension 3; where
// `computes` is false (a stand-in on a rank outside the value's group of
// world.split), nothing: out is left alone, a and b read nowhere. In
// a bounds query (out, a or b with neither host nor device memory) it sets
// the boxes of a and b that out needs. Otherwise it brings a and b to
// `device` (counted as host<->device bytes where they were on the host),
// gives out an allocation there if it has none (a pipeline's output), queues
// the products where Halide's kernels run, so that the pipeline's next
// kernels read them in order, and leaves out device-dirty. Returns 0, or a
// COCONET error code with comm's error set, naming `name` and the rank.
int run_device_gemm(coconet_comm &comm, const char *name, const coconet_gemm_desc &d,
                    const halide_device_interface_t *device, bool computes, int32_t k_min,
                    int32_t k_extent, halide_buffer_t *a, halide_buffer_t *b, halide_buffer_t *out);

} // namespace coconet_rt

#endif
