// Shared by the runtime's tests on both backends
// (threads/test_runtime_threads.cpp, mpi/mpi_runtime_check.cpp): the tests'
// own partitioning, deterministic inputs from (rank, index), the naive
// expected value of every collective, running one case on a rank, and the
// list of cases. Include it in one translation unit per test program.
#ifndef COCONET_TEST_RUNTIME_CASES_H
#define COCONET_TEST_RUNTIME_CASES_H

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "coconet_runtime.h"

namespace {

// ---- The test's own partitioning (deliberately not the runtime's). ----------

struct Span {
    int64_t begin, end;
};

Span slice(int64_t n, int parts, int p) {
    const int64_t block = (n + parts - 1) / parts;
    return Span{std::min(n, p * block), std::min(n, (p + 1) * block)};
}

int owner(int64_t n, int parts, int64_t i) {
    for (int p = 0; p < parts; p++) {
        const Span s = slice(n, parts, p);
        if (i >= s.begin && i < s.end) {
            return p;
        }
    }
    return -1;
}

struct Grp {
    int first, size;
    bool has(int r) const { return r >= first && r < first + size; }
};

Grp grp(int world, int nsplit, int g) {
    const int first = g * world / nsplit;
    return Grp{first, (g + 1) * world / nsplit - first};
}

// ---- Boxes and buffers ------------------------------------------------------

struct TBox {
    int dims = 1;
    int64_t min[4] = {0, 0, 0, 0};
    int64_t extent[4] = {0, 0, 0, 0};
    int64_t count() const {
        int64_t c = 1;
        for (int d = 0; d < dims; d++) {
            c *= extent[d];
        }
        return c;
    }
    bool operator==(const TBox &o) const {
        if (dims != o.dims) {
            return false;
        }
        for (int d = 0; d < dims; d++) {
            if (min[d] != o.min[d] || extent[d] != o.extent[d]) {
                return false;
            }
        }
        return true;
    }
    std::string str() const {
        std::ostringstream s;
        s << "[";
        for (int d = 0; d < dims; d++) {
            s << (d ? ", " : "") << min[d] << "+" << extent[d];
        }
        return s.str() + "]";
    }
};

// Calls f(x) for every point of the box.
void for_each_point(const TBox &box, const std::function<void(const int64_t *)> &f) {
    if (box.count() == 0) {
        return;
    }
    int64_t x[4] = {0, 0, 0, 0};
    for (int d = 0; d < box.dims; d++) {
        x[d] = box.min[d];
    }
    while (true) {
        f(x);
        int d = 0;
        for (; d < box.dims; d++) {
            if (++x[d] < box.min[d] + box.extent[d]) {
                break;
            }
            x[d] = box.min[d];
        }
        if (d == box.dims) {
            return;
        }
    }
}

const uint8_t kSentinel = 0xAB;

// A buffer over a global box; `strided` leaves gaps between elements and rows
// so that strides other than the dense ones are exercised (and writes outside
// the box show up as changed gap bytes).
struct Buf {
    halide_buffer_t b{};
    halide_dimension_t dim[4];
    std::vector<uint8_t> data;
    TBox box;

    Buf(halide_type_t type, const TBox &bx, bool strided, bool bounds_query = false) : box(bx) {
        int64_t stride = strided ? 2 : 1, elements = 1;
        for (int d = 0; d < box.dims; d++) {
            dim[d] =
                halide_dimension_t((int32_t)box.min[d], (int32_t)box.extent[d], (int32_t)stride);
            elements += std::max<int64_t>(box.extent[d] - 1, 0) * stride;
            stride *= box.extent[d] + (strided ? 1 : 0);
            stride = std::max<int64_t>(stride, 1);
        }
        data.assign((size_t)elements * type.bytes(), kSentinel);
        b.type = type;
        b.dimensions = box.dims;
        b.dim = dim;
        b.host = bounds_query ? nullptr : data.data();
    }
    Buf(const Buf &) = delete; // b points into this object
    Buf &operator=(const Buf &) = delete;

    int64_t offset(const int64_t *x) const {
        int64_t o = 0;
        for (int d = 0; d < box.dims; d++) {
            o += (x[d] - dim[d].min) * (int64_t)dim[d].stride;
        }
        return o;
    }
    template<typename T>
    T &at(const int64_t *x) {
        return reinterpret_cast<T *>(data.data())[offset(x)];
    }
    // Whether any byte of an element outside the box changed.
    bool gaps_intact() const {
        std::vector<bool> in_box(data.size() / b.type.bytes(), false);
        for_each_point(box, [&](const int64_t *x) { in_box[offset(x)] = true; });
        for (size_t e = 0; e < in_box.size(); e++) {
            for (int k = 0; !in_box[e] && k < b.type.bytes(); k++) {
                if (data[e * b.type.bytes() + k] != kSentinel) {
                    return false;
                }
            }
        }
        return true;
    }
};

// ---- Element types, generated inputs and the reference -----------------------

template<typename T>
halide_type_t type_of() {
    if (std::is_floating_point<T>::value) {
        return halide_type_t(halide_type_float, sizeof(T) * 8);
    }
    return halide_type_t(std::is_signed<T>::value ? halide_type_int : halide_type_uint,
                         sizeof(T) * 8);
}

const halide_type_t kAllTypes[] = {type_of<float>(),   type_of<double>(),   type_of<int8_t>(),
                                   type_of<int16_t>(), type_of<int32_t>(),  type_of<int64_t>(),
                                   type_of<uint8_t>(), type_of<uint16_t>(), type_of<uint32_t>(),
                                   type_of<uint64_t>()};

template<typename F>
void with_type(halide_type_t t, F &&f) {
    if (t.code == halide_type_float) {
        t.bits == 32 ? f(float{}) : f(double{});
    } else if (t.code == halide_type_int) {
        t.bits == 8    ? f(int8_t{})
        : t.bits == 16 ? f(int16_t{})
        : t.bits == 32 ? f(int32_t{})
                       : f(int64_t{});
    } else {
        t.bits == 8    ? f(uint8_t{})
        : t.bits == 16 ? f(uint16_t{})
        : t.bits == 32 ? f(uint32_t{})
                       : f(uint64_t{});
    }
}

// Rank q's input at global point x: values whose float sums round, so that a
// different reduction order would show.
template<typename T>
T gen(int q, const int64_t *x, int dims) {
    int64_t h = 17 * q + 3;
    for (int d = 0; d < dims; d++) {
        h = h * 31 + x[d] * (d + 5);
    }
    const int64_t v = ((h % 23) + 23) % 23 - 11; // in [-11, 11]
    if (std::is_floating_point<T>::value) {
        return (T)(v * 0.1 + q * 0.013 + 1.0 / 3.0);
    }
    return (T)v;
}

template<typename T>
T combine(int op, T a, T b) {
    if (std::is_floating_point<T>::value) {
        switch (op) {
        case COCONET_SUM: return a + b;
        case COCONET_PROD: return a * b;
        case COCONET_MAX: return std::max(a, b);
        default: return std::min(a, b);
        }
    }
    // Integers wrap around (two's complement), as the hardware does.
    const uint64_t x = (uint64_t)(int64_t)a, y = (uint64_t)(int64_t)b;
    switch (op) {
    case COCONET_SUM: return (T)(x + y);
    case COCONET_PROD: return (T)(x * y);
    case COCONET_MAX: return std::max(a, b);
    default: return std::min(a, b);
    }
}

template<typename T>
T identity(int op) {
    const bool f = std::is_floating_point<T>::value;
    switch (op) {
    case COCONET_SUM: return T(0);
    case COCONET_PROD: return T(1);
    case COCONET_MAX:
        return f                                   ? -std::numeric_limits<T>::infinity()
               : std::numeric_limits<T>::min() < 0 ? std::numeric_limits<T>::min()
                                                   : T(0);
    default: return f ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
    }
}

struct Case {
    std::string name;
    int kind = COCONET_ALL_REDUCE, op = COCONET_SUM, root = 0, dim = -1, concat_dim = -1;
    bool local_value = false;
    int nsplit = 1, group = 0, dst_group = 0;
    TBox full; // dims and global extents (min 0)
    halide_type_t type = type_of<float>();
    int out_mode = 0; // 0: the whole limit, 1: a sub-box, 2: mixed per rank (incl. extent 0)
    bool strided = false;
    // > 0 (REDUCE_SCATTER, ALL_TO_ALL): one chunk of an overlap along the
    // sliced dimension, piece chunk_index of `chunks` of every slice.
    int chunks = 0, chunk_index = 0;

    std::string str() const {
        std::ostringstream s;
        s << name << " kind " << kind << " op " << op << " root " << root << " dim " << dim
          << " concat_dim " << concat_dim << (local_value ? " local" : "") << " split " << nsplit
          << " g " << group << "->" << dst_group << " n " << full.str() << " type "
          << (int)type.code << "/" << type.bits << " mode " << out_mode
          << (strided ? " strided" : "");
        if (chunks > 0) {
            s << " piece " << chunk_index << " of " << chunks;
        }
        return s.str();
    }
    Grp src(int R) const { return grp(R, nsplit, group); }
    Grp dst(int R) const { return kind == COCONET_SEND_RECV ? grp(R, nsplit, dst_group) : src(R); }
};

TBox empty_box(int dims) {
    TBox b;
    b.dims = dims;
    return b;
}

// A descriptor of `kind` for a value of the box's dimensions and extents.
coconet_collective_desc make_desc(int kind, const TBox &full) {
    coconet_collective_desc d;
    coconet_collective_desc_init(&d, kind);
    d.dims = full.dims;
    for (int i = 0; i < full.dims; i++) {
        d.extents[i] = (int32_t)full.extent[i];
    }
    return d;
}

// Rank r's slice along d: of the whole extent b.extent[d] (b's min along d
// is 0 or, for a piece chunk, ignored), or its piece when the case is one.
TBox sliced(TBox b, int d, const Grp &g, int r, const Case *pieces = nullptr) {
    const int64_t n = pieces ? pieces->full.extent[d] : b.extent[d];
    Span s = slice(n, g.size, r - g.first);
    if (pieces && pieces->chunks > 0 && d == pieces->dim) {
        const Span p = slice(s.end - s.begin, pieces->chunks, pieces->chunk_index);
        s = Span{s.begin + p.begin, s.begin + p.end};
    }
    b.min[d] = s.begin;
    b.extent[d] = s.end - s.begin;
    return b;
}

// The value's box, or for a piece chunk the smallest box holding every
// rank's piece along the sliced dimension.
TBox chunk_full(const Case &c, const Grp &g) {
    TBox b = c.full;
    if (c.chunks == 0) {
        return b;
    }
    int64_t lo = 0, hi = 0;
    bool any = false;
    for (int q = g.first; q < g.first + g.size; q++) {
        const TBox p = sliced(c.full, c.dim, g, q, &c);
        if (p.extent[c.dim] > 0) {
            lo = any ? std::min(lo, p.min[c.dim]) : p.min[c.dim];
            hi = std::max(hi, p.min[c.dim] + p.extent[c.dim]);
            any = true;
        }
    }
    b.min[c.dim] = lo;
    b.extent[c.dim] = hi - lo;
    return b;
}

TBox expected_in_box(const Case &c, int R, int r) {
    const Grp g = c.src(R);
    if (!g.has(r)) {
        return empty_box(c.full.dims);
    }
    switch (c.kind) {
    case COCONET_ALL_GATHER: return sliced(c.full, c.dim, g, r);
    case COCONET_ALL_TO_ALL: return sliced(chunk_full(c, g), c.concat_dim, g, r, &c);
    case COCONET_SEND_RECV: return c.dim >= 0 ? sliced(c.full, c.dim, g, r) : c.full;
    default: return chunk_full(c, g);
    }
}

TBox out_limit(const Case &c, int R, int r) {
    const Grp d = c.dst(R);
    if (!d.has(r)) {
        return empty_box(c.full.dims);
    }
    switch (c.kind) {
    case COCONET_REDUCE_SCATTER:
    case COCONET_ALL_TO_ALL: return sliced(c.full, c.dim, d, r, &c);
    case COCONET_SEND_RECV: return c.dim >= 0 ? sliced(c.full, c.dim, d, r) : c.full;
    default: return c.full;
    }
}

TBox choose_out(const Case &c, int R, int r) {
    TBox b = out_limit(c, R, r);
    const int mode = c.out_mode == 2 ? r % 3 : c.out_mode;
    if (mode == 1) { // drop the first index of every dimension that has two
        for (int d = 0; d < b.dims; d++) {
            if (b.extent[d] >= 2) {
                b.min[d]++;
                b.extent[d]--;
            }
        }
    } else if (mode == 2) { // nothing, but the rank still takes part
        b.extent[b.dims - 1] = 0;
    }
    return b;
}

template<typename T>
T expected(const Case &c, int R, int p, const int64_t *x) {
    const Grp s = c.src(R), d = c.dst(R);
    const int dims = c.full.dims;
    switch (c.kind) {
    case COCONET_REDUCE:
        if (p != s.first + c.root) {
            return identity<T>(c.op);
        }
        // fall through
    case COCONET_ALL_REDUCE:
    case COCONET_REDUCE_SCATTER: {
        T acc = gen<T>(s.first, x, dims);
        for (int q = s.first + 1; q < s.first + s.size; q++) {
            acc = combine<T>(c.op, acc, gen<T>(q, x, dims));
        }
        return acc;
    }
    case COCONET_BROADCAST: return gen<T>(s.first + c.root, x, dims);
    case COCONET_ALL_GATHER:
        return gen<T>(s.first + owner(c.full.extent[c.dim], s.size, x[c.dim]), x, dims);
    case COCONET_ALL_TO_ALL:
        return gen<T>(s.first + owner(c.full.extent[c.concat_dim], s.size, x[c.concat_dim]), x,
                      dims);
    default:
        if (c.dim >= 0) { // SEND_RECV of a sliced value: re-sliced, each element from its owner
            return gen<T>(s.first + owner(c.full.extent[c.dim], s.size, x[c.dim]), x, dims);
        }
        // Otherwise group rank i of dst gets group rank i (mod |src|) of src.
        return gen<T>(s.first + (p - d.first) % s.size, x, dims);
    }
}

int call(coconet_comm *comm, const Case &c, halide_buffer_t *in, halide_buffer_t *out) {
    coconet_collective_desc d = make_desc(c.kind, c.full);
    d.op = c.op;
    d.root = c.root;
    d.dim = c.dim;
    d.concat_dim = c.concat_dim;
    d.local_value = c.local_value ? 1 : 0;
    d.nsplit = c.nsplit;
    d.group = c.group;
    d.dst_group = c.dst_group;
    if (c.chunks > 0) {
        d.chunk_dim = c.dim;
        d.chunks = c.chunks;
        d.chunk_index = c.chunk_index;
    }
    return coconet_collective_call(comm, c.name.c_str(), &d, in, out);
}

// Runs one case on rank r; returns "" or what went wrong.
template<typename T>
std::string run_case(const Case &c, int R, int r, coconet_comm *comm) {
    std::ostringstream err;
    const TBox want_in = expected_in_box(c, R, r);
    // Bounds query: the runtime fills in the box of the input it needs.
    TBox zero = empty_box(c.full.dims);
    Buf query(c.type, zero, false, true), dummy(c.type, choose_out(c, R, r), false);
    int rc = call(comm, c, &query.b, &dummy.b);
    TBox got;
    got.dims = c.full.dims;
    for (int d = 0; d < got.dims; d++) {
        got.min[d] = query.dim[d].min;
        got.extent[d] = query.dim[d].extent;
    }
    if (rc != COCONET_OK || !(got == want_in)) {
        err << "bounds query: rc " << rc << ", box " << got.str() << ", expected " << want_in.str()
            << "; ";
    }
    Buf in(c.type, want_in, c.strided), out(c.type, choose_out(c, R, r), c.strided);
    for_each_point(want_in, [&](const int64_t *x) { in.at<T>(x) = gen<T>(r, x, c.full.dims); });
    rc = call(comm, c, &in.b, &out.b);
    if (rc != COCONET_OK) {
        err << "rc " << rc << ": " << coconet_comm_last_error(comm);
        return err.str();
    }
    // Bit for bit, except float sums and products where the communicator lets
    // the collective library pick the order (MPI's native path).
    const bool rounds = std::is_floating_point<T>::value && !coconet_comm_deterministic(comm) &&
                        (c.op == COCONET_SUM || c.op == COCONET_PROD) &&
                        (c.kind == COCONET_ALL_REDUCE || c.kind == COCONET_REDUCE_SCATTER ||
                         c.kind == COCONET_REDUCE);
    int bad = 0;
    for_each_point(out.box, [&](const int64_t *x) {
        const T e = expected<T>(c, R, r, x), g = out.at<T>(x);
        const bool close =
            rounds && std::fabs((double)e - (double)g) <= 1e-5 * (1 + std::fabs((double)e));
        if (!close && std::memcmp(&e, &g, sizeof(T)) != 0 && bad++ < 3) {
            err << "at (" << x[0] << "," << x[1] << "," << x[2] << "," << x[3] << ") got " << +g
                << " expected " << +e << "; ";
        }
    });
    if (!out.gaps_intact()) {
        err << "wrote outside the output box; ";
    }
    return err.str();
}

// The cases for R ranks: every kind, on shapes divisible and not by R (and
// smaller than R), sliced along every dimension in turn, over groups.
std::vector<Case> make_cases(int R) {
    std::vector<Case> cases;
    auto box = [](std::vector<int64_t> n) {
        TBox b;
        b.dims = (int)n.size();
        for (int d = 0; d < b.dims; d++) {
            b.extent[d] = n[d];
        }
        return b;
    };
    std::vector<TBox> shapes1 = {box({3 * R}), box({3 * R + 1}), box({1})};
    if (R > 2) {
        shapes1.push_back(box({R - 1}));
    }
    const std::vector<TBox> shapes_nd = {box({5, 2 * R + 1}), box({R + 1, 3}), box({3, R + 2, 2}),
                                         box({2, 3, R, 2})};
    auto slice_dims = [](const TBox &s) {
        return s.dims == 1 ? std::vector<int>{0} : std::vector<int>{0, 1, s.dims - 1};
    };
    std::vector<std::pair<int, int>> groupings = {{1, 0}};
    if (R >= 2) {
        groupings.push_back({2, 0});
        groupings.push_back({2, 1});
    }
    if (R >= 5) {
        groupings.push_back({3, 2});
    }
    int serial = 0;
    auto add = [&](Case c) {
        c.out_mode = serial % 3;
        c.strided = (serial / 3) % 2 == 1;
        c.name = "c" + std::to_string(serial++);
        cases.push_back(c);
    };
    for (auto [nsplit, group] : groupings) {
        const int gsize = grp(R, nsplit, group).size;
        // Reductions: every type and op on 1-D shapes, a few on N-D ones.
        for (int kind : {COCONET_ALL_REDUCE, COCONET_REDUCE_SCATTER, COCONET_REDUCE}) {
            for (const halide_type_t &t : kAllTypes) {
                for (int op : {COCONET_SUM, COCONET_PROD, COCONET_MAX, COCONET_MIN}) {
                    for (const TBox &s : shapes1) {
                        Case c;
                        c.kind = kind, c.op = op, c.type = t, c.full = s;
                        c.nsplit = nsplit, c.group = group, c.dst_group = group;
                        c.dim = 0;
                        c.root = (op + (int)t.bits) % gsize;
                        add(c);
                    }
                }
            }
            for (const TBox &s : shapes_nd) {
                for (int a : slice_dims(s)) {
                    for (halide_type_t t : {type_of<float>(), type_of<int32_t>()}) {
                        Case c;
                        c.kind = kind, c.op = a % 2 ? COCONET_SUM : COCONET_MAX, c.type = t;
                        c.full = s, c.nsplit = nsplit, c.group = group, c.dst_group = group;
                        c.dim = a, c.root = gsize - 1;
                        add(c);
                        if (kind == COCONET_REDUCE_SCATTER) {
                            // A chunk of an overlap along the sliced dimension.
                            c.chunks = 2 + serial % 2;
                            c.chunk_index = serial % c.chunks;
                            add(c);
                        }
                    }
                }
            }
        }
        // Data movement: a few types (copies do not depend on the type beyond its size).
        for (halide_type_t t :
             {type_of<float>(), type_of<double>(), type_of<int8_t>(), type_of<uint16_t>()}) {
            std::vector<TBox> all = shapes1;
            all.insert(all.end(), shapes_nd.begin(), shapes_nd.end());
            for (const TBox &s : all) {
                for (int a : slice_dims(s)) {
                    Case c;
                    c.type = t, c.full = s, c.nsplit = nsplit, c.group = group;
                    c.dst_group = group;
                    c.kind = COCONET_ALL_GATHER, c.dim = a;
                    add(c);
                    c.kind = COCONET_BROADCAST, c.dim = -1, c.root = (a + 1) % gsize;
                    add(c);
                    if (s.dims >= 2) {
                        c.kind = COCONET_ALL_TO_ALL;
                        c.dim = a, c.concat_dim = a == 0 ? 1 : 0;
                        add(c);
                        std::swap(c.dim, c.concat_dim);
                        add(c);
                        c.chunks = 2 + serial % 2;
                        c.chunk_index = (serial / 2) % c.chunks;
                        add(c);
                        c.chunks = c.chunk_index = 0;
                    }
                }
            }
        }
    }
    // send between groups: replicated values (any sizes: receiver i reads sender i mod
    // |src|), sliced ones (re-sliced, any sizes) and Local ones (equal sizes only).
    std::vector<std::pair<int, std::pair<int, int>>> sends;
    if (R >= 2) {
        sends.push_back({2, {0, 1}});
        sends.push_back({2, {1, 0}});
    }
    if (R >= 3) {
        sends.push_back({3, {2, 0}});
        sends.push_back({3, {0, 2}});
    }
    for (auto [nsplit, gs] : sends) {
        const bool same = grp(R, nsplit, gs.first).size == grp(R, nsplit, gs.second).size;
        for (halide_type_t t : {type_of<float>(), type_of<int64_t>()}) {
            for (const TBox &s : {box({3 * R + 1}), box({4, R + 1}), box({2, 3, R - 1})}) {
                for (int a : {-1, 0, s.dims - 1}) {
                    Case c;
                    c.kind = COCONET_SEND_RECV, c.type = t, c.full = s, c.dim = a;
                    c.nsplit = nsplit, c.group = gs.first, c.dst_group = gs.second;
                    add(c);
                    if (a < 0 && same) {
                        c.local_value = true;
                        add(c);
                    }
                }
            }
        }
    }
    return cases;
}

} // namespace

#endif
