// Fused passes: the kernel of a reduce-scatter run chunk by chunk by the
// backend, on host memory or on the device (see Executor.h).
#include "executor/Executor.h"

#include <memory>

namespace coconet_rt {

int Executor::run_kernel_chunk(void *p, int32_t nsrc, const halide_buffer_t *const *srcs,
                               halide_buffer_t *const *outs) {
    auto *k = static_cast<KernelContext *>(p);
    coconet_comm *comm = k->self->comm_;
    if (nsrc != k->kernel->nsrc) {
        const std::string msg = "the kernel was compiled for " + std::to_string(k->kernel->nsrc) +
                                " sources, the runtime passed " + std::to_string(nsrc);
        coconet_comm_set_error(comm, msg.c_str());
        return COCONET_ERR_INVALID;
    }
    try {
        return k->on_device ? k->self->device_kernel_chunk(*k, srcs, outs)
                            : k->self->host_kernel_chunk(*k, srcs, outs);
    } catch (const AotError &e) {
        coconet_comm_set_error(comm, e.message.c_str());
        return e.code;
    }
}

void Executor::push_kernel_tail(KernelContext &k, coconet_rt::ScratchVector<void *> &argv,
                                InputCopies &copies, halide_buffer_t *const *outs) {
    uint64_t extra_bytes = 0;
    const Box chunk = coconet_rt::box_of(outs[0]);
    for (halide_buffer_t *e : k.extras) {
        const Box mine = coconet_rt::box_of(e);
        const Box read = mine.dims == chunk.dims ? coconet_rt::intersect(mine, chunk) : mine;
        extra_bytes += (uint64_t)read.count() * e->type.bytes();
        mark_host_newest(e);
        copies.add(e);
        argv.push_back(e);
    }
    argv.push_back(&k.rank);
    argv.push_back(&k.size);
    push_sizes(argv);
    for (int i = 0; i < k.nout; i++) {
        argv.push_back(outs[i]);
    }
    coconet_comm_count_bytes(comm_, COCONET_FUSED, extra_bytes);
}

int Executor::call_kernel(KernelContext &k, coconet_rt::ScratchVector<void *> &argv,
                          const InputCopies &copies) {
    const int status = k.kernel->function.call(k.kernel->function.context, argv.data());
    coconet_comm_count_bytes(comm_, COCONET_HOST_DEVICE, copies.bytes());
    if (status != 0 && std::strlen(coconet_comm_last_error(comm_)) == 0) {
        coconet_comm_set_error(comm_, "the fused kernel failed (Halide printed the reason)");
    }
    return status;
}

int Executor::host_kernel_chunk(KernelContext &k, const halide_buffer_t *const *srcs,
                                halide_buffer_t *const *outs) {
    coconet_rt::Scratch<1024> scratch;
    void *uc = comm_;
    coconet_rt::ScratchVector<void *> argv({&uc}, &scratch);
    argv.reserve(1 + k.kernel->nsrc + k.extras.size() + 2 + sized_.nsizes() + k.nout);
    InputCopies copies(&scratch);
    const bool device = k.kernel->device != 0;
    std::pmr::deque<coconet_rt::BufferView> views(&scratch);
    for (int i = 0; i < k.kernel->nsrc; i++) {
        halide_buffer_t *src = const_cast<halide_buffer_t *>(srcs[i]);
        if (device) {
            views.emplace_back(srcs[i], coconet_rt::box_of(srcs[i]));
            src = &views.back().buf;
            mark_host_newest(src);
            copies.add(src);
        }
        argv.push_back(src);
    }
    push_kernel_tail(k, argv, copies, outs);
    int status = call_kernel(k, argv, copies);
    for (int i = 0; device && i < k.nout; i++) {
        if (status == 0) {
            status = coconet_rt::device_to_host(*comm_, outs[i]);
        }
        free_device(outs[i]);
    }
    for (coconet_rt::BufferView &v : views) {
        free_device(&v.buf);
    }
    return status;
}

int Executor::device_kernel_chunk(KernelContext &k, const halide_buffer_t *const *srcs,
                                  halide_buffer_t *const *outs) {
    coconet_rt::Scratch<512> scratch;
    void *uc = comm_;
    coconet_rt::ScratchVector<void *> argv({&uc}, &scratch);
    for (int i = 0; i < k.kernel->nsrc; i++) {
        argv.push_back(const_cast<halide_buffer_t *>(srcs[i]));
    }
    release_chunk_outs(k);
    std::vector<halide_buffer_t *> chunk_outs;
    for (int i = 0; i < k.nout; i++) {
        k.chunk_outs.push_back(std::make_unique<OwnedBuffer>());
        OwnedBuffer &b = *k.chunk_outs.back();
        dense_box(b, outs[i]->type, coconet_rt::box_of(outs[i]));
        device_check(coconet_rt::device_malloc(*comm_, &b.buf, k.kernel->device_interface),
                     "allocating a fused kernel's output on the device");
        chunk_outs.push_back(&b.buf);
    }
    InputCopies copies(&scratch);
    push_kernel_tail(k, argv, copies, chunk_outs.data());
    int status = call_kernel(k, argv, copies);
    for (int i = 0; status == 0 && i < k.nout; i++) {
        status = coconet_rt::device_copy_box(*comm_, chunk_outs[i], k.parents[i],
                                             coconet_rt::box_of(outs[i]));
    }
    return status;
}

void Executor::release_chunk_outs(KernelContext &k) const {
    for (auto &b : k.chunk_outs) {
        free_device(&b->buf);
    }
    k.chunk_outs.clear();
}

int Executor::gather_chunk(void *p, int32_t i, halide_buffer_t *peer, const int32_t *min,
                           const int32_t *extent) {
    auto *k = static_cast<KernelContext *>(p);
    Box box = coconet_rt::box_of(peer);
    for (int d = 0; d < box.dims; d++) {
        box.min[d] = min[d];
        box.extent[d] = extent[d];
    }
    return coconet_rt::device_copy_box(*k->self->comm_, &k->chunk_outs[i]->buf, peer, box);
}

bool Executor::device_pass(const coconet_aot_step &st, const coconet_aot_kernel &kernel) const {
    return kernel.device_interface && comm_->peers_share_device() &&
           coconet_fused_resolve_path(comm_, st.pass.path) == COCONET_PATH_DIRECT;
}

void Executor::run_pass(int s) {
    const coconet_aot_step &st = p_.steps[s];
    const coconet_aot_kernel *on_library = library_kernel(st);
    const bool library = on_library != nullptr;
    const coconet_aot_kernel *kernel = library ? on_library : kernel_of(st, kernel_sources(st));
    KernelContext k{
        this,         kernel, coconet_rt::ScratchVector<halide_buffer_t *>(&scratch_), rank_, size_,
        st.pass.nout, false,  coconet_rt::ScratchVector<halide_buffer_t *>(&scratch_), {}};
    k.on_device = library || device_pass(st, *k.kernel);
    const halide_device_interface_t *iface = k.kernel->device_interface;
    for (int i = 0; i < st.nextras; i++) {
        k.extras.push_back(value(st.extras[i]));
        if (!k.on_device) {
            to_host(k.extras.back());
        }
    }
    coconet_rt::ScratchVector<halide_buffer_t *> outs(&scratch_);
    for (int o = 0; o < st.pass.nout; o++) {
        outs.push_back(output_buffer(st.pass_outs[o]));
        if (k.on_device) {
            // Peers write into it from the device before this rank reads it.
            device_check(coconet_rt::device_malloc(*comm_, outs.back(), iface),
                         "allocating a fused pass's output on the device");
        } else {
            to_host(outs.back());
        }
    }
    coconet_fused_call c = st.pass;
    c.outs = outs.data();
    c.kernel = run_kernel_chunk;
    c.kernel_context = &k;
    if (k.on_device) {
        k.parents = outs;
        // The library gathers the outputs itself; ranks sharing the
        // device copy each chunk into their peers'.
        if (library) {
            c.path = COCONET_PATH_LIBRARY;
        } else {
            c.gather = gather_chunk;
        }
        // Chunks keep a CPU's cache warm; a device takes the slice at once.
        c.chunk_elements = INT64_MAX;
    }
    if (st.chunks > 0) {
        run_overlapped(s, c, k.on_device ? iface : nullptr);
    } else {
        if (st.src >= 0) {
            halide_buffer_t *src = value(st.src);
            if (k.on_device) {
                device_check(coconet_rt::host_to_device(*comm_, src, iface),
                             "copying a fused pass's source to the device");
            } else {
                to_host(src);
            }
            c.src = src;
        }
        const int rc = coconet_fused_reduce_scatter(comm_, &c);
        release_chunk_outs(k);
        if (rc != COCONET_OK) {
            fail(rc, coconet_comm_last_error(comm_));
        }
    }
    for (halide_buffer_t *b : outs) {
        set_newest(b, k.on_device);
    }
    // A slice read after the pass is the rank's part of the gathered value.
    for (int o = 0; o < st.pass.nout; o++) {
        if (st.pass.gathered[o] && st.slices[o] >= 0) {
            values_[st.slices[o]] = k.on_device ? device_slice(outs[o], st.slices[o])
                                                : host_slice(outs[o], st.slices[o]);
        }
    }
}

} // namespace coconet_rt
