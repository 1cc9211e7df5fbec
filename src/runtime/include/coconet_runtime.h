// CoCoNet runtime: communicators (threads, MPI; NCCL in coconet_nccl.h) and the
// collective entry point that lowered Halide pipelines call as extern stages. C ABI
// so that AOT-compiled pipelines and any C/C++ build can link it.
//
// A communicator is one rank's, called by one thread at a time: a call made
// from another thread while one is in progress (a library's, a collective, a
// fused call, a barrier) is refused with COCONET_ERR_INVALID, and the call in
// progress goes on. coconet_comm_abort may come from any thread.
#ifndef COCONET_RUNTIME_H
#define COCONET_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
    COCONET_ERR_TIMEOUT = -1001,  // a peer did not arrive in time
    COCONET_ERR_ABORTED = -1002,  // another rank failed first
    COCONET_ERR_INVALID = -1003,  // bad arguments (buffer extents, groups, types)
    COCONET_ERR_BACKEND = -1004,  // the backend (MPI, NCCL, CUDA) or a Halide pipeline failed
    COCONET_ERR_INTERNAL = -1005, // a bug in CoCoNet itself
};

typedef enum {
    COCONET_ALL_REDUCE = 0,
    COCONET_REDUCE_SCATTER = 1,
    COCONET_ALL_GATHER = 2,
    COCONET_BROADCAST = 3,
    COCONET_REDUCE = 4,
    COCONET_ALL_TO_ALL = 5,
    COCONET_SEND_RECV = 6,
    COCONET_FUSED = 7, // only for counters: fused reduce-scatters (coconet_fused_reduce_scatter)
    // Only for counters: bytes copied between host and device memory at the
    // executor's step boundaries (a step's inputs copied to the device, values
    // brought back for the host code of passes, collectives and returns).
    COCONET_HOST_DEVICE = 8,
} coconet_collective_kind;

// A call on a device buffer (halide_device_interface_t) made with the user
// context the buffer's Halide runtime takes: see coconet_aot_program.
typedef int (*coconet_device_fn)(void *user_context, void *arg);

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
// 1 when a timeout or an abort (coconet_comm_abort, a failed library call)
// marked the world failed: its ranks' later operations fail with
// COCONET_ERR_ABORTED, so a caller makes a new world. 0 otherwise, and for NULL.
int coconet_threads_world_failed(coconet_threads_world *world);

// ---- MPI backend: one rank per process (mpirun), library coconet_runtime_mpi. ----
// 1 when the runtime was built with MPI.
int coconet_mpi_available(void);
// 1 when comm is a communicator of the MPI backend, whose world is
// MPI_COMM_WORLD (a caller may then use MPI itself beside it), else 0.
int coconet_mpi_is_mpi_comm(const coconet_comm *comm);
// Initializes MPI if needed and returns a communicator over MPI_COMM_WORLD,
// or NULL (with a message on stderr) when MPI is unavailable. Collective over
// MPI_COMM_WORLD: a rank whose peers do not all come within the timeout
// (COCONET_TIMEOUT_S, else timeout_seconds, else 10 s) prints so and ends
// its process, as MPI's calls here cannot be interrupted.
coconet_comm *coconet_mpi_comm_create(double timeout_seconds);
void coconet_mpi_comm_destroy(coconet_comm *comm);
// Memory in a shared window over the communicator's ranks (one node): a
// fused pass reads a source placed there in place, and peers write their
// slices of a gathered output placed there straight into it, where ordinary
// buffers cost a copy into the pass's window and out of it. A buffer counts
// as placed when it lies in this memory and the pass's box is one contiguous
// range of it (a dense buffer holding the box, or a range of its outermost
// dimension). Collective: every rank calls it, in the same order, each with its own
// size (0 allowed). NULL on failure (coconet_comm_last_error says why: more
// than one node, an MPI error). Free with coconet_mpi_free (collective too),
// or leave it to coconet_mpi_comm_destroy.
void *coconet_mpi_alloc(coconet_comm *comm, size_t bytes);
int coconet_mpi_free(coconet_comm *comm, void *p);
// Bytes of window memory this rank holds on the communicator: its
// coconet_mpi_alloc blocks not freed, and the executor's values of the
// programs run on it (coconet_aot_release frees those). 0 on other backends.
uint64_t coconet_mpi_window_bytes(const coconet_comm *comm);
// Finalizes MPI if this runtime initialized it. After a failed call it first
// meets every rank (a polled barrier of timeout + 5 s) and calls MPI_Abort if
// one never arrives, instead of waiting behind a frozen peer.
void coconet_mpi_finalize(void);

// ---- Devices. ----
// How many CUDA devices the driver reports (0 without a driver or a device):
// what GPU tests check before they run.
int coconet_gpu_count(void);

// ---- Any communicator. ----
int coconet_comm_rank(const coconet_comm *comm);
int coconet_comm_size(const coconet_comm *comm);
const char *coconet_comm_backend(const coconet_comm *comm); // "threads", "mpi" or "nccl"
// How many ranks of this communicator's world run in this process (threads:
// all of them; MPI: one): they share the process's Halide thread pool.
int coconet_comm_local_ranks(const coconet_comm *comm);
// How many CPU threads this rank's default-scheduled loops, and its host
// copies and reductions of a megabyte or more, run on: the CPUs
// of this process divided among the world's ranks on this machine (threads:
// the process's ranks; MPI: the node's), or COCONET_RANK_THREADS.
int coconet_comm_threads(const coconet_comm *comm);
// 1 when this communicator's reductions combine the ranks' values in group-rank
// order, as the compiler's reference does, so that floating-point results are
// bit-identical to it (threads; MPI with COCONET_MPI_COLLECTIVES=deterministic).
// 0 when the collective library picks the order (MPI's own collectives, the
// MPI default; NCCL): sums and products then equal the reference within
// rounding (a relative 1e-5 per reduction for float), min, max and integer
// reductions exactly.
int coconet_comm_deterministic(const coconet_comm *comm);
// Seconds a wait may last before it fails naming the missing ranks; at most a
// day (kept there), non-positive or non-finite values are ignored.
void coconet_comm_set_timeout(coconet_comm *comm, double seconds);
double coconet_comm_timeout(const coconet_comm *comm);
// 1 when comm is a communicator that exists now: not NULL, created and not yet
// destroyed (checked against a registry, without reading *comm). A destroyed
// communicator may be passed only to this, coconet_aot_run,
// coconet_comm_last_error and coconet_comm_last_error_code; the other calls
// read it.
int coconet_comm_valid(const coconet_comm *comm);
// The message of the last failed call on this communicator ("" if none).
// For a NULL or destroyed comm: of the last call on this thread that failed
// without a communicator to record it on (such as coconet_aot_run given one).
const char *coconet_comm_last_error(const coconet_comm *comm);
// The code (COCONET_ERR_*) of the last failed call on this communicator (0 if
// none), so that callers can tell a timeout from a failed peer or a bad
// argument without reading the message; NULL or destroyed: as above.
int coconet_comm_last_error_code(const coconet_comm *comm);
// Every rank of comm meets here (`what` names it in messages). A rank whose
// peers are in a collective of the world instead never passes with them: all
// are refused at once, each naming the other's call (against a collective of
// a group, each side times out naming the ranks missing from its meeting).
int coconet_barrier(coconet_comm *comm, const char *what);
// Marks the job failed: this rank's later operations fail with
// COCONET_ERR_ABORTED. coconet_aot_run calls it on failure; the calls of this
// header do not (a refused argument leaves the communicator usable), so a
// caller giving up after one calls it, for its peers to stop too. Threads and
// NCCL worlds of one process share the failure, so peers blocked in or
// entering an operation fail promptly too instead of waiting for the timeout.
// On an MPI communicator call it between this rank's operations, from the
// thread making them: every other process is sent the reason and fails at its
// next wait for another rank (or its next meeting in a fused pass's window),
// naming this rank and the reason. It does not end the job: that is the
// application's (MPI_Abort), or coconet_mpi_finalize's after a failed call.
void coconet_comm_abort(coconet_comm *comm, const char *reason);

// Bytes this rank sent to other ranks and how many operations it ran, per
// collective kind (index = coconet_collective_kind), since creation or reset.
// Kind COCONET_FUSED counts fused calls and every byte of memory their passes
// read or wrote on this rank (sources, the kernel's other inputs, outputs and
// copies into or from peers), the quantity the performance model bounds.
// Kind COCONET_HOST_DEVICE counts bytes copied between host and device (no ops).
uint64_t coconet_comm_bytes_sent(const coconet_comm *comm, int kind);
uint64_t coconet_comm_op_count(const coconet_comm *comm, int kind);
void coconet_comm_reset_counters(coconet_comm *comm);

// Overlapped steps (a collective or fused pass computed tile by tile with its
// producer) choose their tile count by measurement on each communicator: the
// first call warms up, the next ones time the schedule's count and fewer
// (halved down to 1, i.e. no overlap), four times each, each timed call from a
// start the ranks share (an all_reduce of one value before it, which also
// carries each rank's time of the timed call before; one more follows the
// last; all counted like any all_reduce): a call's time is its slowest rank's,
// so every rank keeps the same count: the fewest tiles within 5% of the
// fastest count's best call. An all_to_all whose ranks reach each
// other's memory (thread ranks, on the host) also times `direct`, first: its
// producer computes every rank's part straight into that rank's output, in
// one call; it counts as the fewest tiles. Results do not depend on the
// count. COCONET_OVERLAP_TUNING=off keeps the schedule's count.
// 1 when every overlapped step run on this communicator has chosen.
int coconet_comm_overlap_settled(const coconet_comm *comm);
// One line per overlapped step run on this communicator: "<program> step <s>
// (<collective>): 1 of 4, 2, 1 tiles (0.31, 0.27, 0.22 ms)" (or "direct of
// direct, 4, 2, 1 tiles (...)"), the times each count's best call (its
// slowest rank's time); valid until the next call on comm.
const char *coconet_comm_overlap_report(coconet_comm *comm);

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
int32_t coconet_rank_threads(void *user_context); // coconet_comm_threads

// One collective, described by a versioned struct rather than positional
// integers, so that arguments are named and a library built against another
// layout is refused instead of misread.
#define COCONET_COLLECTIVE_ABI_VERSION 3
// As many dimensions as a Halide buffer may have; the runtime supports fewer
// (at most 4) and refuses more with COCONET_ERR_INVALID.
#define COCONET_MAX_DIMS 16

// Coordinates are global: buffer mins are global indices. `in` and `out` have
// `dims` dimensions and `extents` are the value's global extents. The group is
// group `group` of world.split(nsplit) (nsplit = 1: the world). Ranks outside
// the group (and, for SEND_RECV, outside both groups) do nothing; a rank
// outside the result's group may pass an `out` of one element (a stand-in:
// GPU schedules give one where Halide's GPU runtimes refuse an empty device
// allocation), which it leaves alone. A field a
// kind does not list is ignored (keep coconet_collective_desc_init's default).
//   ALL_REDUCE(op):          in full box (Local) -> out[x] = op over group ranks,
//                            in rank order.
//   REDUCE_SCATTER(op, dim): in full box -> out, a sub-box of this rank's slice
//                            along dim.
//   ALL_GATHER(dim):         in = this rank's slice along dim ->
//                            out[x] = in_owner(x_dim)[x].
//   BROADCAST(root):         in full box -> out[x] = in_root[x].
//   REDUCE(op, root):        in full box -> out[x] = reduction on root, op's
//                            identity elsewhere.
//   ALL_TO_ALL(dim, concat_dim): in = slice along concat_dim (full along dim) ->
//                            out = sub-box of the slice along dim.
//   SEND_RECV(dim, local_value, dst_group): from `group` to `dst_group` (same
//                            nsplit). dim >= 0: a value sliced along dim,
//                            re-sliced: each receiver gets its slice (by its rank
//                            in dst_group) from the senders that own it.
//                            Otherwise group rank i of dst_group receives the
//                            whole value of sender i mod |group|; local_value = 1
//                            (a Local value) needs groups of the same size.
//   chunk_dim (ALL_REDUCE, REDUCE_SCATTER, ALL_TO_ALL): -1 for the whole value;
//                            otherwise the call is one chunk of an overlapped
//                            collective: every participant asks for the same
//                            range of dimension chunk_dim (out's range of it;
//                            not concat_dim), and "full box" means the full
//                            box restricted to that range.
//   chunks, chunk_index:     chunk_dim == dim (REDUCE_SCATTER, ALL_TO_ALL: the
//                            chunks run along the sliced dimension): the call
//                            is piece chunk_index of `chunks` pieces of every
//                            rank's slice (a slice of s elements cut as
//                            coconet_slice_range cuts [0, s) into `chunks`
//                            blocks); a rank's output is its piece, and "full box" spans every
//                            rank's piece (the rows between are not read).
//   device:                  1: the stage runs on the GPU device of a GPU-target
//                            pipeline (any kind, of the world or of a group):
//                            `out` may come with a device allocation (then
//                            the result is left there, device-dirty) or
//                            without (a pipeline's output the caller keeps on
//                            the host: left host-dirty); `in` may be newest
//                            on the host or on the device.
//                            0: host memory.
//                            Ignored otherwise.
typedef struct coconet_collective_desc {
    uint32_t version;   // COCONET_COLLECTIVE_ABI_VERSION of the caller's header
    uint32_t size;      // sizeof(coconet_collective_desc) of the caller's header
    int32_t kind;       // coconet_collective_kind
    int32_t op;         // coconet_reduce_op: ALL_REDUCE, REDUCE_SCATTER, REDUCE
    int32_t root;       // a rank of the group: BROADCAST, REDUCE
    int32_t dim;        // the sliced dimension (see the kinds); -1: none
    int32_t concat_dim; // ALL_TO_ALL: the input's sliced dimension
    int32_t chunk_dim;  // the overlap chunk's dimension; -1: the whole value
    int32_t chunks;     // chunk_dim == dim: pieces per slice, and which one this call is
    int32_t chunk_index;
    int32_t local_value; // SEND_RECV: 1 when the value is Local
    int32_t nsplit, group, dst_group;
    int32_t dims;                      // of the value, `in` and `out`
    int32_t extents[COCONET_MAX_DIMS]; // global extents; [0, dims) are read
    int32_t device;                    // 1: `out` lives on a GPU device (see above)
} coconet_collective_desc;

// A descriptor of this header's version and size: no sliced, concatenated or
// chunk dimension, op SUM, root 0, the whole world, 0 dimensions.
static inline void coconet_collective_desc_init(coconet_collective_desc *desc, int32_t kind) {
    int i;
    desc->version = COCONET_COLLECTIVE_ABI_VERSION;
    desc->size = (uint32_t)sizeof(coconet_collective_desc);
    desc->kind = kind;
    desc->op = COCONET_SUM;
    desc->root = 0;
    desc->dim = desc->concat_dim = desc->chunk_dim = -1;
    desc->chunks = desc->chunk_index = 0;
    desc->local_value = 0;
    desc->nsplit = 1;
    desc->group = desc->dst_group = 0;
    desc->dims = 0;
    desc->device = 0;
    for (i = 0; i < COCONET_MAX_DIMS; i++) {
        desc->extents[i] = 1;
    }
}

// The extern stage of lowered pipelines. `desc` is a constant 1-D uint8 buffer
// holding the bytes of a coconet_collective_desc (Halide extern arguments are
// Exprs, Funcs or Buffers; AOT libraries embed it as constant data). A version
// or size other than this runtime's is refused with COCONET_ERR_INVALID.
// e0..e3 are the value's global extents as the call has them (a program's
// run-time sizes among them); they replace desc's extents [0, dims), which
// must be at most COCONET_STAGE_DIMS.
// In bounds-query mode (in->host == NULL and in->device == 0) the call only
// sets the box of `in` that this rank needs; extent 0 when it needs nothing.
#define COCONET_STAGE_DIMS 4
int coconet_collective(void *user_context, const char *name, const halide_buffer_t *desc,
                       int32_t e0, int32_t e1, int32_t e2, int32_t e3, halide_buffer_t *in,
                       halide_buffer_t *out);
// The same for C callers holding the descriptor itself (tests, benchmarks).
int coconet_collective_call(coconet_comm *comm, const char *name,
                            const coconet_collective_desc *desc, halide_buffer_t *in,
                            halide_buffer_t *out);

// ---- Matrix products on a device (the GPU schedules' MatMuls). ----
enum { COCONET_DEVICE_CUDA = 1, COCONET_DEVICE_OPENCL = 2 };
#define COCONET_GEMM_ABI_VERSION 1
// What a dimension of an operand walks: out's dimension of that index (0: x,
// 1: y, 2 and up: a batch dimension), or the contraction.
#define COCONET_GEMM_K (-1)

// A MatMul as its extern stage computes it: out(x, y, batch...) = the sum
// over k of a * b. Among a's dimensions one walks x (0) and one k
// (COCONET_GEMM_K); among b's one walks y (1) and one k; any other dimension
// of either walks one of out's batch dimensions (2 and up, each at most once
// per operand); a batch dimension an operand does not walk is the same
// matrix for every index of it.
typedef struct coconet_gemm_desc {
    uint32_t version;   // COCONET_GEMM_ABI_VERSION of the caller's header
    uint32_t size;      // sizeof(coconet_gemm_desc) of the caller's header
    int32_t device_api; // COCONET_DEVICE_CUDA (cuBLAS) or COCONET_DEVICE_OPENCL (CLBlast)
    int32_t dims;       // of out: 2 to COCONET_STAGE_DIMS
    int32_t a_dims, b_dims;
    int32_t a_walks[COCONET_STAGE_DIMS], b_walks[COCONET_STAGE_DIMS];
} coconet_gemm_desc;

// A descriptor of this header's version and size: a plain product (a walks
// x then k, b walks k then y) for device_api.
static inline void coconet_gemm_desc_init(coconet_gemm_desc *desc, int32_t device_api) {
    int i;
    desc->version = COCONET_GEMM_ABI_VERSION;
    desc->size = (uint32_t)sizeof(coconet_gemm_desc);
    desc->device_api = device_api;
    desc->dims = desc->a_dims = desc->b_dims = 2;
    for (i = 0; i < COCONET_STAGE_DIMS; i++) {
        desc->a_walks[i] = desc->b_walks[i] = COCONET_GEMM_K;
    }
    desc->a_walks[0] = 0;
    desc->b_walks[1] = 1;
}

// The extern stage of a MatMul that a GPU schedule hands to the device's BLAS:
// cuBLAS for COCONET_DEVICE_CUDA, CLBlast for COCONET_DEVICE_OPENCL, each
// opened at its first call. `desc` is a constant 1-D uint8 buffer holding a
// coconet_gemm_desc (another version or size is refused with
// COCONET_ERR_INVALID); all buffers are float32; k runs over [k_min, k_min +
// k_extent). With `computes` 0 it does nothing and asks a and b for no
// element (on a rank outside its value's group of world.split, out is a
// stand-in that nobody reads). In bounds-query mode (out, a or b with neither
// host nor device memory) it sets the boxes of a and b that out needs.
// Otherwise a, b and out get allocations on `device` (Halide's interface of
// that API) where they have none, a and b are copied there where newer on the
// host (counted as COCONET_HOST_DEVICE bytes), the products are queued in
// order with Halide's kernels on that device (a strided-batched call along
// out's dimension 2 for each index of its dimension 3), and out is left
// device-dirty. A missing library is an error naming it.
int coconet_gemm(void *user_context, const char *name, const halide_buffer_t *desc,
                 const halide_device_interface_t *device, int32_t computes, int32_t k_min,
                 int32_t k_extent, halide_buffer_t *a, halide_buffer_t *b, halide_buffer_t *out);

// ---- Fused collectives (the fuse_with schedule). ----
// A reduce-scatter whose consumers are computed inside its pass: this rank
// reduces its slice of `src` over the group chunk by chunk and, for each chunk,
// calls the kernel, which applies the fused computation and writes the outputs.
// Outputs marked gathered are then the whole value on every group rank: each
// rank's slice is written into (threads, MPI shared window) or sent to (MPI
// ring) its peers.

// The fused computation on one chunk. srcs[0..nsrc) hold (at least) the chunk;
// the reduced value is srcs[0] op srcs[1] op ... in that order. outs[i] is
// output i cropped to the chunk. Returns 0, or an error code after setting a
// message with coconet_comm_set_error.
typedef int (*coconet_fused_kernel)(void *kernel_context, int32_t nsrc,
                                    const halide_buffer_t *const *srcs,
                                    halide_buffer_t *const *outs);

typedef enum {
    COCONET_PATH_AUTO = 0,   // COCONET_FUSED_PATH (direct|ring) if set, else the backend's best
    COCONET_PATH_DIRECT = 1, // read peers' memory: threads, or MPI ranks on one node
    COCONET_PATH_RING = 2,   // a ring of MPI point-to-point messages (any nodes); threads add
                             // up in the ring's order, to test it in one process
    COCONET_PATH_LIBRARY = 3 // the backend's collective library on device buffers (NCCL on
                             // CUDA): it reduce-scatters the sources into this rank's slice,
                             // the kernel gets that one source, and it gathers the outputs.
                             // For a pass of the world whose source and outputs have device
                             // allocations where the library moves memory; the executor asks
                             // for it (coconet_aot_step_takes_library)
} coconet_fused_path;

// The version of coconet_fused_call; a call records the version it was
// built against (and its size), and the runtime refuses another.
#define COCONET_FUSED_CALL_VERSION 5

// Elements per kernel call of a fused pass when the schedule names none:
// about 128K keeps a chunk's outputs in cache between the kernel and the
// copies to peers, and is long enough for the hardware's prefetchers.
#define COCONET_DEFAULT_CHUNK_ELEMENTS 131072

typedef struct {
    uint32_t version; // COCONET_FUSED_CALL_VERSION (coconet_fused_call_init sets it)
    uint32_t size;    // sizeof(coconet_fused_call)
    const char *name; // the reduce-scatter's name, for messages
    int32_t op;       // coconet_reduce_op
    int32_t dim;      // the sliced dimension
    int32_t nsplit, group;
    int32_t dims;                 // of src and of every output (<= 4)
    int32_t n[4];                 // global extents of the value (1 for missing dimensions)
    const halide_buffer_t *src;   // this rank's full box of the Local value; NULL for a pass
                                  // with nothing to reduce (a fused all_gather: the kernel
                                  // gets no source and computes the slice from its inputs)
    int32_t nout;                 // outputs, each of the same element count per chunk
    halide_buffer_t *const *outs; // each holds this rank's slice (gathered: the full box)
    const int32_t *gathered;      // per output: 1 when every group rank gets the whole value
    coconet_fused_kernel kernel;
    void *kernel_context;
    int64_t chunk_elements; // elements per kernel call; 0: COCONET_DEFAULT_CHUNK_ELEMENTS
    int32_t path;           // coconet_fused_path
    // An overlapped pass runs once per chunk of its producer: ranged = 1
    // restricts the call to [range_min, range_min + range_extent) of
    // dimension range_dim, which every member passes alike. When range_dim
    // is the sliced dimension, the call is instead piece `piece` of `pieces`
    // of every member's slice (cut as coconet_slice_range cuts it; the range
    // is unused): each member reduces and gathers its piece. 0 (as a
    // zero-initialized struct has it): the whole value.
    int32_t ranged, range_dim, range_min, range_extent;
    int32_t pieces, piece;
    // NULL: gathered chunks reach peers' outputs as host memory copies. Set
    // by a caller whose kernel leaves its chunks elsewhere (on a device the
    // ranks share): after the kernel ran on a chunk, the runtime calls
    // gather(kernel_context, i, peer's output i, chunk min, chunk extent)
    // for each gathered output i and each peer, instead of copying.
    int (*gather)(void *kernel_context, int32_t output, halide_buffer_t *peer_out,
                  const int32_t *min, const int32_t *extent);
    // 1: the kernel computes the same values on every member for any chunk of
    // the source's full box (every output gathered, whatever else it reads the
    // same on every member and over the whole box). A small pass may then run
    // replicated: every member reduces and computes the whole value from all
    // members' sources, meeting its peers once instead of exchanging slices
    // (the MPI backend's direct path; COCONET_FUSED_REPLICATE).
    int32_t replicable;
} coconet_fused_call;

// A call with every field zero but the version and size.
static inline coconet_fused_call coconet_fused_call_init(void) {
    coconet_fused_call c;
    memset(&c, 0, sizeof c);
    c.version = COCONET_FUSED_CALL_VERSION;
    c.size = (uint32_t)sizeof c;
    return c;
}

// Runs a fused call on this rank (ranks outside the group return at once).
int coconet_fused_reduce_scatter(coconet_comm *comm, const coconet_fused_call *call);
// The path a fused call with `path` takes on this communicator.
coconet_fused_path coconet_fused_resolve_path(const coconet_comm *comm, int32_t path);
// How many sources the kernel gets on `path` for a group of `group_size`
// when there is a source: group_size on the direct path, min(group_size, 2)
// on the ring, 1 through the library (none without a source).
int32_t coconet_fused_sources(const coconet_comm *comm, int32_t path, int32_t group_size);
// Kernels report failures with this (the message of coconet_comm_last_error;
// the runtime records the code the kernel returns with it).
void coconet_comm_set_error(coconet_comm *comm, const char *message);
// Adds `bytes` to this rank's counter of a kind (kernels count what they read).
void coconet_comm_count_bytes(coconet_comm *comm, int kind, uint64_t bytes);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // COCONET_RUNTIME_H
