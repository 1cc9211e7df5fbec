// The NCCL backend (coconet_nccl.h). Data of a collective goes host ->
// device scratch -> NCCL -> host, because extern stages of Halide pipelines
// hand the runtime host buffers; the communicator's stream orders NCCL with
// the Halide kernels of CUDA-target libraries, which the hooks below send to
// the same stream.
#include "coconet_nccl.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#ifdef COCONET_HAS_MPI
#include <mpi.h>
#endif

#include "Comm.h"
#include "Errors.h"
#include "HalideRuntimeCuda.h"
#include "Pack.h"
#include "Reduce.h"

// Halide's CUDA runtime is in the program only when a CUDA-target library is
// linked into it; the hooks are installed when it is.
#pragma weak halide_set_cuda_acquire_context
#pragma weak halide_set_cuda_release_context
#pragma weak halide_set_cuda_get_stream

namespace {

using coconet_rt::Box;
using coconet_rt::PackedBox;

// A failure that stops every rank of a world (threads driving GPUs of one
// process), or the one rank of an MPI process.
struct Failure {
    std::atomic<bool> failed{false};
    std::mutex mutex;
    std::string reason;
};

bool nccl_type(const halide_type_t &t, ncclDataType_t *out) {
    if (t.lanes != 1) {
        return false;
    }
    switch (t.code) {
    case halide_type_float:
        *out = t.bits == 64 ? ncclFloat64 : ncclFloat32;
        return t.bits == 64 || t.bits == 32;
    case halide_type_int:
        *out = t.bits == 8 ? ncclInt8 : t.bits == 32 ? ncclInt32 : ncclInt64;
        return t.bits == 8 || t.bits == 32 || t.bits == 64;
    case halide_type_uint:
        *out = t.bits == 8 ? ncclUint8 : t.bits == 32 ? ncclUint32 : ncclUint64;
        return t.bits == 8 || t.bits == 32 || t.bits == 64;
    default: return false;
    }
}

ncclRedOp_t nccl_op(int op) {
    switch (op) {
    case COCONET_PROD: return ncclProd;
    case COCONET_MAX: return ncclMax;
    case COCONET_MIN: return ncclMin;
    default: return ncclSum;
    }
}

void fill_identity(halide_buffer_t *b, int op, int64_t first, int64_t count) {
    coconet_rt::with_element_type(b->type, [&](auto zero) {
        using T = decltype(zero);
        T *p = reinterpret_cast<T *>(b->host) + first;
        std::fill(p, p + count, coconet_rt::reduce_identity<T>(op));
    });
}

// The box of `full` with its outermost dimension replaced by [min, min + extent).
Box rows(Box full, int64_t min, int64_t extent) {
    full.min[full.dims - 1] = min;
    full.extent[full.dims - 1] = extent;
    return full;
}

struct NcclComm;

std::mutex live_mutex;
std::set<const coconet_comm *> live; // NCCL communicators, for the Halide hooks
halide_cuda_acquire_context_t default_acquire = nullptr;
halide_cuda_release_context_t default_release = nullptr;
halide_cuda_get_stream_t default_get_stream = nullptr;

struct NcclComm : coconet_comm {
    NcclComm(int rank, int size, double timeout, int device, ncclComm_t nccl,
             std::shared_ptr<Failure> failure)
        : coconet_comm(rank, size, timeout), device(device), nccl(nccl),
          failure(std::move(failure)) {
        cudaSetDevice(device);
        cudaFree(nullptr); // creates the primary context
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        context = current_context();
        install_halide_hooks();
        std::lock_guard<std::mutex> lock(live_mutex);
        live.insert(this);
    }

    ~NcclComm() override {
        {
            std::lock_guard<std::mutex> lock(live_mutex);
            live.erase(this);
        }
        cudaSetDevice(device);
        if (nccl && !nccl_aborted) {
            ncclCommDestroy(nccl);
        }
        for (void *p : {send_dev, recv_dev}) {
            if (p) {
                cudaFree(p);
            }
        }
        cudaStreamDestroy(stream);
    }

    const char *backend() const override { return "nccl"; }

    int barrier(const char *what) override {
        int32_t one = 0;
        return device_call(std::string("barrier '") + what + "'", &one, 4, &one, 4,
                           [&](const void *s, void *r) {
                               return ncclAllReduce(s, r, 1, ncclInt32, ncclSum, nccl, stream);
                           });
    }

    void abort(const char *reason) override {
        std::lock_guard<std::mutex> lock(failure->mutex);
        if (!failure->failed) {
            failure->reason = reason ? reason : "aborted";
            failure->failed = true;
        }
    }

    int run(coconet_rt::Op &op, const halide_buffer_t *in, halide_buffer_t *out) override {
        const std::string what = op.what();
        ncclDataType_t type;
        const halide_type_t t = (in ? in : out)->type;
        if (op.nsplit != 1 || op.chunk_dim >= 0 || op.kind == COCONET_ALL_TO_ALL ||
            op.kind == COCONET_SEND_RECV) {
            return unsupported(what, "groups of world.split, overlapped chunks, all_to_all and "
                                     "send are not handled by the NCCL backend yet");
        }
        if (!nccl_type(t, &type)) {
            return unsupported(what, "NCCL has no element type " + coconet_rt::type_name(t));
        }
        const int outer = op.dims - 1;
        Box full;
        full.dims = op.dims;
        for (int d = 0; d < op.dims; d++) {
            full.extent[d] = op.n[d];
        }
        const int64_t n = op.n[outer], block = (n + size - 1) / size;
        const int64_t inner = full.count() / std::max<int64_t>(n, 1);
        const size_t bytes = t.bytes();
        switch (op.kind) {
        case COCONET_ALL_REDUCE:
        case COCONET_BROADCAST:
        case COCONET_REDUCE: {
            const int root = op.root;
            // Only the root of a broadcast provides an input.
            std::unique_ptr<PackedBox> send =
                op.kind != COCONET_BROADCAST || rank == root ? coconet_rt::pack(in, full) : nullptr;
            PackedBox result(full, t);
            const size_t count = (size_t)full.count();
            const int rc = device_call(
                what, send ? send->buf.host : nullptr, send ? count * bytes : 0, result.buf.host,
                count * bytes, [&](const void *s, void *r) {
                    if (op.kind == COCONET_ALL_REDUCE) {
                        return ncclAllReduce(s, r, count, type, nccl_op(op.red), nccl, stream);
                    }
                    if (op.kind == COCONET_BROADCAST) {
                        return ncclBroadcast(s, r, count, type, root, nccl, stream);
                    }
                    return ncclReduce(s, r, count, type, nccl_op(op.red), root, nccl, stream);
                });
            if (rc != COCONET_OK) {
                return rc;
            }
            if (op.kind == COCONET_REDUCE && rank != root) {
                fill_identity(&result.buf, op.red, 0, full.count());
            }
            coconet_rt::copy_box(&result.buf, out, coconet_rt::box_of(out));
            return COCONET_OK;
        }
        case COCONET_REDUCE_SCATTER:
        case COCONET_ALL_GATHER:
            if (op.a != outer) {
                return unsupported(what, "the NCCL backend slices only the outermost dimension (" +
                                             std::to_string(outer) + "), not dimension " +
                                             std::to_string(op.a));
            }
            return op.kind == COCONET_REDUCE_SCATTER
                       ? reduce_scatter(what, op.red, type, in, full, block, inner, out)
                       : all_gather(what, type, in, full, block, inner, out);
        default: return unsupported(what, "unknown collective kind " + std::to_string(op.kind));
        }
    }

    // Fused passes go the ring's way: NCCL reduces the others' inputs into
    // this rank's slice, then the fused kernel adds the rank's own input.
    coconet_fused_path fused_path(int) const override { return COCONET_PATH_RING; }

    int run_fused(const coconet_rt::FusedPlan &plan, coconet_fused_path) override {
        const coconet_fused_call &c = plan.call;
        const std::string what = plan.what();
        ncclDataType_t type;
        const halide_type_t t = plan.reduces() ? c.src->type : c.outs[0]->type;
        if (c.nsplit != 1 || c.dim != c.dims - 1) {
            return unsupported(what, "the NCCL backend runs fused passes over the whole world "
                                     "sliced along the outermost dimension");
        }
        if (!nccl_type(t, &type)) {
            return unsupported(what, "NCCL has no element type " + coconet_rt::type_name(t));
        }
        const int64_t n = plan.full.extent[c.dims - 1], block = (n + size - 1) / size;
        const int64_t inner = plan.full.count() / std::max<int64_t>(n, 1);
        const Box mine = plan.slice(rank);
        std::unique_ptr<PackedBox> partial;
        if (plan.reduces() && size > 1) {
            // This rank's rows of its own input are the op's identity, so
            // NCCL's reduction of the slice is the others' partial.
            PackedBox send(rows(plan.full, 0, block * size), t);
            fill_identity(&send.buf, c.op, 0, block * size * inner);
            coconet_rt::copy_box(c.src, &send.buf, plan.full);
            fill_identity(&send.buf, c.op, rank * block * inner, block * inner);
            partial = std::make_unique<PackedBox>(rows(plan.full, rank * block, block), t);
            const size_t count = (size_t)(block * inner);
            const int rc = device_call(
                what, send.buf.host, count * size * t.bytes(), partial->buf.host, count * t.bytes(),
                [&](const void *s, void *r) {
                    return ncclReduceScatter(s, r, count, type, nccl_op(c.op), nccl, stream);
                });
            if (rc != COCONET_OK) {
                return rc;
            }
        }
        for (const Box &chunk : plan.chunks(mine)) {
            std::vector<const halide_buffer_t *> srcs;
            if (partial) {
                srcs.push_back(&partial->buf);
            }
            if (plan.reduces()) {
                srcs.push_back(c.src);
            }
            const int rc = plan.run_kernel(*this, chunk, srcs);
            if (rc != COCONET_OK) {
                return rc;
            }
        }
        for (int o = 0; o < c.nout; o++) {
            if (c.gathered[o]) {
                const int rc =
                    all_gather(what, type, c.outs[o], plan.full, block, inner, c.outs[o]);
                if (rc != COCONET_OK) {
                    return rc;
                }
            }
        }
        return COCONET_OK;
    }

    // Waits for the stream, bounded by the timeout; a peer's failure, an
    // NCCL error or the timeout aborts the NCCL communicator.
    int wait(const std::string &what) {
        const auto start = std::chrono::steady_clock::now();
        for (;;) {
            const cudaError_t e = cudaStreamQuery(stream);
            if (e == cudaSuccess) {
                return COCONET_OK;
            }
            if (e != cudaErrorNotReady) {
                return fail(COCONET_ERR_BACKEND, coconet_rt::op_label(rank, what) +
                                                     ": CUDA error: " + cudaGetErrorString(e));
            }
            ncclResult_t async = ncclSuccess;
            ncclCommGetAsyncError(nccl, &async);
            if (async != ncclSuccess && async != ncclInProgress) {
                abort_nccl();
                return fail(COCONET_ERR_BACKEND, coconet_rt::op_label(rank, what) +
                                                     ": NCCL error: " + ncclGetErrorString(async));
            }
            if (failure->failed) {
                abort_nccl();
                return aborted(what);
            }
            const double waited =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (waited > timeout) {
                abort_nccl();
                abort(("rank " + std::to_string(rank) + " timed out in " + what).c_str());
                return fail(COCONET_ERR_TIMEOUT,
                            coconet_rt::timeout_message(rank, what, timeout, "the other ranks"));
            }
            std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
    }

    const int device;
    ncclComm_t nccl;
    cudaStream_t stream = nullptr;
    void *context = nullptr; // the device's primary CUcontext

private:
    int unsupported(const std::string &what, const std::string &why) {
        return fail(COCONET_ERR_INVALID, coconet_rt::op_label(rank, what) + ": " + why);
    }

    int aborted(const std::string &what) {
        std::lock_guard<std::mutex> lock(failure->mutex);
        return fail(COCONET_ERR_ABORTED,
                    coconet_rt::op_label(rank, what) + " aborted: " +
                        (failure->failed ? failure->reason
                                         : "an earlier NCCL error aborted the communicator"));
    }

    void abort_nccl() {
        if (!nccl_aborted) {
            ncclCommAbort(nccl);
            nccl_aborted = true;
        }
    }

    static void *current_context() {
        using GetCurrent = int (*)(void **);
        void *fn = nullptr;
        cudaDriverEntryPointQueryResult found;
        if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault,
                                             &found) != cudaSuccess ||
            found != cudaDriverEntryPointSuccess) {
            return nullptr;
        }
        void *ctx = nullptr;
        return reinterpret_cast<GetCurrent>(fn)(&ctx) == 0 ? ctx : nullptr;
    }

    static NcclComm *of(void *user_context) {
        std::lock_guard<std::mutex> lock(live_mutex);
        return live.count(static_cast<coconet_comm *>(user_context))
                   ? static_cast<NcclComm *>(static_cast<coconet_comm *>(user_context))
                   : nullptr;
    }

    // Halide's CUDA runtime asks for a context and a stream with the
    // pipeline's user_context, which is the communicator: an NCCL one gets
    // its device's primary context and its stream, anything else Halide's own.
    static void install_halide_hooks() {
        static std::once_flag once;
        std::call_once(once, [] {
            if (!halide_set_cuda_acquire_context || !halide_set_cuda_release_context ||
                !halide_set_cuda_get_stream) {
                return;
            }
            default_acquire =
                halide_set_cuda_acquire_context([](void *uc, void **ctx, bool create) -> int {
                    if (NcclComm *c = of(uc)) {
                        *ctx = c->context;
                        return cudaSetDevice(c->device) == cudaSuccess && c->context ? 0 : -1;
                    }
                    return default_acquire(uc, ctx, create);
                });
            default_release = halide_set_cuda_release_context(
                [](void *uc) -> int { return of(uc) ? 0 : default_release(uc); });
            default_get_stream =
                halide_set_cuda_get_stream([](void *uc, void *ctx, void **stream) -> int {
                    if (NcclComm *c = of(uc)) {
                        *stream = c->stream;
                        return 0;
                    }
                    return default_get_stream(uc, ctx, stream);
                });
        });
    }

    // Device scratch of at least `bytes` (grown, never shrunk).
    int scratch(void *&p, size_t &have, size_t bytes) {
        if (bytes <= have) {
            return COCONET_OK;
        }
        if (p) {
            cudaFree(p);
            p = nullptr;
        }
        have = 0;
        if (cudaMalloc(&p, bytes) != cudaSuccess) {
            return COCONET_ERR_BACKEND;
        }
        have = bytes;
        return COCONET_OK;
    }

    // Host `send` -> device, `issue` on the stream, device -> host `recv`.
    int device_call(const std::string &what, const void *send, size_t send_bytes, void *recv,
                    size_t recv_bytes,
                    const std::function<ncclResult_t(const void *, void *)> &issue) {
        if (nccl_aborted || failure->failed) {
            return aborted(what);
        }
        cudaSetDevice(device);
        if (scratch(send_dev, send_have, std::max<size_t>(send_bytes, 1)) != COCONET_OK ||
            scratch(recv_dev, recv_have, std::max<size_t>(recv_bytes, 1)) != COCONET_OK) {
            return fail(COCONET_ERR_BACKEND, coconet_rt::op_label(rank, what) + ": cudaMalloc of " +
                                                 std::to_string(send_bytes + recv_bytes) +
                                                 " bytes failed");
        }
        if (send_bytes) {
            cudaMemcpyAsync(send_dev, send, send_bytes, cudaMemcpyHostToDevice, stream);
        }
        const ncclResult_t r = issue(send_dev, recv_dev);
        if (r != ncclSuccess && r != ncclInProgress) {
            abort_nccl();
            return fail(COCONET_ERR_BACKEND, coconet_rt::op_label(rank, what) +
                                                 ": NCCL error: " + ncclGetErrorString(r));
        }
        cudaMemcpyAsync(recv, recv_dev, recv_bytes, cudaMemcpyDeviceToHost, stream);
        return wait(what);
    }

    int reduce_scatter(const std::string &what, int op, ncclDataType_t type,
                       const halide_buffer_t *in, const Box &full, int64_t block, int64_t inner,
                       halide_buffer_t *out) {
        const halide_type_t t = in->type;
        PackedBox send(rows(full, 0, block * size), t);
        fill_identity(&send.buf, op, 0, block * size * inner);
        coconet_rt::copy_box(in, &send.buf, full);
        PackedBox result(rows(full, rank * block, block), t);
        const size_t count = (size_t)(block * inner);
        const int rc =
            device_call(what, send.buf.host, count * size * t.bytes(), result.buf.host,
                        count * t.bytes(), [&](const void *s, void *r) {
                            return ncclReduceScatter(s, r, count, type, nccl_op(op), nccl, stream);
                        });
        if (rc == COCONET_OK) {
            coconet_rt::copy_box(&result.buf, out, coconet_rt::box_of(out));
        }
        return rc;
    }

    // `in` holds (at least) this rank's slice of `full` along the outermost
    // dimension; `out` gets the part of the gathered value it holds.
    int all_gather(const std::string &what, ncclDataType_t type, const halide_buffer_t *in,
                   const Box &full, int64_t block, int64_t inner, halide_buffer_t *out) {
        const halide_type_t t = in->type;
        const int64_t n = full.extent[full.dims - 1];
        const int64_t first = std::min(n, rank * block), last = std::min(n, first + block);
        PackedBox send(rows(full, rank * block, block), t);
        coconet_rt::copy_box(in, &send.buf, rows(full, first, last - first));
        PackedBox result(rows(full, 0, block * size), t);
        const size_t count = (size_t)(block * inner);
        const int rc = device_call(
            what, send.buf.host, count * t.bytes(), result.buf.host, count * size * t.bytes(),
            [&](const void *s, void *r) { return ncclAllGather(s, r, count, type, nccl, stream); });
        if (rc == COCONET_OK) {
            coconet_rt::copy_box(&result.buf, out,
                                 coconet_rt::intersect(coconet_rt::box_of(out), full));
        }
        return rc;
    }

    std::shared_ptr<Failure> failure;
    bool nccl_aborted = false; // ncclCommAbort was called: the communicator is gone
    void *send_dev = nullptr, *recv_dev = nullptr;
    size_t send_have = 0, recv_have = 0;
};

int gpu_count() {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

} // namespace

struct coconet_nccl_world {
    std::vector<std::unique_ptr<NcclComm>> comms;
};

extern "C" {

coconet_nccl_world *coconet_nccl_world_create(int nranks, double timeout_seconds) {
    const int gpus = gpu_count();
    if (nranks < 1 || nranks > gpus) {
        std::fprintf(
            stderr,
            "coconet: coconet_nccl_world_create(%d): %d GPU(s) found, one per rank needed\n",
            nranks, gpus);
        return nullptr;
    }
    std::vector<ncclComm_t> nccl(nranks);
    std::vector<int> devices(nranks);
    for (int r = 0; r < nranks; r++) {
        devices[r] = r;
    }
    const ncclResult_t rc = ncclCommInitAll(nccl.data(), nranks, devices.data());
    if (rc != ncclSuccess) {
        std::fprintf(stderr, "coconet: ncclCommInitAll(%d) failed: %s\n", nranks,
                     ncclGetErrorString(rc));
        return nullptr;
    }
    auto world = std::make_unique<coconet_nccl_world>();
    auto failure = std::make_shared<Failure>();
    for (int r = 0; r < nranks; r++) {
        world->comms.push_back(
            std::make_unique<NcclComm>(r, nranks, timeout_seconds, r, nccl[r], failure));
    }
    return world.release();
}

coconet_comm *coconet_nccl_world_comm(coconet_nccl_world *world, int rank) {
    return world && rank >= 0 && rank < (int)world->comms.size() ? world->comms[rank].get()
                                                                 : nullptr;
}

void coconet_nccl_world_destroy(coconet_nccl_world *world) {
    delete world;
}

coconet_comm *coconet_nccl_comm_create_mpi(double timeout_seconds) {
#ifdef COCONET_HAS_MPI
    coconet_comm *mpi = coconet_mpi_comm_create(timeout_seconds);
    if (!mpi) {
        return nullptr;
    }
    const int rank = mpi->rank, size = mpi->size;
    const double timeout = mpi->timeout;
    coconet_mpi_comm_destroy(mpi);
    int local = 0;
    MPI_Comm node = MPI_COMM_NULL;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
            MPI_SUCCESS &&
        node != MPI_COMM_NULL) {
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
    }
    const int gpus = gpu_count();
    ncclUniqueId id{};
    if (rank == 0 && (gpus == 0 || ncclGetUniqueId(&id) != ncclSuccess)) {
        std::memset(&id, 0, sizeof(id));
    }
    const auto start = std::chrono::steady_clock::now();
    auto late = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
               timeout;
    };
    MPI_Request request;
    MPI_Ibcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD, &request);
    for (int done = 0; !done;) {
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (!done && late()) {
            std::fprintf(stderr,
                         "coconet: rank %d: NCCL bootstrap timed out after %s s waiting "
                         "for rank 0's unique id\n",
                         rank, coconet_rt::format_seconds(timeout).c_str());
            return nullptr;
        }
    }
    if (gpus == 0) {
        std::fprintf(stderr, "coconet: rank %d: no GPU for the NCCL backend\n", rank);
        return nullptr;
    }
    const int device = local % gpus;
    cudaSetDevice(device);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclComm_t nccl = nullptr;
    ncclResult_t state = ncclCommInitRankConfig(&nccl, size, id, rank, &config);
    while (state == ncclInProgress && !late()) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        ncclCommGetAsyncError(nccl, &state);
    }
    if (state != ncclSuccess) {
        if (nccl) {
            ncclCommAbort(nccl);
        }
        std::fprintf(stderr, "coconet: rank %d: NCCL communicator creation %s\n", rank,
                     state == ncclInProgress
                         ? ("timed out after " + coconet_rt::format_seconds(timeout) + " s").c_str()
                         : ncclGetErrorString(state));
        return nullptr;
    }
    return new NcclComm(rank, size, timeout, device, nccl, std::make_shared<Failure>());
#else
    (void)timeout_seconds;
    std::fprintf(stderr, "coconet: coconet_nccl_comm_create_mpi: this runtime has no MPI\n");
    return nullptr;
#endif
}

void coconet_nccl_comm_destroy(coconet_comm *comm) {
    delete comm;
}

int coconet_nccl_device(const coconet_comm *comm) {
    const auto *c = dynamic_cast<const NcclComm *>(comm);
    return c ? c->device : -1;
}

void *coconet_nccl_stream(const coconet_comm *comm) {
    const auto *c = dynamic_cast<const NcclComm *>(comm);
    return c ? c->stream : nullptr;
}

} // extern "C"
