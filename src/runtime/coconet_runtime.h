// CoCoNet runtime: communicators (threads, MPI) and the collective entry point
// that lowered Halide pipelines call as extern stages. C ABI so that AOT-compiled
// pipelines and any C/C++ build can link it.
#ifndef COCONET_RUNTIME_H
#define COCONET_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "HalideRuntime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct coconet_comm coconet_comm;
typedef struct coconet_threads_world coconet_threads_world;

// Return codes of runtime calls. Non-zero codes are also returned to Halide from
// extern stages, which turns them into pipeline errors.
enum {
    COCONET_OK = 0,
    COCONET_ERR_TIMEOUT = -1001, // a peer did not arrive in time
    COCONET_ERR_ABORTED = -1002, // another rank failed first
    COCONET_ERR_INVALID = -1003, // bad arguments (buffer extents, groups, types)
    COCONET_ERR_BACKEND = -1004, // the backend (MPI) reported an error
};

typedef enum {
    COCONET_ALL_REDUCE = 0,
    COCONET_REDUCE_SCATTER = 1,
    COCONET_ALL_GATHER = 2,
    COCONET_BROADCAST = 3,
    COCONET_REDUCE = 4,
    COCONET_ALL_TO_ALL = 5,
    COCONET_SEND_RECV = 6,
} coconet_collective_kind;

typedef enum {
    COCONET_SUM = 0,
    COCONET_PROD = 1,
    COCONET_MAX = 2,
    COCONET_MIN = 3,
} coconet_reduce_op;

// ---- Threads backend: R ranks as threads of one process. ----
coconet_threads_world *coconet_threads_world_create(int nranks, double timeout_seconds);
// The communicator of one rank; owned by the world.
coconet_comm *coconet_threads_world_comm(coconet_threads_world *world, int rank);
void coconet_threads_world_destroy(coconet_threads_world *world);

// ---- MPI backend: one rank per process (mpirun). ----
// 1 when the runtime was built with MPI.
int coconet_mpi_available(void);
// Initializes MPI if needed and returns a communicator over MPI_COMM_WORLD,
// or NULL (with a message on stderr) when MPI is unavailable.
coconet_comm *coconet_mpi_comm_create(double timeout_seconds);
void coconet_mpi_comm_destroy(coconet_comm *comm);
// Finalizes MPI if this runtime initialized it.
void coconet_mpi_finalize(void);

// ---- Any communicator. ----
int coconet_comm_rank(const coconet_comm *comm);
int coconet_comm_size(const coconet_comm *comm);
const char *coconet_comm_backend(const coconet_comm *comm); // "threads" or "mpi"
void coconet_comm_set_timeout(coconet_comm *comm, double seconds);
double coconet_comm_timeout(const coconet_comm *comm);
// The message of the last failed call on this communicator ("" if none).
const char *coconet_comm_last_error(const coconet_comm *comm);
int coconet_barrier(coconet_comm *comm, const char *what);
// Marks the job failed so that peers blocked in or entering an operation
// fail promptly with COCONET_ERR_ABORTED instead of waiting for a timeout
// (threads backend; MPI calls MPI_Abort from the application instead).
void coconet_comm_abort(coconet_comm *comm, const char *reason);

// Bytes this rank sent to other ranks and how many operations it ran, per
// collective kind (index = coconet_collective_kind), since creation or reset.
uint64_t coconet_comm_bytes_sent(const coconet_comm *comm, int kind);
uint64_t coconet_comm_op_count(const coconet_comm *comm, int kind);
void coconet_comm_reset_counters(coconet_comm *comm);

// ---- Partitioning shared by the compiler, the reference and the runtime. ----
// Block `index` of `parts` blocks of ceil(n/parts) elements: [*begin, *end),
// clamped to n (the last blocks may be short or empty).
void coconet_slice_range(int64_t n, int parts, int index, int64_t *begin, int64_t *end);
// world.split(nsplit): group g holds ranks [floor(g*R/nsplit), floor((g+1)*R/nsplit)).
void coconet_group_range(int world_size, int nsplit, int group, int *first, int *count);

// ---- Entry points called from lowered Halide pipelines. ----
// user_context is the coconet_comm* of the calling rank.
int32_t coconet_rank(void *user_context);
int32_t coconet_size(void *user_context);

// One collective as a Halide extern stage. Coordinates are global: buffer mins
// are global indices. `in` and `out` have the same dimensionality (<= 4);
// n0..n3 are the global extents of `in` (1 for missing dimensions). The group is
// group `group` of world.split(nsplit) (nsplit = 1: the world). Ranks outside the
// group (and, for SEND_RECV, outside both groups) do nothing.
//   ALL_REDUCE(op):          in full box (Local) -> out[x] = op over group ranks, in rank order.
//   REDUCE_SCATTER(op, d=a): in full box -> out, a sub-box of this rank's slice along d.
//   ALL_GATHER(d=a):         in = this rank's slice along d -> out[x] = in_owner(x_d)[x].
//   BROADCAST(root):         in full box -> out[x] = in_root[x] (root is a group rank).
//   REDUCE(op, root):        in full box -> out[x] = reduction on root, op's identity elsewhere.
//   ALL_TO_ALL(a=d, b=e):    in = slice along e (full along d) -> out = sub-box of slice along d.
//   SEND_RECV(a = sliced dim of the value or -1, b = 1 for a Local value, dst_group):
//                            from `group` to `dst_group` (same nsplit). A sliced value is
//                            re-sliced: each receiver gets its slice (by its rank in
//                            dst_group) from the senders that own it. Otherwise group rank i
//                            of dst_group receives the whole value of sender i mod |group|;
//                            a Local value needs groups of the same size.
// In bounds-query mode (in->host == NULL and in->device == 0) the call only sets
// the box of `in` that this rank needs; extent 0 when it needs nothing.
int coconet_collective(void *user_context, const char *name, int32_t kind, int32_t op, int32_t root,
                       int32_t a, int32_t b, int32_t nsplit, int32_t group, int32_t dst_group,
                       int32_t n0, int32_t n1, int32_t n2, int32_t n3, halide_buffer_t *in,
                       halide_buffer_t *out);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // COCONET_RUNTIME_H
