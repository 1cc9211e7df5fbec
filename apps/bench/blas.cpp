#include "Blas.h"

#include <algorithm>
#include <cmath>

#ifdef COCONET_HAS_BLAS
#include <cblas.h>
#endif

namespace coconet {
namespace bench {

#ifdef COCONET_HAS_BLAS
namespace {

// C = A B, all column-major with unit inner stride (the boxes AotCall allocates).
void sgemm(int m, int n, int k, const float *a, int lda, const float *b, int ldb, float *c,
           int ldc) {
    if (m > 0 && n > 0) {
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, lda, b, ldb, 0.0f,
                    c, ldc);
    }
}

int stride(const Halide::Buffer<float> &b, int d) {
    coconet_user_assert(b.dim(0).stride() == 1) << "a BLAS operand needs unit inner stride";
    return b.dim(d).stride();
}

} // namespace

bool have_blas() {
    return true;
}

void blas_threads(int n) {
    openblas_set_num_threads(n);
}

void blas_megatron_partial(const Halide::Buffer<float> &x, const Halide::Buffer<float> &w1,
                           const Halide::Buffer<float> &w2, Halide::Buffer<float> act,
                           Halide::Buffer<float> partial) {
    const int f = w1.dim(0).extent(), h = x.dim(0).extent(), batch = x.dim(1).extent();
    sgemm(f, batch, h, w1.data(), stride(w1, 1), x.data(), stride(x, 1), act.data(),
          stride(act, 1));
    // apps/megatron_mlp.cpp's gelu, as a user's vectorized loop, with tanh
    // written through exp (GCC calls libm's expf per element here: glibc's
    // vector expf needs -ffast-math; its tanhf has no vector form).
    float *a = act.data();
    const int64_t count = act.number_of_elements();
#pragma omp simd
    for (int64_t i = 0; i < count; i++) {
        const float v = a[i];
        const float u = std::clamp(0.7978845608f * (v + 0.044715f * v * v * v), -10.0f, 10.0f);
        const float e = std::exp(2.0f * u);
        a[i] = 0.5f * v * (1.0f + (e - 1.0f) / (e + 1.0f));
    }
    sgemm(h, batch, f, w2.data(), stride(w2, 1), act.data(), stride(act, 1), partial.data(),
          stride(partial, 1));
}

void blas_gemv(const Halide::Buffer<float> &w, const Halide::Buffer<float> &x,
               Halide::Buffer<float> partial) {
    const int rows = w.dim(0).extent() * w.dim(1).extent(), k = w.dim(2).extent();
    coconet_user_assert(w.dim(1).stride() == w.dim(0).extent() && w.dim(2).stride() == rows)
        << "the GEMV's weight must be dense";
    if (k == 0) {
        std::fill(partial.begin(), partial.end(), 0.0f);
        return;
    }
    cblas_sgemv(CblasColMajor, CblasNoTrans, rows, k, 1.0f, w.data(), rows, x.data(), 1, 0.0f,
                partial.data(), 1);
}

void blas_expert_gemm(const Halide::Buffer<float> &w, const Halide::Buffer<float> &tokens,
                      Halide::Buffer<float> out) {
    const int hout = out.dim(0).extent(), hidden = tokens.dim(0).extent();
    const int slots = tokens.dim(1).extent(), experts = tokens.dim(2).extent();
    const int tiles = tokens.dim(3).extent();
    for (int j = 0; j < tiles; j++) {
        for (int e = 0; e < experts; e++) {
            sgemm(hout, slots, hidden, &w(w.dim(0).min(), w.dim(1).min(), w.dim(2).min() + e),
                  stride(w, 1),
                  &tokens(tokens.dim(0).min(), tokens.dim(1).min(), tokens.dim(2).min() + e,
                          tokens.dim(3).min() + j),
                  stride(tokens, 1),
                  &out(out.dim(0).min(), out.dim(1).min(), out.dim(2).min() + e,
                       out.dim(3).min() + j),
                  stride(out, 1));
        }
    }
}
#else
bool have_blas() {
    return false;
}
void blas_threads(int) {}
void blas_megatron_partial(const Halide::Buffer<float> &, const Halide::Buffer<float> &,
                           const Halide::Buffer<float> &, Halide::Buffer<float>,
                           Halide::Buffer<float>) {
    coconet_user_assert(false) << "built without OpenBLAS";
}
void blas_gemv(const Halide::Buffer<float> &, const Halide::Buffer<float> &,
               Halide::Buffer<float>) {
    coconet_user_assert(false) << "built without OpenBLAS";
}
void blas_expert_gemm(const Halide::Buffer<float> &, const Halide::Buffer<float> &,
                      Halide::Buffer<float>) {
    coconet_user_assert(false) << "built without OpenBLAS";
}
#endif

} // namespace bench
} // namespace coconet
