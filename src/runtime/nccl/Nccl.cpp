// The NCCL backend (coconet_nccl.h). A collective whose Halide stage runs on
// the device (a CUDA-target library's world collectives) gives NCCL its
// CUDA buffers where they are, through the library path
// (LibraryCollective.h: this communicator is the DeviceLibrary), and so do
// the fused passes of the world whose kernels run on the device
// (COCONET_PATH_LIBRARY: NCCL reduce-scatters, the kernel reads the result,
// NCCL gathers in place). Host stages and the other fused passes go host ->
// device scratch -> NCCL -> host. The
// communicator's stream orders NCCL with the Halide kernels and copies of
// CUDA-target libraries, which the hooks below send to the same stream.
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

#include "HalideRuntimeCuda.h"
#include "core/Comm.h"
#include "core/Errors.h"
#include "core/Pack.h"
#include "core/Reduce.h"

// Halide's CUDA runtime is in the program only when a CUDA-target library is
// linked into it; the hooks are installed when it is.
#pragma weak halide_set_cuda_acquire_context
#pragma weak halide_set_cuda_release_context
#pragma weak halide_set_cuda_get_stream
#pragma weak halide_cuda_device_interface

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

void fill_identity(void *p, const halide_type_t &t, int op, int64_t count) {
    coconet_rt::with_element_type(t, [&](auto zero) {
        using T = decltype(zero);
        std::fill(static_cast<T *>(p), static_cast<T *>(p) + count,
                  coconet_rt::reduce_identity<T>(op));
    });
}

// The slices of `full` along dimension d, one per rank, each packed into a
// segment of the same size: NCCL's reduce_scatter and all_gather move equal
// counts, so the short and empty last slices are padded.
struct Slices {
    Slices(const Box &full, int d, int parts) : full(full), d(d), parts(parts) {
        const int64_t n = full.extent[d];
        segment = n == 0 ? 0 : (n + parts - 1) / parts * (full.count() / n);
    }

    Box of(int q) const {
        int64_t begin = 0, end = 0;
        coconet_slice_range(full.extent[d], parts, q, &begin, &end);
        Box b = full;
        b.min[d] = full.min[d] + begin;
        b.extent[d] = end - begin;
        return b;
    }

    Box full;
    int d, parts;
    int64_t segment; // elements
};

std::mutex live_mutex;
std::set<const coconet_comm *> live; // NCCL communicators, for the Halide hooks
halide_cuda_acquire_context_t default_acquire = nullptr;
halide_cuda_release_context_t default_release = nullptr;
halide_cuda_get_stream_t default_get_stream = nullptr;

struct NcclComm : coconet_comm, coconet_rt::DeviceLibrary {
    NcclComm(int rank, int size, double timeout, int device, ncclComm_t nccl,
             std::shared_ptr<Failure> failure)
        : coconet_comm(rank, size, timeout), device(device), nccl(nccl),
          failure(std::move(failure)) {
        cudaSetDevice(device);
        cudaFree(nullptr); // creates the primary context
        // A blocking stream: it stays ordered with copies Halide's runtime
        // makes on the legacy default stream.
        cudaStreamCreate(&stream);
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
    // NCCL picks the reduction order (rings, trees).
    bool deterministic() const override { return false; }

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
        if (op.nsplit != 1 || op.kind == COCONET_ALL_TO_ALL || op.kind == COCONET_SEND_RECV) {
            return unsupported(what, "groups of world.split, all_to_all of host memory and send "
                                     "are not handled by the NCCL backend yet");
        }
        if (!nccl_type(t, &type)) {
            return unsupported(what, "NCCL has no element type " + coconet_rt::type_name(t));
        }
        // The whole value, or the chunk of an overlapped call.
        Box full;
        full.dims = op.dims;
        for (int d = 0; d < op.dims; d++) {
            full.extent[d] = op.n[d];
        }
        if (op.chunk_dim >= 0) {
            full.min[op.chunk_dim] = op.chunk_min;
            full.extent[op.chunk_dim] = op.chunk_extent;
        }
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
                fill_identity(result.buf.host, t, op.red, full.count());
            }
            coconet_rt::copy_box(&result.buf, out, coconet_rt::box_of(out));
            return COCONET_OK;
        }
        case COCONET_REDUCE_SCATTER: {
            const Slices slices(full, op.dim, size);
            std::vector<uint8_t> mine;
            const int rc = reduce_scatter(what, op.red, type, in, slices, false, mine);
            if (rc == COCONET_OK) {
                coconet_rt::DenseView v(mine.data(), slices.of(rank), t);
                coconet_rt::copy_box(&v.buf, out, coconet_rt::box_of(out));
            }
            return rc;
        }
        case COCONET_ALL_GATHER: return all_gather(what, type, in, Slices(full, op.dim, size), out);
        default: return unsupported(what, "unknown collective kind " + std::to_string(op.kind));
        }
    }

    // Device stages on CUDA buffers go to NCCL where they are.
    coconet_rt::DeviceLibrary *device_library(const halide_device_interface_t *iface) override {
        return halide_cuda_device_interface && iface && iface == halide_cuda_device_interface()
                   ? this
                   : nullptr;
    }

    bool supports(int, int, const halide_type_t &t) const override {
        ncclDataType_t type;
        return nccl_type(t, &type);
    }

    int all_reduce(const coconet_rt::Op &stage, int red, const halide_buffer_t *send,
                   halide_buffer_t *recv) override {
        return library_call(stage, recv, [&](ncclDataType_t type) {
            return ncclAllReduce(address(send), address(recv), count(recv), type, nccl_op(red),
                                 nccl, stream);
        });
    }

    // recv is written on the root only (the runtime fills the others').
    int reduce(const coconet_rt::Op &stage, int red, int root, const halide_buffer_t *send,
               halide_buffer_t *recv) override {
        return library_call(stage, recv, [&](ncclDataType_t type) {
            return ncclReduce(address(send), address(recv), count(recv), type, nccl_op(red), root,
                              nccl, stream);
        });
    }

    int broadcast(const coconet_rt::Op &stage, int root, const halide_buffer_t *send,
                  halide_buffer_t *recv) override {
        return library_call(stage, recv, [&](ncclDataType_t type) {
            return ncclBroadcast(address(send), address(recv), count(recv), type, root, nccl,
                                 stream);
        });
    }

    int reduce_scatter(const coconet_rt::Op &stage, int red, const halide_buffer_t *send,
                       halide_buffer_t *recv) override {
        return library_call(stage, recv, [&](ncclDataType_t type) {
            return ncclReduceScatter(address(send), address(recv), count(recv), type, nccl_op(red),
                                     nccl, stream);
        });
    }

    int all_gather(const coconet_rt::Op &stage, const halide_buffer_t *send,
                   halide_buffer_t *recv) override {
        return library_call(stage, recv, [&](ncclDataType_t type) {
            return ncclAllGather(address(send), address(recv), count(send), type, nccl, stream);
        });
    }

    // A send and a receive of one segment with every rank, grouped.
    int all_to_all(const coconet_rt::Op &stage, const halide_buffer_t *send,
                   halide_buffer_t *recv) override {
        return library_call(stage, recv, [&](ncclDataType_t type) {
            const size_t segment = count(recv) / size;
            const size_t bytes = segment * recv->type.bytes();
            const char *from = static_cast<const char *>(address(send));
            char *to = static_cast<char *>(address(recv));
            // A non-blocking communicator may answer ncclInProgress.
            auto fine = [](ncclResult_t r) { return r == ncclSuccess || r == ncclInProgress; };
            ncclResult_t r = ncclGroupStart();
            for (int q = 0; fine(r) && q < size; q++) {
                r = ncclSend(from + q * bytes, segment, type, q, nccl, stream);
                r = fine(r) ? ncclRecv(to + q * bytes, segment, type, q, nccl, stream) : r;
            }
            const ncclResult_t ended = ncclGroupEnd();
            return fine(r) ? ended : r;
        });
    }

    // Fused passes on host memory (their kernels on the host; device passes
    // take the library path) go the ring's way: NCCL reduces the others'
    // inputs into this rank's slice, then the fused kernel adds the rank's
    // own input.
    coconet_fused_path fused_path(int) const override { return COCONET_PATH_RING; }

    int run_fused(const coconet_rt::FusedPlan &plan, coconet_fused_path) override {
        const coconet_fused_call &c = plan.call;
        const std::string what = plan.what();
        ncclDataType_t type;
        const halide_type_t t = plan.reduces() ? c.src->type : c.outs[0]->type;
        if (c.nsplit != 1) {
            return unsupported(what,
                               "the NCCL backend runs fused passes over the whole world only");
        }
        if (!nccl_type(t, &type)) {
            return unsupported(what, "NCCL has no element type " + coconet_rt::type_name(t));
        }
        const Slices slices(plan.full, c.dim, size);
        const Box mine = plan.slice(rank);
        std::vector<uint8_t> others;
        std::unique_ptr<coconet_rt::DenseView> partial;
        if (plan.reduces() && size > 1) {
            const int rc = reduce_scatter(what, c.op, type, c.src, slices, true, others);
            if (rc != COCONET_OK) {
                return rc;
            }
            partial = std::make_unique<coconet_rt::DenseView>(others.data(), slices.of(rank), t);
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
            const int rc =
                c.gathered[o] ? all_gather(what, type, c.outs[o], slices, c.outs[o]) : COCONET_OK;
            if (rc != COCONET_OK) {
                return rc;
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

    // A CUDA buffer's memory: Halide's CUDA device handle is the address
    // (of a crop too: the parent's plus the offset).
    static void *address(const halide_buffer_t *b) { return reinterpret_cast<void *>(b->device); }
    static size_t count(const halide_buffer_t *flat) { return (size_t)flat->dim[0].extent; }

    // Whether the communicator can take a call (else the failure recorded);
    // selects its device for the CUDA calls that follow.
    int ready(const std::string &what) {
        if (nccl_aborted || failure->failed) {
            return aborted(what);
        }
        cudaSetDevice(device);
        return COCONET_OK;
    }

    // What NCCL answered on issuing an operation: an error aborts the
    // communicator and is reported.
    int issued(const std::string &what, ncclResult_t r) {
        if (r == ncclSuccess || r == ncclInProgress) {
            return COCONET_OK;
        }
        abort_nccl();
        return fail(COCONET_ERR_BACKEND,
                    coconet_rt::op_label(rank, what) + ": NCCL error: " + ncclGetErrorString(r));
    }

    // One operation of the library path on device buffers of `typed`'s
    // element type, issued on the stream and waited for (bounded).
    template<typename Issue>
    int library_call(const coconet_rt::Op &stage, const halide_buffer_t *typed, Issue &&issue) {
        const std::string what = stage.what();
        ncclDataType_t type;
        if (!nccl_type(typed->type, &type)) {
            return unsupported(what,
                               "NCCL has no element type " + coconet_rt::type_name(typed->type));
        }
        int rc = ready(what);
        rc = rc != COCONET_OK ? rc : issued(what, issue(type));
        return rc != COCONET_OK ? rc : wait(what);
    }

    // Host `send` -> device, `issue` on the stream, device -> host `recv`.
    int device_call(const std::string &what, const void *send, size_t send_bytes, void *recv,
                    size_t recv_bytes,
                    const std::function<ncclResult_t(const void *, void *)> &issue) {
        if (const int rc = ready(what); rc != COCONET_OK) {
            return rc;
        }
        if (scratch(send_dev, send_have, std::max<size_t>(send_bytes, 1)) != COCONET_OK ||
            scratch(recv_dev, recv_have, std::max<size_t>(recv_bytes, 1)) != COCONET_OK) {
            return fail(COCONET_ERR_BACKEND, coconet_rt::op_label(rank, what) + ": cudaMalloc of " +
                                                 std::to_string(send_bytes + recv_bytes) +
                                                 " bytes failed");
        }
        if (send_bytes) {
            cudaMemcpyAsync(send_dev, send, send_bytes, cudaMemcpyHostToDevice, stream);
        }
        if (const int rc = issued(what, issue(send_dev, recv_dev)); rc != COCONET_OK) {
            return rc;
        }
        cudaMemcpyAsync(recv, recv_dev, recv_bytes, cudaMemcpyDeviceToHost, stream);
        return wait(what);
    }

    // This rank's slice of the reduction of every rank's `in` over `slices`,
    // dense in `result`. With `without_own`, this rank adds the op's identity
    // to its own slice, so the result is the others' partial (the ring's
    // first source; the fused kernel adds the rank's own input).
    int reduce_scatter(const std::string &what, int op, ncclDataType_t type,
                       const halide_buffer_t *in, const Slices &slices, bool without_own,
                       std::vector<uint8_t> &result) {
        const halide_type_t t = in->type;
        const size_t segment = (size_t)slices.segment * t.bytes();
        std::vector<uint8_t> send(std::max<size_t>(segment * size, 1));
        fill_identity(send.data(), t, op, slices.segment * size);
        for (int q = 0; q < size; q++) {
            if (!(without_own && q == rank)) {
                coconet_rt::DenseView v(send.data() + q * segment, slices.of(q), t);
                coconet_rt::copy_box(in, &v.buf, slices.of(q));
            }
        }
        result.assign(std::max<size_t>(segment, 1), 0);
        const size_t count = (size_t)slices.segment;
        return device_call(
            what, send.data(), segment * size, result.data(), segment, [&](const void *s, void *r) {
                return ncclReduceScatter(s, r, count, type, nccl_op(op), nccl, stream);
            });
    }

    // `in` holds (at least) this rank's slice; `out` gets the part of the
    // gathered value it holds.
    int all_gather(const std::string &what, ncclDataType_t type, const halide_buffer_t *in,
                   const Slices &slices, halide_buffer_t *out) {
        const halide_type_t t = in->type;
        const size_t segment = (size_t)slices.segment * t.bytes();
        std::vector<uint8_t> send(std::max<size_t>(segment, 1), 0);
        std::vector<uint8_t> recv(std::max<size_t>(segment * size, 1));
        coconet_rt::DenseView mine(send.data(), slices.of(rank), t);
        coconet_rt::copy_box(in, &mine.buf, slices.of(rank));
        const size_t count = (size_t)slices.segment;
        const int rc = device_call(
            what, send.data(), segment, recv.data(), segment * size,
            [&](const void *s, void *r) { return ncclAllGather(s, r, count, type, nccl, stream); });
        for (int q = 0; rc == COCONET_OK && q < size; q++) {
            coconet_rt::DenseView v(recv.data() + q * segment, slices.of(q), t);
            coconet_rt::copy_box(&v.buf, out,
                                 coconet_rt::intersect(coconet_rt::box_of(out), slices.of(q)));
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
        world->comms.back()->local_ranks = nranks;
        world->comms.back()->threads = coconet_rt::threads_per_rank(nranks, nranks);
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
