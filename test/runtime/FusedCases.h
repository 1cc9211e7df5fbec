// Shared by the tests of fused reduce-scatters (coconet_fused_reduce_scatter)
// on both backends (threads/test_runtime_threads.cpp, mpi/mpi_fused_check.cpp;
// the kernel also by fault/mpi_fault_check.cpp): the cases, a kernel, and a
// check of one case on one rank against a naive reference computed here from
// every rank's input (deterministic from (rank, index)).
//
// The kernel computes r = srcs[0] op srcs[1] op ... over its chunk and writes
// out0 = 2 r + 1 (this rank's slice; gathered too in a replicable case) and
// out1 = r - 1 (gathered: the full box on every group member). Everything lives in namespace
// fused_test, as inline functions and templates, so that a program may use only part of it.
#ifndef COCONET_TEST_FUSED_CASES_H
#define COCONET_TEST_FUSED_CASES_H

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/Box.h"
#include "core/Reduce.h"
#include "coconet_runtime.h"

namespace fused_test {

using coconet_rt::Box;

// ---- The test's own partitioning (deliberately not the runtime's). ----------

struct Members {
    int first, size;
    bool has(int r) const { return r >= first && r < first + size; }
};

inline Members members_of(int world, int nsplit, int g) {
    const int first = g * world / nsplit;
    return Members{first, (g + 1) * world / nsplit - first};
}

// Member `local`'s slice of `full` along dim: blocks of ceil(n / parts);
// with pieces > 0, piece `piece` of it, cut the same way.
inline Box slice_box(Box full, int dim, int parts, int local, int pieces = 0, int piece = 0) {
    const int64_t n = full.extent[dim], block = (n + parts - 1) / parts;
    int64_t begin = std::min(n, local * block), end = std::min(n, (local + 1) * block);
    if (pieces > 0) {
        const int64_t s = end - begin, b = (s + pieces - 1) / pieces;
        end = begin + std::min(s, (piece + 1) * b);
        begin += std::min(s, piece * b);
    }
    full.min[dim] = begin;
    full.extent[dim] = end - begin;
    return full;
}

// ---- Cases -------------------------------------------------------------------

struct FusedCase {
    std::string name;
    Box full; // min 0
    int dim = 0;
    int op = COCONET_SUM;
    halide_type_t type = halide_type_t(halide_type_float, 32);
    int nsplit = 1, group = 0;
    int64_t chunk = 0; // chunk_elements
    bool strided = false;
    // > 0: one chunk of an overlap along the sliced dimension, piece `piece`
    // of `pieces` of every member's slice.
    int pieces = 0, piece = 0;
    // Both outputs gathered and the call replicable (coconet_fused_call::replicable).
    bool replicable = false;
    // Mixed into the inputs: consecutive cases differ in data even where they
    // match in shape, so that a read of a previous call's posted data shows.
    int salt = 0;

    std::string str() const {
        std::ostringstream s;
        s << name << " " << full.to_string() << " dim " << dim << " op "
          << coconet_rt::reduce_op_name(op) << " " << coconet_rt::type_name(type) << " group "
          << group << " of split(" << nsplit << ") chunk " << chunk << (strided ? " strided" : "");
        if (pieces > 0) {
            s << " piece " << piece << " of " << pieces;
        }
        if (replicable) {
            s << " replicable";
        }
        return s.str();
    }
};

// Shapes that do not divide by the group size (also smaller than the group),
// sliced along dimension 0 and 1, sum and max, float and int32, over the world
// and both groups of world.split(2), in chunks of 3 or 5 elements (so several
// kernel calls run) or the default; every third also replicable.
inline std::vector<FusedCase> make_fused_cases(int R) {
    auto box = [](std::vector<int64_t> n) {
        Box b;
        b.dims = (int)n.size();
        for (int d = 0; d < b.dims; d++) {
            b.extent[d] = n[d];
        }
        return b;
    };
    std::vector<std::pair<Box, int>> shapes = {
        {box({2 * R + 1}), 0},
        {box({1}), 0},
        {box({7}), 0},
        {box({5, 2 * R + 1}), 0},
        {box({5, 2 * R + 1}), 1},
        {box({R + 1, 3}), 0},
        {box({R + 1, 3}), 1},
        {box({67, 40}), 1}, // grows the MPI shared window
    };
    if (R > 2) {
        shapes.push_back({box({R - 1}), 0});
    }
    std::vector<std::pair<int, int>> groupings = {{1, 0}};
    if (R >= 2) {
        groupings.push_back({2, 0});
        groupings.push_back({2, 1});
    }
    const int64_t chunks[3] = {3, 5, 0};
    std::vector<FusedCase> cases;
    int serial = 0;
    for (auto [nsplit, group] : groupings) {
        for (const auto &[full, dim] : shapes) {
            for (int op : {COCONET_SUM, COCONET_MAX}) {
                for (halide_type_t t :
                     {halide_type_t(halide_type_float, 32), halide_type_t(halide_type_int, 32)}) {
                    FusedCase c;
                    c.name = "f" + std::to_string(serial);
                    c.full = full, c.dim = dim, c.op = op, c.type = t;
                    c.nsplit = nsplit, c.group = group;
                    c.chunk = chunks[serial % 3];
                    c.strided = (serial / 3) % 2 == 1;
                    cases.push_back(c);
                    if (serial % 4 == 1) {
                        c.name += "p";
                        c.pieces = 2 + serial % 3;
                        c.piece = serial % c.pieces;
                        cases.push_back(c);
                    }
                    if (serial % 3 == 0) {
                        c.name += "r";
                        c.replicable = true;
                        cases.push_back(c);
                    }
                    serial++;
                }
            }
        }
    }
    for (size_t k = 0; k < cases.size(); k++) {
        cases[k].salt = (int)k;
    }
    return cases;
}

// ---- Buffers -----------------------------------------------------------------

const uint8_t kGap = 0xCD;

// A buffer over a global box; strided: elements 2 apart and padded rows, so
// that writes outside the box show up as changed gap bytes.
// Memory a test hands out to buffers (window memory of coconet_mpi_alloc):
// a bump allocator over [base, base + bytes), reset between cases.
struct Arena {
    uint8_t *base = nullptr;
    size_t bytes = 0, used = 0;
    // n bytes, 64-byte aligned; null when the arena is full.
    uint8_t *take(size_t n) {
        const size_t at = (used + 63) / 64 * 64;
        if (!base || at + n > bytes) {
            return nullptr;
        }
        used = at + n;
        return base + at;
    }
};

struct FusedBuf {
    // In `arena` when given (and not full), else in memory of its own.
    FusedBuf(halide_type_t type, const Box &bx, bool strided, Arena *arena = nullptr) : box(bx) {
        int64_t stride = strided ? 2 : 1, elements = 1;
        for (int d = 0; d < box.dims; d++) {
            dim[d] =
                halide_dimension_t((int32_t)box.min[d], (int32_t)box.extent[d], (int32_t)stride);
            elements += std::max<int64_t>(box.extent[d] - 1, 0) * stride;
            stride = std::max<int64_t>(stride * (box.extent[d] + (strided ? 1 : 0)), 1);
        }
        size = (size_t)elements * type.bytes();
        mem = arena ? arena->take(size) : nullptr;
        if (!mem) {
            own.resize(size);
            mem = own.data();
        }
        std::memset(mem, kGap, size);
        b.type = type;
        b.dimensions = box.dims;
        b.dim = dim;
        b.host = mem;
    }
    FusedBuf(const FusedBuf &) = delete; // b points into this object
    FusedBuf &operator=(const FusedBuf &) = delete;

    template<typename T>
    T &at(const int64_t *x) {
        return *reinterpret_cast<T *>(coconet_rt::element_address(&b, x));
    }
    // Whether every byte outside the box still holds kGap.
    bool gaps_intact() const {
        std::vector<bool> in_box(size, false);
        coconet_rt::for_each_row(box, [&](const int64_t *x, int64_t n) {
            const size_t at = coconet_rt::element_address(&b, x) - mem;
            for (int64_t k = 0; k < n; k++) {
                for (int byte = 0; byte < b.type.bytes(); byte++) {
                    in_box[at + (k * dim[0].stride) * b.type.bytes() + byte] = true;
                }
            }
        });
        for (size_t i = 0; i < size; i++) {
            if (!in_box[i] && mem[i] != kGap) {
                return false;
            }
        }
        return true;
    }

    halide_buffer_t b{};
    halide_dimension_t dim[4];
    std::vector<uint8_t> own;
    uint8_t *mem = nullptr;
    size_t size = 0;
    Box box;
};

// Calls f(x) for every point of the box.
template<typename F>
void for_each_point(const Box &box, F &&f) {
    coconet_rt::for_each_row(box, [&](const int64_t *x, int64_t n) {
        int64_t p[coconet_rt::kMaxDims];
        std::memcpy(p, x, sizeof(p));
        for (int64_t k = 0; k < n; k++, p[0]++) {
            f(p);
        }
    });
}

// ---- Inputs, the kernel and the reference ---------------------------------------

// Rank q's input at x: float sums round, so that another order would show.
template<typename T>
T input(int q, const int64_t *x, int dims, int salt = 0) {
    int64_t h = 13 * q + 5 + 101 * salt;
    for (int d = 0; d < dims; d++) {
        h = h * 37 + x[d] * (d + 3);
    }
    const int64_t v = ((h % 29) + 29) % 29 - 14; // in [-14, 14]
    if (std::is_floating_point<T>::value) {
        return (T)(v * 0.1 + q * 0.017 + 1.0 / 7.0);
    }
    return (T)v;
}

template<typename T>
T out0_of(T r) {
    return (T)(T(2) * r + T(1));
}
template<typename T>
T out1_of(T r) {
    return (T)(r - T(1));
}

// What the kernel saw, for the checks (each rank has its own).
struct KernelLog {
    coconet_comm *comm = nullptr;
    int op = COCONET_SUM;
    int calls = 0;
    int nsrc_min = 1 << 30, nsrc_max = 0;
    int64_t largest_chunk = 0;
    std::string error;
};

// The fused kernel: the ordered reduction of the sources over the chunk (the
// outputs' box), then both outputs. Refuses sources that miss the chunk.
inline int fused_kernel(void *context, int32_t nsrc, const halide_buffer_t *const *srcs,
                        halide_buffer_t *const *outs) {
    KernelLog &log = *static_cast<KernelLog *>(context);
    const Box chunk = coconet_rt::box_of(outs[0]);
    log.calls++;
    log.nsrc_min = std::min<int>(log.nsrc_min, nsrc);
    log.nsrc_max = std::max<int>(log.nsrc_max, nsrc);
    log.largest_chunk = std::max(log.largest_chunk, chunk.count());
    for (int s = 0; s < nsrc; s++) {
        if (!coconet_rt::box_of(srcs[s]).contains(chunk)) {
            log.error = "source " + std::to_string(s) + " holds " +
                        coconet_rt::box_of(srcs[s]).to_string() + ", not the chunk " +
                        chunk.to_string();
            coconet_comm_set_error(log.comm, log.error.c_str());
            return COCONET_ERR_INVALID;
        }
    }
    coconet_rt::with_element_type(outs[0]->type, [&](auto zero) {
        using T = decltype(zero);
        for_each_point(chunk, [&](const int64_t *x) {
            T r = *reinterpret_cast<const T *>(coconet_rt::element_address(srcs[0], x));
            for (int s = 1; s < nsrc; s++) {
                const T v = *reinterpret_cast<const T *>(coconet_rt::element_address(srcs[s], x));
                r = coconet_rt::reduce_combine<T>(log.op, r, v);
            }
            *reinterpret_cast<T *>(coconet_rt::element_address(outs[0], x)) = out0_of(r);
            *reinterpret_cast<T *>(coconet_rt::element_address(outs[1], x)) = out1_of(r);
        });
    });
    return COCONET_OK;
}

// The reduction over the group in rank order, written independently.
template<typename T>
T reference(const FusedCase &c, const Members &g, const int64_t *x) {
    T acc = input<T>(g.first, x, c.full.dims, c.salt);
    for (int q = g.first + 1; q < g.first + g.size; q++) {
        const T v = input<T>(q, x, c.full.dims, c.salt);
        acc = c.op == COCONET_SUM ? (T)(acc + v) : std::max(acc, v);
    }
    return acc;
}

// Fills the fixed fields of a call (names, sizes, buffers are the caller's).
inline coconet_fused_call make_call(const FusedCase &c, const char *name, int path,
                                    const halide_buffer_t *src, halide_buffer_t *const *outs,
                                    const int32_t *gathered, KernelLog *log) {
    coconet_fused_call call = coconet_fused_call_init();
    call.name = name;
    call.op = c.op;
    call.dim = c.dim;
    call.nsplit = c.nsplit;
    call.group = c.group;
    call.dims = c.full.dims;
    for (int d = 0; d < 4; d++) {
        call.n[d] = d < c.full.dims ? (int32_t)c.full.extent[d] : 1;
    }
    call.src = src;
    call.nout = 2;
    call.outs = outs;
    call.gathered = gathered;
    call.kernel = fused_kernel;
    call.kernel_context = log;
    call.chunk_elements = c.chunk;
    call.path = path;
    call.replicable = c.replicable ? 1 : 0;
    if (c.pieces > 0) {
        call.ranged = 1;
        call.range_dim = c.dim;
        call.pieces = c.pieces;
        call.piece = c.piece;
    }
    return call;
}

// One small call over the world on rank r of R: a 1-D float sum of n
// elements, one slice output and one gathered output; inputs from (rank, index).
struct SmallCall {
    static FusedCase one_dim(int64_t n, bool replicable = false) {
        FusedCase c;
        c.full.dims = 1;
        c.full.extent[0] = n;
        c.replicable = replicable;
        return c;
    }

    // `replicable`: both outputs gathered, and the call replicable.
    SmallCall(coconet_comm *comm, int R, int r, const char *name, int path, int64_t n,
              Arena *arena = nullptr, bool replicable = false)
        : c(one_dim(n, replicable)), src(c.type, c.full, false, arena),
          out0(c.type, replicable ? c.full : slice_box(c.full, 0, R, r), false, arena),
          out1(c.type, c.full, false, arena), gathered{replicable ? 1 : 0, 1} {
        for_each_point(c.full, [&](const int64_t *x) { src.at<float>(x) = input<float>(r, x, 1); });
        log.comm = comm;
        call = make_call(c, name, path, &src.b, outs, gathered, &log);
    }

    FusedCase c;
    FusedBuf src, out0, out1;
    halide_buffer_t *outs[2] = {&out0.b, &out1.b};
    const int32_t gathered[2];
    KernelLog log;
    coconet_fused_call call{};
};

// Runs case c on rank r of R with `path` (every rank of the world calls it;
// non-members return at once); returns "" or what went wrong.
template<typename T>
std::string run_fused_case(const FusedCase &c, int R, int r, coconet_comm *comm, int path,
                           Arena *arena) {
    const Members g = members_of(R, c.nsplit, c.group);
    const bool member = g.has(r);
    Box nothing = c.full;
    nothing.extent[c.full.dims - 1] = 0;
    const Box mine =
        member ? slice_box(c.full, c.dim, g.size, r - g.first, c.pieces, c.piece) : nothing;
    if (arena) {
        arena->used = 0;
    }
    FusedBuf src(c.type, member ? c.full : nothing, c.strided, arena);
    FusedBuf out0(c.type, c.replicable && member ? c.full : mine, c.strided, arena),
        out1(c.type, member ? c.full : nothing, !c.strided, arena);
    for_each_point(src.box,
                   [&](const int64_t *x) { src.at<T>(x) = input<T>(r, x, c.full.dims, c.salt); });
    halide_buffer_t *outs[2] = {&out0.b, &out1.b};
    const int32_t gathered[2] = {c.replicable ? 1 : 0, 1};
    KernelLog log;
    log.comm = comm;
    log.op = c.op;
    const coconet_fused_call call =
        make_call(c, c.name.c_str(), path, &src.b, outs, gathered, &log);
    const int rc = coconet_fused_reduce_scatter(comm, &call);
    std::ostringstream err;
    if (rc != COCONET_OK) {
        err << "rc " << rc << ": " << coconet_comm_last_error(comm);
        return err.str();
    }
    if (!member) {
        if (log.calls) {
            err << "a rank outside the group ran the kernel; ";
        }
        return err.str();
    }
    // Sources: the group's on the direct path, (partial, own) on the ring.
    const int want_nsrc = coconet_fused_sources(comm, path, g.size);
    if (log.calls && (log.nsrc_min != want_nsrc || log.nsrc_max != want_nsrc)) {
        err << "the kernel got " << log.nsrc_min << ".." << log.nsrc_max << " sources, expected "
            << want_nsrc << "; ";
    }
    if (!log.error.empty()) {
        err << log.error << "; ";
    }
    if (!mine.empty() && log.calls == 0) {
        err << "the kernel never ran; ";
    }
    // Chunks are cut along the outermost dimension: at most max(chunk, row)
    // elements (a replicated pass cuts every member's box, rows of the full box at most).
    const Box &cut = c.replicable ? c.full : mine;
    const int64_t row = cut.count() / std::max<int64_t>(cut.extent[cut.dims - 1], 1);
    if (c.chunk > 0 && log.largest_chunk > std::max(c.chunk, row)) {
        err << "a chunk of " << log.largest_chunk << " elements, asked for " << c.chunk << "; ";
    }
    // The ring reduces each block in a rotation of rank order: float sums of
    // 3 or more ranks may differ in the last bits.
    const bool rotated = coconet_fused_resolve_path(comm, path) == COCONET_PATH_RING &&
                         g.size > 2 && c.op == COCONET_SUM && std::is_floating_point<T>::value;
    int bad = 0;
    auto compare = [&](FusedBuf &out, const Box &box, T (*f)(T), const char *which) {
        for_each_point(box, [&](const int64_t *x) {
            const T e = f(reference<T>(c, g, x)), got = out.at<T>(x);
            const bool ok =
                rotated ? std::fabs((double)got - (double)e) <= 1e-5 * (1.0 + std::fabs((double)e))
                        : std::memcmp(&e, &got, sizeof(T)) == 0;
            if (!ok && bad++ < 3) {
                err << which << " at (" << x[0] << "," << x[1] << ") got " << +got << " expected "
                    << +e << "; ";
            }
        });
        if (!out.gaps_intact()) {
            err << which << ": written outside its box; ";
        }
    };
    auto compare_gathered = [&](FusedBuf &out, T (*f)(T), const char *which) {
        if (c.pieces == 0) {
            compare(out, c.full, f, which);
            return;
        }
        // Every member's piece; the rest of the output is not the call's.
        for (int q = g.first; q < g.first + g.size; q++) {
            compare(out, slice_box(c.full, c.dim, g.size, q - g.first, c.pieces, c.piece), f,
                    which);
        }
    };
    if (c.replicable) {
        compare_gathered(out0, out0_of<T>, "out0 (gathered)");
    } else {
        compare(out0, mine, out0_of<T>, "out0");
    }
    compare_gathered(out1, out1_of<T>, "out1 (gathered)");
    return err.str();
}

// Runs every case on this rank, its buffers in `arena` when given (strided
// ones cannot be used in place there: both kinds meet in one call); returns
// the first failures (at most `keep`).
inline std::vector<std::string> run_fused_cases(int R, int r, coconet_comm *comm, int path,
                                                size_t *ncases, size_t keep = 10,
                                                Arena *arena = nullptr,
                                                bool only_replicable = false) {
    std::vector<FusedCase> cases = make_fused_cases(R);
    if (only_replicable) {
        cases.erase(std::remove_if(cases.begin(), cases.end(),
                                   [](const FusedCase &c) { return !c.replicable; }),
                    cases.end());
    }
    *ncases = cases.size();
    std::vector<std::string> failures;
    for (const FusedCase &c : cases) {
        const std::string e = c.type.code == halide_type_float
                                  ? run_fused_case<float>(c, R, r, comm, path, arena)
                                  : run_fused_case<int32_t>(c, R, r, comm, path, arena);
        if (!e.empty() && failures.size() < keep) {
            failures.push_back(c.str() + ": " + e);
        }
    }
    return failures;
}

} // namespace fused_test

#endif
