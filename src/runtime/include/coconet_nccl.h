// CoCoNet's NCCL backend: one GPU per rank, collectives through NCCL on the
// communicator's CUDA stream, and the Halide CUDA runtime of CUDA-target
// libraries running its kernels in the device's primary context on that
// stream. Built into the library coconet_runtime_nccl when CMake finds CUDA
// and NCCL; link it only into programs meant for GPUs.
//
// Collectives cover the whole world (groups of world.split and send are
// refused). Those whose Halide stage runs on the GPU (a CUDA-target
// library's all_reduce, reduce_scatter, all_gather, broadcast and all_to_all,
// the last as grouped ncclSend/ncclRecv) go to NCCL on their device buffers
// where they are; host stages (not all_to_all) go through device
// scratch memory of the communicator. Fused passes take NCCL's
// reduce_scatter, the library's fused kernel and NCCL's all_gather (the ring
// path's two sources: the others' partial and the rank's own input), on host
// memory staged through device scratch. Other calls fail with a message that
// says what is not handled. Every wait is bounded by the communicator's
// timeout: a stuck rank aborts its NCCL communicator and fails naming the
// rank and the operation.
#ifndef COCONET_NCCL_H
#define COCONET_NCCL_H

#include "coconet_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct coconet_nccl_world coconet_nccl_world;

// One process driving `nranks` GPUs (devices 0..nranks-1), one thread per
// rank (ncclCommInitAll). NULL, with a message on stderr, when there are
// fewer GPUs or NCCL fails.
coconet_nccl_world *coconet_nccl_world_create(int nranks, double timeout_seconds);
coconet_comm *coconet_nccl_world_comm(coconet_nccl_world *world, int rank);
void coconet_nccl_world_destroy(coconet_nccl_world *world);

// One rank per MPI process (mpirun), on GPU (node-local rank mod GPU count),
// bootstrapped by broadcasting NCCL's unique id over MPI_COMM_WORLD. NULL,
// with a message on stderr, without MPI, a GPU or NCCL, or on timeout.
// Finalize MPI with coconet_mpi_finalize().
coconet_comm *coconet_nccl_comm_create_mpi(double timeout_seconds);
void coconet_nccl_comm_destroy(coconet_comm *comm);

// The CUDA device and stream (a cudaStream_t) of an NCCL communicator, or
// -1 and NULL for another backend.
int coconet_nccl_device(const coconet_comm *comm);
void *coconet_nccl_stream(const coconet_comm *comm);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // COCONET_NCCL_H
