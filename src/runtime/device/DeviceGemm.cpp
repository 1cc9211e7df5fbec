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

// The product C (m x n) = A (m x k) * B (k x n).
struct Product {
    int m, n, k;
    Operand a, b, c;
};

// The operand of buffer `buf` whose dimension `walk` runs along `count`
// elements from `first` (A: the rows of the product, B: its columns) and
// whose other dimension runs along the contraction, [k_min, k_min + k).
// `rows_first`: the operand is A, stored untransposed when `walk` is its
// densest dimension; B is untransposed when the contraction is. "" or why
// BLAS cannot take it.
std::string operand(const halide_buffer_t *buf, int walk, int32_t first, int count, int32_t k_min,
                    int k, bool rows_first, Operand *o) {
    const halide_dimension_t &w = buf->dim[walk], &c = buf->dim[1 - walk];
    if (first < w.min || first + count > w.min + w.extent || k_min < c.min ||
        k_min + k > c.min + c.extent) {
        return "an operand's buffer does not cover the box the product reads";
    }
    o->buf = buf;
    o->offset = (int64_t)(first - w.min) * w.stride + (int64_t)(k_min - c.min) * c.stride;
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
    const char *(*status)(int) = blas.symbol<decltype(status)>("cublasGetStatusString");

    std::string missing() const {
        return unusable(driver, blas,
                        pointer_attribute && push && pop && memset_2d && create && sgemm,
                        "libcuda or libcublas");
    }
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
    if (std::string why = cu.missing(); !why.empty()) {
        return "cuBLAS is not available: " + why;
    }
    CUcontext ctx = nullptr;
    if (cu.pointer_attribute(&ctx, kPointerContext, p.c.buf->device) != 0 || !ctx ||
        cu.push(ctx) != 0) {
        return "its output is not CUDA memory of a context this process can enter";
    }
    std::string error;
    if (p.k == 0) {
        // BLAS would leave C alone or refuse; an empty sum is zero.
        const CUdeviceptr c = reinterpret_cast<CUdeviceptr>(address(p.c));
        if (cu.memset_2d(c, (size_t)p.c.ld * sizeof(float), 0, p.m, p.n, nullptr) != 0) {
            error = "cuMemsetD2D32Async failed";
        }
    } else {
        void *handle = nullptr;
        if (!handles().take(ctx, &handle, [&](void **h) { return cu.create(h); })) {
            error = "cublasCreate failed";
        } else {
            const float one = 1.0f, zero = 0.0f;
            const int rc = cu.sgemm(handle, p.a.transposed ? kOpT : kOpN,
                                    p.b.transposed ? kOpT : kOpN, p.m, p.n, p.k, &one, address(p.a),
                                    p.a.ld, address(p.b), p.b.ld, &zero, address(p.c), p.c.ld);
            handles().give_back(ctx, handle);
            if (rc != 0) {
                error = "cublasSgemm failed: " +
                        (cu.status ? std::string(cu.status(rc)) : std::to_string(rc));
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

// What Halide's OpenCL runtime keeps behind halide_buffer_t::device (its
// device_handle, runtime/opencl.cpp): a crop's byte offset and the cl_mem.
struct DeviceHandle {
    uint64_t offset;
    cl_mem mem;
};

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

    std::string missing() const {
        return unusable(cl, blas,
                        mem_info && context_info && create_queue && finish && fill && sgemm,
                        "libOpenCL or libclblast");
    }
};

HandlePool<cl_context, cl_command_queue> &queues() {
    static HandlePool<cl_context, cl_command_queue> pool;
    return pool;
}

const DeviceHandle &handle(const Operand &o) {
    return *reinterpret_cast<const DeviceHandle *>(o.buf->device);
}

size_t offset(const Operand &o) {
    return (size_t)(handle(o).offset / sizeof(float) + o.offset);
}

std::string run(coconet_comm &comm, const Product &p) {
    const Api &cl = loaded<Api>();
    if (std::string why = cl.missing(); !why.empty()) {
        return "CLBlast is not available: " + why;
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
    std::string error;
    if (device_sync(comm, const_cast<halide_buffer_t *>(p.c.buf)) != 0) {
        error = "could not finish the kernels before it";
    } else if (p.k == 0) {
        // CLBlast refuses an empty contraction; an empty sum is zero.
        const float zero = 0.0f;
        for (int j = 0; j < p.n && error.empty(); j++) {
            if (cl.fill(queue, handle(p.c).mem, &zero, sizeof(zero),
                        (offset(p.c) + (size_t)j * p.c.ld) * sizeof(float), p.m * sizeof(float), 0,
                        nullptr, nullptr) != 0) {
                error = "clEnqueueFillBuffer failed";
            }
        }
    } else {
        const int rc =
            cl.sgemm(kColMajor, p.a.transposed ? kTransposeYes : kTransposeNo,
                     p.b.transposed ? kTransposeYes : kTransposeNo, p.m, p.n, p.k, 1.0f,
                     handle(p.a).mem, offset(p.a), p.a.ld, handle(p.b).mem, offset(p.b), p.b.ld,
                     0.0f, handle(p.c).mem, offset(p.c), p.c.ld, &queue, nullptr);
        if (rc != 0) {
            error = "CLBlastSgemm failed with status " + std::to_string(rc);
        }
    }
    if (cl.finish(queue) != 0 && error.empty()) {
        error = "clFinish failed";
    }
    queues().give_back(ctx, queue);
    return error;
}

} // namespace opencl

bool is_float32_matrix(const halide_buffer_t *b) {
    return b && b->dimensions == 2 && b->type.code == halide_type_float && b->type.bits == 32 &&
           b->type.lanes == 1;
}

} // namespace

int run_device_gemm(coconet_comm &comm, const char *name, const halide_device_interface_t *device,
                    int device_api, bool computes, int32_t k_min, int32_t k_extent, int a_x_dim,
                    int b_y_dim, halide_buffer_t *a, halide_buffer_t *b, halide_buffer_t *out) {
    const std::string what = std::string("matmul '") + (name ? name : "") + "'";
    auto fail = [&](int code, const std::string &problem) {
        return comm.fail(code, op_label(comm.rank, what) + ": " + problem);
    };
    if (!is_float32_matrix(a) || !is_float32_matrix(b) || !is_float32_matrix(out) ||
        (a_x_dim != 0 && a_x_dim != 1) || (b_y_dim != 0 && b_y_dim != 1) || k_extent < 0) {
        return fail(COCONET_ERR_INVALID, "takes two-dimensional float32 buffers");
    }
    const halide_dimension_t &x = out->dim[0], &y = out->dim[1];
    // Halide fills an input parameter's query from the buffer itself: only the
    // output is sure to have no memory then.
    if (out->is_bounds_query() || a->is_bounds_query() || b->is_bounds_query()) {
        a->dim[a_x_dim].min = x.min;
        a->dim[a_x_dim].extent = computes ? x.extent : 0;
        b->dim[b_y_dim].min = y.min;
        b->dim[b_y_dim].extent = computes ? y.extent : 0;
        for (halide_buffer_t *operand : {a, b}) {
            halide_dimension_t &k = operand->dim[operand == a ? 1 - a_x_dim : 1 - b_y_dim];
            k.min = k_min;
            k.extent = computes ? k_extent : 0;
        }
        return COCONET_OK;
    }
    if (!computes || x.extent == 0 || y.extent == 0) {
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
    Product p{x.extent, y.extent, k_extent, {}, {}, {}};
    std::string problem = operand(a, a_x_dim, x.min, p.m, k_min, p.k, true, &p.a);
    if (problem.empty()) {
        problem = operand(b, b_y_dim, y.min, p.n, k_min, p.k, false, &p.b);
    }
    if (problem.empty()) {
        // C as an operand walking x along its rows and y along its columns.
        problem = operand(out, 0, x.min, p.m, y.min, p.n, true, &p.c);
        if (problem.empty() && p.c.transposed) {
            problem = "its output's first dimension has stride " + std::to_string(x.stride);
        }
    }
    if (!problem.empty()) {
        return fail(COCONET_ERR_INVALID, problem);
    }
    std::string error;
    switch (device_api) {
    case COCONET_DEVICE_CUDA: error = cuda::run(p); break;
    case COCONET_DEVICE_OPENCL: error = opencl::run(comm, p); break;
    default: return fail(COCONET_ERR_INVALID, "has an unknown device API");
    }
    if (!error.empty()) {
        return fail(COCONET_ERR_BACKEND, error);
    }
    out->set_host_dirty(false);
    out->set_device_dirty(true);
    return COCONET_OK;
}

} // namespace coconet_rt
