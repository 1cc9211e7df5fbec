// Finding CUDA devices without linking CUDA: the driver library is opened at
// run time, so builds and machines without it work (and report none).
#include <dlfcn.h>

#include "coconet_runtime.h"

extern "C" int coconet_gpu_count(void) {
    void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!cuda) {
        return 0;
    }
    using Init = int (*)(unsigned);
    using Count = int (*)(int *);
    auto init = reinterpret_cast<Init>(dlsym(cuda, "cuInit"));
    auto count = reinterpret_cast<Count>(dlsym(cuda, "cuDeviceGetCount"));
    int n = 0;
    if (!init || !count || init(0) != 0 || count(&n) != 0) {
        n = 0;
    }
    dlclose(cuda);
    return n;
}
