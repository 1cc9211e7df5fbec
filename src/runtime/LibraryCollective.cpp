// Device stages through a collective library (see LibraryCollective.h).
#include "LibraryCollective.h"

#include <algorithm>
#include <memory>

#include "Comm.h"
#include "Device.h"
#include "DeviceCollective.h"
#include "Errors.h"

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
    // The whole value (or chunk) for all_reduce and broadcast, else every
    // rank's slice in rank order.
    std::vector<Box> parts;
    if (op.kind == COCONET_ALL_REDUCE || op.kind == COCONET_BROADCAST) {
        parts = {op.output_limit(rank)};
    } else {
        for (int q = 0; q < R; q++) {
            parts.push_back(op.kind == COCONET_REDUCE_SCATTER ? op.output_limit(q)
                                                              : op.input_box(q));
        }
    }
    const Box mine = parts[parts.size() == 1 ? 0 : rank];
    x.segment = largest(parts);
    x.sent = op.kind == COCONET_ALL_GATHER ? std::vector<Box>{mine} : parts;
    x.received = op.kind == COCONET_REDUCE_SCATTER ? std::vector<Box>{mine} : parts;
    return x;
}

} // namespace

bool library_kind(int kind) {
    return kind == COCONET_ALL_REDUCE || kind == COCONET_REDUCE_SCATTER ||
           kind == COCONET_ALL_GATHER || kind == COCONET_BROADCAST || kind == COCONET_ALL_TO_ALL;
}

int run_library_collective(coconet_comm &comm, DeviceLibrary &lib, const Op &op,
                           const halide_buffer_t *in, halide_buffer_t *out) {
    const int R = comm.size;
    if (op.src.size != R) {
        return comm.fail(COCONET_ERR_INTERNAL, op_label(comm.rank, op.what()) +
                                                   ": a group's collective was given to the "
                                                   "collective library, which runs the world's");
    }
    const Exchange x = exchange(op, comm.rank, R);
    const int64_t segment = x.segment;
    if (segment == 0) {
        return COCONET_OK; // every rank sees the same: nobody calls the library
    }
    const std::vector<Box> &sent = x.sent, &received = x.received;
    // A broadcast's other ranks send nothing: the library reads the root's.
    const bool sends = op.kind != COCONET_BROADCAST || comm.rank == op.src.first + op.root;
    std::unique_ptr<Segments> send;
    if (sends) {
        send = std::make_unique<Segments>(comm, in, sent, segment);
        int rc = send->rc;
        if (rc == 0 && send->copied()) {
            rc = send->pack(in);
        }
        if (rc != 0) {
            return backend_error(comm, op, "placing its input for the collective library", rc);
        }
    }
    Segments recv(comm, out, received, segment);
    if (recv.rc != 0) {
        return backend_error(comm, op, "placing its output for the collective library", recv.rc);
    }
    const halide_buffer_t *from = send ? send->flat() : recv.flat();
    int rc = COCONET_OK;
    switch (op.kind) {
    case COCONET_ALL_REDUCE: rc = lib.all_reduce(op, op.red, from, recv.flat()); break;
    case COCONET_BROADCAST: rc = lib.broadcast(op, op.root, from, recv.flat()); break;
    case COCONET_REDUCE_SCATTER: rc = lib.reduce_scatter(op, op.red, from, recv.flat()); break;
    case COCONET_ALL_GATHER: rc = lib.all_gather(op, from, recv.flat()); break;
    default: rc = lib.all_to_all(op, from, recv.flat()); break;
    }
    if (rc != COCONET_OK) {
        return rc;
    }
    if (recv.copied()) {
        const int copied = recv.unpack(out);
        if (copied != 0) {
            return backend_error(comm, op, "copying the collective library's result", copied);
        }
    }
    return COCONET_OK;
}

} // namespace coconet_rt
