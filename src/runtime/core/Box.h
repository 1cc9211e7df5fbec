// Boxes of global coordinates (at most 4 dimensions) and the elements of a
// halide_buffer_t addressed by global coordinates.
#ifndef COCONET_RUNTIME_BOX_H
#define COCONET_RUNTIME_BOX_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "HalideRuntime.h"

namespace coconet_rt {

constexpr int kMaxDims = 4;

struct Box {
    int dims = 0;
    int64_t min[kMaxDims] = {0, 0, 0, 0};
    int64_t extent[kMaxDims] = {0, 0, 0, 0};
    // No element at all: needed because a 0-D box otherwise holds one element.
    bool none = false;

    int64_t count() const;
    bool empty() const { return count() == 0; }
    bool contains(const Box &inner) const;
    std::string to_string() const;
};

Box box_of(const halide_buffer_t *b);
// The box with no element, min 0 and extent 0 in every dimension.
Box no_box(int dims);
Box intersect(const Box &a, const Box &b);
// Writes `box` into the buffer's dims (bounds-query answers).
void set_box(halide_buffer_t *b, const Box &box);
// Index of the element at global coordinates x from the buffer's first
// (its mins), in elements.
int64_t element_offset(const halide_buffer_t *b, const int64_t *x);
// Address of the element at global coordinates x (which the buffer must hold).
uint8_t *element_address(const halide_buffer_t *b, const int64_t *x);

// A view of the part `box` of buffer b's host data (same strides, host moved
// to the box's min, no device allocation).
struct BufferView {
    BufferView(const halide_buffer_t *b, const Box &box);
    halide_dimension_t dims[kMaxDims];
    halide_buffer_t buf;
};

// Whether b's elements are packed: stride 1 along dimension 0 and each
// stride the product of the extents below (dimensions of extent 1 or 0 aside).
bool is_dense(const halide_buffer_t *b);

// Whether b holds `box` and its elements lie one after another in b's memory
// in box order, b being dense: so that a message can read or write them
// in place. *offset: the first one's index (element_offset); b needs no host.
bool is_contiguous(const halide_buffer_t *b, const Box &box, int64_t *offset);
// Whether a and b are one host array, element for element: the same host
// memory, type and box at the same strides, neither with a device allocation
// (an output passed in the memory of the input it updates in place).
bool same_elements(const halide_buffer_t *a, const halide_buffer_t *b);

// Copies the elements of `box` from src to dst (both hold it).
void copy_box(const halide_buffer_t *src, halide_buffer_t *dst, const Box &box);

// How many leading dimensions of `box` (at least 1 when it has any) form
// runs of consecutive elements in each of the n buffers: dimension d + 1
// joins the run where every buffer has stride 1 along dimension 0, the box
// spans the buffer's whole extent along dimension d and the buffer's stride
// along d + 1 is its stride along d times that extent. A row of a
// (dim, sample) value sliced along samples is then one run, not one per sample.
int run_dims(const Box &box, const halide_buffer_t *const *bufs, size_t n);
inline int run_dims(const Box &box, std::initializer_list<const halide_buffer_t *> bufs) {
    return run_dims(box, bufs.begin(), bufs.size());
}

// Calls f(x, n) for each run of the box: x is the first point of n
// consecutive elements over its leading `inner` dimensions (run_dims; 1:
// rows along dimension 0, which any buffer's stride along it steps through).
template<typename F>
void for_each_row(const Box &box, F &&f, int inner = 1) {
    if (box.empty()) {
        return;
    }
    int64_t x[kMaxDims];
    for (int d = 0; d < kMaxDims; d++) {
        x[d] = box.min[d];
    }
    inner = std::max(inner, std::min(box.dims, 1)); // a row is one element at least
    int64_t row = 1;
    for (int d = 0; d < inner && d < box.dims; d++) {
        row *= box.extent[d];
    }
    while (true) {
        f(x, row);
        int d = inner;
        for (; d < box.dims; d++) {
            if (++x[d] < box.min[d] + box.extent[d]) {
                break;
            }
            x[d] = box.min[d];
        }
        if (d >= box.dims) {
            return;
        }
    }
}

} // namespace coconet_rt

#endif
