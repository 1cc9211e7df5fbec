// Packed boxes: a dense, contiguous copy of one box of a strided buffer,
// itself described as a halide_buffer_t in global coordinates, so the code
// that reads peers' inputs in place (threads) reads packed parts the same way
// (MPI). pack() fills one from a buffer; unpacking is copy_box from it.
#ifndef COCONET_RUNTIME_PACK_H
#define COCONET_RUNTIME_PACK_H

#include <memory>
#include <vector>

#include "core/Box.h"

namespace coconet_rt {

// A dense box of elements at `host` (a packed copy, a shared-memory window
// segment) described as a buffer in global coordinates.
struct DenseView {
    DenseView(uint8_t *host, const Box &box, const halide_type_t &type);
    DenseView(const DenseView &) = delete; // buf points into this object
    DenseView &operator=(const DenseView &) = delete;

    Box box;
    halide_dimension_t dims[kMaxDims];
    halide_buffer_t buf{};
};

// The storage of a packed box, allocated before the view of it.
struct PackedStorage {
    std::vector<uint8_t> data;
};

struct PackedBox : PackedStorage, DenseView {
    PackedBox(const Box &box, const halide_type_t &type);

    size_t size_bytes() const { return data.size(); }
};

// A dense copy of `box` of src (which holds it).
std::unique_ptr<PackedBox> pack(const halide_buffer_t *src, const Box &box);

} // namespace coconet_rt

#endif
