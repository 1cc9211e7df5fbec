// The plan of a collective (see Collective.h) and the element-wise
// computation of a rank's output from its peers' inputs.
#include "core/Collective.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <vector>

#include "core/Parts.h"
#include "core/ReadMeter.h"
#include "core/Reduce.h"

namespace coconet_rt {

namespace {

// The whole value, or the chunk an overlapped call covers.
Box full_box(const Op &op) {
    Box b;
    b.dims = op.dims;
    for (int d = 0; d < op.dims; d++) {
        b.extent[d] = op.n[d];
    }
    if (op.chunk_dim >= 0 && op.chunk_dim < op.dims) {
        Range r{op.chunk_min, op.chunk_min + op.chunk_extent};
        if (op.pieces()) {
            r = pieces_hull(op.n[op.dim], op.src.size, op.chunks, op.chunk_index);
        }
        b.min[op.chunk_dim] = r.begin;
        b.extent[op.chunk_dim] = r.size();
    }
    return b;
}

Box empty_box(const Op &op) {
    return no_box(op.dims);
}

// Rank r's slice of b along dimension dim, by group rank in g (its piece
// when the call is a piece of every slice).
Box sliced(Box b, int dim, const Op &op, const Group &g, int r) {
    Range s = slice_of(op.n[dim], g.size, g.local(r));
    if (op.pieces() && dim == op.dim) {
        s = piece_of(s, op.chunks, op.chunk_index);
    }
    b.min[dim] = s.begin;
    b.extent[dim] = s.size();
    return b;
}

// "1 rank", "3 ranks".
std::string ranks_text(int n) {
    return std::to_string(n) + (n == 1 ? " rank" : " ranks");
}

std::string group_name(const Group &g) {
    return "group " + std::to_string(g.index) + " of world.split(" + std::to_string(g.nsplit) +
           "), first rank " + std::to_string(g.first);
}

// Elements of a row reduced across the inputs at a time: a few pages of the
// output, which stay in L1 or L2 while each input is added into them.
constexpr int64_t kReduceChunk = 4096;

// Not a reduction op: combine_into copies.
constexpr int kCopyInto = -1;

// o[k] = s[k] (kCopyInto) or o[k] = op(o[k], s[k]) for k < n, o and s at strides
// os and ss: the operation chosen once per chunk, and the contiguous case
// apart, so that the compiler vectorizes the loops.
template<typename T>
void combine_into(int op, T *o, int64_t os, const T *s, int64_t ss, int64_t n) {
    auto each = [&](auto f) {
        if (os == 1 && ss == 1) {
            for (int64_t k = 0; k < n; k++) {
                o[k] = f(o[k], s[k]);
            }
        } else {
            for (int64_t k = 0; k < n; k++) {
                o[k * os] = f(o[k * os], s[k * ss]);
            }
        }
    };
    switch (op) {
    case kCopyInto: each([](T, T b) { return b; }); return;
    case COCONET_PROD: each([](T a, T b) { return reduce_combine<T>(COCONET_PROD, a, b); }); return;
    case COCONET_MAX: each([](T a, T b) { return reduce_combine<T>(COCONET_MAX, a, b); }); return;
    case COCONET_MIN: each([](T a, T b) { return reduce_combine<T>(COCONET_MIN, a, b); }); return;
    default: each([](T a, T b) { return reduce_combine<T>(COCONET_SUM, a, b); }); return;
    }
}

template<typename T>
void reduce_typed(const Op &op, int p, halide_buffer_t *out) {
    const auto &in = op.peer_inputs;
    const int64_t os = out->dimensions > 0 ? out->dim[0].stride : 1;
    const bool identity = op.kind == COCONET_REDUCE && p != op.src.first + op.root;
    const T id = reduce_identity<T>(op.red);
    const Box box = box_of(out);
    int inner = run_dims(box, {out});
    if (!identity) { // the inputs are read too
        inner = std::min(inner, run_dims(box, &in[op.src.first], (size_t)op.src.size));
    }
    // Elements read from each input, where the loop reads them (ReadMeter).
    std::vector<uint64_t> read(op.src.size, 0);
    std::vector<const T *> first(op.src.size, nullptr);
    for_each_row(
        box,
        [&](const int64_t *x, int64_t n) {
            T *o = (T *)element_address(out, x);
            if (identity) {
                for (int64_t k = 0; k < n; k++) {
                    o[k * os] = id;
                }
                return;
            }
            // acc = x_0, then acc = op(acc, x_q) in group-rank order, a chunk
            // of the row at a time so that acc stays in cache across the inputs.
            for (int64_t c = 0; c < n; c += kReduceChunk) {
                const int64_t m = std::min(kReduceChunk, n - c);
                for (int q = op.src.first; q < op.src.first + op.src.size; q++) {
                    const halide_buffer_t *b = in[q];
                    const int64_t ss = b->dimensions > 0 ? b->dim[0].stride : 1;
                    const T *s = (const T *)element_address(b, x) + c * ss;
                    if (c == 0) {
                        read[q - op.src.first] += (uint64_t)n;
                        first[q - op.src.first] =
                            first[q - op.src.first] ? first[q - op.src.first] : s;
                    }
                    combine_into<T>(q == op.src.first ? kCopyInto : op.red, o + c * os, os, s, ss,
                                    m);
                }
            }
        },
        inner);
    for (int k = 0; k < op.src.size; k++) {
        ReadMeter::count(first[k], read[k] * sizeof(T));
    }
}

} // namespace

const char *Op::kind_name() const {
    static const char *names[] = {"all_reduce", "reduce_scatter", "all_gather", "broadcast",
                                  "reduce",     "all_to_all",     "send"};
    return kind >= 0 && kind <= COCONET_SEND_RECV ? names[kind] : "unknown collective";
}

std::string Op::what() const {
    return std::string(kind_name()) + " '" + name + "'";
}

bool is_reduction(int kind) {
    return kind == COCONET_ALL_REDUCE || kind == COCONET_REDUCE_SCATTER || kind == COCONET_REDUCE;
}

Op make_op(const char *name, const coconet_collective_desc &desc, int world_size) {
    Op op;
    op.name = name ? name : "";
    op.kind = desc.kind;
    op.red = desc.op;
    op.root = desc.root;
    op.dim = desc.dim;
    op.concat_dim = desc.concat_dim;
    op.local_value = desc.local_value != 0;
    op.nsplit = desc.nsplit;
    op.world_size = world_size;
    op.dims = desc.dims;
    for (int d = 0; d < kMaxDims && d < desc.dims; d++) {
        op.n[d] = desc.extents[d];
    }
    // Out-of-range groups give empty groups here; check_args reports them.
    const int nsplit = desc.nsplit;
    const bool groups_ok = nsplit >= 1 && nsplit <= world_size;
    if (groups_ok && desc.group >= 0 && desc.group < nsplit) {
        op.src = group_of(world_size, nsplit, desc.group);
    }
    op.src.index = desc.group;
    op.src.nsplit = nsplit;
    op.dst = op.src;
    if (desc.kind == COCONET_SEND_RECV) {
        op.dst = Group{};
        if (groups_ok && desc.dst_group >= 0 && desc.dst_group < nsplit) {
            op.dst = group_of(world_size, nsplit, desc.dst_group);
        }
        op.dst.index = desc.dst_group;
        op.dst.nsplit = nsplit;
    }
    if (desc.kind == COCONET_ALL_REDUCE || desc.kind == COCONET_REDUCE_SCATTER ||
        desc.kind == COCONET_ALL_TO_ALL) {
        op.chunk_dim = desc.chunk_dim;
        op.chunks = desc.chunks;
        op.chunk_index = desc.chunk_index;
    }
    op.peer_inputs.assign(world_size, nullptr);
    return op;
}

std::string read_desc(const void *data, size_t bytes, coconet_collective_desc *desc) {
    // Read by memcpy: the bytes need not be aligned for the struct.
    uint32_t head[2]; // version, size
    if (!data || bytes < sizeof(head)) {
        return "the collective descriptor is missing (" + std::to_string(bytes) + " bytes)";
    }
    std::memcpy(head, data, sizeof(head));
    if (head[0] != COCONET_COLLECTIVE_ABI_VERSION) {
        return "the caller was compiled against collective ABI version " + std::to_string(head[0]) +
               ", this runtime has version " + std::to_string(COCONET_COLLECTIVE_ABI_VERSION) +
               "; rebuild the library";
    }
    if (head[1] != sizeof(*desc) || bytes < sizeof(*desc)) {
        return "the collective descriptor has " + std::to_string(head[1]) + " bytes (" +
               std::to_string(bytes) + " passed), this runtime's has " +
               std::to_string(sizeof(*desc)) + " for the same version " +
               std::to_string(COCONET_COLLECTIVE_ABI_VERSION) + "; rebuild the library";
    }
    std::memcpy(desc, data, sizeof(*desc));
    return "";
}

void Op::set_chunk(const halide_buffer_t *out) {
    if (chunk_dim >= 0 && chunk_dim < dims && !pieces() && out && out->dimensions == dims) {
        chunk_min = out->dim[chunk_dim].min;
        chunk_extent = out->dim[chunk_dim].extent;
    }
}

std::string Op::check_args() const {
    std::ostringstream e;
    auto is_dim = [&](int d) { return d >= 0 && d < dims; };
    const bool chunked =
        kind == COCONET_ALL_REDUCE || kind == COCONET_REDUCE_SCATTER || kind == COCONET_ALL_TO_ALL;
    if (kind < 0 || kind > COCONET_SEND_RECV) {
        e << "unknown collective kind " << kind;
    } else if (dims < 0 || dims > kMaxDims) {
        e << "the value has " << dims << " dimensions; this runtime supports 0 to " << kMaxDims;
    } else if (nsplit < 1 || nsplit > world_size) {
        e << "a world of " << ranks_text(world_size) << " cannot be split into " << nsplit
          << " groups";
    } else if (src.index < 0 || src.index >= nsplit) {
        e << "group " << src.index << " is not a group of world.split(" << nsplit << ")";
    } else if (kind == COCONET_SEND_RECV && (dst.index < 0 || dst.index >= nsplit)) {
        e << "destination group " << dst.index << " is not a group of world.split(" << nsplit
          << ")";
    } else if (is_reduction(kind) && !valid_reduce_op(red)) {
        e << "unknown reduction op " << red;
    } else if ((kind == COCONET_REDUCE_SCATTER || kind == COCONET_ALL_GATHER ||
                kind == COCONET_ALL_TO_ALL) &&
               !is_dim(dim)) {
        e << "dim = " << dim << " is not a dimension of a " << dims << "-D buffer";
    } else if (kind == COCONET_ALL_TO_ALL && (!is_dim(concat_dim) || concat_dim == dim)) {
        e << "concat_dim = " << concat_dim << " must be a dimension of a " << dims
          << "-D buffer other than dim = " << dim;
    } else if (chunked && chunk_dim != -1 &&
               (!is_dim(chunk_dim) || (kind == COCONET_ALL_TO_ALL && chunk_dim == concat_dim))) {
        e << "chunk_dim = " << chunk_dim << " is neither -1 nor a dimension of a " << dims
          << "-D buffer" << (kind == COCONET_ALL_TO_ALL ? " other than concat_dim" : "");
    } else if (chunked && pieces() && (chunks < 1 || chunk_index < 0 || chunk_index >= chunks)) {
        e << "chunk_dim = dim = " << dim << ": piece " << chunk_index << " of " << chunks
          << " pieces of every slice does not exist";
    } else if (chunk_dim >= 0 && !pieces() &&
               (chunk_min < 0 || chunk_extent < 0 || chunk_min + chunk_extent > n[chunk_dim])) {
        e << "the chunk [" << chunk_min << ", " << chunk_min + chunk_extent << ") of dimension "
          << chunk_dim << " is outside [0, " << n[chunk_dim] << ")";
    } else if (kind == COCONET_SEND_RECV && dim != -1 && !is_dim(dim)) {
        e << "dim = " << dim << " is neither -1 nor a dimension of a " << dims << "-D buffer";
    } else if (kind == COCONET_SEND_RECV && local_value && dim >= 0) {
        e << "a Local value (local_value = 1) cannot be sliced (dim = " << dim << ")";
    } else if (kind == COCONET_SEND_RECV && local_value && src.size != dst.size) {
        // Sliced values are re-sliced and Replicated ones read sender i mod
        // |src|, for any sizes; a Local value has no such meaning.
        e << "a Local value cannot be sent from a group of " << ranks_text(src.size) << " ("
          << group_name(src) << ") to a group of " << ranks_text(dst.size) << " ("
          << group_name(dst) << "): the groups must have the same size";
    } else if ((kind == COCONET_BROADCAST || kind == COCONET_REDUCE) &&
               (root < 0 || root >= src.size)) {
        e << "root " << root << " is not a rank of a group of " << ranks_text(src.size) << " ("
          << group_name(src) << "): a root is a rank of its group, 0 to " << src.size - 1;
    } else {
        for (int d = 0; d < dims; d++) {
            if (n[d] < 0) {
                e << "global extent " << d << " = " << n[d] << " is negative";
                break;
            }
        }
    }
    return e.str();
}

std::string Op::check_buffers(int rank, const halide_buffer_t *in,
                              const halide_buffer_t *out) const {
    std::ostringstream e;
    if (in->dimensions != dims || out->dimensions != dims) {
        e << "input and output must have the same number of dimensions, got " << in->dimensions
          << " and " << out->dimensions;
    } else if (!(in->type == out->type)) {
        e << "input and output element types differ: " << type_name(in->type) << " and "
          << type_name(out->type);
    } else if (!supported_type(in->type)) {
        e << "unsupported element type " << type_name(in->type);
    } else if (src.has(rank) && !box_of(in).contains(input_box(rank))) {
        e << "the input holds " << box_of(in).to_string() << " but this rank must provide "
          << input_box(rank).to_string();
    } else if (!output_limit(rank).contains(box_of(out))) {
        e << "the output asks for " << box_of(out).to_string() << " but this rank can produce "
          << output_limit(rank).to_string();
    }
    return e.str();
}

bool Op::same_call(const Op &o) const {
    const bool uses_dim =
        kind != COCONET_ALL_REDUCE && kind != COCONET_BROADCAST && kind != COCONET_REDUCE;
    if (chunk_dim != o.chunk_dim ||
        (chunk_dim >= 0 && (chunk_min != o.chunk_min || chunk_extent != o.chunk_extent ||
                            chunks != o.chunks || chunk_index != o.chunk_index))) {
        return false;
    }
    if (name != o.name || kind != o.kind || on_device != o.on_device || nsplit != o.nsplit ||
        src.index != o.src.index || dst.index != o.dst.index || dims != o.dims ||
        (uses_dim && dim != o.dim) || (kind == COCONET_ALL_TO_ALL && concat_dim != o.concat_dim) ||
        (kind == COCONET_SEND_RECV && local_value != o.local_value) ||
        (is_reduction(kind) && red != o.red) ||
        ((kind == COCONET_BROADCAST || kind == COCONET_REDUCE) && root != o.root)) {
        return false;
    }
    return std::equal(n, n + dims, o.n);
}

std::vector<int> Op::participants() const {
    std::vector<int> ranks;
    for (int r = 0; r < world_size; r++) {
        if (participates(r)) {
            ranks.push_back(r);
        }
    }
    return ranks;
}

Box Op::input_box(int r) const {
    if (!src.has(r)) {
        return empty_box(*this);
    }
    switch (kind) {
    case COCONET_ALL_GATHER: return sliced(full_box(*this), dim, *this, src, r);
    case COCONET_ALL_TO_ALL: return sliced(full_box(*this), concat_dim, *this, src, r);
    case COCONET_SEND_RECV:
        return dim >= 0 ? sliced(full_box(*this), dim, *this, src, r) : full_box(*this);
    default: return full_box(*this);
    }
}

Box Op::output_limit(int r) const {
    if (!dst.has(r)) {
        return empty_box(*this);
    }
    switch (kind) {
    case COCONET_REDUCE_SCATTER:
    case COCONET_ALL_TO_ALL: return sliced(full_box(*this), dim, *this, src, r);
    case COCONET_SEND_RECV:
        return dim >= 0 ? sliced(full_box(*this), dim, *this, dst, r) : full_box(*this);
    default: return full_box(*this);
    }
}

Box Op::block(int q) const {
    Box b = full_box(*this);
    if (dims > 0) {
        // Blocks of the box (of a chunk, when the call is one), not of n.
        const Range s = slice_of(b.extent[dims - 1], src.size, src.local(q));
        b.min[dims - 1] += s.begin;
        b.extent[dims - 1] = s.size();
    }
    return b;
}

int Op::sender_of(int p) const {
    return src.first + dst.local(p) % std::max(src.size, 1);
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
        if (dim < 0) {
            return q == sender_of(p);
        }
        return !intersect(input_box(q), output_limit(p)).empty();
    default: return !intersect(input_box(q), output_limit(p)).empty();
    }
}

namespace {

void compute_output_serially(const Op &op, int p, halide_buffer_t *out) {
    const Box want = box_of(out);
    if (want.empty()) {
        return;
    }
    switch (op.kind) {
    case COCONET_ALL_REDUCE:
    case COCONET_REDUCE_SCATTER:
    case COCONET_REDUCE:
        with_element_type(out->type, [&](auto zero) { reduce_typed<decltype(zero)>(op, p, out); });
        return;
    case COCONET_BROADCAST: copy_box(op.peer_inputs[op.src.first + op.root], out, want); return;
    case COCONET_SEND_RECV:
        if (op.dim < 0) {
            copy_box(op.peer_inputs[op.sender_of(p)], out, want);
            return;
        }
        // A sliced value is re-sliced: like a gather, from the senders owning each part.
        [[fallthrough]];
    default:
        // ALL_GATHER, ALL_TO_ALL: each part of the output from the rank owning it.
        for (int q = op.src.first; q < op.src.first + op.src.size; q++) {
            const Box part = intersect(want, op.input_box(q));
            if (!part.empty()) {
                copy_box(op.peer_inputs[q], out, part);
            }
        }
        return;
    }
}

} // namespace

void compute_output(const Op &op, int p, halide_buffer_t *out, int threads) {
    for_parts(box_of(out), threads, out->type.bytes(), [&](const Box &part) {
        BufferView view(out, part);
        compute_output_serially(op, p, &view.buf);
    });
}

uint64_t bytes_read(const Op &op, int p, int q, const halide_buffer_t *out) {
    if (!op.reads_from(p, q)) {
        return 0;
    }
    return (uint64_t)intersect(op.input_box(q), box_of(out)).count() * out->type.bytes();
}

} // namespace coconet_rt
