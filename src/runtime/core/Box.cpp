// Box arithmetic over halide_buffer_t in global coordinates.
#include "core/Box.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "core/ReadMeter.h"

namespace coconet_rt {

int64_t Box::count() const {
    if (none) {
        return 0;
    }
    int64_t n = 1;
    for (int d = 0; d < dims; d++) {
        n *= std::max<int64_t>(extent[d], 0);
    }
    return n;
}

bool Box::contains(const Box &inner) const {
    if (inner.empty()) {
        return true;
    }
    for (int d = 0; d < dims; d++) {
        if (inner.min[d] < min[d] || inner.min[d] + inner.extent[d] > min[d] + extent[d]) {
            return false;
        }
    }
    return true;
}

std::string Box::to_string() const {
    if (none) {
        return "nothing";
    }
    std::ostringstream s;
    s << "[";
    for (int d = 0; d < dims; d++) {
        s << (d ? ", " : "") << min[d] << ".." << min[d] + extent[d];
    }
    s << "]";
    return s.str();
}

Box box_of(const halide_buffer_t *b) {
    Box box;
    box.dims = b->dimensions;
    for (int d = 0; d < b->dimensions && d < kMaxDims; d++) {
        box.min[d] = b->dim[d].min;
        box.extent[d] = b->dim[d].extent;
    }
    return box;
}

Box no_box(int dims) {
    Box b;
    b.dims = dims;
    b.none = true;
    return b;
}

Box intersect(const Box &a, const Box &b) {
    Box r;
    r.dims = a.dims;
    r.none = a.none || b.none;
    for (int d = 0; d < a.dims; d++) {
        int64_t lo = std::max(a.min[d], b.min[d]);
        int64_t hi = std::min(a.min[d] + a.extent[d], b.min[d] + b.extent[d]);
        r.min[d] = lo;
        r.extent[d] = std::max<int64_t>(hi - lo, 0);
    }
    return r;
}

void set_box(halide_buffer_t *b, const Box &box) {
    for (int d = 0; d < b->dimensions && d < box.dims; d++) {
        b->dim[d].min = (int32_t)box.min[d];
        b->dim[d].extent = (int32_t)box.extent[d];
    }
}

int64_t element_offset(const halide_buffer_t *b, const int64_t *x) {
    int64_t offset = 0;
    for (int d = 0; d < b->dimensions; d++) {
        offset += (x[d] - b->dim[d].min) * (int64_t)b->dim[d].stride;
    }
    return offset;
}

uint8_t *element_address(const halide_buffer_t *b, const int64_t *x) {
    return b->host + element_offset(b, x) * b->type.bytes();
}

BufferView::BufferView(const halide_buffer_t *b, const Box &box) : buf(*b) {
    // A view of the host data only: a device allocation stays its parent's,
    // so that nobody frees it twice or reads it at the wrong offset.
    buf.device = 0;
    buf.device_interface = nullptr;
    buf.set_device_dirty(false);
    for (int d = 0; d < b->dimensions; d++) {
        dims[d] = b->dim[d];
        dims[d].min = (int32_t)box.min[d];
        dims[d].extent = (int32_t)box.extent[d];
    }
    buf.dim = dims;
    int64_t x[kMaxDims];
    for (int d = 0; d < kMaxDims; d++) {
        x[d] = box.min[d];
    }
    buf.host = box.empty() ? b->host : element_address(b, x);
}

bool is_dense(const halide_buffer_t *b) {
    int64_t packed = 1;
    for (int d = 0; d < b->dimensions; d++) {
        if (b->dim[d].extent > 1 && b->dim[d].stride != packed) {
            return false;
        }
        packed *= std::max(b->dim[d].extent, 1);
    }
    return true;
}

bool is_contiguous(const halide_buffer_t *b, const Box &box, int64_t *offset) {
    *offset = 0;
    if (box.empty()) {
        return true;
    }
    if (!is_dense(b) || !box_of(b).contains(box)) {
        return false;
    }
    // Below the outermost dimension the box spans, it must span b entirely.
    int outer = box.dims - 1;
    while (outer > 0 && box.extent[outer] == 1) {
        outer--;
    }
    for (int d = 0; d < outer; d++) {
        if (box.extent[d] != b->dim[d].extent) {
            return false;
        }
    }
    *offset = element_offset(b, box.min);
    return true;
}

int run_dims(const Box &box, const halide_buffer_t *const *bufs, size_t n) {
    int inner = std::min(box.dims, 1);
    for (; inner < box.dims; inner++) {
        const int d = inner - 1;
        for (size_t i = 0; i < n; i++) {
            const halide_buffer_t *b = bufs[i];
            if (b->dimensions <= inner || b->dim[0].stride != 1 ||
                box.extent[d] != b->dim[d].extent ||
                b->dim[inner].stride != (int64_t)b->dim[d].stride * b->dim[d].extent) {
                return inner;
            }
        }
    }
    return inner;
}

void copy_box(const halide_buffer_t *src, halide_buffer_t *dst, const Box &box) {
    const int bytes = src->type.bytes();
    const int64_t ss = src->dimensions > 0 ? src->dim[0].stride : 1;
    const int64_t ds = dst->dimensions > 0 ? dst->dim[0].stride : 1;
    const uint8_t *first = nullptr;
    uint64_t copied = 0;
    if (ss == 1 && ds == 1) {
        // One memcpy per run: row by row, a slice of rows of 16 floats took
        // 6.7x as long in cache (CHANGELOG.md, "Copies by runs").
        for_each_row(
            box,
            [&](const int64_t *x, int64_t n) {
                const uint8_t *s = element_address(src, x);
                std::memcpy(element_address(dst, x), s, n * bytes);
                first = first ? first : s;
                copied += (uint64_t)n * bytes;
            },
            run_dims(box, {src, dst}));
    } else {
        for_each_row(box, [&](const int64_t *x, int64_t n) {
            const uint8_t *s = element_address(src, x);
            uint8_t *d = element_address(dst, x);
            for (int64_t k = 0; k < n; k++) {
                std::memcpy(d + k * ds * bytes, s + k * ss * bytes, bytes);
            }
            first = first ? first : s;
            copied += (uint64_t)n * bytes;
        });
    }
    ReadMeter::count(first, copied);
}

bool same_elements(const halide_buffer_t *a, const halide_buffer_t *b) {
    if (a->host != b->host || a->device || b->device || a->dimensions != b->dimensions ||
        a->type != b->type) {
        return false;
    }
    for (int d = 0; d < a->dimensions; d++) {
        if (a->dim[d].min != b->dim[d].min || a->dim[d].extent != b->dim[d].extent ||
            a->dim[d].stride != b->dim[d].stride) {
            return false;
        }
    }
    return true;
}

} // namespace coconet_rt
