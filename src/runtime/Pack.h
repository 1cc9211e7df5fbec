// Packed boxes: a dense, contiguous copy of one box of a strided buffer,
// itself described as a halide_buffer_t in global coordinates, so the code
// that reads peers' inputs in place (threads) reads packed parts the same way
// (MPI). pack() fills one from a buffer; unpacking is copy_box from it.
#ifndef COCONET_RUNTIME_PACK_H
#define COCONET_RUNTIME_PACK_H

#include <memory>
#include <vector>

#include "Box.h"

namespace coconet_rt {

struct PackedBox {
    PackedBox(const Box &box, const halide_type_t &type);
    PackedBox(const PackedBox &) = delete; // buf points into this object
    PackedBox &operator=(const PackedBox &) = delete;

    size_t size_bytes() const { return data.size(); }

    Box box;
    std::vector<uint8_t> data;
    halide_dimension_t dims[kMaxDims];
    halide_buffer_t buf{};
};

// A dense copy of `box` of src (which holds it).
std::unique_ptr<PackedBox> pack(const halide_buffer_t *src, const Box &box);

} // namespace coconet_rt

#endif
