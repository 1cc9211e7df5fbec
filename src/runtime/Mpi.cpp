// MPI backend: one rank per process over MPI_COMM_WORLD. Unfused collectives
// run on MPI's own non-blocking collectives over a communicator per rank group
// (created once, by the group's ranks alone, and cached), polled against the
// timeout so that a missing peer is an error naming it, never a hang. Two
// paths (COCONET_MPI_COLLECTIVES): `native` (default) hands reductions to
// MPI_Iallreduce / MPI_Ireduce_scatter / MPI_Ireduce and gathers to
// MPI_Iallgatherv / MPI_Ibcast, in the order MPI picks; `deterministic` moves
// data with MPI_Ialltoallv only and reduces in group-rank order here, bit for
// bit the reference. Every call is first checked: each member sends the others
// its call's signature, so that different calls fail naming the rank and a
// rank that never comes is named before any collective is posted. Data is
// read and written in the caller's buffers where it lies contiguously, packed
// otherwise. SEND_RECV (two groups) is point-to-point. Fused reduce-scatters
// take a ring of messages, or on one node a shared-memory window over the
// group's communicator. Compiled to stubs without COCONET_HAS_MPI.
#include <cstdio>

#include "Comm.h"

extern "C" int coconet_mpi_available(void) {
#ifdef COCONET_HAS_MPI
    return 1;
#else
    return 0;
#endif
}

#ifdef COCONET_HAS_MPI

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
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

#include "Env.h"
#include "Errors.h"
#include "Fault.h"
#include "FlagBarrier.h"
#include "Pack.h"
#include "Reduce.h"
#include "Scratch.h"
#include "Watchdog.h"

using coconet_rt::Box;
using coconet_rt::FusedPlan;
using coconet_rt::Group;
using coconet_rt::Op;
using coconet_rt::PackedBox;

namespace {

bool initialized_here = false;

// > 0 once a call of this process timed out or failed: the timeout of its
// communicator. A peer may then be dead or frozen, and MPI_Finalize would
// wait for it forever.
std::atomic<double> failed_timeout{0.0};

// Whether every rank reaches this point (a barrier), within `seconds` when
// positive.
bool all_arrive(double seconds) {
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
void join_into(char (&dst)[N], std::initializer_list<const char *> parts) {
    size_t at = 0;
    for (const char *p : parts) {
        for (; *p && at + 1 < N; p++) {
            dst[at++] = *p;
        }
    }
    dst[at] = 0;
}

uint64_t fnv1a(uint64_t h, uint64_t v) {
    for (int k = 0; k < 8; k++) {
        h = (h ^ ((v >> (8 * k)) & 0xff)) * 1099511628211ull;
    }
    return h;
}

FusedSignature fused_signature(const FusedPlan &plan, int64_t path) {
    const coconet_fused_call &c = plan.call;
    FusedSignature s;
    std::memset(&s, 0, sizeof(s));
    uint64_t name_hash = 1469598103934665603ull, outs_hash = name_hash;
    for (const char *p = c.name ? c.name : ""; *p; p++) {
        name_hash = fnv1a(name_hash, (uint8_t)*p);
    }
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
FusedSignature op_signature(const Op &op, int64_t path) {
    FusedSignature s;
    std::memset(&s, 0, sizeof(s));
    uint64_t name_hash = 1469598103934665603ull, detail = name_hash;
    for (const char c : op.name) {
        name_hash = fnv1a(name_hash, (uint8_t)c);
    }
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

const char *path_name(int64_t path) {
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
bool native_from_env() {
    return coconet_rt::env_is("COCONET_MPI_COLLECTIVES", {"native", "deterministic"}, "native");
}

// MPI's type for moving elements of `bytes` bytes, with no arithmetic on them.
MPI_Datatype word_type(int bytes) {
    switch (bytes) {
    case 1: return MPI_UINT8_T;
    case 2: return MPI_UINT16_T;
    case 4: return MPI_UINT32_T;
    default: return MPI_UINT64_T;
    }
}

// MPI's type for reducing elements of t (a supported type).
MPI_Datatype arith_type(const halide_type_t &t) {
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
void wrap_add(const void *in, void *inout, int n) {
    const T *a = static_cast<const T *>(in);
    T *b = static_cast<T *>(inout);
    for (int i = 0; i < n; i++) {
        b[i] = (T)(a[i] + b[i]);
    }
}

void wrapping_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
    if (*type == MPI_INT8_T || *type == MPI_UINT8_T) {
        wrap_add<uint8_t>(in, inout, *len);
    } else {
        wrap_add<uint16_t>(in, inout, *len);
    }
}

// MPI's reduction for `red` on elements of t.
MPI_Op mpi_op(int red, const halide_type_t &t) {
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
int64_t max_count() {
    static const int64_t n = [] {
        const char *v = std::getenv("COCONET_MPI_MAX_COUNT");
        const long long c = v ? std::atoll(v) : 0;
        return c > 0 && c < INT32_MAX ? (int64_t)c : (int64_t)INT32_MAX;
    }();
    return n;
}

std::vector<int> ints(const std::vector<int64_t> &v) {
    return std::vector<int>(v.begin(), v.end());
}

int64_t sum(const std::vector<int64_t> &v) {
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
void flatten(const halide_buffer_t *b, const halide_type_t &type, const std::vector<Box> &boxes,
             bool fill, bool consecutive, Flat *f) {
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
void unflatten(Flat &f, halide_buffer_t *dst) {
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
int allocate_shared(MPI_Comm comm, MPI_Aint bytes, MPI_Win *win, std::vector<uint8_t *> *base,
                    std::vector<MPI_Aint> *sizes) {
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
    int first = 0; // the group's first rank
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

struct MpiComm : coconet_comm {
    // `world`: the whole world's group communicator, made with this one.
    MpiComm(int rank, int size, double timeout, bool one_node, MPI_Comm world)
        : coconet_comm(rank, size, timeout), one_node(one_node), native(native_from_env()) {
        group_comms.emplace(std::make_pair(0, size), world);
    }

    // Frees the windows when every member is still here to free them (freeing
    // is collective); after a failure they are left to MPI_Finalize.
    ~MpiComm() override {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (finalized || !failure.empty()) {
            return;
        }
        // Every rank allocated the world's in the same order.
        if (!members_present(group_comms.at(std::make_pair(0, size)))) {
            return;
        }
        for (UserWindow &u : user_windows) {
            if (u.win != MPI_WIN_NULL) {
                MPI_Win_unlock_all(u.win);
                MPI_Win_free(&u.win);
            }
        }
        // Map order: every rank frees shared groups in the same order.
        for (auto &entry : windows) {
            SharedWindow &w = entry.second;
            if (!members_present(w.comm)) {
                return; // a member left without freeing: leave the rest to MPI
            }
            if (w.win != MPI_WIN_NULL) {
                MPI_Win_unlock_all(w.win);
                MPI_Win_free(&w.win);
            }
        }
        for (auto &entry : group_comms) {
            if (!members_present(entry.second)) {
                return;
            }
            MPI_Comm_free(&entry.second);
        }
    }

    const char *backend() const override { return "mpi"; }
    bool deterministic() const override { return !native; }

    // Later calls on this rank fail at once. Peers sharing a window with it
    // learn it at their next meeting there: it arrives once more, saying so,
    // and never meets there again (its later calls end in aborted()). Other
    // processes stop at their timeout or when the application calls
    // MPI_Abort. Called between this rank's calls, as coconet_comm_abort
    // says, so that it is not waiting at a barrier of its own.
    void abort(const char *reason) override {
        const bool first = failure.empty();
        failure = "rank " + std::to_string(rank) + " failed: " + reason;
        failed_timeout = timeout;
        for (auto &entry : windows) {
            SharedWindow &w = entry.second;
            if (first && w.win != MPI_WIN_NULL) {
                w.barrier.arrive(kAborted, std::memory_order_release);
            }
        }
    }

    int barrier(const char *what) override {
        const std::string label = std::string("barrier '") + what + "'";
        if (!failure.empty()) {
            return aborted(label);
        }
        MPI_Request req;
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        std::vector<MPI_Request> reqs = {req};
        return wait_all(reqs, {-1}, label, nullptr, nullptr, Pace::Patient);
    }

    int run(Op &op, const halide_buffer_t *in, halide_buffer_t *out) override {
        const std::string what = op.what();
        if (!failure.empty()) {
            return aborted(what);
        }
        if (op.kind == COCONET_SEND_RECV) {
            return send_recv(op, in, out, what);
        }
        if (op.src.size == 1) {
            op.peer_inputs[rank] = in; // a group of one: nothing to exchange
            coconet_rt::compute_output(op, rank, out);
            return COCONET_OK;
        }
        MPI_Comm gc = MPI_COMM_NULL;
        int rc = check_same_call(op.src,
                                 op_signature(op, native ? kNativePath : kDeterministicPath), what);
        if (rc == COCONET_OK) {
            rc = group_comm(op.src, what, &gc);
        }
        if (rc != COCONET_OK) {
            return rc;
        }
        count_bytes(op.kind, bytes_sent(op) * in->type.bytes());
        const Group &g = op.src;
        switch (op.kind) {
        case COCONET_ALL_GATHER: {
            // No arithmetic: MPI's gather on both paths.
            std::vector<Box> slices;
            for (int q = g.first; q < g.first + g.size; q++) {
                slices.push_back(op.input_box(q));
            }
            return gather_boxes(g, gc, in, slices, out, what);
        }
        case COCONET_BROADCAST: return broadcast(op, gc, in, out, what);
        case COCONET_ALL_REDUCE:
        case COCONET_REDUCE_SCATTER:
        case COCONET_REDUCE:
            if (native) {
                return native_reduction(op, gc, in, out, what);
            }
            if (op.kind == COCONET_ALL_REDUCE && op.dims > 0) {
                return all_reduce_by_blocks(op, gc, in, out, what);
            }
            break;
        default: break; // ALL_TO_ALL
        }
        // Each member's part of the others' outputs, then the output from the
        // parts in group-rank order.
        Received received;
        rc = exchange(op, gc, in, send_boxes(op), recv_boxes(op), received, what);
        if (rc != COCONET_OK) {
            return rc;
        }
        for (int q = 0; q < size; q++) {
            op.peer_inputs[q] = q == rank          ? in
                                : received.from[q] ? &received.from[q]->buf
                                                   : nullptr;
        }
        coconet_rt::compute_output(op, rank, out);
        return COCONET_OK;
    }

    // The part of rank `from`'s input that rank `to`'s output reads (empty
    // when it reads none, and from itself: nothing to move).
    static Box part(const Op &op, int from, int to) {
        return from != to && op.reads_from(to, from)
                   ? intersect(op.input_box(from), op.output_limit(to))
                   : coconet_rt::no_box(op.dims);
    }

    // What this rank sends each group member in a direct exchange.
    std::vector<Box> send_boxes(const Op &op) const {
        std::vector<Box> boxes;
        for (int q = op.src.first; q < op.src.first + op.src.size; q++) {
            boxes.push_back(part(op, rank, q));
        }
        return boxes;
    }

    // What this rank receives from each group member in a direct exchange.
    std::vector<Box> recv_boxes(const Op &op) const {
        std::vector<Box> boxes;
        for (int q = op.src.first; q < op.src.first + op.src.size; q++) {
            boxes.push_back(part(op, q, rank));
        }
        return boxes;
    }

    // Elements counted as sent: what the deterministic path sends, whichever
    // path runs, so that counters do not depend on MPI's algorithms.
    int64_t bytes_sent(const Op &op) const {
        int64_t elements = 0;
        if (op.kind == COCONET_ALL_REDUCE && op.dims > 0) {
            // Reduce-scatter and all-gather by blocks.
            const int64_t mine = op.block(rank).count();
            for (int q = op.src.first; q < op.src.first + op.src.size; q++) {
                elements += q == rank ? 0 : op.block(q).count() + mine;
            }
        } else {
            for (const Box &b : send_boxes(op)) {
                elements += b.count();
            }
        }
        return elements;
    }

    // Reduce-scatter then all-gather by blocks of the outermost dimension, each
    // block reduced in group-rank order by the rank owning it: each rank sends
    // about 2 (R-1)/R of its input.
    int all_reduce_by_blocks(Op &op, MPI_Comm gc, const halide_buffer_t *in, halide_buffer_t *out,
                             const std::string &what) {
        const Group &g = op.src;
        std::vector<Box> sends, recvs, blocks;
        for (int q = g.first; q < g.first + g.size; q++) {
            sends.push_back(q == rank ? coconet_rt::no_box(op.dims) : op.block(q));
            recvs.push_back(q == rank ? coconet_rt::no_box(op.dims) : op.block(rank));
            blocks.push_back(op.block(q));
        }
        Received parts;
        const int rc = exchange(op, gc, in, sends, recvs, parts, what);
        if (rc != COCONET_OK) {
            return rc;
        }
        for (int q = 0; q < size; q++) {
            op.peer_inputs[q] = q == rank ? in : parts.from[q] ? &parts.from[q]->buf : nullptr;
        }
        // This rank's block, reduced where the output holds it.
        std::unique_ptr<coconet_rt::PackedBox> own;
        halide_buffer_t *reduced = out;
        if (!coconet_rt::box_of(out).contains(op.block(rank))) {
            own = std::make_unique<coconet_rt::PackedBox>(op.block(rank), in->type);
            reduced = &own->buf;
        }
        coconet_rt::BufferView block(reduced, op.block(rank));
        coconet_rt::compute_output(op, rank, &block.buf);
        return gather_boxes(g, gc, reduced, blocks, out, what + " (all-gather of reduced blocks)");
    }

    // ALL_REDUCE, REDUCE_SCATTER and REDUCE by MPI's own reductions over the
    // group's communicator, in the order MPI picks.
    int native_reduction(Op &op, MPI_Comm gc, const halide_buffer_t *in, halide_buffer_t *out,
                         const std::string &what) {
        const Group &g = op.src;
        const Box want = coconet_rt::box_of(out);
        const bool gets_result = op.kind != COCONET_REDUCE || rank == g.first + op.root;
        // REDUCE_SCATTER sends each member's slice, in order; the others the input.
        std::vector<Box> sends;
        for (int q = g.first; q < g.first + g.size; q++) {
            if (op.kind == COCONET_REDUCE_SCATTER || q == rank) {
                sends.push_back(op.kind == COCONET_REDUCE_SCATTER ? op.output_limit(q)
                                                                  : op.input_box(rank));
            }
        }
        const Box result = gets_result ? op.output_limit(rank) : coconet_rt::no_box(op.dims);
        auto send = std::make_unique<Flat>(), recv = std::make_unique<Flat>();
        flatten(in, in->type, sends, true, true, send.get());
        // In place when the output is exactly the result.
        const bool exact = want.contains(result) && result.contains(want);
        flatten(exact ? out : nullptr, in->type, {result}, false, true, recv.get());
        const MPI_Datatype type = arith_type(in->type);
        const MPI_Op red = mpi_op(op.red, in->type);
        Posted posted;
        int err = MPI_SUCCESS;
        if (op.kind != COCONET_REDUCE_SCATTER) {
            err = post_pieces(posted, send->count[0], -1, [&](int64_t at, int n, MPI_Request *req) {
                const uint8_t *from = send->at(send->displ[0] + at);
                uint8_t *to = recv->at(at);
                return op.kind == COCONET_ALL_REDUCE
                           ? MPI_Iallreduce(from, to, n, type, red, gc, req)
                           : MPI_Ireduce(from, to, n, type, red, op.root, gc, req);
            });
        } else if (sum(send->count) <= max_count()) {
            const std::vector<int> counts = ints(send->count);
            posted.add(-1);
            err = MPI_Ireduce_scatter(send->at(send->displ[0]), recv->base, counts.data(), type,
                                      red, gc, &posted.reqs.back());
        } else {
            // Too large for int counts (the counts are the same on every member):
            // each member's slice reduced to it, in pieces.
            for (int k = 0; k < g.size && err == MPI_SUCCESS; k++) {
                const bool mine = g.first + k == rank;
                err = post_pieces(
                    posted, send->count[k], -1, [&](int64_t at, int n, MPI_Request *req) {
                        return MPI_Ireduce(send->at(send->displ[k] + at),
                                           mine ? recv->at(at) : nullptr, n, type, red, k, gc, req);
                    });
            }
        }
        const int rc = finish(posted, err, g, what, send, recv);
        if (rc != COCONET_OK) {
            return rc;
        }
        if (!gets_result) {
            coconet_rt::compute_output(op, rank, out); // the identity (see Collective.cpp)
        } else {
            unflatten(*recv, out);
        }
        return COCONET_OK;
    }

    // Every member's box boxes[k] into out (the parts it holds), this rank's
    // from `mine`, by MPI_Iallgatherv: received in place when out holds every
    // box contiguously, and sent in place when this rank's box is there too.
    int gather_boxes(const Group &g, MPI_Comm gc, const halide_buffer_t *mine,
                     const std::vector<Box> &boxes, halide_buffer_t *out, const std::string &what) {
        const int me = g.local(rank);
        auto send = std::make_unique<Flat>(), recv = std::make_unique<Flat>();
        flatten(out, out->type, boxes, false, false, recv.get());
        const bool in_place = recv->in_place && mine->host == out->host;
        if (!in_place) {
            flatten(mine, out->type, {boxes[me]}, true, true, send.get());
        }
        const MPI_Datatype type = word_type(out->type.bytes());
        Posted posted;
        int err = MPI_SUCCESS;
        if (sum(recv->count) <= max_count()) { // the same on every member
            const std::vector<int> counts = ints(recv->count), displs = ints(recv->displ);
            posted.add(-1);
            err = MPI_Iallgatherv(in_place ? MPI_IN_PLACE : send->at(send->displ[0]),
                                  in_place ? 0 : counts[me], type, recv->base, counts.data(),
                                  displs.data(), type, gc, &posted.reqs.back());
        } else {
            // Too large for int counts: each member broadcasts its box, in pieces.
            if (!in_place && recv->count[me] > 0) {
                std::memcpy(recv->at(recv->displ[me]), send->at(send->displ[0]),
                            (size_t)recv->count[me] * out->type.bytes());
            }
            for (int k = 0; k < g.size && err == MPI_SUCCESS; k++) {
                err = post_pieces(
                    posted, recv->count[k], -1, [&](int64_t at, int n, MPI_Request *req) {
                        return MPI_Ibcast(recv->at(recv->displ[k] + at), n, type, k, gc, req);
                    });
            }
        }
        const int rc = finish(posted, err, g, what, send, recv);
        if (rc == COCONET_OK) {
            unflatten(*recv, out);
        }
        return rc;
    }

    // BROADCAST by MPI_Ibcast of the root's input (no arithmetic: both paths).
    int broadcast(Op &op, MPI_Comm gc, const halide_buffer_t *in, halide_buffer_t *out,
                  const std::string &what) {
        const bool root = rank == op.src.first + op.root;
        const Box full = op.input_box(rank), want = coconet_rt::box_of(out);
        auto data = std::make_unique<Flat>(), none = std::make_unique<Flat>();
        // The root sends from its input; the others receive in place when the
        // output is exactly the value.
        const bool exact = want.contains(full) && full.contains(want);
        if (root) {
            flatten(in, in->type, {full}, true, true, data.get());
        } else {
            flatten(exact ? out : nullptr, in->type, {full}, false, true, data.get());
        }
        Posted posted;
        const int err =
            post_pieces(posted, data->count[0], -1, [&](int64_t at, int n, MPI_Request *req) {
                return MPI_Ibcast(data->at(data->displ[0] + at), n, word_type(in->type.bytes()),
                                  op.root, gc, req);
            });
        const int rc = finish(posted, err, op.src, what, data, none);
        if (rc != COCONET_OK) {
            return rc;
        }
        if (root) {
            coconet_rt::copy_box(in, out, want);
        } else {
            unflatten(*data, out);
        }
        return COCONET_OK;
    }

    // Non-blocking calls posted for one operation: a request each, and the
    // peer of a message (-1 for a collective).
    struct Posted {
        std::vector<MPI_Request> reqs;
        std::vector<int> peers;
        void add(int peer) {
            reqs.push_back(MPI_REQUEST_NULL);
            peers.push_back(peer);
        }
    };

    // Posts post(at, n, &request) for the consecutive pieces [at, at + n) of
    // [0, count), each of at most max_count() elements (none when count is 0).
    // Members of a collective make the same pieces from the same count, and
    // MPI matches collectives on a communicator, and messages between two
    // ranks with one tag, in the order they are posted.
    static int post_pieces(Posted &posted, int64_t count, int peer,
                           const std::function<int(int64_t, int, MPI_Request *)> &post) {
        for (int64_t at = 0; at < count; at += max_count()) {
            posted.add(peer);
            const int err = post(at, (int)std::min(max_count(), count - at), &posted.reqs.back());
            if (err != MPI_SUCCESS) {
                return err;
            }
        }
        return MPI_SUCCESS;
    }

    // Posts a message of a packed box to or from `peer`, in pieces.
    static int post_box(Posted &posted, bool send, PackedBox &box, int peer, int tag,
                        MPI_Comm comm) {
        const int bytes = box.buf.type.bytes();
        uint8_t *data = box.data.data();
        return post_pieces(posted, (int64_t)box.size_bytes() / bytes, peer,
                           [&](int64_t at, int n, MPI_Request *req) {
                               uint8_t *p = data + (size_t)at * bytes;
                               return send
                                          ? MPI_Isend(p, n, word_type(bytes), peer, tag, comm, req)
                                          : MPI_Irecv(p, n, word_type(bytes), peer, tag, comm, req);
                           });
    }

    // Waits for what was posted for a call on the group's communicator (err:
    // how posting ended). MPI cannot cancel a collective: when one may still
    // run (a timeout, or a failure after others were posted), its buffers are
    // kept forever and the communicator is failed.
    int finish(Posted &posted, int err, const Group &g, const std::string &what,
               std::unique_ptr<Flat> &send, std::unique_ptr<Flat> &recv) {
        const auto keep = [&] {
            (void)send.release();
            (void)recv.release();
        };
        if (err != MPI_SUCCESS) {
            if (posted.reqs.size() > 1) {
                keep();
            }
            return mpi_error(err, what);
        }
        return wait_all(posted.reqs, posted.peers, what, keep, [&] {
            // MPI does not tell which member holds its collective up.
            return coconet_rt::rank_list(group_ranks_except(g, rank)) +
                   " (the rest of its group: one of them stopped or left in the middle of "
                   "the call)";
        });
    }

    static std::vector<int> group_ranks_except(const Group &g, int rank) {
        std::vector<int> ranks;
        for (int q = g.first; q < g.first + g.size; q++) {
            if (q != rank) {
                ranks.push_back(q);
            }
        }
        return ranks;
    }

    // SEND_RECV between two groups: point-to-point messages to and from the
    // ranks whose parts meet.
    int send_recv(Op &op, const halide_buffer_t *in, halide_buffer_t *out,
                  const std::string &what) {
        Parts received;
        const int rc = point_to_point(
            op, in, [&](int q) { return part(op, rank, q); },
            [&](int q) { return part(op, q, rank); }, received, what);
        if (rc != COCONET_OK) {
            return rc;
        }
        for (int q = 0; q < size; q++) {
            op.peer_inputs[q] = q == rank ? in : received[q] ? &received[q]->buf : nullptr;
        }
        if (op.dst.has(rank)) {
            coconet_rt::compute_output(op, rank, out);
        }
        return COCONET_OK;
    }

    // Ring for groups across nodes; the shared window when all ranks share a node.
    coconet_fused_path fused_path(int requested) const override {
        return requested == COCONET_PATH_RING || !one_node ? COCONET_PATH_RING
                                                           : COCONET_PATH_DIRECT;
    }

    int run_fused(const FusedPlan &plan, coconet_fused_path path) override {
        if (!failure.empty()) {
            return aborted(plan.what());
        }
        if (plan.group.size == 1) {
            // Nothing to reduce with: the kernel reads this rank's source alone.
            std::vector<const halide_buffer_t *> srcs;
            if (plan.reduces()) {
                srcs.push_back(plan.call.src);
            }
            for (const Box &chunk : plan.chunks(plan.slice(rank))) {
                const int rc = plan.run_kernel(*this, chunk, srcs);
                if (rc != COCONET_OK) {
                    return rc;
                }
            }
            return COCONET_OK;
        }
        const std::string what = plan.what();
        if (path == COCONET_PATH_DIRECT && replicates(plan)) {
            return fused_replicated(plan, fused_signature(plan, kReplicatedPath), what);
        }
        const FusedSignature signature = fused_signature(plan, path);
        if (path == COCONET_PATH_DIRECT) {
            return fused_direct(plan, signature, what);
        }
        const int rc = check_same_call(plan.group, signature, what);
        return rc != COCONET_OK ? rc : fused_ring(plan, what);
    }

    // Every member sends its call's signature to every other member and
    // compares what it receives: either all find a mismatch or none does.
    // Also makes sure every member is here, or names those that are not,
    // before blocking MPI calls (creating a communicator or a window) and
    // before any collective is posted or data moves.
    // Where the group has a shared window, the signatures go through it
    // instead (same_call_in_window).
    int check_same_call(const Group &g, const FusedSignature &mine, const std::string &what) {
        if (SharedWindow *w = existing_window(g)) {
            return same_call_in_window(*w, g, mine, what);
        }
        // Heap-held so that a timeout can leave them to requests MPI still owns.
        auto theirs = std::make_unique<std::vector<FusedSignature>>(g.size);
        auto sent = std::make_unique<FusedSignature>(mine);
        std::vector<MPI_Request> reqs;
        std::vector<int> peers;
        for (int q = g.first; q < g.first + g.size; q++) {
            if (q == rank) {
                continue;
            }
            reqs.emplace_back();
            peers.push_back(q);
            int err = MPI_Irecv(&(*theirs)[g.local(q)], (int)sizeof(FusedSignature), MPI_BYTE, q,
                                kFusedTag, MPI_COMM_WORLD, &reqs.back());
            if (err == MPI_SUCCESS) {
                reqs.emplace_back();
                peers.push_back(q);
                err = MPI_Isend(sent.get(), (int)sizeof(FusedSignature), MPI_BYTE, q, kFusedTag,
                                MPI_COMM_WORLD, &reqs.back());
            }
            if (err != MPI_SUCCESS) {
                (void)theirs.release(); // earlier requests may still use them
                (void)sent.release();
                return mpi_error(err, what);
            }
        }
        const int rc = wait_all(
            reqs, peers, what,
            [&] {
                (void)theirs.release();
                (void)sent.release();
            },
            nullptr, Pace::Patient);
        return rc != COCONET_OK
                   ? rc
                   : compare_calls(
                         g, mine, [&](int k) -> const FusedSignature & { return (*theirs)[k]; },
                         what);
    }

    // check_same_call through the group's window, a flag barrier instead of
    // messages (a fraction of a microsecond against 2-3 us): every member
    // publishes its signature with its arrival and compares the others'.
    // Members that reach it by different calls meet here too: every call on
    // a group with a window checks this way. A fused pass over a window
    // large enough posts its sources before it comes here, so that this
    // meeting is also the pass's "sources posted" barrier (fused_direct).
    int same_call_in_window(SharedWindow &w, const Group &g, const FusedSignature &mine,
                            const std::string &what) {
        *FusedLayout::signature(w.base[g.local(rank)], w.barrier.epoch() + 1) = mine;
        const int rc = window_barrier(w, what);
        if (rc != COCONET_OK) {
            return rc;
        }
        // Read in place, not copied.
        return compare_calls(
            g, mine,
            [&](int k) -> const FusedSignature & {
                return *FusedLayout::signature(w.base[k], w.barrier.epoch());
            },
            what);
    }

    // Fails naming the first member whose call differs from this rank's:
    // every member compares the same signatures, so all fail or none does.
    // theirs(k): member k's signature.
    template<typename Theirs>
    int compare_calls(const Group &g, const FusedSignature &mine, Theirs &&theirs,
                      const std::string &what) {
        for (int q = g.first; q < g.first + g.size; q++) {
            const FusedSignature &s = theirs(g.local(q));
            if (q == rank || (s.same_call(mine) && s.path == mine.path)) {
                continue;
            }
            std::string detail;
            if (s.same_call(mine)) {
                detail = " (rank " + std::to_string(q) + " takes the " + path_name(s.path) +
                         " path, this rank the " + path_name(mine.path) + " path)";
            }
            return fail(COCONET_ERR_INVALID,
                        coconet_rt::op_label(rank, what) + ": rank " + std::to_string(q) +
                            " called " + std::string(s.name) +
                            " with other arguments at the same time: every group member must "
                            "make the same collective calls in the same order" +
                            detail);
        }
        return COCONET_OK;
    }

    // Ring reduce-scatter of the members' slices: at step s a member sends the
    // partial of block (me - s - 1) to its right and receives block
    // (me - s - 2) from its left, adding its own source; at the last step it
    // receives its own block and, instead of adding, hands the partial and its
    // source to the kernel. Each block is reduced starting from the rank after
    // its owner: a rotation of rank order.
    int fused_ring(const FusedPlan &plan, const std::string &what) {
        if (!plan.reduces()) {
            // A fused all_gather: the slices, then the messages.
            int rc = COCONET_OK;
            for (const Box &chunk : plan.chunks(plan.slice(rank))) {
                rc = plan.run_kernel(*this, chunk, {});
                if (rc != COCONET_OK) {
                    break;
                }
            }
            const int sent = gather_by_messages(plan, what, rc != COCONET_OK);
            return rc != COCONET_OK ? rc : sent;
        }
        const Group &g = plan.group;
        const int L = g.size, me = g.local(rank);
        const int right = g.first + (me + 1) % L, left = g.first + (me + L - 1) % L;
        const halide_buffer_t *src = plan.call.src;
        auto block = [&](int b) { return plan.slice(g.first + ((b % L) + L) % L); };
        // [0]: the partial sent at this step, [1]: the one received.
        Parts bufs(2), none;
        bufs[0] = coconet_rt::pack(src, block(me - 1));
        count_bytes(COCONET_FUSED, bufs[0]->size_bytes());
        for (int s = 0; s < L - 1; s++) {
            bufs[1] = std::make_unique<PackedBox>(block(me - s - 2), src->type);
            Posted posted;
            int err = post_box(posted, false, *bufs[1], left, kRingTag, MPI_COMM_WORLD);
            if (err == MPI_SUCCESS) {
                err = post_box(posted, true, *bufs[0], right, kRingTag, MPI_COMM_WORLD);
            }
            if (err != MPI_SUCCESS) {
                keep_forever(bufs, none);
                return mpi_error(err, what);
            }
            const int rc = wait_all(posted.reqs, posted.peers,
                                    what + " (ring step " + std::to_string(s + 1) + " of " +
                                        std::to_string(L - 1) + ")",
                                    [&] { keep_forever(bufs, none); });
            if (rc != COCONET_OK) {
                return rc;
            }
            if (s < L - 2) {
                coconet_rt::combine_into(plan.call.op, &bufs[1]->buf, src, bufs[1]->box);
                count_bytes(COCONET_FUSED, 2 * bufs[1]->size_bytes());
                bufs[0] = std::move(bufs[1]);
            }
        }
        // The last reduce step, fused with the kernel: partial op own source.
        int rc = COCONET_OK;
        for (const Box &chunk : plan.chunks(plan.slice(rank))) {
            rc = plan.run_kernel(*this, chunk, {&bufs[1]->buf, src});
            if (rc != COCONET_OK) {
                break;
            }
        }
        // Peers wait for this rank's slices even when its kernel failed.
        const int sent = gather_by_messages(plan, what, rc != COCONET_OK);
        return rc != COCONET_OK ? rc : sent;
    }

    // Each member sends its slice of every gathered output to every other
    // member (the bytes a ring all-gather would send, in one round).
    // With them goes whether this rank's kernel `failed` (its slices are then
    // missing): a member told so fails instead of returning the outputs.
    int gather_by_messages(const FusedPlan &plan, const std::string &what, bool failed) {
        const coconet_fused_call &c = plan.call;
        const Group &g = plan.group;
        const Box mine = plan.slice(rank);
        Parts sends, recvs;
        Posted posted;
        std::vector<std::pair<int, int>> unpack; // (output, index in recvs)
        // [0]: this rank's status; [1 + k]: group member k's. Never freed
        // when abandoned after a timeout (MPI may still write it).
        auto *status = new std::vector<int>(1 + g.size, 0);
        (*status)[0] = failed ? 1 : 0;
        for (int q = g.first; q < g.first + g.size; q++) {
            if (q != rank) {
                posted.add(q);
                MPI_Irecv(&(*status)[1 + q - g.first], 1, MPI_INT, q, kStatusTag, MPI_COMM_WORLD,
                          &posted.reqs.back());
                posted.add(q);
                MPI_Isend(&(*status)[0], 1, MPI_INT, q, kStatusTag, MPI_COMM_WORLD,
                          &posted.reqs.back());
            }
        }
        for (int i = 0; i < c.nout; i++) {
            if (!c.gathered[i]) {
                continue;
            }
            if (!mine.empty()) {
                sends.push_back(coconet_rt::pack(c.outs[i], mine));
                count_bytes(COCONET_FUSED, sends.back()->size_bytes());
            }
            for (int q = g.first; q < g.first + g.size; q++) {
                if (q == rank) {
                    continue;
                }
                int err = MPI_SUCCESS;
                const Box theirs = plan.slice(q);
                if (!theirs.empty()) {
                    recvs.push_back(std::make_unique<PackedBox>(theirs, c.outs[i]->type));
                    unpack.emplace_back(i, (int)recvs.size() - 1);
                    err = post_box(posted, false, *recvs.back(), q, kGatherTag, MPI_COMM_WORLD);
                }
                if (err == MPI_SUCCESS && !mine.empty()) {
                    err = post_box(posted, true, *sends.back(), q, kGatherTag, MPI_COMM_WORLD);
                }
                if (err != MPI_SUCCESS) {
                    keep_forever(sends, recvs);
                    return mpi_error(err, what);
                }
            }
        }
        const int rc =
            wait_all(posted.reqs, posted.peers, what + " (all-gather of the fused outputs)",
                     [&] { keep_forever(sends, recvs); });
        if (rc != COCONET_OK) {
            return rc;
        }
        const std::vector<int> statuses(status->begin() + 1, status->end());
        delete status;
        for (int k = 0; k < g.size; k++) {
            if (statuses[k] && g.first + k != rank) {
                return fail(COCONET_ERR_ABORTED, coconet_rt::op_label(rank, what) +
                                                     " aborted: the fused kernel failed on rank " +
                                                     std::to_string(g.first + k));
            }
        }
        for (const auto &u : unpack) {
            const PackedBox &p = *recvs[u.second];
            coconet_rt::copy_box(&p.buf, c.outs[u.first], p.box);
            count_bytes(COCONET_FUSED, p.size_bytes());
        }
        return COCONET_OK;
    }

    // Through a shared-memory window of the group: each member posts the parts
    // of its source that peers read, reduces its slice chunk by chunk from all
    // members' sources in group-rank order (bit-identical to the reference),
    // posts its slice of gathered outputs and copies the others' slices.
    // Buffers in window memory of the caller's (coconet_mpi_alloc) are used in
    // place: peers read such a source where it is, and write their slices of
    // a gathered output straight into it.
    int fused_direct(const FusedPlan &plan, const FusedSignature &signature,
                     const std::string &what) {
        const coconet_fused_call &c = plan.call;
        const Group &g = plan.group;
        const int me = g.local(rank);
        const FusedLayout layout(plan);
        SharedWindow *w = nullptr;
        bool ready = false;
        int rc = pass_window(g, layout.bytes, signature, what, &w, &ready);
        if (rc != COCONET_OK) {
            return rc;
        }
        WindowPlace *mine = FusedLayout::places(w->base[me]);
        mine[0] = plan.reduces() ? place_of(c.src, plan.full) : WindowPlace{};
        for (int i = 0; i < c.nout; i++) {
            mine[1 + i] = c.gathered[i] ? place_of(c.outs[i], plan.full) : WindowPlace{};
        }
        if (plan.reduces() && mine[0].window < 0) {
            std::vector<Box> theirs;
            for (int q = g.first; q < g.first + g.size; q++) {
                if (q != rank && !plan.slice(q).empty()) {
                    theirs.push_back(plan.slice(q));
                }
            }
            post_source(plan, w->base[me] + layout.src_offset, theirs);
        }
        rc = sources_posted(*w, g, signature, what, ready);
        if (rc != COCONET_OK) {
            return rc;
        }
        // Member k's data: its source, its slice of each gathered output in
        // its segment (slices[i][k]), and its gathered outputs where they are
        // window memory (direct[i][k], null where not).
        coconet_rt::Scratch<2048> scratch;
        Sources srcs(&scratch);
        sources_of(
            plan,
            [&](int k) {
                return window_host(FusedLayout::places(w->base[k])[0], g.first + k,
                                   w->base[k] + layout.src_offset);
            },
            &srcs);
        std::vector<std::vector<std::unique_ptr<coconet_rt::DenseView>>> slices(c.nout),
            direct(c.nout);
        std::vector<bool> posting(c.nout, false); // some member reads slices from the window
        for (int i = 0; i < c.nout; i++) {
            for (int k = 0; c.gathered[i] && k < g.size; k++) {
                slices[i].push_back(std::make_unique<coconet_rt::DenseView>(
                    w->base[k] + layout.out_offset[i], plan.slice(g.first + k), c.outs[i]->type));
                const WindowPlace at = FusedLayout::places(w->base[k])[1 + i];
                direct[i].push_back(
                    at.window >= 0 && k != me
                        ? in_window(at, g.first + k, nullptr, plan.full, c.outs[i]->type)
                        : nullptr);
                posting[i] = posting[i] || at.window < 0;
            }
        }
        int kernel_rc = COCONET_OK;
        for (const Box &chunk : plan.chunks(plan.slice(rank))) {
            kernel_rc = plan.run_kernel(*this, chunk, srcs.buffers.data(), srcs.buffers.size());
            if (kernel_rc != COCONET_OK) {
                break;
            }
            // While the chunk is in cache.
            for (int i = 0; i < c.nout; i++) {
                const uint64_t bytes = (uint64_t)chunk.count() * c.outs[i]->type.bytes();
                for (int k = 0; c.gathered[i] && k < g.size; k++) {
                    halide_buffer_t *to = direct[i][k]            ? &direct[i][k]->buf
                                          : k == me && posting[i] ? &slices[i][me]->buf
                                                                  : nullptr;
                    if (to) {
                        coconet_rt::copy_box(c.outs[i], to, chunk);
                        count_bytes(COCONET_FUSED, bytes);
                    }
                }
            }
        }
        // Peers meet here even when this rank's kernel failed, and learn it:
        // its slices are missing, so nobody returns the gathered outputs.
        int failed = kernel_rc != COCONET_OK ? rank : -1;
        rc = window_barrier(*w, what + " (slices posted)", &failed);
        if (rc != COCONET_OK) {
            return rc;
        }
        if (failed >= 0) {
            return kernel_rc != COCONET_OK ? kernel_rc
                                           : fail(COCONET_ERR_ABORTED,
                                                  coconet_rt::op_label(rank, what) +
                                                      " aborted: the fused kernel failed on rank " +
                                                      std::to_string(failed));
        }
        for (int i = 0; i < c.nout; i++) {
            for (int k = 0; c.gathered[i] && mine[1 + i].window < 0 && k < g.size; k++) {
                const Box theirs = plan.slice(g.first + k);
                if (k != me && !theirs.empty()) {
                    coconet_rt::copy_box(&slices[i][k]->buf, c.outs[i], theirs);
                    count_bytes(COCONET_FUSED, (uint64_t)theirs.count() * c.outs[i]->type.bytes());
                }
            }
        }
        // Nobody writes into the window again before every peer has read the
        // slices posted there. With none posted (every gathered output placed),
        // nobody touches the call's memory after the barrier above: sources
        // were read by the kernels before it, placed outputs written before it.
        if (std::none_of(posting.begin(), posting.end(), [](bool p) { return p; })) {
            return kernel_rc;
        }
        rc = window_barrier(*w, what + " (slices read)");
        return kernel_rc != COCONET_OK ? kernel_rc : rc;
    }

    // The group's window for a pass needing `bytes` per member (*ready: it
    // was large enough already). In a window large enough, the call's check
    // is its first meeting, once the sources are posted (the caller's). Else
    // the check comes first (by messages on the group's first call), then
    // the window is made or grown: blocking MPI calls, only once every
    // member is known here.
    int pass_window(const Group &g, size_t bytes, const FusedSignature &signature,
                    const std::string &what, SharedWindow **w, bool *ready) {
        *w = existing_window(g);
        *ready = *w && (size_t)(*w)->bytes >= bytes;
        if (*ready) {
            return COCONET_OK;
        }
        const int rc = check_same_call(g, signature, what);
        return rc != COCONET_OK ? rc : shared_window(g, bytes, what, w);
    }

    // The sources a pass's kernel reads, in group-rank order: this rank's
    // own in place, member k's as a dense full box at host_of(k) (the views
    // kept in `views`), all in `memory`.
    struct Sources {
        explicit Sources(std::pmr::memory_resource *memory) : views(memory), buffers(memory) {}
        std::pmr::deque<coconet_rt::DenseView> views;
        coconet_rt::ScratchVector<const halide_buffer_t *> buffers;
    };
    template<typename HostOf>
    void sources_of(const FusedPlan &plan, HostOf &&host_of, Sources *s) const {
        for (int k = 0; plan.reduces() && k < plan.group.size; k++) {
            s->buffers.push_back(
                plan.group.first + k == rank
                    ? plan.call.src
                    : &s->views.emplace_back(host_of(k), plan.full, plan.call.src->type).buf);
        }
    }

    // Copies `boxes` of the pass's source into the dense full box at `area`
    // of this rank's segment, where peers read them.
    template<typename Boxes>
    void post_source(const FusedPlan &plan, uint8_t *area, const Boxes &boxes) {
        coconet_rt::DenseView posted(area, plan.full, plan.call.src->type);
        for (const Box &b : boxes) {
            coconet_rt::copy_box(plan.call.src, &posted.buf, b);
            count_bytes(COCONET_FUSED, (uint64_t)b.count() * plan.element_bytes());
        }
    }

    // A pass's first meeting, once this rank's source is posted: the call's
    // check where the window was large enough (pass_window's *ready), else
    // (checked before) a barrier.
    int sources_posted(SharedWindow &w, const Group &g, const FusedSignature &signature,
                       const std::string &what, bool ready) {
        return ready ? same_call_in_window(w, g, signature, what)
                     : window_barrier(w, what + " (sources posted)");
    }

    // Whether a pass on the direct path runs replicated (fused_replicated):
    // its kernel allows it and its source is small (kReplicatedBytes;
    // COCONET_FUSED_REPLICATE=always|never decides instead for any source
    // up to that size). Every member decides alike; one whose switch
    // differs meets the others with another signature and fails.
    bool replicates(const FusedPlan &plan) const {
        const size_t bytes = (size_t)plan.full.count() * plan.element_bytes();
        if (!plan.call.replicable || bytes > kReplicatedBytes) {
            return false;
        }
        const char *mode =
            coconet_rt::env_choice("COCONET_FUSED_REPLICATE", {"auto", "always", "never"});
        if (std::strcmp(mode, "auto") != 0) {
            return std::strcmp(mode, "always") == 0;
        }
        return bytes * (plan.group.size - 1) <= kReplicatedBytes;
    }

    // A small replicable pass (coconet_fused_call::replicable): every member
    // posts its whole source, meets its peers once (the call's check too)
    // and reduces and computes the whole value itself from every member's
    // source in group-rank order: the sums of the direct path, bit for bit.
    // One meeting against the direct path's three and no slices copied.
    // Sources alternate between the segment's two areas for them by the
    // barrier's parity: data posted for barrier b is read before its reader
    // arrives at b + 1, and the next post to the same area is for b + 2 at
    // the earliest, once every member has arrived at b + 1. The window needs
    // those areas only (they end where a direct pass's places begin). A
    // kernel failure fails this member only: its peers computed every value
    // themselves.
    int fused_replicated(const FusedPlan &plan, const FusedSignature &signature,
                         const std::string &what) {
        const coconet_fused_call &c = plan.call;
        const Group &g = plan.group;
        SharedWindow *w = nullptr;
        bool ready = false;
        int rc = pass_window(g, FusedLayout::kPlacesOffset, signature, what, &w, &ready);
        if (rc != COCONET_OK) {
            return rc;
        }
        // Pieces of every slice are separate boxes; any other call's whole.
        const bool pieces = plan.pieces() && c.pieces > 1;
        coconet_rt::Scratch<2048> scratch;
        coconet_rt::ScratchVector<Box> boxes(&scratch);
        if (!pieces) {
            boxes.push_back(plan.full);
        }
        for (int q = g.first; pieces && q < g.first + g.size; q++) {
            if (!plan.slice(q).empty()) {
                boxes.push_back(plan.slice(q));
            }
        }
        if (plan.reduces()) {
            post_source(plan,
                        w->base[g.local(rank)] +
                            FusedLayout::replicated_source(w->barrier.epoch() + 1),
                        boxes);
        }
        rc = sources_posted(*w, g, signature, what, ready);
        if (rc != COCONET_OK) {
            return rc;
        }
        Sources srcs(&scratch);
        sources_of(
            plan,
            [&](int k) { return w->base[k] + FusedLayout::replicated_source(w->barrier.epoch()); },
            &srcs);
        for (const Box &b : boxes) {
            for (const Box &chunk : plan.chunks(b)) {
                rc = plan.run_kernel(*this, chunk, srcs.buffers.data(), srcs.buffers.size());
                if (rc != COCONET_OK) {
                    return rc;
                }
            }
        }
        return COCONET_OK;
    }

    // Where `box` of b lies in window memory of this rank's (coconet_mpi_alloc,
    // value_memory), when it is one contiguous range of b (the dense layout
    // peers assume): b holding exactly the box, or a range of b's outermost
    // dimension (an overlapped pass's chunk).
    WindowPlace place_of(const halide_buffer_t *b, const Box &box) const {
        int64_t first = 0;
        if (!b->host || box.empty() || !coconet_rt::is_contiguous(b, box, &first)) {
            return {};
        }
        const uint8_t *at = b->host + first * b->type.bytes();
        const size_t bytes = (size_t)box.count() * b->type.bytes();
        for (size_t i = 0; i < user_windows.size(); i++) {
            const UserWindow &u = user_windows[i];
            if (u.win != MPI_WIN_NULL && at >= u.base[rank] &&
                at + bytes <= u.base[rank] + u.bytes[rank]) {
                return {(int64_t)i, (int64_t)(at - u.base[rank])};
            }
        }
        return {};
    }

    // World rank q's memory at `at`, or `otherwise` when `at` is no window.
    uint8_t *window_host(const WindowPlace &at, int q, uint8_t *otherwise) const {
        return at.window >= 0 ? user_windows[(size_t)at.window].base[q] + at.offset : otherwise;
    }

    // A dense view of `box` at world rank q's `at`, or at `otherwise` when
    // `at` is no window (null then: none).
    std::unique_ptr<coconet_rt::DenseView> in_window(const WindowPlace &at, int q,
                                                     uint8_t *otherwise, const Box &box,
                                                     const halide_type_t &type) const {
        uint8_t *host = window_host(at, q, otherwise);
        return host ? std::make_unique<coconet_rt::DenseView>(host, box, type) : nullptr;
    }

    // Window memory for callers (coconet_mpi_alloc): collective over the
    // world, each rank its own size; in one node only.
    int alloc(size_t bytes, void **out) {
        *out = nullptr;
        const std::string what = "coconet_mpi_alloc";
        if (!one_node) {
            return fail(COCONET_ERR_INVALID,
                        coconet_rt::op_label(rank, what) +
                            ": the ranks are on more than one node, and window memory is shared "
                            "within a node; allocate ordinary memory (fused calls then take the "
                            "ring path)");
        }
        Group world;
        world.size = size;
        UserWindow u;
        int err = MPI_SUCCESS;
        {
            const coconet_rt::Watchdog::Guard guard = blocking(world, what);
            err =
                allocate_shared(group_comms.at(std::make_pair(0, size)),
                                std::max<MPI_Aint>((MPI_Aint)bytes, 1), &u.win, &u.base, &u.bytes);
        }
        if (err != MPI_SUCCESS) {
            return mpi_error(err, what);
        }
        *out = u.base[rank];
        user_windows.push_back(std::move(u));
        return COCONET_OK;
    }

    // The executor's values in one window per program, made on the program's
    // first call once every rank is in it (a polled barrier names a missing
    // one before the blocking allocation). COCONET_MPI_VALUE_MEMORY=ordinary
    // keeps them in ordinary memory (where shared memory is scarce: a
    // container's small /dev/shm); every rank must see the same setting.
    // By default (`auto`) only values of 64 KiB per member or more: a GEMV
    // writing its 4 KiB of partial sums into window memory that peers had
    // read took 3.5 us longer (31 against 27.5 us, 2 ranks) than the copy of
    // the peers' half it saves costs; the Megatron block's 4 MiB sources
    // gained 6% (docs/performance.md). `window` places every value.
    size_t places_values_from() const override {
        if (!one_node) {
            return SIZE_MAX;
        }
        const char *mode =
            coconet_rt::env_choice("COCONET_MPI_VALUE_MEMORY", {"auto", "window", "ordinary"});
        return std::strcmp(mode, "ordinary") == 0 ? SIZE_MAX
               : std::strcmp(mode, "window") == 0 ? 0
                                                  : size_t(64) << 10;
    }
    int value_memory(const std::string &key, const std::vector<size_t> &bytes,
                     std::vector<uint8_t *> *out) override {
        out->clear();
        if (!one_node || bytes.empty()) {
            return COCONET_OK;
        }
        auto it = value_windows.find(key);
        if (it == value_windows.end()) {
            size_t total = 0;
            for (size_t b : bytes) {
                total += align64(b);
            }
            void *mem = nullptr;
            int rc = barrier("placing the executor's values in window memory");
            if (rc == COCONET_OK) {
                rc = alloc(total, &mem);
            }
            if (rc != COCONET_OK) {
                return rc;
            }
            it = value_windows.emplace(key, static_cast<uint8_t *>(mem)).first;
        }
        uint8_t *at = it->second;
        for (size_t b : bytes) {
            out->push_back(at);
            at += align64(b);
        }
        return COCONET_OK;
    }

    int release_value_memory(const std::string &prefix) override {
        int rc = barrier("releasing the executor's window memory");
        for (auto it = value_windows.begin(); rc == COCONET_OK && it != value_windows.end();) {
            if (it->first.compare(0, prefix.size(), prefix) != 0) {
                ++it;
                continue;
            }
            rc = free_window(it->second);
            it = value_windows.erase(it);
        }
        return rc;
    }

    // This rank's segments of the windows not freed (coconet_mpi_window_bytes).
    uint64_t window_bytes() const {
        uint64_t total = 0;
        for (const UserWindow &u : user_windows) {
            total += u.win != MPI_WIN_NULL ? (uint64_t)u.bytes[rank] : 0;
        }
        return total;
    }

    // Collective over the world, like coconet_mpi_alloc.
    int free_window(void *p) {
        for (UserWindow &u : user_windows) {
            if (u.win != MPI_WIN_NULL && u.base[rank] == p) {
                Group world;
                world.size = size;
                const coconet_rt::Watchdog::Guard guard = blocking(world, "coconet_mpi_free");
                MPI_Win_unlock_all(u.win);
                MPI_Win_free(&u.win);
                return COCONET_OK;
            }
        }
        return fail(COCONET_ERR_INVALID, coconet_rt::op_label(rank, "coconet_mpi_free") +
                                             ": not memory from coconet_mpi_alloc on this "
                                             "communicator (or freed already)");
    }

    // The group's shared window, if a fused call made one (null if not).
    SharedWindow *existing_window(const Group &g) {
        auto it = windows.find(std::make_pair(g.first, g.size));
        return it != windows.end() && it->second.win != MPI_WIN_NULL ? &it->second : nullptr;
    }

    // The group's window, created (communicator too) or grown as needed. Only
    // the group's ranks take part, after check_same_call found them all in
    // this call, so these blocking calls do not wait for absent ranks.
    int shared_window(const Group &g, size_t need, const std::string &what, SharedWindow **out) {
        SharedWindow &w = windows[std::make_pair(g.first, g.size)];
        w.first = g.first;
        if (w.comm == MPI_COMM_NULL) {
            const int rc = group_comm(g, what, &w.comm);
            if (rc != COCONET_OK) {
                windows.erase(std::make_pair(g.first, g.size));
                return rc;
            }
        }
        if ((size_t)w.bytes < need) {
            const std::string allocating = what + " (allocating the shared window)";
            // Every member grows alike: same history of calls, same sizes.
            const MPI_Aint bytes = std::max<MPI_Aint>((MPI_Aint)need, 2 * w.bytes);
            int err = MPI_SUCCESS;
            std::vector<MPI_Aint> sizes;
            {
                const coconet_rt::Watchdog::Guard guard = blocking(g, allocating);
                if (w.win != MPI_WIN_NULL) {
                    MPI_Win_unlock_all(w.win);
                    MPI_Win_free(&w.win);
                }
                err = allocate_shared(w.comm, bytes, &w.win, &w.base, &sizes);
            }
            if (err != MPI_SUCCESS) {
                w.bytes = 0;
                return mpi_error(err, allocating);
            }
            w.bytes = bytes;
            std::vector<coconet_rt::FlagBarrierSlot *> slots;
            for (uint8_t *segment : w.base) {
                slots.push_back(reinterpret_cast<coconet_rt::FlagBarrierSlot *>(segment));
            }
            w.barrier = coconet_rt::FlagBarrier(slots, g.local(rank));
            w.barrier.reset();
            // Every member's slot is zero before any member first arrives.
            MPI_Request req;
            MPI_Ibarrier(w.comm, &req);
            std::vector<MPI_Request> reqs = {req};
            const int rc = wait_all(reqs, {-1}, allocating, nullptr);
            if (rc != COCONET_OK) {
                return rc;
            }
        }
        *out = &w;
        return COCONET_OK;
    }

    // The group's communicator: the world's is made with this communicator;
    // another group's on its first call (only the group's ranks take part,
    // after check_same_call found them all in this call, so this blocking
    // call does not wait for absent ranks, only for one that stops in it;
    // see docs/ARCHITECTURE.md) and kept.
    int group_comm(const Group &g, const std::string &what, MPI_Comm *out) {
        // MPI_COMM_NULL is not a value-initialized MPI_Comm: insert it.
        MPI_Comm &comm =
            group_comms.emplace(std::make_pair(g.first, g.size), MPI_COMM_NULL).first->second;
        if (comm == MPI_COMM_NULL) {
            MPI_Group world_group, members;
            MPI_Comm_group(MPI_COMM_WORLD, &world_group);
            int range[1][3] = {{g.first, g.first + g.size - 1, 1}};
            MPI_Group_range_incl(world_group, 1, range, &members);
            // Collective over the group only, unlike MPI_Comm_split.
            const coconet_rt::Watchdog::Guard guard =
                blocking(g, what + " (creating the group's communicator)");
            const int err = MPI_Comm_create_group(
                MPI_COMM_WORLD, members, kGroupCommTag + (g.first * (size + 1) + g.size) % 8000,
                &comm);
            MPI_Group_free(&members);
            MPI_Group_free(&world_group);
            if (err != MPI_SUCCESS) {
                group_comms.erase(std::make_pair(g.first, g.size));
                return mpi_error(err, what + " (creating the group's communicator)");
            }
        }
        *out = comm;
        return COCONET_OK;
    }

    // Guards a blocking MPI call of `what` among group g, which cannot be
    // polled against the timeout: past it, the process watchdog names the
    // call and the group's other ranks, and ends this process.
    coconet_rt::Watchdog::Guard blocking(const Group &g, const std::string &what) {
        coconet_rt::fault_point(
            this, coconet_rt::FaultSite::Blocking, [&] { return what; }, false);
        std::vector<int> others;
        for (int r = g.first; r < g.first + g.size; r++) {
            if (r != rank) {
                others.push_back(r);
            }
        }
        return coconet_rt::Watchdog::process().guard(
            coconet_rt::timeout_message(rank, what, timeout, coconet_rt::rank_list(others)) +
                " in a blocking MPI call; ending this process (mpirun then ends the job)",
            timeout, 1);
    }

    // Makes this rank's writes to the window visible to the group and waits
    // for every member's: a flag barrier in the window (release on arrival,
    // acquire on waiting), no MPI call. With `failed`, the members' statuses
    // go with their arrivals: in, whether this rank failed (its rank, or -1);
    // out, the first member that did (or -1), the same on every member. A
    // member that aborted (abort) makes every member fail here, naming it.
    int window_barrier(SharedWindow &w, const std::string &what, int *failed = nullptr) {
        w.barrier.arrive(failed && *failed >= 0 ? kKernelFailed : kArrivedOk,
                         std::memory_order_release);
        const auto deadline = std::chrono::steady_clock::now() +
                              std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(timeout));
        if (!w.barrier.wait(deadline, std::memory_order_acquire)) {
            std::vector<int> late;
            for (const int k : w.barrier.late()) {
                late.push_back(w.first + k);
            }
            return timed_out(what, late.empty() ? "other ranks" : coconet_rt::rank_list(late));
        }
        for (int k = 0; k < w.barrier.members(); k++) {
            if (w.barrier.word(k) == kAborted) {
                // It never meets again: later calls fail at once, and the
                // windows are left to MPI_Finalize (see ~MpiComm).
                failure =
                    "rank " + std::to_string(w.first + k) + " failed (it aborted the communicator)";
                return aborted(what);
            }
        }
        if (failed) {
            *failed = -1;
            for (int k = 0; k < w.barrier.members() && *failed < 0; k++) {
                *failed = w.barrier.word(k) == kKernelFailed ? w.first + k : -1;
            }
        }
        return COCONET_OK;
    }

    // Whether every member of `comm` arrives at a barrier within the timeout
    // (quietly: used while destroying the communicator).
    bool members_present(MPI_Comm comm) const {
        MPI_Request req;
        if (MPI_Ibarrier(comm, &req) != MPI_SUCCESS) {
            return false;
        }
        const auto deadline =
            std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
        while (std::chrono::steady_clock::now() < deadline) {
            int done = 0;
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
            if (done) {
                return true;
            }
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        return false;
    }

    // Sends sends[k] of src to group member k and receives recvs[k] from it
    // in one MPI_Ialltoallv on the group's communicator (sent in place where
    // src holds the boxes contiguously): received.from[q] holds what came
    // from world rank q.
    int exchange(const Op &op, MPI_Comm gc, const halide_buffer_t *src,
                 const std::vector<Box> &sends, const std::vector<Box> &recvs, Received &received,
                 const std::string &what) {
        auto send = std::make_unique<Flat>();
        Flat *recv = (received.flat = std::make_unique<Flat>()).get();
        flatten(src, src->type, sends, true, false, send.get());
        flatten(nullptr, src->type, recvs, false, false, recv);
        const MPI_Datatype type = word_type(src->type.bytes());
        Posted posted;
        int err = MPI_SUCCESS;
        // Each member sends at most its input and receives at most |group| inputs'
        // worth: a bound every member computes alike, so that all take one way.
        int64_t value = 1;
        for (int d = 0; d < op.dims; d++) {
            value *= op.n[d];
        }
        if (value * op.src.size <= max_count()) {
            const std::vector<int> scounts = ints(send->count), sdispls = ints(send->displ),
                                   rcounts = ints(recv->count), rdispls = ints(recv->displ);
            posted.add(-1);
            err = MPI_Ialltoallv(send->base, scounts.data(), sdispls.data(), type, recv->base,
                                 rcounts.data(), rdispls.data(), type, gc, &posted.reqs.back());
        } else {
            // Too large for int counts: a message to and from each member, in pieces.
            for (int k = 0; k < op.src.size && err == MPI_SUCCESS; k++) {
                err = post_pieces(posted, recv->count[k], op.src.first + k,
                                  [&](int64_t at, int n, MPI_Request *req) {
                                      return MPI_Irecv(recv->at(recv->displ[k] + at), n, type, k,
                                                       kExchangeTag, gc, req);
                                  });
                err = err != MPI_SUCCESS
                          ? err
                          : post_pieces(posted, send->count[k], op.src.first + k,
                                        [&](int64_t at, int n, MPI_Request *req) {
                                            return MPI_Isend(send->at(send->displ[k] + at), n, type,
                                                             k, kExchangeTag, gc, req);
                                        });
            }
        }
        const int rc = finish(posted, err, op.src, what, send, received.flat);
        if (rc != COCONET_OK) {
            return rc;
        }
        received.from.clear();
        received.from.resize(size);
        for (int k = 0; k < (int)recvs.size(); k++) {
            if (received.flat->count[k] > 0) {
                received.from[op.src.first + k] = received.flat->view(k);
            }
        }
        return COCONET_OK;
    }

    // SEND_RECV: sends send_box(q) of src to every other participant q and
    // receives recv_box(q) from each by point-to-point messages (empty boxes
    // are skipped on both sides, which compute the same boxes): received[q]
    // holds what came from q.
    int point_to_point(const Op &op, const halide_buffer_t *src, const BoxFor &send_box,
                       const BoxFor &recv_box, Parts &received, const std::string &what) {
        const int tag = kTagBase + op.kind;
        Parts sends;
        Posted posted;
        received.clear();
        received.resize(size);
        int err = MPI_SUCCESS;
        for (int q : op.participants()) {
            if (q == rank) {
                continue;
            }
            const Box r = recv_box(q);
            if (!r.empty() && err == MPI_SUCCESS) {
                received[q] = std::make_unique<PackedBox>(r, src->type);
                err = post_box(posted, false, *received[q], q, tag, MPI_COMM_WORLD);
            }
            const Box s = send_box(q);
            if (!s.empty() && err == MPI_SUCCESS) {
                sends.push_back(coconet_rt::pack(src, s));
                count_bytes(op.kind, sends.back()->size_bytes());
                err = post_box(posted, true, *sends.back(), q, tag, MPI_COMM_WORLD);
            }
        }
        if (err != MPI_SUCCESS) {
            keep_forever(sends, received); // earlier requests may still use them
            return mpi_error(err, what);
        }
        return wait_all(
            posted.reqs, posted.peers, what, [&] { keep_forever(sends, received); }, nullptr,
            Pace::Patient);
    }

    // How a wait polls. MPI progresses non-blocking calls only inside MPI
    // calls, so a wait inside a collective that every member has entered
    // tests again at once (sleeping between tests made a 64 MiB all-reduce
    // 15-30x slower), yielding to ranks that share the core. A wait that may
    // be for a peer still computing (its arrival at a call, a message of a
    // pipeline) tests at once for 1 ms, then sleeps 20 us between tests,
    // leaving the cores to the ranks that compute (spinning there made a
    // 4-rank pipeline on 2 cores 1.5-2x slower).
    enum class Pace { Eager, Patient };

    // Polls the requests until all complete or the timeout passes. On timeout,
    // cancels what can be cancelled (point-to-point requests; peer -1 marks a
    // non-blocking collective, which MPI cannot cancel); `on_abandon` then
    // keeps the buffers of requests MPI may still read or write. The message
    // names the peers of the requests left, or whom `whom` names.
    int wait_all(std::vector<MPI_Request> &reqs, const std::vector<int> &peers,
                 const std::string &what, const std::function<void()> &on_abandon,
                 const std::function<std::string()> &whom = nullptr, Pace pace = Pace::Eager) {
        const auto start = std::chrono::steady_clock::now();
        const auto deadline = start + std::chrono::duration<double>(timeout);
        const auto eager_until = start + std::chrono::milliseconds(1);
        while (true) {
            int done = 0;
            const int err = MPI_Testall((int)reqs.size(), reqs.data(), &done, MPI_STATUSES_IGNORE);
            if (err != MPI_SUCCESS) {
                return mpi_error(err, what);
            }
            if (done) {
                return COCONET_OK;
            }
            const auto now = std::chrono::steady_clock::now();
            if (now > deadline) {
                break;
            }
            if (pace == Pace::Patient && now > eager_until) {
                std::this_thread::sleep_for(std::chrono::microseconds(20));
            } else {
                std::this_thread::yield();
            }
        }
        std::vector<int> waiting;
        bool pending = false;
        for (size_t i = 0; i < reqs.size(); i++) {
            int done = 0;
            MPI_Test(&reqs[i], &done, MPI_STATUS_IGNORE);
            if (!done) {
                waiting.push_back(peers[i]);
                if (peers[i] >= 0) {
                    MPI_Cancel(&reqs[i]);
                    MPI_Test(&reqs[i], &done, MPI_STATUS_IGNORE);
                }
                pending |= !done;
            }
        }
        if (pending && on_abandon) {
            on_abandon();
        }
        const bool everyone = std::find(waiting.begin(), waiting.end(), -1) != waiting.end();
        return timed_out(what, whom       ? whom()
                               : everyone ? "other ranks"
                                          : coconet_rt::rank_list(waiting));
    }

    // A wait for `whom` in `what` passed the timeout. The exchange state with
    // the missing peers is lost: later calls are refused.
    int timed_out(const std::string &what, const std::string &whom) {
        failure = coconet_rt::timeout_message(rank, what, timeout, whom);
        failed_timeout = timeout;
        return fail(COCONET_ERR_TIMEOUT, failure);
    }

    // Buffers of requests MPI may still use after a timeout are never freed.
    static void keep_forever(Parts &sends, Parts &recvs) {
        static auto *kept = new Parts();
        for (Parts *parts : {&sends, &recvs}) {
            for (auto &p : *parts) {
                if (p) {
                    kept->push_back(std::move(p));
                }
            }
        }
    }

    // Only reached when the application set MPI_ERRORS_RETURN; with MPI's
    // default handler, MPI aborts the job itself.
    int mpi_error(int err, const std::string &what) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(err, text, &len);
        failure = coconet_rt::op_label(rank, what) + ": MPI error: " + std::string(text, len);
        return fail(COCONET_ERR_BACKEND, failure);
    }

    int aborted(const std::string &what) {
        return fail(COCONET_ERR_ABORTED, coconet_rt::op_label(rank, what) + " aborted: " + failure);
    }

    std::string failure;
    const bool one_node; // every world rank on one node (shared memory possible)
    const bool native;   // unfused reductions by MPI's own (COCONET_MPI_COLLECTIVES)
    // By (first rank, size) of a group: its communicator and its window.
    std::map<std::pair<int, int>, MPI_Comm> group_comms;
    std::map<std::pair<int, int>, SharedWindow> windows;
    std::vector<UserWindow> user_windows; // coconet_mpi_alloc's, in allocation order
    std::map<std::string, uint8_t *> value_windows; // value_memory's, by key
};

// comm as an MPI communicator, or null for another kind, a destroyed one or
// a pointer that is none (checked against the registry before it is read).
MpiComm *mpi_comm(coconet_comm *comm) {
    return coconet_rt::is_live_comm(comm) ? dynamic_cast<MpiComm *>(comm) : nullptr;
}

} // namespace

extern "C" {

coconet_comm *coconet_mpi_comm_create(double timeout_seconds) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (finalized) {
        std::fprintf(stderr, "coconet: MPI was already finalized\n");
        return nullptr;
    }
    if (!initialized) {
        int provided = 0;
        if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
            std::fprintf(stderr, "coconet: MPI_Init_thread failed\n");
            return nullptr;
        }
        initialized_here = true;
    }
    int rank = 0, size = 1, node_size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    // Whether fused calls can take the direct path (collective over the world,
    // like creating the communicator on every rank).
    MPI_Comm node = MPI_COMM_NULL;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
            MPI_SUCCESS &&
        node != MPI_COMM_NULL) {
        MPI_Comm_size(node, &node_size);
        MPI_Comm_free(&node);
    }
    // The world's collectives get a communicator of their own now, while every
    // rank is here anyway, rather than by a blocking call in the middle of a
    // collective, where a rank that stops would hang the others.
    MPI_Comm world = MPI_COMM_NULL;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &world) != MPI_SUCCESS) {
        std::fprintf(stderr, "coconet: MPI_Comm_dup of MPI_COMM_WORLD failed\n");
        return nullptr;
    }
    return new MpiComm(rank, size, timeout_seconds, node_size == size, world);
}

void coconet_mpi_comm_destroy(coconet_comm *comm) {
    delete comm;
}

void *coconet_mpi_alloc(coconet_comm *comm, size_t bytes) {
    MpiComm *mpi = mpi_comm(comm);
    void *p = nullptr;
    if (!mpi) {
        coconet_rt::fail(comm, COCONET_ERR_INVALID,
                         "coconet_mpi_alloc: not a live MPI communicator "
                         "(coconet_mpi_comm_create)");
    } else {
        mpi->alloc(bytes, &p);
    }
    return p;
}

int coconet_mpi_free(coconet_comm *comm, void *p) {
    MpiComm *mpi = mpi_comm(comm);
    return mpi ? mpi->free_window(p)
               : coconet_rt::fail(comm, COCONET_ERR_INVALID,
                                  "coconet_mpi_free: not a live MPI communicator");
}

uint64_t coconet_mpi_window_bytes(const coconet_comm *comm) {
    const MpiComm *mpi = mpi_comm(const_cast<coconet_comm *>(comm));
    return mpi ? mpi->window_bytes() : 0;
}

void coconet_mpi_finalize(void) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!initialized_here || finalized) {
        return;
    }
    // Every rank meets first. After a failure here, a peer that never
    // arrives (dead or frozen) must not hang this process in MPI_Finalize:
    // abort the job, which ends it too. A rank without one waits, as
    // MPI_Finalize would.
    const double t = failed_timeout.load();
    if (!all_arrive(t > 0 ? t + 5.0 : 0.0)) {
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        std::fprintf(stderr,
                     "coconet: rank %d: after a failed call, not every rank reached "
                     "coconet_mpi_finalize within %.1f s; aborting the MPI job\n",
                     rank, t + 5.0);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
}

} // extern "C"

#else

extern "C" {

coconet_comm *coconet_mpi_comm_create(double) {
    std::fprintf(stderr, "coconet: this runtime was built without MPI\n");
    return nullptr;
}

void coconet_mpi_comm_destroy(coconet_comm *comm) {
    delete comm;
}

void *coconet_mpi_alloc(coconet_comm *comm, size_t) {
    coconet_rt::fail(comm, COCONET_ERR_INVALID,
                     "coconet_mpi_alloc: this runtime was built without MPI");
    return nullptr;
}

int coconet_mpi_free(coconet_comm *comm, void *) {
    return coconet_rt::fail(comm, COCONET_ERR_INVALID,
                            "coconet_mpi_free: this runtime was built without MPI");
}

uint64_t coconet_mpi_window_bytes(const coconet_comm *) {
    return 0;
}

void coconet_mpi_finalize(void) {}

} // extern "C"

#endif
