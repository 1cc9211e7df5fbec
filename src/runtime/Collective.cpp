// The plan of a collective and the element-wise computation of its output.
#include "Collective.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <type_traits>

namespace coconet_rt {

namespace {

struct Slice {
    int64_t begin, end;
};

Slice slice_of(int64_t n, int parts, int index) {
    int64_t b = 0, e = 0;
    coconet_slice_range(n, parts, index, &b, &e);
    return Slice{b, e};
}

GroupInfo group_of(int world_size, int nsplit, int group) {
    GroupInfo g;
    coconet_group_range(world_size, nsplit, group, &g.first, &g.size);
    return g;
}

Box full_box(const Op &op) {
    Box b;
    b.dims = op.dims;
    for (int d = 0; d < op.dims; d++) {
        b.extent[d] = op.n[d];
    }
    return b;
}

Box sliced(Box b, int dim, const Op &op, const GroupInfo &g, int rank) {
    Slice s = slice_of(op.n[dim], g.size, rank - g.first);
    b.min[dim] = s.begin;
    b.extent[dim] = s.end - s.begin;
    return b;
}

Box empty_box(const Op &op) {
    Box b;
    b.dims = op.dims;
    return b;
}

// The rank of group g that owns index i of a dimension of extent n.
int owner(int64_t n, const GroupInfo &g, int64_t i) {
    const int64_t block = (n + g.size - 1) / g.size;
    return g.first + (int)(i / std::max<int64_t>(block, 1));
}

template<typename T>
T identity_of(int red) {
    switch (red) {
    case COCONET_PROD: return T(1);
    case COCONET_MAX:
        return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::lowest();
    case COCONET_MIN:
        return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::max();
    default: return T(0);
    }
}

template<typename T>
T apply(int red, T a, T b) {
    switch (red) {
    case COCONET_PROD: return (T)(a * b);
    case COCONET_MAX: return a > b ? a : b;
    case COCONET_MIN: return a < b ? a : b;
    default: return (T)(a + b);
    }
}

// A row of n elements of buffer b starting at global point x.
template<typename T>
struct Row {
    const T *p;
    int64_t stride;
    T operator[](int64_t k) const { return p[k * stride]; }
};

template<typename T>
Row<T> row_of(const halide_buffer_t *b, const int64_t *x) {
    return Row<T>{(const T *)element_address(b, x), b->dimensions > 0 ? b->dim[0].stride : 1};
}

template<typename T>
void compute_typed(const Op &op, int p, halide_buffer_t *out) {
    const auto &in = op.peer_inputs;
    const int64_t ostride = out->dimensions > 0 ? out->dim[0].stride : 1;
    for_each_row(box_of(out), [&](const int64_t *x, int64_t n) {
        T *o = (T *)element_address(out, x);
        switch (op.kind) {
        case COCONET_ALL_REDUCE:
        case COCONET_REDUCE_SCATTER:
        case COCONET_REDUCE: {
            if (op.kind == COCONET_REDUCE && p != op.src.first + op.root) {
                for (int64_t k = 0; k < n; k++) {
                    o[k * ostride] = identity_of<T>(op.red);
                }
                break;
            }
            Row<T> first = row_of<T>(in[op.src.first], x);
            for (int64_t k = 0; k < n; k++) {
                o[k * ostride] = first[k];
            }
            for (int q = op.src.first + 1; q < op.src.first + op.src.size; q++) {
                Row<T> r = row_of<T>(in[q], x);
                for (int64_t k = 0; k < n; k++) {
                    o[k * ostride] = apply<T>(op.red, o[k * ostride], r[k]);
                }
            }
            break;
        }
        case COCONET_BROADCAST:
        case COCONET_SEND_RECV: {
            if (op.kind == COCONET_SEND_RECV && op.a >= 0) {
                // A sliced value: each element comes from its owner in the sending group.
                int64_t y[kMaxDims];
                std::copy(x, x + kMaxDims, y);
                for (int64_t k = 0; k < n; k++) {
                    y[0] = x[0] + k;
                    const halide_buffer_t *src = in[owner(op.n[op.a], op.src, y[op.a])];
                    o[k * ostride] = *(const T *)element_address(src, y);
                }
                break;
            }
            int q = op.kind == COCONET_BROADCAST ? op.src.first + op.root
                                                 : op.src.first + (p - op.dst.first) % op.src.size;
            Row<T> r = row_of<T>(in[q], x);
            for (int64_t k = 0; k < n; k++) {
                o[k * ostride] = r[k];
            }
            break;
        }
        case COCONET_ALL_GATHER:
        case COCONET_ALL_TO_ALL: {
            const int dim = op.kind == COCONET_ALL_GATHER ? op.a : op.b;
            int64_t y[kMaxDims];
            std::copy(x, x + kMaxDims, y);
            for (int64_t k = 0; k < n; k++) {
                y[0] = x[0] + k;
                const halide_buffer_t *src = in[owner(op.n[dim], op.src, y[dim])];
                o[k * ostride] = *(const T *)element_address(src, y);
            }
            break;
        }
        }
    });
}

bool supported(const halide_type_t &t) {
    if (t.lanes != 1) {
        return false;
    }
    if (t.code == halide_type_float) {
        return t.bits == 32 || t.bits == 64;
    }
    return (t.code == halide_type_int || t.code == halide_type_uint) &&
           (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64);
}

} // namespace

const char *Op::kind_name() const {
    static const char *names[] = {"all_reduce", "reduce_scatter", "all_gather", "broadcast",
                                  "reduce",     "all_to_all",     "send"};
    return kind >= 0 && kind <= COCONET_SEND_RECV ? names[kind] : "unknown collective";
}

Op make_op(const char *name, int32_t kind, int32_t red, int32_t root, int32_t a, int32_t b,
           int32_t nsplit, int32_t group, int32_t dst_group, const int32_t n[kMaxDims], int dims,
           int world_size) {
    Op op;
    op.name = name ? name : "";
    op.kind = kind;
    op.red = red;
    op.root = root;
    op.a = a;
    op.b = b;
    op.dims = dims;
    for (int d = 0; d < kMaxDims; d++) {
        op.n[d] = n[d];
    }
    op.src = group_of(world_size, std::max(nsplit, 1), group);
    op.dst =
        kind == COCONET_SEND_RECV ? group_of(world_size, std::max(nsplit, 1), dst_group) : op.src;
    op.peer_inputs.assign(world_size, nullptr);
    return op;
}

std::vector<int> Op::participants() const {
    std::vector<int> ranks;
    for (int r = std::min(src.first, dst.first);
         r < std::max(src.first + src.size, dst.first + dst.size); r++) {
        if (participates(r)) {
            ranks.push_back(r);
        }
    }
    return ranks;
}

bool Op::participates(int rank) const {
    return src.has(rank) || dst.has(rank);
}

Box Op::input_box(int r) const {
    if (!src.has(r)) {
        return empty_box(*this);
    }
    switch (kind) {
    case COCONET_ALL_GATHER: return sliced(full_box(*this), a, *this, src, r);
    case COCONET_ALL_TO_ALL: return sliced(full_box(*this), b, *this, src, r);
    case COCONET_SEND_RECV:
        return a >= 0 ? sliced(full_box(*this), a, *this, src, r) : full_box(*this);
    default: return full_box(*this);
    }
}

Box Op::output_limit(int r) const {
    if (!dst.has(r)) {
        return empty_box(*this);
    }
    switch (kind) {
    case COCONET_REDUCE_SCATTER:
    case COCONET_ALL_TO_ALL: return sliced(full_box(*this), a, *this, src, r);
    case COCONET_SEND_RECV:
        return a >= 0 ? sliced(full_box(*this), a, *this, dst, r) : full_box(*this);
    default: return full_box(*this);
    }
}

Box Op::block(int q) const {
    Box b = full_box(*this);
    if (dims > 0) {
        b = sliced(b, dims - 1, *this, src, q);
    }
    return b;
}

bool Op::reads_from(int p, int q) const {
    if (!dst.has(p) || !src.has(q)) {
        return false;
    }
    switch (kind) {
    case COCONET_ALL_REDUCE:
    case COCONET_REDUCE_SCATTER: return true;
    case COCONET_REDUCE: return p == src.first + root;
    case COCONET_BROADCAST: return q == src.first + root;
    case COCONET_SEND_RECV:
        if (a < 0) {
            return (p - dst.first) % src.size == q - src.first;
        }
        return !intersect(input_box(q), output_limit(p)).empty();
    default: return !intersect(input_box(q), output_limit(p)).empty();
    }
}

std::string Op::check(int rank, const halide_buffer_t *in, const halide_buffer_t *out) const {
    std::ostringstream e;
    if (kind < 0 || kind > COCONET_SEND_RECV) {
        e << "unknown collective kind " << kind;
    } else if (dims > kMaxDims || in->dimensions != dims || out->dimensions != dims) {
        e << "input and output must have " << dims << " dimensions (at most " << kMaxDims
          << "), got " << in->dimensions << " and " << out->dimensions;
    } else if (!(in->type == out->type) || !supported(in->type)) {
        e << "input and output must have the same supported element type";
    } else if ((kind == COCONET_BROADCAST || kind == COCONET_REDUCE) &&
               (root < 0 || root >= src.size)) {
        e << "root " << root << " is not a rank of a group of " << src.size << " ranks";
    } else if (kind == COCONET_SEND_RECV && b == 1 && src.size != dst.size) {
        e << "a Local value cannot be sent from a group of " << src.size << " ranks (first rank "
          << src.first << ") to a group of " << dst.size << " ranks (first rank " << dst.first
          << "): the groups must have the same size";
    } else if (src.has(rank) && !box_of(in).contains(input_box(rank))) {
        e << "the input holds " << box_of(in).to_string() << " but this rank must provide "
          << input_box(rank).to_string();
    } else if (!output_limit(rank).contains(box_of(out))) {
        e << "the output asks for " << box_of(out).to_string() << " but this rank can produce "
          << output_limit(rank).to_string();
    }
    return e.str();
}

void compute_output(const Op &op, int p, halide_buffer_t *out) {
    switch (out->type.code) {
    case halide_type_float:
        return out->type.bits == 32 ? compute_typed<float>(op, p, out)
                                    : compute_typed<double>(op, p, out);
    case halide_type_int:
        switch (out->type.bits) {
        case 8: return compute_typed<int8_t>(op, p, out);
        case 16: return compute_typed<int16_t>(op, p, out);
        case 32: return compute_typed<int32_t>(op, p, out);
        default: return compute_typed<int64_t>(op, p, out);
        }
    default:
        switch (out->type.bits) {
        case 8: return compute_typed<uint8_t>(op, p, out);
        case 16: return compute_typed<uint16_t>(op, p, out);
        case 32: return compute_typed<uint32_t>(op, p, out);
        default: return compute_typed<uint64_t>(op, p, out);
        }
    }
}

uint64_t bytes_read(const Op &op, int p, int q, const halide_buffer_t *out) {
    if (!op.reads_from(p, q)) {
        return 0;
    }
    return (uint64_t)intersect(op.input_box(q), box_of(out)).count() * out->type.bytes();
}

} // namespace coconet_rt
