// Device stages through a collective library (see LibraryCollective.h).
#include "device/LibraryCollective.h"

#include <algorithm>
#include <memory>

#include "core/Comm.h"
#include "core/Errors.h"
#include "core/Fused.h"
#include "core/Reduce.h"
#include "device/Device.h"
#include "device/DeviceCollective.h"

namespace coconet_rt {

namespace {

// Elements [offset, offset + count) of the dense device buffer b as a 1-D
// buffer [0, count): a crop sharing b's memory, released with this object.
struct Span {
    Span(coconet_comm &comm, const halide_buffer_t *b, int64_t offset, int64_t count)
        : comm(comm), flat(b) {
        buf = flat.buf;
        buf.dim = &dim;
        buf.device = 0;
        dim = halide_dimension_t{(int32_t)offset, (int32_t)count, 1, 0};
        rc = count == 0 ? 0 : device_crop(comm, &flat.buf, &buf);
        dim.min = 0; // the crop starts at its first element
    }
    ~Span() { device_release_crop(comm, &buf); }
    Span(const Span &) = delete;
    Span &operator=(const Span &) = delete;

    coconet_comm &comm;
    Flat flat;
    halide_dimension_t dim;
    halide_buffer_t buf;
    int rc;
};

// A span's memory seen as a dense buffer of `box` in global coordinates.
struct BoxView : DenseView {
    BoxView(const halide_buffer_t &span, const Box &box) : DenseView(nullptr, box, span.type) {
        buf.device = span.device;
        buf.device_interface = span.device_interface;
        buf.set_device_dirty(true);
    }
};

// Where the library reads or writes a value: b's own memory where the boxes
// lie in it as the library wants them (segment q = boxes[q], each `segment`
// elements, one after another), else a dense device buffer of the call's own
// that pack() fills from b and unpack() copies into b.
struct Segments {
    Segments(coconet_comm &comm, const halide_buffer_t *b, const std::vector<Box> &boxes,
             int64_t segment)
        : comm(comm), boxes(boxes), segment(segment) {
        const int64_t count = segment * (int64_t)boxes.size();
        int64_t first = 0;
        bool in_place = is_dense(b) && b->device;
        for (size_t q = 0; in_place && q < boxes.size(); q++) {
            int64_t offset = 0;
            in_place = boxes[q].count() == segment && is_contiguous(b, boxes[q], &offset) &&
                       (q == 0 ? (first = offset, true) : offset == first + (int64_t)q * segment);
        }
        if (in_place) {
            span = std::make_unique<Span>(comm, b, first, count);
            rc = span->rc;
            return;
        }
        Box flat;
        flat.dims = 1;
        flat.extent[0] = count;
        temp = std::make_unique<DeviceTemp>(comm, flat, b->type);
        rc = device_malloc(comm, &temp->view.buf, comm.running->device_interface);
        if (rc == 0) {
            span = std::make_unique<Span>(comm, &temp->view.buf, 0, count);
            rc = span->rc;
        }
    }

    // The whole as the library takes it.
    halide_buffer_t *flat() { return &span->buf; }

    // Copies each boxes[q] of src into segment q (nothing in place).
    int pack(const halide_buffer_t *src) {
        return for_each([&](const halide_buffer_t &seg, int q) {
            BoxView view(seg, boxes[q]);
            return device_copy_box(comm, src, &view.buf, boxes[q]);
        });
    }

    // Copies the part of each segment that dst holds into dst.
    int unpack(halide_buffer_t *dst) {
        return for_each([&](const halide_buffer_t &seg, int q) {
            BoxView view(seg, boxes[q]);
            return device_copy_box(comm, &view.buf, dst, intersect(box_of(dst), boxes[q]));
        });
    }

    bool copied() const { return temp != nullptr; }

    coconet_comm &comm;
    const std::vector<Box> boxes;
    const int64_t segment;
    std::unique_ptr<DeviceTemp> temp;
    std::unique_ptr<Span> span;
    int rc = 0;

private:
    template<typename F>
    int for_each(F &&f) {
        for (size_t q = 0; q < boxes.size(); q++) {
            if (boxes[q].empty()) {
                continue;
            }
            Span seg(comm, &temp->view.buf, (int64_t)q * segment, boxes[q].count());
            const int rc = seg.rc != 0 ? seg.rc : f(seg.buf, (int)q);
            if (rc != 0) {
                return rc;
            }
        }
        return 0;
    }
};

int64_t largest(const std::vector<Box> &boxes) {
    int64_t n = 0;
    for (const Box &b : boxes) {
        n = std::max(n, b.count());
    }
    return n;
}

// What a rank sends and receives through the library, as boxes of the
// value, one per segment, and the segments' common size (the largest box any
// rank sends, so every rank computes the same).
struct Exchange {
    std::vector<Box> sent, received;
    int64_t segment = 0;
};

// A reduce-scatter or all-gather of every rank's slice (`slices`, in rank
// order): the one moves all of them to reduce this rank's, the other this
// rank's to all.
Exchange sliced(int kind, const std::vector<Box> &slices, int rank) {
    const std::vector<Box> mine = {slices[rank]};
    return kind == COCONET_REDUCE_SCATTER ? Exchange{slices, mine, largest(slices)}
                                          : Exchange{mine, slices, largest(slices)};
}

Exchange exchange(const Op &op, int rank, int R) {
    Exchange x;
    if (op.kind == COCONET_ALL_TO_ALL) {
        // Sent segment q: the part of rank q's output this rank's input
        // holds; received segment q: the part of this rank's output rank q's
        // input holds.
        for (int q = 0; q < R; q++) {
            x.sent.push_back(intersect(op.output_limit(q), op.input_box(rank)));
            x.received.push_back(intersect(op.output_limit(rank), op.input_box(q)));
            for (int p = 0; p < R; p++) {
                x.segment =
                    std::max(x.segment, intersect(op.output_limit(p), op.input_box(q)).count());
            }
        }
        return x;
    }
    // The whole value (or chunk) for all_reduce, reduce and broadcast, else
    // every rank's slice in rank order.
    if (op.kind == COCONET_ALL_REDUCE || op.kind == COCONET_REDUCE ||
        op.kind == COCONET_BROADCAST) {
        const Box whole = op.output_limit(rank);
        return Exchange{{whole}, {whole}, whole.count()};
    }
    std::vector<Box> slices;
    for (int q = 0; q < R; q++) {
        slices.push_back(op.kind == COCONET_REDUCE_SCATTER ? op.output_limit(q) : op.input_box(q));
    }
    return sliced(op.kind, slices, rank);
}

// Moves `x` of `in` into `out` through `lib`: `stage` says which call (its
// kind, reduction and root) and names it.
int move(coconet_comm &comm, DeviceLibrary &lib, const Op &stage, const Exchange &x,
         const halide_buffer_t *in, halide_buffer_t *out) {
    if (x.segment == 0) {
        return COCONET_OK; // every rank sees the same: nobody calls the library
    }
    // A broadcast's other ranks send nothing: the library reads the root's.
    const bool sends = stage.kind != COCONET_BROADCAST || comm.rank == stage.src.first + stage.root;
    std::unique_ptr<Segments> send;
    if (sends) {
        send = std::make_unique<Segments>(comm, in, x.sent, x.segment);
        int rc = send->rc;
        if (rc == 0 && send->copied()) {
            rc = send->pack(in);
        }
        if (rc != 0) {
            return backend_error(comm, stage, "placing its input for the collective library", rc);
        }
    }
    Segments recv(comm, out, x.received, x.segment);
    if (recv.rc != 0) {
        return backend_error(comm, stage, "placing its output for the collective library", recv.rc);
    }
    const halide_buffer_t *from = send ? send->flat() : recv.flat();
    int rc = COCONET_OK;
    switch (stage.kind) {
    case COCONET_ALL_REDUCE: rc = lib.all_reduce(stage, stage.red, from, recv.flat()); break;
    case COCONET_REDUCE: rc = lib.reduce(stage, stage.red, stage.root, from, recv.flat()); break;
    case COCONET_BROADCAST: rc = lib.broadcast(stage, stage.root, from, recv.flat()); break;
    case COCONET_REDUCE_SCATTER:
        rc = lib.reduce_scatter(stage, stage.red, from, recv.flat());
        break;
    case COCONET_ALL_GATHER: rc = lib.all_gather(stage, from, recv.flat()); break;
    default: rc = lib.all_to_all(stage, from, recv.flat()); break;
    }
    if (rc != COCONET_OK) {
        return rc;
    }
    if (stage.kind == COCONET_REDUCE && comm.rank != stage.src.first + stage.root) {
        const int filled = fill_identity(comm, stage, out, box_of(out));
        return filled == 0 ? COCONET_OK : backend_error(comm, stage, "filling its output", filled);
    }
    if (recv.copied()) {
        const int copied = recv.unpack(out);
        if (copied != 0) {
            return backend_error(comm, stage, "copying the collective library's result", copied);
        }
    }
    return COCONET_OK;
}

} // namespace

bool library_kind(int kind) {
    return kind == COCONET_ALL_REDUCE || kind == COCONET_REDUCE_SCATTER ||
           kind == COCONET_ALL_GATHER || kind == COCONET_BROADCAST || kind == COCONET_REDUCE ||
           kind == COCONET_ALL_TO_ALL;
}

int run_library_collective(coconet_comm &comm, DeviceLibrary &lib, const Op &op,
                           const halide_buffer_t *in, halide_buffer_t *out) {
    const int R = comm.size;
    if (op.src.size != R) {
        return comm.fail(COCONET_ERR_INTERNAL, op_label(comm.rank, op.what()) +
                                                   ": a group's collective was given to the "
                                                   "collective library, which runs the world's");
    }
    return move(comm, lib, op, exchange(op, comm.rank, R), in, out);
}

std::string pass_types_refused(const DeviceLibrary &lib, int op, const halide_type_t *reduced,
                               const std::vector<halide_type_t> &gathered) {
    if (reduced && !lib.supports(COCONET_REDUCE_SCATTER, op, *reduced)) {
        return "a library that moves " + type_name(*reduced) + " values and reduces them with " +
               reduce_op_name(op);
    }
    for (const halide_type_t &t : gathered) {
        if (!lib.supports(COCONET_ALL_GATHER, op, t)) {
            return "a library that moves " + type_name(t) + " values";
        }
    }
    return "";
}

int run_library_fused(coconet_comm &comm, DeviceLibrary &lib, const FusedPlan &plan) {
    const coconet_fused_call &c = plan.call;
    const int R = comm.size;
    // The library's calls, as messages name them.
    auto stage = [&](int kind) {
        Op op;
        op.name = c.name ? c.name : "";
        op.kind = kind;
        op.red = c.op;
        return op;
    };
    std::vector<Box> slices;
    for (int q = 0; q < R; q++) {
        slices.push_back(plan.slice(q));
    }
    const Box &mine = slices[comm.rank];
    std::vector<const halide_buffer_t *> srcs;
    std::unique_ptr<DeviceTemp> reduced;
    if (plan.reduces() && R == 1) {
        srcs.push_back(c.src);
    } else if (plan.reduces()) {
        const Op rs = stage(COCONET_REDUCE_SCATTER);
        reduced = std::make_unique<DeviceTemp>(comm, mine, c.src->type);
        int rc =
            mine.empty() ? 0 : device_malloc(comm, &reduced->view.buf, c.outs[0]->device_interface);
        if (rc != 0) {
            return backend_error(comm, rs, "allocating the reduced slice on the device", rc);
        }
        rc = move(comm, lib, rs, sliced(COCONET_REDUCE_SCATTER, slices, comm.rank), c.src,
                  &reduced->view.buf);
        if (rc != COCONET_OK) {
            return rc;
        }
        srcs.push_back(&reduced->view.buf);
    }
    for (const Box &chunk : plan.chunks(mine)) {
        const int rc = plan.run_kernel(comm, chunk, srcs);
        if (rc != COCONET_OK) {
            return rc;
        }
    }
    const Exchange gather = sliced(COCONET_ALL_GATHER, slices, comm.rank);
    for (int i = 0; R > 1 && i < c.nout; i++) {
        // In place: this rank's slice is in the output the library gathers into.
        const int rc =
            c.gathered[i] ? move(comm, lib, stage(COCONET_ALL_GATHER), gather, c.outs[i], c.outs[i])
                          : COCONET_OK;
        if (rc != COCONET_OK) {
            return rc;
        }
    }
    return COCONET_OK;
}

} // namespace coconet_rt
