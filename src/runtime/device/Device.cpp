// Device buffers through their device interfaces (see Device.h).
#include "device/Device.h"

#include "core/Comm.h"

namespace coconet_rt {

namespace {

// Runs f(user_context) with the user context of the program's Halide runtime.
template<typename F>
int with_context(coconet_comm &comm, F &&f) {
    coconet_device_fn call = [](void *uc, void *arg) { return (*static_cast<F *>(arg))(uc); };
    return comm.device_call(call, &f);
}

uint64_t host_bytes(const halide_buffer_t *b) {
    return (uint64_t)box_of(b).count() * b->type.bytes();
}

} // namespace

int device_to_host(coconet_comm &comm, halide_buffer_t *b) {
    if (!device_newest(b) || !b->device_interface) {
        return 0;
    }
    const int rc =
        with_context(comm, [&](void *uc) { return b->device_interface->copy_to_host(uc, b); });
    if (rc == 0) {
        comm.count_bytes(COCONET_HOST_DEVICE, host_bytes(b));
    }
    return rc;
}

int host_to_device(coconet_comm &comm, halide_buffer_t *b, const halide_device_interface_t *iface) {
    if (on_device(b) || box_of(b).empty()) {
        return 0;
    }
    const bool copy = b->host_dirty() || !b->device;
    const int rc = with_context(comm, [&](void *uc) {
        if (!b->device) {
            b->set_host_dirty(true); // the host data is the newest there is
        }
        return iface->copy_to_device(uc, b, iface);
    });
    if (rc == 0 && copy) {
        comm.count_bytes(COCONET_HOST_DEVICE, host_bytes(b));
    }
    return rc;
}

int device_malloc(coconet_comm &comm, halide_buffer_t *b, const halide_device_interface_t *iface) {
    // An empty box needs no device memory (Halide's GPU runtimes abort on it).
    if (b->device || box_of(b).empty()) {
        return 0;
    }
    return with_context(comm, [&](void *uc) { return iface->device_malloc(uc, b, iface); });
}

int device_free(coconet_comm &comm, halide_buffer_t *b) {
    if (!b->device || !b->device_interface) {
        return 0;
    }
    return with_context(comm, [&](void *uc) { return b->device_interface->device_free(uc, b); });
}

int device_sync(coconet_comm &comm, halide_buffer_t *b) {
    if (!b->device || !b->device_interface) {
        return 0;
    }
    return with_context(comm, [&](void *uc) { return b->device_interface->device_sync(uc, b); });
}

bool kernel_takes_in_place(const halide_buffer_t *b, int api) {
    return b->device && (api == COCONET_DEVICE_CUDA ||
                         (api == COCONET_DEVICE_OPENCL &&
                          reinterpret_cast<const OpenClHandle *>(b->device)->offset == 0));
}

int device_crop(coconet_comm &comm, const halide_buffer_t *parent, halide_buffer_t *view) {
    return with_context(
        comm, [&](void *uc) { return parent->device_interface->device_crop(uc, parent, view); });
}

int device_release_crop(coconet_comm &comm, halide_buffer_t *view) {
    if (!view->device || !view->device_interface) {
        return 0;
    }
    return with_context(
        comm, [&](void *uc) { return view->device_interface->device_release_crop(uc, view); });
}

int device_copy_box(coconet_comm &comm, const halide_buffer_t *src, halide_buffer_t *dst,
                    const Box &box) {
    if (box.empty()) {
        return 0;
    }
    // Halide copies the destination's whole box (inside the source's): the
    // destination is cropped to `box`, the source read where it is.
    BufferView to(dst, box);
    int rc = device_crop(comm, dst, &to.buf);
    if (rc != 0) {
        return rc;
    }
    halide_buffer_t from = *src;
    from.flags = 0;
    from.set_device_dirty(true);
    const halide_device_interface_t *iface = dst->device_interface;
    rc =
        with_context(comm, [&](void *uc) { return iface->buffer_copy(uc, &from, iface, &to.buf); });
    const int released = device_release_crop(comm, &to.buf);
    return rc != 0 ? rc : released;
}

int copy_host_device(coconet_comm &comm, const halide_buffer_t *src, halide_buffer_t *dst) {
    const bool up = dst->device != 0;
    const halide_device_interface_t *iface = up ? dst->device_interface : src->device_interface;
    halide_buffer_t from = *src;
    // Where the data is read from: Halide's buffer_copy reads a source with a
    // device allocation on the device unless its host is marked newer.
    from.set_host_dirty(up);
    from.set_device_dirty(!up);
    const int rc = with_context(
        comm, [&](void *uc) { return iface->buffer_copy(uc, &from, up ? iface : nullptr, dst); });
    if (rc == 0) {
        comm.count_bytes(COCONET_HOST_DEVICE, host_bytes(src));
    }
    return rc;
}

} // namespace coconet_rt
