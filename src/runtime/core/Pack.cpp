// Packed boxes (see Pack.h).
#include "core/Pack.h"

namespace coconet_rt {

DenseView::DenseView(uint8_t *host, const Box &b, const halide_type_t &type) : box(b) {
    int32_t stride = 1;
    for (int d = 0; d < b.dims; d++) {
        dims[d] = halide_dimension_t((int32_t)b.min[d], (int32_t)b.extent[d], stride);
        stride *= (int32_t)b.extent[d];
    }
    buf.type = type;
    buf.dimensions = b.dims;
    buf.dim = dims;
    buf.host = host;
}

PackedBox::PackedBox(const Box &b, const halide_type_t &type)
    : PackedStorage{std::vector<uint8_t>((size_t)b.count() * type.bytes())},
      DenseView(data.data(), b, type) {}

std::unique_ptr<PackedBox> pack(const halide_buffer_t *src, const Box &box) {
    auto p = std::make_unique<PackedBox>(box, src->type);
    copy_box(src, &p->buf, box);
    return p;
}

} // namespace coconet_rt
