// CoCoNet programs as the runtime runs them: a table (coconet_aot_program)
// of a program's values and steps, and the executor (coconet_aot_run) that
// follows it on one rank. A generator's library (add_coconet_library) holds
// the Halide pipelines and fused kernels as Halide-compiled functions and a
// generated table; a JitProgram builds the same table in memory around its
// JIT-compiled functions. Both run through this one executor.
//
// Users of a library call its own entry point (declared in its header), and
// use coconet_arg_box to find the box of every argument a rank passes.
#ifndef COCONET_AOT_H
#define COCONET_AOT_H

#include "coconet_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    COCONET_LAYOUT_REPLICATED = 0, // every rank of the group holds the whole value
    COCONET_LAYOUT_SLICED = 1,     // group rank i holds block i of ceil(n/size) along `dim`
    COCONET_LAYOUT_LOCAL = 2,      // every rank of the group holds its own whole value
} coconet_layout_kind;

// An extent in a table: >= 0, a constant; COCONET_SIZE_REF(k), the program's
// run-time size k (coconet_aot_program::size_names), given at each call.
#define COCONET_SIZE_REF(k) (-(int32_t)(k)-1)

// A distributed value: element type, global extents and layout over group
// `group` of world.split(nsplit) (nsplit = 1: the world).
typedef struct {
    const char *name;
    int32_t type_code, type_bits; // halide_type_t's code and bits
    int32_t dims;                 // <= 4
    // Global extents (1 for missing dimensions). In a table, run-time sizes
    // are COCONET_SIZE_REF(k); a call resolves them before it uses the value.
    int32_t extents[4];
    int32_t layout, dim; // coconet_layout_kind; the sliced dimension
    int32_t nsplit, group;
    // 1: a GPU kernel computes or reads it. Halide's GPU runtimes abort on an
    // empty device buffer, so the executor refuses a world where a rank's
    // slice of such a value is empty.
    int32_t device;
} coconet_value_info;

// The global box rank `rank` of `size` holds of a value whose extents are
// all constants: min[d], extent[d] for d < v->dims. Ranks outside the value's
// group hold nothing (extents 0).
void coconet_value_box(const coconet_value_info *v, int rank, int size, int32_t *min,
                       int32_t *extent);

// The version of the tables below. A library's table records the version it
// was generated against (with the size of coconet_aot_program), and
// coconet_aot_run refuses a table of another version with a message naming
// both: a header change that moves a field fails loudly, not at random.
#define COCONET_AOT_VERSION 13

// A compiled function of the program: a Halide pipeline or fused kernel
// called through its _argv entry point. args[0] points at the user_context,
// which the executor sets to the rank's communicator; `context` is the
// function's own (the JIT keeps its compiled code there, AOT tables NULL).
typedef struct {
    int (*call)(void *context, void **args);
    void *context;
} coconet_function;

// The fused kernel of a pass compiled for `nsrc` sources. `device`: compiled
// for a GPU target. `device_interface`: set when every output is computed on
// that device; on ranks sharing the device (threads backend, direct path) the
// pass then stays there: the kernel reads peers' device buffers, writes
// device crops of the outputs, and gathered chunks reach peers by device
// copies. Otherwise the executor hands a device kernel host views of its own
// and copies its outputs back to the host memory the pass moves.
typedef struct {
    int32_t nsrc;
    coconet_function function;
    int32_t device;
    const struct halide_device_interface_t *device_interface;
} coconet_aot_kernel;

// A device kernel combining two buffers element-wise, for the reductions of
// collectives that run on a device (coconet_collective_desc::device) among
// ranks sharing it: out(x) = op(a(x), b(x)) over out's indices, a, b and out
// 1-D dense buffers of one type whose boxes may differ (a peer's whole input
// read over one run of it), a and out possibly the same buffer. Arguments:
// user_context, a, b, out. The executor folds the members' inputs with it in rank order, so the
// result is the reference's bit for bit. `identity` fills a 1-D dense buffer
// with the op's identity (a reduce's result off its root, as on the host);
// arguments: user_context, out.
typedef struct {
    int32_t op;                   // coconet_reduce_op
    int32_t type_code, type_bits; // halide_type_t's code and bits
    coconet_function function;
    coconet_function identity;
} coconet_aot_combiner;

typedef enum {
    COCONET_STEP_HALIDE = 0, // a Halide pipeline
    COCONET_STEP_FUSED = 1,  // a fused pass (coconet_fused_reduce_scatter)
    // An unfused collective overlapped with its producer: chunk j's collective
    // runs on the rank's thread while `pipeline` computes chunk j + 1 on one
    // the executor owns, so no collective ever waits inside a Halide task.
    COCONET_STEP_COLLECTIVE = 2,
} coconet_step_kind;

// One step of the program. Value ids index coconet_aot_program::values.
typedef struct {
    int32_t kind; // coconet_step_kind
    // The Halide pipeline: arguments user_context, params..., outputs...
    // For an overlapped pass or collective (chunks > 0): the pipeline
    // computing its source (one output), run chunk by chunk with it.
    // call == NULL: none.
    coconet_function pipeline;
    int32_t nparams;
    const int32_t *params;
    int32_t nouts;
    const int32_t *outs;
    // A fused pass: the call the executor makes, with everything but the
    // buffers, the kernel and the range filled in (pass.gathered and
    // pass.nout describe pass_outs).
    coconet_fused_call pass;
    int32_t src;              // value id of the source; -1: a pass with nothing to reduce
    const int32_t *pass_outs; // value ids of the pass's outputs
    const int32_t *slices; // per output: value id read as the rank's slice of it afterwards, or -1
    int32_t nextras;       // other values the kernel reads
    const int32_t *extras;
    int32_t chunks; // > 0: overlapped with `pipeline` in this many chunks
    int32_t nkernels;
    const coconet_aot_kernel *kernels;
    // An overlapped collective: its name, its descriptor (chunk_dim: the
    // dimension its chunks run along) and the value it writes, from src.
    const char *collective_name;
    coconet_collective_desc collective;
    int32_t dst;
} coconet_aot_step;

// A condition a call's run-time sizes must meet: extents a and b (each a
// constant or a COCONET_SIZE_REF) are equal. `what` names the Funcs that
// need it, for the message.
typedef struct {
    int32_t a, b;
    const char *what;
} coconet_size_constraint;

// `version` and `size` stay the first fields in every version, so that the
// executor can read them in a table of any version.
typedef struct {
    uint32_t version;      // COCONET_AOT_VERSION of the header the table was built with
    uint32_t size;         // sizeof(coconet_aot_program) there
    const char *name;      // the library's function name, for messages
    const char *generator; // the generator and its parameters, as built
    const char *params;
    int32_t ranks; // > 0: built for exactly this many ranks
    int32_t nvalues;
    const coconet_value_info *values;
    int32_t ninputs, noutputs;
    const int32_t *args;          // value ids of the inputs, then the outputs, in call order
    const int32_t *output_values; // value holding output i after the last step
    int32_t nsteps;
    const coconet_aot_step *steps;
    // Device calls (copies, crops, frees through a buffer's
    // device_interface) take the user context of the program's Halide
    // runtime: with_device_context(comm, fn, arg) runs fn(that context, arg).
    // NULL: the communicator is that context (AOT libraries).
    int (*with_device_context)(coconet_comm *comm, coconet_device_fn fn, void *arg);
    // The error handler and allocator of the program's Halide runtime (NULL:
    // none to offer; all three or none), which the executor chains: a
    // pipeline's error becomes the rank's error (Halide's default handler
    // aborts the process), and a pipeline's memory comes from the rank's pool
    // of host memory kept between calls.
    halide_error_handler_t (*set_error_handler)(halide_error_handler_t handler);
    halide_malloc_t (*set_custom_malloc)(halide_malloc_t user_malloc);
    halide_free_t (*set_custom_free)(halide_free_t user_free);
    // A GPU-target program's device (NULL for a host target): where its
    // device collective stages move data that a rank holds on the host.
    const struct halide_device_interface_t *device_interface;
    // Its GPU API: COCONET_DEVICE_CUDA or COCONET_DEVICE_OPENCL (0 for a host
    // target), which says what a device allocation's handle is.
    int32_t device_api;
    // The outputs of its collective stages on the device. Halide allocates
    // them on the device before the call, and its GPU runtimes abort on an
    // empty allocation, so the executor refuses a world leaving a rank an
    // empty slice of one, as of a `device` value.
    int32_t ndevice_stages;
    const coconet_value_info *device_stages;
    // The combiners of the program's device collectives (none for a host
    // target): one per reduction op and type they use.
    int32_t ncombiners;
    const coconet_aot_combiner *combiners;
    // The run-time sizes (extents each call gives, the same on every rank),
    // by the names of their Params, and the conditions they must meet. A
    // library's pipelines take them as int32 scalars just before their
    // outputs; fused kernels just after the rank and the size.
    int32_t nsizes;
    const char *const *size_names;
    int32_t nconstraints;
    const coconet_size_constraint *constraints;
    // Per output: the input (its index among the arguments) whose memory a
    // caller may pass as the output's, the call then updating that input in
    // place; -1: none. NULL: no output may share an input's memory.
    const int32_t *in_place_of;
} coconet_aot_program;

// The global box a rank passes for argument `arg` (inputs first, then
// outputs): see coconet_value_box. `sizes` holds the program's run-time
// sizes (p->nsizes of them, as a call gives them; NULL when it has none).
// Returns 0, or COCONET_ERR_INVALID for a NULL pointer, an argument or rank
// out of range, or a missing or negative size (the message in
// coconet_comm_last_error(NULL)).
int coconet_arg_box_sized(const coconet_aot_program *p, const int32_t *sizes, int arg, int rank,
                          int size, int32_t *min, int32_t *extent);
// The same for a program without run-time sizes.
int coconet_arg_box(const coconet_aot_program *p, int arg, int rank, int size, int32_t *min,
                    int32_t *extent);

// Whether value v of p is a fused pass's source or gathered output: the
// values that passes read or write in place where they lie in window memory
// (coconet_mpi_alloc); a caller gains nothing placing others there. 0 also
// for a NULL p or a value out of range.
int coconet_aot_value_in_pass(const coconet_aot_program *p, int v);

// How many sources the kernel of fused step `step` gets on `comm`
// (coconet_fused_sources for its group; 0 for a pass with nothing to reduce).
int32_t coconet_aot_step_sources(const coconet_comm *comm, const coconet_aot_step *step);

// Whether fused step `step`, whose kernels run on `device` (NULL: on the
// host), can go through the collective library of comm's backend
// (COCONET_PATH_LIBRARY): its group is the world and the backend has a
// library that moves that device's memory (NCCL for CUDA; the threads
// backend under COCONET_DEVICE_COLLECTIVES=library). The executor takes that
// path where the library also moves the pass's element types, with the
// step's kernel of one source (of none, for a pass with nothing to reduce).
int coconet_aot_step_takes_library(const coconet_comm *comm, const coconet_aot_step *step,
                                   const halide_device_interface_t *device);

// Runs the program on this rank. args[i] is argument i: this rank's box of it
// in global coordinates (a buffer whose min is 0 in every dimension is taken
// as starting at the box's min). Returns 0, or an error code with the message
// in coconet_comm_last_error(comm) (coconet_comm_last_error(NULL) when comm
// is NULL or destroyed); a failure aborts the communicator
// (coconet_comm_abort), so that peers stop too, naming this rank and why.
//
// Residency is the caller's choice, never a side effect: a buffer with a
// device allocation (of the program's device) is read there and, as an
// output, returned there, device-dirty; any other buffer is read from and
// returned on the host, and has no device allocation after the call, whatever
// the GPU pipelines copied. As in Halide, after writing the host memory of a
// buffer that has a device allocation, call set_host_dirty on it.
//
// Arguments share no memory, except an output passed as the very host
// elements (same memory, box and strides, no device allocation) of the input
// p->in_place_of names for it: the call then updates that input in place.
//
// `sizes` holds the program's run-time sizes (p->nsizes int32 values in the
// order of p->size_names; NULL when it has none). Every rank must pass the
// same sizes: a call at sizes other than p's last on comm gathers them from
// every rank and, where they differ, fails on every rank naming the ranks
// and the values (at unchanged sizes a rank that changes alone fails at the
// first collective, whose call every rank compares); a call that breaks a
// condition of p->constraints (two inputs the program combines given
// different sizes) fails too.
int coconet_aot_run_sized(coconet_comm *comm, const coconet_aot_program *p, const int32_t *sizes,
                          struct halide_buffer_t *const *args);
// The same for a program without run-time sizes.
int coconet_aot_run(coconet_comm *comm, const coconet_aot_program *p,
                    struct halide_buffer_t *const *args);

// Frees what the runtime keeps for program p on comm between calls: under
// MPI, the window memory holding its fused passes' values, made at p's first
// call there and kept for the communicator's life otherwise
// (coconet_mpi_window_bytes); and the host memory of the executor's values
// and its pipelines' allocations that calls gave back (every program's: at
// most 1 GiB per rank is kept,
// COCONET_HOST_POOL=off keeps none). Collective: every rank calls it at the same
// point; its ranks meet as in coconet_barrier, so a peer in another library's
// call is named at once, and a rank that never comes when the wait times out;
// after a failed call aborted the communicator it frees the host memory and
// returns COCONET_ERR_ABORTED.
// p's next call makes them again. Returns 0 (also when nothing was kept), or
// an error code with the message in coconet_comm_last_error(comm).
int coconet_aot_release(coconet_comm *comm, const coconet_aot_program *p);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // COCONET_AOT_H
