// Matrix products through cuBLAS and CLBlast (see DeviceGemm.h). Both are
// opened with dlopen and declared here by the few C entry points used, so the
// runtime builds and links without either.
#include "device/DeviceGemm.h"

#include <dlfcn.h>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/Comm.h"
#include "core/Errors.h"
#include "device/Device.h"

namespace coconet_rt {

namespace {

// A shared library opened under the first of its names found, or none.
class Library {
public:
    Library(std::initializer_list<const char *> names) {
        for (const char *n : names) {
            if ((handle_ = dlopen(n, RTLD_LAZY | RTLD_LOCAL))) {
                return;
            }
            tried_ += std::string(tried_.empty() ? "" : ", ") + n;
        }
    }
    template<typename F>
    F symbol(const char *name) const {
        return handle_ ? reinterpret_cast<F>(dlsym(handle_, name)) : nullptr;
    }
    // "" when open; else the names tried.
    std::string missing() const { return handle_ ? "" : "none of " + tried_ + " could be opened"; }

private:
    void *handle_ = nullptr;
    std::string tried_;
};

// Why a device's runtime library and BLAS cannot be used, or "": one not
// opened, or (`found` false) an entry point missing from one of them.
std::string unusable(const Library &runtime, const Library &blas, bool found, const char *names) {
    std::string why = runtime.missing();
    if (!blas.missing().empty()) {
        why += (why.empty() ? "" : "; ") + blas.missing();
    }
    if (why.empty() && !found) {
        why = std::string(names) + " lacks an entry point this runtime calls";
    }
    return why;
}

// A library's entry points (an Api below), looked up once per process.
template<typename Api>
const Api &loaded() {
    static const Api api;
    return api;
}

// Handles made per device context (cuBLAS handles, OpenCL queues), each taken
// by one call at a time: thread ranks sharing a device never use one at once.
template<typename Context, typename Handle>
class HandlePool {
public:
    // A free handle of ctx, or a new one from make(&handle) (0: made).
    template<typename Make>
    bool take(Context ctx, Handle *out, Make &&make) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            std::vector<Handle> &free = free_[ctx];
            if (!free.empty()) {
                *out = free.back();
                free.pop_back();
                return true;
            }
        }
        return make(out) == 0;
    }
    void give_back(Context ctx, Handle h) {
        std::lock_guard<std::mutex> lock(mutex_);
        free_[ctx].push_back(h);
    }

private:
    std::mutex mutex_;
    std::map<Context, std::vector<Handle>> free_;
};

// An operand in BLAS's column-major terms: `transposed` where its buffer
// holds it transposed, `offset` the elements from the buffer's device address
// to its first one, `ld` the stride between its columns as stored.
struct Operand {
    const halide_buffer_t *buf = nullptr;
    int64_t offset = 0;
    int ld = 1;
    bool transposed = false;
};

// The products C_i (m x n) = A_i (m x k) * B_i (k x n), i < batches, each
// operand's i-th matrix `stride` elements after its (i-1)-th (0: the same
// matrix for every i).
struct Product {
    int m, n, k;
    Operand a, b, c;
    int batches = 1;
    int64_t a_stride = 0, b_stride = 0, c_stride = 0;
};

// The operand of buffer `buf` whose dimension `walk` runs along `count`
// elements from `first` (A: the rows of the product, B: its columns) and
// whose dimension `kdim` runs along the contraction, [k_min, k_min + k),
// starting `base` elements into the buffer (a batch's matrix). `rows_first`:
// the operand is A, stored untransposed when `walk` is its densest
// dimension; B is untransposed when the contraction is. "" or why BLAS cannot
// take it.
std::string operand(const halide_buffer_t *buf, int walk, int kdim, int32_t first, int count,
                    int32_t k_min, int k, int64_t base, bool rows_first, Operand *o) {
    const halide_dimension_t &w = buf->dim[walk], &c = buf->dim[kdim];
    if (first < w.min || first + count > w.min + w.extent || k_min < c.min ||
        k_min + k > c.min + c.extent) {
        return "an operand's buffer does not cover the box the product reads";
    }
    o->buf = buf;
    o->offset = base + (int64_t)(first - w.min) * w.stride + (int64_t)(k_min - c.min) * c.stride;
    // A dimension of one element may have any stride; BLAS wants a leading
    // dimension no smaller than the stored rows.
    const bool walk_dense = w.stride == 1 || count == 1, k_dense = c.stride == 1 || k == 1;
    const bool untransposed = rows_first ? walk_dense : k_dense;
    const bool transposed = rows_first ? k_dense : walk_dense;
    if (!untransposed && !transposed) {
        return "an operand has no dimension of stride 1 (strides " + std::to_string(w.stride) +
               " and " + std::to_string(c.stride) + ")";
    }
    o->transposed = !untransposed;
    // The dimension between whose steps the stored rows lie, and their number.
    const bool along_walk = o->transposed == rows_first;
    const halide_dimension_t &between = along_walk ? w : c;
    const int stored_rows = along_walk ? k : count, steps = along_walk ? count : k;
    if (steps > 1 && between.stride < stored_rows) {
        return "an operand's rows overlap (stride " + std::to_string(between.stride) + " for " +
               std::to_string(stored_rows) + " elements)";
    }
    o->ld = std::max({steps > 1 ? between.stride : 0, stored_rows, 1});
    return "";
}

// cuBLAS on the legacy default stream of the context that holds C: where
// Halide's CUDA runtime launches its kernels (and, under the NCCL backend, on
// a blocking stream that the legacy one orders with), so nothing waits here.
namespace cuda {

using CUresult = int;
using CUcontext = void *;
using CUdeviceptr = unsigned long long;
constexpr int kPointerContext = 1; // CU_POINTER_ATTRIBUTE_CONTEXT
constexpr int kOpN = 0, kOpT = 1;  // cublasOperation_t

struct Api {
    Library driver{"libcuda.so.1"};
    Library blas{"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    CUresult (*pointer_attribute)(void *, int, CUdeviceptr) =
        driver.symbol<decltype(pointer_attribute)>("cuPointerGetAttribute");
    CUresult (*push)(CUcontext) = driver.symbol<decltype(push)>("cuCtxPushCurrent_v2");
    CUresult (*pop)(CUcontext *) = driver.symbol<decltype(pop)>("cuCtxPopCurrent_v2");
    CUresult (*memset_2d)(CUdeviceptr, size_t, unsigned, size_t, size_t,
                          void *) = driver.symbol<decltype(memset_2d)>("cuMemsetD2D32Async");
    int (*create)(void **) = blas.symbol<decltype(create)>("cublasCreate_v2");
    int (*sgemm)(void *, int, int, int, int, int, const float *, const float *, int, const float *,
                 int, const float *, float *, int) = blas.symbol<decltype(sgemm)>("cublasSgemm_v2");
    int (*sgemm_batched)(void *, int, int, int, int, int, const float *, const float *, int,
                         long long, const float *, int, long long, const float *, float *, int,
                         long long,
                         int) = blas.symbol<decltype(sgemm_batched)>("cublasSgemmStridedBatched");
    const char *(*status)(int) = blas.symbol<decltype(status)>("cublasGetStatusString");

    // Why the libraries cannot be used, or "": found once, with them.
    const std::string missing = unusable(
        driver, blas, pointer_attribute &&push &&pop &&memset_2d &&create &&sgemm &&sgemm_batched,
        "libcuda or libcublas");
};

HandlePool<CUcontext, void *> &handles() {
    static HandlePool<CUcontext, void *> pool;
    return pool;
}

float *address(const Operand &o) {
    return reinterpret_cast<float *>(o.buf->device) + o.offset;
}

std::string run(const Product &p) {
    const Api &cu = loaded<Api>();
    if (!cu.missing.empty()) {
        return "cuBLAS is not available: " + cu.missing;
    }
    CUcontext ctx = nullptr;
    if (cu.pointer_attribute(&ctx, kPointerContext, p.c.buf->device) != 0 || !ctx ||
        cu.push(ctx) != 0) {
        return "its output is not CUDA memory of a context this process can enter";
    }
    std::string error;
    if (p.k == 0) {
        // BLAS would leave C alone or refuse; an empty sum is zero.
        for (int i = 0; i < p.batches && error.empty(); i++) {
            const CUdeviceptr c = reinterpret_cast<CUdeviceptr>(address(p.c) + i * p.c_stride);
            if (cu.memset_2d(c, (size_t)p.c.ld * sizeof(float), 0, p.m, p.n, nullptr) != 0) {
                error = "cuMemsetD2D32Async failed";
            }
        }
    } else {
        void *handle = nullptr;
        if (!handles().take(ctx, &handle, [&](void **h) { return cu.create(h); })) {
            error = "cublasCreate failed";
        } else {
            const float one = 1.0f, zero = 0.0f;
            const int ta = p.a.transposed ? kOpT : kOpN, tb = p.b.transposed ? kOpT : kOpN;
            const int rc =
                p.batches == 1
                    ? cu.sgemm(handle, ta, tb, p.m, p.n, p.k, &one, address(p.a), p.a.ld,
                               address(p.b), p.b.ld, &zero, address(p.c), p.c.ld)
                    : cu.sgemm_batched(handle, ta, tb, p.m, p.n, p.k, &one, address(p.a), p.a.ld,
                                       p.a_stride, address(p.b), p.b.ld, p.b_stride, &zero,
                                       address(p.c), p.c.ld, p.c_stride, p.batches);
            handles().give_back(ctx, handle);
            if (rc != 0) {
                error = std::string(p.batches == 1 ? "cublasSgemm" : "cublasSgemmStridedBatched") +
                        " failed: " + (cu.status ? std::string(cu.status(rc)) : std::to_string(rc));
            }
        }
    }
    CUcontext popped = nullptr;
    cu.pop(&popped);
    return error;
}

} // namespace cuda

// CLBlast on a queue of its own in the context that holds C: Halide's queue is
// finished first (its kernels wrote the operands) and this one after (its
// next kernels read C).
namespace opencl {

using cl_int = int32_t;
using cl_mem = void *;
using cl_context = void *;
using cl_device_id = void *;
using cl_command_queue = void *;
constexpr unsigned kMemContext = 0x1106, kContextDevices = 0x1081;
constexpr int kColMajor = 102, kTransposeNo = 111, kTransposeYes = 112; // clblast_c.h

struct Api {
    Library cl{"libOpenCL.so.1", "libOpenCL.so"};
    Library blas{"libclblast.so.1", "libclblast.so"};
    cl_int (*mem_info)(cl_mem, unsigned, size_t, void *,
                       size_t *) = cl.symbol<decltype(mem_info)>("clGetMemObjectInfo");
    cl_int (*context_info)(cl_context, unsigned, size_t, void *,
                           size_t *) = cl.symbol<decltype(context_info)>("clGetContextInfo");
    cl_command_queue (*create_queue)(cl_context, cl_device_id, uint64_t, cl_int *) =
        cl.symbol<decltype(create_queue)>("clCreateCommandQueue");
    cl_int (*finish)(cl_command_queue) = cl.symbol<decltype(finish)>("clFinish");
    cl_int (*fill)(cl_command_queue, cl_mem, const void *, size_t, size_t, size_t, unsigned,
                   const void *, void *) = cl.symbol<decltype(fill)>("clEnqueueFillBuffer");
    int (*sgemm)(int, int, int, size_t, size_t, size_t, float, cl_mem, size_t, size_t, cl_mem,
                 size_t, size_t, float, cl_mem, size_t, size_t, cl_command_queue *,
                 void *) = blas.symbol<decltype(sgemm)>("CLBlastSgemm");
    int (*sgemm_batched)(int, int, int, size_t, size_t, size_t, float, cl_mem, size_t, size_t,
                         size_t, cl_mem, size_t, size_t, size_t, float, cl_mem, size_t, size_t,
                         size_t, size_t, cl_command_queue *, void *) =
        blas.symbol<decltype(sgemm_batched)>("CLBlastSgemmStridedBatched");

    const std::string missing = unusable(
        cl, blas, mem_info &&context_info &&create_queue &&finish &&fill &&sgemm &&sgemm_batched,
        "libOpenCL or libclblast");
};

HandlePool<cl_context, cl_command_queue> &queues() {
    static HandlePool<cl_context, cl_command_queue> pool;
    return pool;
}

const OpenClHandle &handle(const Operand &o) {
    return *reinterpret_cast<const OpenClHandle *>(o.buf->device);
}

size_t offset(const Operand &o) {
    return (size_t)(handle(o).offset / sizeof(float) + o.offset);
}

std::string run(coconet_comm &comm, const Product &p) {
    const Api &cl = loaded<Api>();
    if (!cl.missing.empty()) {
        return "CLBlast is not available: " + cl.missing;
    }
    cl_context ctx = nullptr;
    cl_device_id device = nullptr;
    if (cl.mem_info(handle(p.c).mem, kMemContext, sizeof(ctx), &ctx, nullptr) != 0 ||
        cl.context_info(ctx, kContextDevices, sizeof(device), &device, nullptr) != 0) {
        return "its output is not an OpenCL buffer";
    }
    cl_command_queue queue = nullptr;
    if (!queues().take(ctx, &queue, [&](cl_command_queue *q) {
            cl_int err = 0;
            *q = cl.create_queue(ctx, device, 0, &err);
            return err;
        })) {
        return "clCreateCommandQueue failed";
    }
    // CLBlast 1.5 builds its kernel caches at a routine's first calls, and
    // concurrent callers race on them (thread ranks crashed there): one call
    // at a time, which costs nothing where each call waits for its queue.
    static std::mutex one_at_a_time;
    std::lock_guard<std::mutex> lock(one_at_a_time);
    std::string error;
    if (device_sync(comm, const_cast<halide_buffer_t *>(p.c.buf)) != 0) {
        error = "could not finish the kernels before it";
    } else if (p.k == 0) {
        // CLBlast refuses an empty contraction; an empty sum is zero.
        const float zero = 0.0f;
        for (int64_t j = 0; j < (int64_t)p.n * p.batches && error.empty(); j++) {
            const int64_t column = offset(p.c) + (j / p.n) * p.c_stride + (j % p.n) * p.c.ld;
            if (cl.fill(queue, handle(p.c).mem, &zero, sizeof(zero), column * sizeof(float),
                        p.m * sizeof(float), 0, nullptr, nullptr) != 0) {
                error = "clEnqueueFillBuffer failed";
            }
        }
    } else {
        const int ta = p.a.transposed ? kTransposeYes : kTransposeNo,
                  tb = p.b.transposed ? kTransposeYes : kTransposeNo;
        const int rc =
            p.batches == 1
                ? cl.sgemm(kColMajor, ta, tb, p.m, p.n, p.k, 1.0f, handle(p.a).mem, offset(p.a),
                           p.a.ld, handle(p.b).mem, offset(p.b), p.b.ld, 0.0f, handle(p.c).mem,
                           offset(p.c), p.c.ld, &queue, nullptr)
                : cl.sgemm_batched(kColMajor, ta, tb, p.m, p.n, p.k, 1.0f, handle(p.a).mem,
                                   offset(p.a), p.a.ld, p.a_stride, handle(p.b).mem, offset(p.b),
                                   p.b.ld, p.b_stride, 0.0f, handle(p.c).mem, offset(p.c), p.c.ld,
                                   p.c_stride, p.batches, &queue, nullptr);
        if (rc != 0) {
            error = std::string(p.batches == 1 ? "CLBlastSgemm" : "CLBlastSgemmStridedBatched") +
                    " failed with status " + std::to_string(rc);
        }
    }
    if (cl.finish(queue) != 0 && error.empty()) {
        error = "clFinish failed";
    }
    queues().give_back(ctx, queue);
    return error;
}

} // namespace opencl

bool is_float32(const halide_buffer_t *b, int dims) {
    return b && b->dimensions == dims && b->type.code == halide_type_float && b->type.bits == 32 &&
           b->type.lanes == 1;
}

// "" when an operand's walks are a MatMul's: one dimension walks `own` (x for
// a, y for b), one the contraction, the others distinct batch dimensions of
// out's `dims`.
std::string check_walks(const int32_t *walks, int n, int own, int dims) {
    int found_own = 0, found_k = 0;
    for (int i = 0; i < n; i++) {
        const bool batch =
            walks[i] >= 2 && walks[i] < dims && std::count(walks, walks + n, walks[i]) == 1;
        found_own += walks[i] == own;
        found_k += walks[i] == COCONET_GEMM_K;
        if (walks[i] != own && walks[i] != COCONET_GEMM_K && !batch) {
            return "an operand's dimension " + std::to_string(i) + " walks " +
                   std::to_string(walks[i]) + ", no dimension of a MatMul of " +
                   std::to_string(dims) + " dimensions";
        }
    }
    return found_own == 1 && found_k == 1 ? ""
                                          : "an operand does not walk its row and the sum once";
}

// The dimension of an operand that walks `target` (an out dimension or k).
int walking(const int32_t *walks, int n, int target) {
    return (int)(std::find(walks, walks + n, target) - walks);
}

// The elements from an operand's first one to its matrix of out's batch
// index `at` (dims 2 and up; 0 elsewhere), or -1 if a batch dimension of it
// does not hold that index.
int64_t batch_base(const halide_buffer_t *buf, const int32_t *walks, const int32_t *at) {
    int64_t base = 0;
    for (int i = 0; i < buf->dimensions; i++) {
        if (walks[i] >= 2) {
            const halide_dimension_t &d = buf->dim[i];
            if (at[walks[i]] < d.min || at[walks[i]] >= d.min + d.extent) {
                return -1;
            }
            base += (int64_t)(at[walks[i]] - d.min) * d.stride;
        }
    }
    return base;
}

// The elements between an operand's matrices of consecutive indices of out's
// dimension `batch` (0 where it does not walk it: one matrix for all).
int64_t batch_stride(const halide_buffer_t *buf, const int32_t *walks, int batch) {
    const int i = walking(walks, buf->dimensions, batch);
    return i < buf->dimensions ? buf->dim[i].stride : 0;
}

} // namespace

int run_device_gemm(coconet_comm &comm, const char *name, const coconet_gemm_desc &d,
                    const halide_device_interface_t *device, bool computes, int32_t k_min,
                    int32_t k_extent, halide_buffer_t *a, halide_buffer_t *b,
                    halide_buffer_t *out) {
    const std::string what = std::string("matmul '") + (name ? name : "") + "'";
    auto fail = [&](int code, const std::string &problem) {
        return comm.fail(code, op_label(comm.rank, what) + ": " + problem);
    };
    if (d.dims < 2 || d.dims > COCONET_STAGE_DIMS || d.a_dims < 2 ||
        d.a_dims > COCONET_STAGE_DIMS || d.b_dims < 2 || d.b_dims > COCONET_STAGE_DIMS ||
        !is_float32(a, d.a_dims) || !is_float32(b, d.b_dims) || !is_float32(out, d.dims) ||
        k_extent < 0) {
        return fail(COCONET_ERR_INVALID, "takes float32 buffers of the descriptor's dimensions");
    }
    std::string problem = check_walks(d.a_walks, d.a_dims, 0, d.dims);
    if (problem.empty()) {
        problem = check_walks(d.b_walks, d.b_dims, 1, d.dims);
    }
    if (!problem.empty()) {
        return fail(COCONET_ERR_INVALID, problem);
    }
    // Halide fills an input parameter's query from the buffer itself: only the
    // output is sure to have no memory then.
    if (out->is_bounds_query() || a->is_bounds_query() || b->is_bounds_query()) {
        for (halide_buffer_t *operand : {a, b}) {
            const int32_t *walks = operand == a ? d.a_walks : d.b_walks;
            for (int i = 0; i < operand->dimensions; i++) {
                const bool k = walks[i] == COCONET_GEMM_K;
                operand->dim[i].min = k ? k_min : out->dim[walks[i]].min;
                operand->dim[i].extent = !computes ? 0 : k ? k_extent : out->dim[walks[i]].extent;
            }
        }
        return COCONET_OK;
    }
    const int batches = d.dims > 2 ? out->dim[2].extent : 1;
    const int outer = d.dims > 3 ? out->dim[3].extent : 1;
    const halide_dimension_t &x = out->dim[0], &y = out->dim[1];
    if (!computes || x.extent == 0 || y.extent == 0 || batches == 0 || outer == 0) {
        return COCONET_OK;
    }
    if (!device) {
        return fail(COCONET_ERR_INVALID, "was given no device interface");
    }
    // Halide allocates an intermediate output on the device before the call,
    // but not a pipeline's output: the extern stage is to.
    if (device_malloc(comm, out, device) != 0) {
        return fail(COCONET_ERR_BACKEND, "could not allocate its output on the device");
    }
    for (halide_buffer_t *operand : {a, b}) {
        if (host_to_device(comm, operand, device) != 0) {
            return fail(COCONET_ERR_BACKEND, "could not copy an operand to the device");
        }
    }
    // out walks x, y, then each batch dimension itself.
    const int32_t out_walks[COCONET_STAGE_DIMS] = {0, 1, 2, 3};
    const int a_x = walking(d.a_walks, d.a_dims, 0),
              a_k = walking(d.a_walks, d.a_dims, COCONET_GEMM_K);
    const int b_y = walking(d.b_walks, d.b_dims, 1),
              b_k = walking(d.b_walks, d.b_dims, COCONET_GEMM_K);
    // A strided-batched call along out's dimension 2 for each index of its
    // dimension 3, unless out's matrices along dimension 2 overlap (a
    // caller's buffer stored so): then a call per batch index.
    const int64_t a_stride = batch_stride(a, d.a_walks, 2),
                  b_stride = batch_stride(b, d.b_walks, 2),
                  c_stride = batch_stride(out, out_walks, 2);
    const bool strided = batches > 1 && c_stride >= (int64_t)(y.extent - 1) * y.stride + x.extent;
    const int per_call = strided ? batches : 1;
    int32_t at[COCONET_STAGE_DIMS] = {0, 0, 0, 0};
    for (int64_t i = 0; i < (int64_t)batches * outer; i += per_call) {
        for (int j = 2; j < d.dims; j++) {
            at[j] = out->dim[j].min + (int32_t)(j == 2 ? i % batches : i / batches);
        }
        int32_t last[COCONET_STAGE_DIMS] = {at[0], at[1], at[2] + per_call - 1, at[3]};
        const int64_t a_base = batch_base(a, d.a_walks, at), b_base = batch_base(b, d.b_walks, at);
        if (a_base < 0 || b_base < 0 || batch_base(a, d.a_walks, last) < 0 ||
            batch_base(b, d.b_walks, last) < 0) {
            return fail(COCONET_ERR_INVALID,
                        "an operand's buffer does not cover the batches the product reads");
        }
        Product p{x.extent, y.extent, k_extent, {}, {}, {}};
        p.batches = per_call;
        p.a_stride = a_stride;
        p.b_stride = b_stride;
        p.c_stride = c_stride;
        problem = operand(a, a_x, a_k, x.min, p.m, k_min, p.k, a_base, true, &p.a);
        if (problem.empty()) {
            problem = operand(b, b_y, b_k, y.min, p.n, k_min, p.k, b_base, false, &p.b);
        }
        if (problem.empty()) {
            // C as an operand walking x along its rows and y along its columns.
            problem = operand(out, 0, 1, x.min, p.m, y.min, p.n, batch_base(out, out_walks, at),
                              true, &p.c);
            if (problem.empty() && p.c.transposed) {
                problem = "its output's first dimension has stride " + std::to_string(x.stride);
            }
        }
        if (!problem.empty()) {
            return fail(COCONET_ERR_INVALID, problem);
        }
        std::string error;
        switch (d.device_api) {
        case COCONET_DEVICE_CUDA: error = cuda::run(p); break;
        case COCONET_DEVICE_OPENCL: error = opencl::run(comm, p); break;
        default: return fail(COCONET_ERR_INVALID, "has an unknown device API");
        }
        if (!error.empty()) {
            return fail(COCONET_ERR_BACKEND, error);
        }
    }
    out->set_host_dirty(false);
    out->set_device_dirty(true);
    return COCONET_OK;
}

} // namespace coconet_rt
