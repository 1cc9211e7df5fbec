// The plan of a collective (see Collective.h) and the element-wise
// computation of a rank's output from its peers' inputs.
#include "Collective.h"

#include <algorithm>
#include <sstream>

#include "Reduce.h"

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
        b.min[op.chunk_dim] = op.chunk_min;
        b.extent[op.chunk_dim] = op.chunk_extent;
    }
    return b;
}

Box empty_box(const Op &op) {
    return no_box(op.dims);
}

// Rank r's slice of b along dimension dim, by group rank in g.
Box sliced(Box b, int dim, const Op &op, const Group &g, int r) {
    const Range s = slice_of(op.n[dim], g.size, g.local(r));
    b.min[dim] = s.begin;
    b.extent[dim] = s.size();
    return b;
}

bool is_reduction(int kind) {
    return kind == COCONET_ALL_REDUCE || kind == COCONET_REDUCE_SCATTER || kind == COCONET_REDUCE;
}

std::string group_name(const Group &g) {
    return "group " + std::to_string(g.index) + " of world.split(" + std::to_string(g.nsplit) +
           "), first rank " + std::to_string(g.first);
}

template<typename T>
void reduce_typed(const Op &op, int p, halide_buffer_t *out) {
    const auto &in = op.peer_inputs;
    const int64_t os = out->dimensions > 0 ? out->dim[0].stride : 1;
    const bool identity = op.kind == COCONET_REDUCE && p != op.src.first + op.root;
    const T id = reduce_identity<T>(op.red);
    for_each_row(box_of(out), [&](const int64_t *x, int64_t n) {
        T *o = (T *)element_address(out, x);
        if (identity) {
            for (int64_t k = 0; k < n; k++) {
                o[k * os] = id;
            }
            return;
        }
        // acc = x_0, then acc = op(acc, x_q) in group-rank order.
        for (int q = op.src.first; q < op.src.first + op.src.size; q++) {
            const halide_buffer_t *b = in[q];
            const T *s = (const T *)element_address(b, x);
            const int64_t ss = b->dimensions > 0 ? b->dim[0].stride : 1;
            if (q == op.src.first) {
                for (int64_t k = 0; k < n; k++) {
                    o[k * os] = s[k * ss];
                }
            } else {
                for (int64_t k = 0; k < n; k++) {
                    o[k * os] = reduce_combine<T>(op.red, o[k * os], s[k * ss]);
                }
            }
        }
    });
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
    op.nsplit = nsplit;
    op.world_size = world_size;
    op.dims = dims;
    for (int d = 0; d < kMaxDims; d++) {
        op.n[d] = n[d];
    }
    // Out-of-range groups give empty groups here; check_args reports them.
    const bool groups_ok = nsplit >= 1 && nsplit <= world_size;
    if (groups_ok && group >= 0 && group < nsplit) {
        op.src = group_of(world_size, nsplit, group);
    }
    op.src.index = group;
    op.src.nsplit = nsplit;
    op.dst = op.src;
    if (kind == COCONET_SEND_RECV) {
        op.dst = Group{};
        if (groups_ok && dst_group >= 0 && dst_group < nsplit) {
            op.dst = group_of(world_size, nsplit, dst_group);
        }
        op.dst.index = dst_group;
        op.dst.nsplit = nsplit;
    }
    if (kind == COCONET_ALL_REDUCE || kind == COCONET_REDUCE_SCATTER) {
        op.chunk_dim = b;
    } else if (kind == COCONET_ALL_TO_ALL) {
        op.chunk_dim = root;
    }
    op.peer_inputs.assign(world_size, nullptr);
    return op;
}

void Op::set_chunk(const halide_buffer_t *out) {
    if (chunk_dim >= 0 && chunk_dim < dims && out && out->dimensions == dims) {
        chunk_min = out->dim[chunk_dim].min;
        chunk_extent = out->dim[chunk_dim].extent;
    }
}

std::string Op::check_args() const {
    std::ostringstream e;
    auto is_dim = [&](int d) { return d >= 0 && d < dims; };
    if (kind < 0 || kind > COCONET_SEND_RECV) {
        e << "unknown collective kind " << kind;
    } else if (dims > kMaxDims) {
        e << "buffers have " << dims << " dimensions; at most " << kMaxDims << " are supported";
    } else if (nsplit < 1 || nsplit > world_size) {
        e << "a world of " << world_size << " ranks cannot be split into " << nsplit << " groups";
    } else if (src.index < 0 || src.index >= nsplit) {
        e << "group " << src.index << " is not a group of world.split(" << nsplit << ")";
    } else if (kind == COCONET_SEND_RECV && (dst.index < 0 || dst.index >= nsplit)) {
        e << "destination group " << dst.index << " is not a group of world.split(" << nsplit
          << ")";
    } else if (is_reduction(kind) && !valid_reduce_op(red)) {
        e << "unknown reduction op " << red;
    } else if ((kind == COCONET_REDUCE_SCATTER || kind == COCONET_ALL_GATHER ||
                kind == COCONET_ALL_TO_ALL) &&
               !is_dim(a)) {
        e << "dimension a = " << a << " is not a dimension of a " << dims << "-D buffer";
    } else if ((kind == COCONET_ALL_REDUCE || kind == COCONET_REDUCE_SCATTER) && b != -1 &&
               (!is_dim(b) || (kind == COCONET_REDUCE_SCATTER && b == a))) {
        e << "chunk dimension b = " << b << " is neither -1 nor a dimension of a " << dims
          << "-D buffer" << (kind == COCONET_REDUCE_SCATTER ? " other than a" : "");
    } else if (chunk_dim >= 0 &&
               (chunk_min < 0 || chunk_extent < 0 || chunk_min + chunk_extent > n[chunk_dim])) {
        e << "the chunk [" << chunk_min << ", " << chunk_min + chunk_extent << ") of dimension "
          << chunk_dim << " is outside [0, " << n[chunk_dim] << ")";
    } else if (kind == COCONET_ALL_TO_ALL && (!is_dim(b) || b == a)) {
        e << "dimension b = " << b << " must be a dimension of a " << dims
          << "-D buffer other than a = " << a;
    } else if (kind == COCONET_ALL_TO_ALL && root != -1 &&
               (!is_dim(root) || root == a || root == b)) {
        e << "chunk dimension root = " << root << " is neither -1 nor a dimension of a " << dims
          << "-D buffer other than a = " << a << " and b = " << b;
    } else if (kind == COCONET_SEND_RECV && a != -1 && !is_dim(a)) {
        e << "dimension a = " << a << " is neither -1 nor a dimension of a " << dims << "-D buffer";
    } else if (kind == COCONET_SEND_RECV && b == 1 && a >= 0) {
        e << "a Local value (b = 1) cannot be sliced (a = " << a << ")";
    } else if (kind == COCONET_SEND_RECV && b == 1 && src.size != dst.size) {
        // Sliced values are re-sliced and Replicated ones read sender i mod
        // |src|, for any sizes; a Local value has no such meaning.
        e << "a Local value cannot be sent from a group of " << src.size << " ranks ("
          << group_name(src) << ") to a group of " << dst.size << " ranks (" << group_name(dst)
          << "): the groups must have the same size";
    } else if ((kind == COCONET_BROADCAST || kind == COCONET_REDUCE) &&
               (root < 0 || root >= src.size)) {
        e << "root " << root << " is not a rank of a group of " << src.size << " ranks ("
          << group_name(src) << ")";
    } else {
        for (int d = 0; d < dims; d++) {
            if (n[d] < 0) {
                e << "global extent n" << d << " = " << n[d] << " is negative";
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

std::string Op::check_chunked_input(int rank) const {
    if (kind != COCONET_ALL_TO_ALL || chunk_dim < 0 || !src.has(rank) || !input_box(rank).empty()) {
        return "";
    }
    // Halide computes at least one element of a producer computed inside
    // the chunk loop, which would read outside this rank's empty slice.
    std::ostringstream e;
    e << "it is overlapped in chunks, but this rank holds no part of its input (dimension " << b
      << " of extent " << n[b] << " in slices of " << slice_of(n[b], src.size, 0).size() << " over "
      << src.size << " ranks); an overlapped all_to_all needs every rank to hold "
      << "part of its input: run it on another number of ranks, or without overlap";
    return e.str();
}

bool Op::same_call(const Op &o) const {
    const bool uses_a =
        kind != COCONET_ALL_REDUCE && kind != COCONET_BROADCAST && kind != COCONET_REDUCE;
    const bool uses_b = kind == COCONET_ALL_TO_ALL || kind == COCONET_SEND_RECV;
    if (chunk_dim != o.chunk_dim ||
        (chunk_dim >= 0 && (chunk_min != o.chunk_min || chunk_extent != o.chunk_extent))) {
        return false;
    }
    if (name != o.name || kind != o.kind || nsplit != o.nsplit || src.index != o.src.index ||
        dst.index != o.dst.index || dims != o.dims || (uses_a && a != o.a) ||
        (uses_b && b != o.b) || (is_reduction(kind) && red != o.red) ||
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
        if (a < 0) {
            return q == sender_of(p);
        }
        return !intersect(input_box(q), output_limit(p)).empty();
    default: return !intersect(input_box(q), output_limit(p)).empty();
    }
}

void compute_output(const Op &op, int p, halide_buffer_t *out) {
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
        if (op.a < 0) {
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

uint64_t bytes_read(const Op &op, int p, int q, const halide_buffer_t *out) {
    if (!op.reads_from(p, q)) {
        return 0;
    }
    return (uint64_t)intersect(op.input_box(q), box_of(out)).count() * out->type.bytes();
}

} // namespace coconet_rt
