// The benchmark's compute reference: the fused operators' and the Megatron
// block's kernels through OpenBLAS (CBLAS, one thread per rank), on the same
// buffers the AOT libraries read and write. Built when OpenBLAS is found
// (COCONET_HAS_BLAS); scripts/bootstrap.sh installs libopenblas-dev.
#ifndef COCONET_BENCH_BLAS_H
#define COCONET_BENCH_BLAS_H

#include "Apps.h"

namespace coconet {
namespace bench {

// Whether this build has OpenBLAS; blas_threads(1) pins it to the caller's thread.
bool have_blas();
void blas_threads(int n);

// The Megatron block's partial sums (apps/megatron_mlp.cpp): hidden = w1 x
// (sgemm), act = gelu(hidden), partial = w2 act (sgemm). x(h, b), w1(f, h)
// (the rank's slice of f), w2(h, f), partial(h, b); act is scratch (f, b).
void blas_megatron_partial(const Halide::Buffer<float> &x, const Halide::Buffer<float> &w1,
                           const Halide::Buffer<float> &w2, Halide::Buffer<float> act,
                           Halide::Buffer<float> partial);

// The GEMV (apps/fused_ops.cpp): partial(o, j) = sum_k w(o, j, k) x(k) over
// the rank's slice of k (sgemv).
void blas_gemv(const Halide::Buffer<float> &w, const Halide::Buffer<float> &x,
               Halide::Buffer<float> partial);

// The MoE expert GEMM: expert_out(h, s, x, j) = sum_k w(h, k, x) tokens(k, s, x, j)
// for the rank's experts x (an sgemm per expert and tile).
void blas_expert_gemm(const Halide::Buffer<float> &w, const Halide::Buffer<float> &tokens,
                      Halide::Buffer<float> out);

} // namespace bench
} // namespace coconet

#endif
