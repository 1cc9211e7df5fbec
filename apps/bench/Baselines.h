// What users write today, the benchmark's baselines: the collective
// library's all-reduce (MPI_Allreduce under MPI, the runtime's plain
// all-reduce on thread ranks), then a separate vectorized update loop over
// the whole tensor on every rank (replicated optimizer state, as in DDP).
#ifndef COCONET_BENCH_BASELINES_H
#define COCONET_BENCH_BASELINES_H

#include <cstdint>

#include "Apps.h"

namespace coconet {
namespace bench {

// out = the sum of every rank's `in` (n floats).
void library_all_reduce(coconet_comm *comm, float *in, float *out, int64_t n);

// The all_to_all of a value of global extents n: `in` is this rank's slice
// along `concat` (full along `split`), `out` its slice along `split` (full
// along `concat`), both in global coordinates. MPI_Alltoallv of packed
// parts under MPI, the runtime's all_to_all on thread ranks.
void library_all_to_all(coconet_comm *comm, Halide::Buffer<float> in, Halide::Buffer<float> out,
                        const int32_t *n, int split, int concat);

// Adam's step on all n elements (apps/adam.cpp's algorithm).
void adam_update(const apps::OptimizerConfig &c, int64_t n, const float *g, const float *w,
                 const float *m, const float *v, float *w_new, float *m_new, float *v_new);

// LAMB's step on all n elements (apps/lamb.cpp's algorithm): moments and the
// update u, then the trust ratio from ||w|| and ||u||, then the parameters.
void lamb_update(const apps::OptimizerConfig &c, int64_t n, const float *g, const float *w,
                 const float *m, const float *v, float *u, float *w_new, float *m_new,
                 float *v_new);

} // namespace bench
} // namespace coconet

#endif
