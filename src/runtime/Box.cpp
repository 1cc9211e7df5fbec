// Box arithmetic over halide_buffer_t in global coordinates.
#include "Box.h"

#include <algorithm>
#include <sstream>

namespace coconet_rt {

int64_t Box::count() const {
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

Box intersect(const Box &a, const Box &b) {
    Box r;
    r.dims = a.dims;
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

uint8_t *element_address(const halide_buffer_t *b, const int64_t *x) {
    int64_t offset = 0;
    for (int d = 0; d < b->dimensions; d++) {
        offset += (x[d] - b->dim[d].min) * (int64_t)b->dim[d].stride;
    }
    return b->host + offset * b->type.bytes();
}

} // namespace coconet_rt
