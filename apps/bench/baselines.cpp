#include "Baselines.h"

#include <cmath>
#include <cstring>

#ifdef COCONET_HAS_MPI
#include <mpi.h>
#endif

namespace coconet {
namespace bench {

void library_all_reduce(coconet_comm *comm, float *in, float *out, int64_t n) {
#ifdef COCONET_HAS_MPI
    if (std::strcmp(coconet_comm_backend(comm), "mpi") == 0) {
        coconet_user_assert(MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) ==
                            MPI_SUCCESS)
            << "MPI_Allreduce failed on rank " << coconet_comm_rank(comm);
        return;
    }
#endif
    halide_dimension_t din(0, (int32_t)n, 1), dout(0, (int32_t)n, 1);
    halide_buffer_t bin{}, bout{};
    bin.host = reinterpret_cast<uint8_t *>(in);
    bout.host = reinterpret_cast<uint8_t *>(out);
    bin.type = bout.type = halide_type_t(halide_type_float, 32);
    bin.dimensions = bout.dimensions = 1;
    bin.dim = &din;
    bout.dim = &dout;
    const int status =
        coconet_collective(comm, "baseline_all_reduce", COCONET_ALL_REDUCE, COCONET_SUM, 0, 0, -1,
                           1, 0, 0, (int32_t)n, 1, 1, 1, &bin, &bout);
    if (status != COCONET_OK) {
        throw RuntimeError(coconet_comm_last_error(comm));
    }
}

namespace {

struct Corrections {
    float bc1, bc2;
    explicit Corrections(const apps::OptimizerConfig &c)
        : bc1(1 - std::pow(c.beta1, (float)c.step)), bc2(1 - std::pow(c.beta2, (float)c.step)) {}
};

} // namespace

void adam_update(const apps::OptimizerConfig &c, int64_t n, const float *g, const float *w,
                 const float *m, const float *v, float *w_new, float *m_new, float *v_new) {
    const Corrections k(c);
    const float b1 = c.beta1, b2 = c.beta2, lr = c.lr, eps = c.eps;
#pragma omp simd
    for (int64_t i = 0; i < n; i++) {
        const float mi = b1 * m[i] + (1 - b1) * g[i];
        const float vi = b2 * v[i] + (1 - b2) * g[i] * g[i];
        m_new[i] = mi;
        v_new[i] = vi;
        w_new[i] = w[i] - lr * ((mi / k.bc1) / (std::sqrt(vi / k.bc2) + eps));
    }
}

void lamb_update(const apps::OptimizerConfig &c, int64_t n, const float *g, const float *w,
                 const float *m, const float *v, float *u, float *w_new, float *m_new,
                 float *v_new) {
    const Corrections k(c);
    const float b1 = c.beta1, b2 = c.beta2, eps = c.eps, wd = c.weight_decay;
    double w2 = 0, u2 = 0; // as apps/lamb.cpp: the norms in double
#pragma omp simd reduction(+ : w2, u2)
    for (int64_t i = 0; i < n; i++) {
        const float mi = b1 * m[i] + (1 - b1) * g[i];
        const float vi = b2 * v[i] + (1 - b2) * g[i] * g[i];
        m_new[i] = mi;
        v_new[i] = vi;
        const float ui = (mi / k.bc1) / (std::sqrt(vi / k.bc2) + eps) + wd * w[i];
        u[i] = ui;
        w2 += (double)w[i] * w[i];
        u2 += (double)ui * ui;
    }
    const double wn = std::sqrt(w2), un = std::sqrt(u2);
    const float step = c.lr * (float)(wn > 0 && un > 0 ? wn / un : 1.0);
#pragma omp simd
    for (int64_t i = 0; i < n; i++) {
        w_new[i] = w[i] - step * u[i];
    }
}

} // namespace bench
} // namespace coconet
