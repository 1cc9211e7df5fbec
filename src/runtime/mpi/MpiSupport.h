// What the MPI backend's parts share: message tags, call signatures, MPI
// types and operations for halide types, flattened boxes and the layouts of
// shared windows. Only with COCONET_HAS_MPI.
#ifndef COCONET_RUNTIME_MPI_MPI_SUPPORT_H
#define COCONET_RUNTIME_MPI_MPI_SUPPORT_H

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include "core/Comm.h"
#include "core/Env.h"
#include "core/Errors.h"
#include "core/Fault.h"
#include "core/FlagBarrier.h"
#include "core/Pack.h"
#include "core/Reduce.h"
#include "core/Scratch.h"
#include "core/Watchdog.h"

using coconet_rt::Box;
using coconet_rt::FusedPlan;
using coconet_rt::Group;
using coconet_rt::Op;
using coconet_rt::PackedBox;

namespace coconet_rt::mpi {

inline bool initialized_here = false;

// > 0 once a call of this process timed out or failed: the timeout of its
// communicator. A peer may then be dead or frozen, and MPI_Finalize would
// wait for it forever.
inline std::atomic<double> failed_timeout{0.0};

// Whether every rank reaches this point (a barrier), within `seconds` when
// positive.
inline bool all_arrive(double seconds) {
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    if (seconds <= 0) {
        return MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    }
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(seconds));
    for (int done = 0;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done) {
            return true;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

// Messages of different kinds never match each other; messages of the same
// kind between two ranks match in call order (MPI's non-overtaking rule).
constexpr int kTagBase = 7000;

// Fused reduce-scatters: call signatures, ring steps, slices of gathered
// outputs; and the tag base of the group communicators' creation.
constexpr int kFusedTag = kTagBase + COCONET_FUSED;
constexpr int kRingTag = kTagBase + 100;
constexpr int kGatherTag = kTagBase + 101;
constexpr int kStatusTag = kTagBase + 102;
// Pieces of all-to-all exchanges too large for MPI_Ialltoallv's int counts.
constexpr int kExchangeTag = kTagBase + 103;
// A rank's abort notice (on the communicator's own duplicate of the world).
constexpr int kAbortTag = kTagBase + 104;
constexpr int kGroupCommTag = 8000;

// What a member publishes with its arrival at a window's flag barrier.
enum ArrivalWord : int64_t {
    kArrivedOk = 0,
    kKernelFailed = 1, // its fused kernel failed (the pass's other members stop too)
    kAborted = 2,      // it aborted the communicator and will not meet again
};

using Parts = std::vector<std::unique_ptr<PackedBox>>;
// The box a rank sends to / receives from peer q; an empty box means nothing.
using BoxFor = std::function<Box(int q)>;

// What a group member tells the others before a call moves any data: the
// call (hashed where it is long) and the path this rank resolved, so that
// every member can tell whether all made the same call.
struct FusedSignature {
    int64_t name_hash, op, dim, nsplit, group, dims, n[4], nout, outs_hash, type_code, type_bits;
    int64_t path;  // last: compared apart, for a message of its own
    char name[64]; // "all_reduce 'g'", for messages (the hash is compared)

    bool same_call(const FusedSignature &o) const {
        return std::memcmp(this, &o, offsetof(FusedSignature, path)) == 0;
    }
};

// dst = the parts one after another, cut to fit: what snprintf writes,
// without its cost on every fused call.
template<size_t N>
inline void join_into(char (&dst)[N], std::initializer_list<const char *> parts) {
    size_t at = 0;
    for (const char *p : parts) {
        for (; *p && at + 1 < N; p++) {
            dst[at++] = *p;
        }
    }
    dst[at] = 0;
}

inline uint64_t fnv1a(uint64_t h, uint64_t v) {
    for (int k = 0; k < 8; k++) {
        h = (h ^ ((v >> (8 * k)) & 0xff)) * 1099511628211ull;
    }
    return h;
}

constexpr uint64_t kFnvBasis = 1469598103934665603ull;

// The hash of a name, byte by byte.
inline uint64_t fnv1a_text(const char *text) {
    uint64_t h = kFnvBasis;
    for (const char *p = text; *p; p++) {
        h = fnv1a(h, (uint8_t)*p);
    }
    return h;
}

inline FusedSignature fused_signature(const FusedPlan &plan, int64_t path) {
    const coconet_fused_call &c = plan.call;
    FusedSignature s;
    std::memset(&s, 0, sizeof(s));
    uint64_t name_hash = fnv1a_text(c.name ? c.name : ""), outs_hash = kFnvBasis;
    // The range of an overlapped pass's chunk is part of the call.
    if (c.ranged) {
        name_hash = fnv1a(fnv1a(fnv1a(name_hash, (uint64_t)c.range_dim), (uint64_t)c.range_min),
                          (uint64_t)c.range_extent);
        name_hash = fnv1a(fnv1a(name_hash, (uint64_t)c.pieces), (uint64_t)c.piece);
    }
    for (int i = 0; i < c.nout; i++) {
        outs_hash =
            fnv1a(outs_hash, (uint64_t)c.gathered[i] << 32 | (uint64_t)c.outs[i]->type.code << 8 |
                                 c.outs[i]->type.bits);
    }
    s.name_hash = (int64_t)name_hash;
    s.op = c.op, s.dim = c.dim, s.nsplit = c.nsplit, s.group = c.group, s.dims = c.dims;
    for (int d = 0; d < 4; d++) {
        s.n[d] = c.n[d];
    }
    s.nout = c.nout;
    s.outs_hash = (int64_t)fnv1a(outs_hash, (uint64_t)c.replicable);
    s.type_code = c.src ? c.src->type.code : -1, s.type_bits = c.src ? c.src->type.bits : 0;
    s.path = path;
    join_into(s.name, {"fused reduce_scatter '", c.name ? c.name : "", "'"});
    return s;
}

// Paths of unfused calls in a signature, and of a fused call on the direct
// path that runs replicated (others use coconet_fused_path).
constexpr int64_t kNativePath = 10, kDeterministicPath = 11, kReplicatedPath = 12;

// An unfused call's signature: the fields Op::same_call compares.
inline FusedSignature op_signature(const Op &op, int64_t path) {
    FusedSignature s;
    std::memset(&s, 0, sizeof(s));
    uint64_t name_hash = fnv1a_text(op.name.c_str()), detail = kFnvBasis;
    if (op.chunk_dim >= 0) {
        name_hash = fnv1a(fnv1a(fnv1a(name_hash, (uint64_t)op.chunk_dim), (uint64_t)op.chunk_min),
                          (uint64_t)op.chunk_extent);
        name_hash = fnv1a(fnv1a(name_hash, (uint64_t)op.chunks), (uint64_t)op.chunk_index);
    }
    const bool reduces = op.kind == COCONET_ALL_REDUCE || op.kind == COCONET_REDUCE_SCATTER ||
                         op.kind == COCONET_REDUCE;
    const bool rooted = op.kind == COCONET_BROADCAST || op.kind == COCONET_REDUCE;
    s.name_hash = (int64_t)name_hash;
    s.op = reduces ? op.red : 0;
    s.dim = op.kind == COCONET_ALL_REDUCE || rooted ? 0 : op.dim;
    s.nsplit = op.nsplit, s.group = op.src.index, s.dims = op.dims;
    for (int d = 0; d < op.dims; d++) {
        s.n[d] = op.n[d];
    }
    s.nout = -1 - op.kind; // never a fused call's count of outputs
    detail = fnv1a(fnv1a(detail, op.kind == COCONET_ALL_TO_ALL ? op.concat_dim : 0),
                   rooted ? op.root : 0);
    s.outs_hash = (int64_t)detail;
    s.type_code = -1; // the buffers' types are checked against the reference's own
    s.path = path;
    std::snprintf(s.name, sizeof(s.name), "%s", op.what().c_str());
    return s;
}

// A barrier's signature: `call` says which barrier (a caller's
// coconet_barrier, or one of the runtime's own), so that ranks in different
// barriers, or one in a barrier and another in a collective, are refused
// naming each other instead of passing each other.
inline FusedSignature barrier_signature(const char *call, const std::string &label) {
    FusedSignature s;
    std::memset(&s, 0, sizeof(s));
    s.name_hash = (int64_t)fnv1a_text(call);
    s.nout = INT32_MIN; // neither a fused call's count of outputs nor a collective's kind
    s.type_code = -1;
    std::snprintf(s.name, sizeof(s.name), "%s", label.c_str());
    return s;
}

inline const char *path_name(int64_t path) {
    switch (path) {
    case COCONET_PATH_RING: return "ring";
    case kNativePath: return "native";
    case kDeterministicPath: return "deterministic";
    case kReplicatedPath: return "replicated direct";
    default: return "direct";
    }
}

// Whether unfused collectives take MPI's own reductions (COCONET_MPI_COLLECTIVES
// unset or `native`) or the rank-order path (`deterministic`).
inline bool native_from_env() {
    return coconet_rt::env_is("COCONET_MPI_COLLECTIVES", {"native", "deterministic"}, "native");
}

// MPI's type for moving elements of `bytes` bytes, with no arithmetic on them.
inline MPI_Datatype word_type(int bytes) {
    switch (bytes) {
    case 1: return MPI_UINT8_T;
    case 2: return MPI_UINT16_T;
    case 4: return MPI_UINT32_T;
    default: return MPI_UINT64_T;
    }
}

// MPI's type for reducing elements of t (a supported type).
inline MPI_Datatype arith_type(const halide_type_t &t) {
    if (t.code == halide_type_float) {
        return t.bits == 32 ? MPI_FLOAT : MPI_DOUBLE;
    }
    const bool is_signed = t.code == halide_type_int;
    switch (t.bits) {
    case 8: return is_signed ? MPI_INT8_T : MPI_UINT8_T;
    case 16: return is_signed ? MPI_INT16_T : MPI_UINT16_T;
    case 32: return is_signed ? MPI_INT32_T : MPI_UINT32_T;
    default: return is_signed ? MPI_INT64_T : MPI_UINT64_T;
    }
}

// Two's-complement sums of 8- and 16-bit integers, which wrap around as the
// reference's do. Open MPI 4.1's `avx` op component saturates them instead
// (100 + 100 + 100 gives 127 for MPI_INT8_T), so MPI_SUM cannot be used there.
template<typename T>
inline void wrap_add(const void *in, void *inout, int n) {
    const T *a = static_cast<const T *>(in);
    T *b = static_cast<T *>(inout);
    for (int i = 0; i < n; i++) {
        b[i] = (T)(a[i] + b[i]);
    }
}

inline void wrapping_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
    if (*type == MPI_INT8_T || *type == MPI_UINT8_T) {
        wrap_add<uint8_t>(in, inout, *len);
    } else {
        wrap_add<uint16_t>(in, inout, *len);
    }
}

// MPI's reduction for `red` on elements of t.
inline MPI_Op mpi_op(int red, const halide_type_t &t) {
    switch (red) {
    case COCONET_PROD: return MPI_PROD;
    case COCONET_MAX: return MPI_MAX;
    case COCONET_MIN: return MPI_MIN;
    default: break;
    }
    if (t.code == halide_type_float || t.bits > 16) {
        return MPI_SUM;
    }
    static const MPI_Op wrapping = [] {
        MPI_Op op;
        MPI_Op_create(wrapping_sum, 1, &op);
        return op;
    }();
    return wrapping;
}

// The most elements one MPI call moves (MPI's counts are ints): larger
// messages go in pieces of this many. COCONET_MPI_MAX_COUNT lowers it, so
// that tests take the large-count paths at small sizes.
// A value that is not such a count is reported (once) and the default used.
inline int64_t max_count() {
    static const int64_t n = [] {
        const char *v = std::getenv("COCONET_MPI_MAX_COUNT");
        if (!v || !*v) {
            return (int64_t)INT32_MAX;
        }
        char *end = nullptr;
        const long long c = std::strtoll(v, &end, 10);
        if (*end == '\0' && c > 0 && c < INT32_MAX) {
            return (int64_t)c;
        }
        std::fprintf(stderr,
                     "coconet: COCONET_MPI_MAX_COUNT='%s' is not a count of elements in [1, %d); "
                     "using %d\n",
                     v, INT32_MAX, INT32_MAX);
        return (int64_t)INT32_MAX;
    }();
    return n;
}

inline std::vector<int> ints(const std::vector<int64_t> &v) {
    return std::vector<int>(v.begin(), v.end());
}

inline int64_t sum(const std::vector<int64_t> &v) {
    int64_t s = 0;
    for (const int64_t x : v) {
        s += x;
    }
    return s;
}

// Boxes of one buffer as the parts of one MPI message: read or written in the
// buffer's own memory where each lies there contiguously (at an offset within
// max_count()), otherwise in a packed staging copy. Counts and displacements
// in elements, as MPI takes them.
struct Flat {
    std::vector<Box> boxes;
    std::vector<int64_t> count, displ;
    std::vector<uint8_t> staging;
    uint8_t *base = nullptr;
    bool in_place = true;
    halide_type_t type;

    // Element `at` of the message (nullptr when there is no memory: a part
    // MPI ignores, such as a non-root's result of a reduce).
    uint8_t *at(int64_t element) const {
        return base ? base + (size_t)element * type.bytes() : nullptr;
    }

    // A view of part k as a buffer in global coordinates.
    std::unique_ptr<coconet_rt::DenseView> view(int k) {
        return std::make_unique<coconet_rt::DenseView>(base + (size_t)displ[k] * type.bytes(),
                                                       boxes[k], type);
    }
};

// The boxes of b (nullptr: none, always staged) as message parts. With `fill`
// the staging copy gets the boxes' contents (a message to send). With
// `consecutive`, the parts must follow each other in memory (MPI calls that
// take counts without displacements).
inline void flatten(const halide_buffer_t *b, const halide_type_t &type,
                    const std::vector<Box> &boxes, bool fill, bool consecutive, Flat *f) {
    f->boxes = boxes;
    f->type = type;
    f->count.assign(boxes.size(), 0);
    f->displ.assign(boxes.size(), 0);
    int64_t total = 0, next = -1; // where the next part must start (-1: anywhere)
    f->in_place = b != nullptr;
    for (size_t k = 0; k < boxes.size(); k++) {
        const int64_t n = boxes[k].count();
        int64_t offset = 0;
        if (f->in_place &&
            (!coconet_rt::is_contiguous(b, boxes[k], &offset) ||
             (consecutive && n > 0 && next >= 0 && offset != next) || offset + n > max_count())) {
            f->in_place = false;
        }
        if (n > 0) {
            next = offset + n;
        }
        f->count[k] = n;
        f->displ[k] = offset;
        total += n;
    }
    if (f->in_place) {
        f->base = b->host;
        return;
    }
    f->staging.resize((size_t)total * type.bytes());
    f->base = f->staging.data();
    int64_t at = 0;
    for (size_t k = 0; k < boxes.size(); k++) {
        f->displ[k] = at;
        at += f->count[k];
        if (fill && f->count[k] > 0) {
            coconet_rt::copy_box(b, &f->view((int)k)->buf, boxes[k]);
        }
    }
}

// Copies what dst holds of the parts a message wrote into staging (nothing
// when they were written in place).
inline void unflatten(Flat &f, halide_buffer_t *dst) {
    const Box want = coconet_rt::box_of(dst);
    for (size_t k = 0; !f.in_place && k < f.boxes.size(); k++) {
        const Box part = intersect(f.boxes[k], want);
        if (!part.empty()) {
            coconet_rt::copy_box(&f.view((int)k)->buf, dst, part);
        }
    }
}

constexpr size_t align64(size_t n) {
    return (n + 63) / 64 * 64;
}

// A replicable pass runs replicated (MpiComm::fused_replicated) where each
// member reads at most this many bytes of its peers' sources: (members - 1)
// times the source, which is at most this large in any case (the size of
// each of the window's two areas for it). Against the direct path it saves
// two meetings (0.3-1 us each, far more with ranks sharing cores) and reads
// (members - 2) / members of the peers' share more: the GEMV's 4 KiB pass
// under MPI took 2.5-4 us against 7.5-10 (2 ranks), and its operator ran
// 1.17-1.19x its baseline's speed against 0.98-1.04 (4 ranks on 2 cores); at
// 8 KiB and 4 ranks both paths were within noise.
constexpr size_t kReplicatedBytes = 32768;

// Where a buffer lies in window memory (coconet_mpi_alloc's, or the
// executor's from value_memory): the window's index and the offset in its
// owner's segment; window -1 for none.
struct WindowPlace {
    int64_t window = -1;
    int64_t offset = 0;
};

// Where a fused call's data lies in each member's window segment: the
// member's count of window barriers reached (its barrier slot), the
// signatures of its calls (two, by the barrier's parity: check_same_call),
// two areas for a replicated pass's source (by the parity too:
// fused_replicated; apart from the rest, which other passes write while a
// peer may still read the last replicated source), where its source and
// gathered outputs lie when they are window memory of the caller's (one
// WindowPlace each), its source (the full box, dense) unless peers read it
// in place, then per gathered output its slice of it (dense). Every member
// computes the same layout.
struct FusedLayout {
    static constexpr size_t kSignaturesOffset = 64; // after the barrier slot
    static constexpr size_t kSignatureStride = align64(sizeof(FusedSignature));
    static constexpr size_t kReplicatedOffset = kSignaturesOffset + 2 * kSignatureStride;
    static constexpr size_t kPlacesOffset = kReplicatedOffset + 2 * kReplicatedBytes;

    explicit FusedLayout(const FusedPlan &plan) {
        const coconet_fused_call &c = plan.call;
        src_offset = kPlacesOffset + align64(sizeof(WindowPlace) * (1 + c.nout));
        size_t at = src_offset +
                    align64(plan.reduces() ? (size_t)plan.full.count() * plan.element_bytes() : 0);
        // Not always the first (pieces of slices are cut again).
        size_t largest = 0;
        for (int q = plan.group.first; q < plan.group.first + plan.group.size; q++) {
            largest = std::max(largest, (size_t)plan.slice(q).count());
        }
        for (int i = 0; i < c.nout; i++) {
            out_offset.push_back(at);
            if (c.gathered[i]) {
                at += align64(largest * c.outs[i]->type.bytes());
            }
        }
        bytes = at;
    }
    // Member k's places: [0] its source, [1 + i] its output i.
    static WindowPlace *places(uint8_t *segment) {
        return reinterpret_cast<WindowPlace *>(segment + kPlacesOffset);
    }
    // The signature a member publishes with its arrival at barrier `epoch`.
    static FusedSignature *signature(uint8_t *segment, int64_t epoch) {
        return reinterpret_cast<FusedSignature *>(segment + kSignaturesOffset +
                                                  (size_t)(epoch % 2) * kSignatureStride);
    }
    // Where a replicated pass's source posted for barrier `epoch` lies.
    static size_t replicated_source(int64_t epoch) {
        return kReplicatedOffset + (size_t)(epoch % 2) * kReplicatedBytes;
    }
    size_t src_offset;
    std::vector<size_t> out_offset;
    size_t bytes;
};

// A window of memory callers allocate (coconet_mpi_alloc) over the world's
// ranks on one node: every member's segment, by world rank.
struct UserWindow {
    MPI_Win win = MPI_WIN_NULL;
    std::vector<uint8_t *> base;
    std::vector<MPI_Aint> bytes;
};

// A shared-memory window of `bytes` per member over comm, locked for its
// life: one passive epoch in which members load and store each other's
// segments directly. Non-contiguous: each member's segment starts a page of
// its own (no cache line shared between members' barrier slots). On success,
// every member's segment and its size, by rank in comm. Blocking: callers
// guard it.
inline int allocate_shared(MPI_Comm comm, MPI_Aint bytes, MPI_Win *win,
                           std::vector<uint8_t *> *base, std::vector<MPI_Aint> *sizes) {
    void *mine = nullptr;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    int err = MPI_Win_allocate_shared(bytes, 1, info, comm, &mine, win);
    MPI_Info_free(&info);
    if (err == MPI_SUCCESS) {
        err = MPI_Win_lock_all(MPI_MODE_NOCHECK, *win);
    }
    int members = 0;
    MPI_Comm_size(comm, &members);
    base->clear();
    sizes->clear();
    for (int k = 0; err == MPI_SUCCESS && k < members; k++) {
        MPI_Aint segment = 0;
        int unit = 0;
        void *ptr = nullptr;
        MPI_Win_shared_query(*win, k, &segment, &unit, &ptr);
        base->push_back(static_cast<uint8_t *>(ptr));
        sizes->push_back(segment);
    }
    return err;
}

// A shared-memory window over one group's ranks, kept for later fused calls
// of the same group and grown when a call needs more.
struct SharedWindow {
    int first = 0;                 // the group's first rank
    MPI_Comm comm = MPI_COMM_NULL; // the group's (owned by MpiComm::group_comms)
    MPI_Win win = MPI_WIN_NULL;
    MPI_Aint bytes = 0;          // this rank's segment
    std::vector<uint8_t *> base; // each member's segment, by group rank
    // Over the slots at the start of each segment (before FusedLayout::kPlacesOffset).
    coconet_rt::FlagBarrier barrier;
};

// What an exchange received: the parts, and views of them by sender.
struct Received {
    std::unique_ptr<Flat> flat;
    std::vector<std::unique_ptr<coconet_rt::DenseView>> from; // by world rank
};

} // namespace coconet_rt::mpi

#endif
