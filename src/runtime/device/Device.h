// Device buffers as the executor and the runtime handle them: copies between
// host and device (counted as COCONET_HOST_DEVICE), crops, copies from device
// to device, all through the buffer's halide_device_interface_t and with the
// user context of the running program's Halide runtime (coconet_comm's
// device_call). Each returns 0 or the Halide error code.
#ifndef COCONET_RUNTIME_DEVICE_H
#define COCONET_RUNTIME_DEVICE_H

#include "core/Box.h"
#include "core/Pack.h"

struct coconet_comm;

namespace coconet_rt {

// Whether b's newest data is on a device (so host code must copy it back).
inline bool device_newest(const halide_buffer_t *b) {
    return b->device && b->device_dirty();
}
// Whether a device kernel can read b where it is: allocated on a device and
// not newer on the host.
inline bool on_device(const halide_buffer_t *b) {
    return b->device && !b->host_dirty();
}

// Copies b to the host when its device data is newer (counted).
int device_to_host(coconet_comm &comm, halide_buffer_t *b);
// Gives b a device allocation on `iface` (if it has none) and copies its
// host data there when newer (counted); b is then readable on the device.
int host_to_device(coconet_comm &comm, halide_buffer_t *b, const halide_device_interface_t *iface);
// Allocates device memory for b on `iface` when it has none (no copy).
int device_malloc(coconet_comm &comm, halide_buffer_t *b, const halide_device_interface_t *iface);
int device_free(coconet_comm &comm, halide_buffer_t *b);
// Waits until the work queued on b's device (by this process, on Halide's
// queue or stream) has finished.
int device_sync(coconet_comm &comm, halide_buffer_t *b);
// Makes `view` (b's box of `parent`'s host data: a BufferView) alias the same
// box of parent's device allocation; undo with device_release_crop.
int device_crop(coconet_comm &comm, const halide_buffer_t *parent, halide_buffer_t *view);
int device_release_crop(coconet_comm &comm, halide_buffer_t *view);
// Copies `box` of src's device data into dst's device allocation (both on
// one device: ranks sharing it). Not a host<->device copy, so not counted.
int device_copy_box(coconet_comm &comm, const halide_buffer_t *src, halide_buffer_t *dst,
                    const Box &box);
// Copies src into dst, the same box, where one of them has host memory only:
// down from src's device, or up to dst's (counted).
int copy_host_device(coconet_comm &comm, const halide_buffer_t *src, halide_buffer_t *dst);

// A dense device buffer of `box` (no host memory), allocated by
// device_malloc and freed with this object.
struct DeviceTemp {
    DeviceTemp(coconet_comm &comm, const Box &box, const halide_type_t &type)
        : comm(comm), view(nullptr, box, type) {}
    ~DeviceTemp() { device_free(comm, &view.buf); }
    DeviceTemp(const DeviceTemp &) = delete;
    DeviceTemp &operator=(const DeviceTemp &) = delete;
    coconet_comm &comm;
    DenseView view;
};

// What Halide's OpenCL runtime keeps behind halide_buffer_t::device (its
// device_handle, runtime/opencl.cpp): a crop's byte offset and the cl_mem.
struct OpenClHandle {
    uint64_t offset;
    void *mem;
};

// Whether a kernel may take b, a buffer of a program on device API `api`
// (COCONET_DEVICE_*), as an argument where it is: any CUDA buffer, an
// OpenCL one that is not a crop at an offset (OpenCL makes a sub-buffer of
// that, which a device refuses at offsets it does not align to).
bool kernel_takes_in_place(const halide_buffer_t *b, int api);

// The elements of a dense device buffer as one dimension [0, count), sharing
// its allocation (what kernels over 1-D buffers and collective libraries take).
struct Flat {
    explicit Flat(const halide_buffer_t *b) : buf(*b) {
        dim = halide_dimension_t{0, (int32_t)box_of(b).count(), 1, 0};
        buf.dimensions = 1;
        buf.dim = &dim;
        buf.host = nullptr;
        buf.flags = 0;
        buf.set_device_dirty(true);
    }
    Flat(const Flat &) = delete;
    Flat &operator=(const Flat &) = delete;
    halide_dimension_t dim;
    halide_buffer_t buf;
};

} // namespace coconet_rt

#endif
