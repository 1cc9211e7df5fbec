#include "Baselines.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#ifdef COCONET_HAS_MPI
#include <mpi.h>
#endif

namespace coconet {
namespace bench {

void library_all_reduce(coconet_comm *comm, float *in, float *out, int64_t n) {
#ifdef COCONET_HAS_MPI
    if (coconet_mpi_is_mpi_comm(comm)) {
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
    coconet_collective_desc desc;
    coconet_collective_desc_init(&desc, COCONET_ALL_REDUCE);
    desc.dims = 1;
    desc.extents[0] = (int32_t)n;
    const int status = coconet_collective_call(comm, "baseline_all_reduce", &desc, &bin, &bout);
    if (status != COCONET_OK) {
        throw RuntimeError(coconet_comm_last_error(comm));
    }
}

#ifdef COCONET_HAS_MPI
namespace {

// A rank's part of [0, n) in slices of ceil(n / size).
std::pair<int, int> slice(int n, int size, int rank) {
    const int b = (n + size - 1) / size;
    return {std::min(n, rank * b), std::min(n, (rank + 1) * b)};
}

} // namespace
#endif

void library_all_to_all(coconet_comm *comm, Halide::Buffer<float> in, Halide::Buffer<float> out,
                        const int32_t *n, int split, int concat) {
#ifdef COCONET_HAS_MPI
    if (coconet_mpi_is_mpi_comm(comm)) {
        const int size = coconet_comm_size(comm);
        // Part q of what this rank sends: its input's slice q along split;
        // what it receives from q: q's slice along concat of its output.
        std::vector<Halide::Buffer<float>> send, recv;
        std::vector<int> scount(size), sdispl(size), rcount(size), rdispl(size);
        int stotal = 0, rtotal = 0;
        for (int q = 0; q < size; q++) {
            const auto s = slice(n[split], size, q), c = slice(n[concat], size, q);
            send.push_back(in.cropped(split, s.first, s.second - s.first).copy());
            recv.push_back(out.cropped(concat, c.first, c.second - c.first).copy());
            scount[q] = (int)send[q].number_of_elements();
            rcount[q] = (int)recv[q].number_of_elements();
            sdispl[q] = stotal;
            rdispl[q] = rtotal;
            stotal += scount[q];
            rtotal += rcount[q];
        }
        std::vector<float> sbuf(stotal), rbuf(rtotal);
        for (int q = 0; q < size; q++) {
            std::copy(send[q].begin(), send[q].end(), sbuf.begin() + sdispl[q]);
        }
        coconet_user_assert(MPI_Alltoallv(sbuf.data(), scount.data(), sdispl.data(), MPI_FLOAT,
                                          rbuf.data(), rcount.data(), rdispl.data(), MPI_FLOAT,
                                          MPI_COMM_WORLD) == MPI_SUCCESS)
            << "MPI_Alltoallv failed on rank " << coconet_comm_rank(comm);
        for (int q = 0; q < size; q++) {
            std::copy(rbuf.begin() + rdispl[q], rbuf.begin() + rdispl[q] + rcount[q],
                      recv[q].begin());
            out.copy_from(recv[q]);
        }
        return;
    }
#endif
    coconet_collective_desc desc;
    coconet_collective_desc_init(&desc, COCONET_ALL_TO_ALL);
    desc.dim = split;
    desc.concat_dim = concat;
    desc.dims = in.dimensions();
    for (int d = 0; d < in.dimensions(); d++) {
        desc.extents[d] = n[d];
    }
    const int status = coconet_collective_call(comm, "baseline_all_to_all", &desc, in.raw_buffer(),
                                               out.raw_buffer());
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
