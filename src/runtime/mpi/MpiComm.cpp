// MPI backend: one rank per process over MPI_COMM_WORLD, each communicator's
// messages on a duplicate of it of its own (see MpiComm.h). Unfused collectives
// run on MPI's own non-blocking collectives over a communicator per rank group
// (created once, by the group's ranks alone, and cached), polled against the
// timeout so that a missing peer is an error naming it, never a hang. Two
// paths (COCONET_MPI_COLLECTIVES): `native` (default) hands reductions to
// MPI_Iallreduce / MPI_Ireduce and gathers to MPI_Iallgatherv / MPI_Ibcast, in
// the order MPI picks; `deterministic` moves data with MPI_Ialltoallv only and
// reduces in group-rank order here, bit for bit the reference. A
// reduce_scatter takes the second way on both paths: it moves no more than
// MPI's own, and Open MPI's non-blocking one is much slower than either. Every call is first
// checked: each member sends the others its call's signature, so that different calls fail naming
// the rank and a rank that never comes is named before any collective is posted. Data is read and
// written in the caller's buffers where it lies contiguously, packed otherwise. SEND_RECV (two
// groups) is point-to-point. Fused reduce-scatters take a ring of messages, or on one node a
// shared-memory window over the group's communicator. A rank that fails on its own sends the others
// its reason (abort), which their polled waits read. Compiled to stubs without COCONET_HAS_MPI.
#include <cstdio>

#include "core/Comm.h"

extern "C" int coconet_mpi_available(void) {
#ifdef COCONET_HAS_MPI
    return 1;
#else
    return 0;
#endif
}

#ifdef COCONET_HAS_MPI

#include "mpi/MpiComm.h"

namespace coconet_rt::mpi {

MpiComm::MpiComm(int rank, int size, double timeout, bool one_node, MPI_Comm world,
                 MPI_Comm notices)
    : coconet_comm(rank, size, timeout), world(world), notices(notices), one_node(one_node),
      native(native_from_env()) {
    group_comms.emplace(std::make_pair(0, size), world);
}

MpiComm::~MpiComm() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized || !failure.empty()) {
        return;
    }
    // Every rank allocated the world's in the same order.
    if (!members_present(world)) {
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
    MPI_Comm_free(&notices); // no rank aborted: no notice is on its way
}

void MpiComm::abort(const char *reason) {
    const bool own = failure.empty();
    failure = "rank " + std::to_string(rank) + " failed: " + reason;
    failed_timeout = timeout;
    if (told_peers) {
        return;
    }
    told_peers = true;
    if (own) {
        // Kept for good, where they are (a deque never moves its elements):
        // a peer's MPI may take the notice at any time, or never.
        static auto *kept = new std::deque<std::string>();
        kept->emplace_back(std::string(reason).substr(0, 4096));
        const std::string &text = kept->back();
        for (int q = 0; q < size; q++) {
            MPI_Request req;
            if (q != rank && MPI_Isend(text.data(), (int)text.size(), MPI_CHAR, q, kAbortTag,
                                       notices, &req) == MPI_SUCCESS) {
                MPI_Request_free(&req);
            }
        }
    }
    // After the notices, so that a peer seeing this arrival finds the reason.
    for (auto &entry : windows) {
        SharedWindow &w = entry.second;
        if (w.win != MPI_WIN_NULL) {
            w.barrier.arrive(kAborted, std::memory_order_release);
        }
    }
}

bool MpiComm::peer_aborted() {
    int found = 0;
    MPI_Message message;
    MPI_Status status;
    if (MPI_Improbe(MPI_ANY_SOURCE, kAbortTag, notices, &found, &message, &status) != MPI_SUCCESS ||
        !found) {
        return false;
    }
    int n = 0;
    MPI_Get_count(&status, MPI_CHAR, &n);
    std::string reason((size_t)std::max(n, 0), '\0');
    MPI_Mrecv(reason.data(), n, MPI_CHAR, &message, MPI_STATUS_IGNORE);
    failure = "rank " + std::to_string(status.MPI_SOURCE) + " failed: " + reason;
    failed_timeout = timeout;
    return true;
}

int MpiComm::barrier(const char *what) {
    return meet_all("coconet_barrier", what);
}

int MpiComm::meet_all(const char *call, const char *what) {
    const std::string label = std::string("barrier '") + what + "'";
    if (!failure.empty()) {
        return aborted(label);
    }
    Group all;
    all.size = size;
    return check_same_call(all, barrier_signature(call, label), label);
}

int MpiComm::run(Op &op, const halide_buffer_t *in, halide_buffer_t *out) {
    const std::string what = op.what();
    if (!failure.empty()) {
        return aborted(what);
    }
    if (op.kind == COCONET_SEND_RECV) {
        return send_recv(op, in, out, what);
    }
    if (op.src.size == 1) {
        op.peer_inputs[rank] = in; // a group of one: nothing to exchange
        coconet_rt::compute_output(op, rank, out, threads);
        return COCONET_OK;
    }
    MPI_Comm gc = MPI_COMM_NULL;
    int rc =
        check_same_call(op.src, op_signature(op, native ? kNativePath : kDeterministicPath), what);
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
        op.peer_inputs[q] = q == rank ? in : received.from[q] ? &received.from[q]->buf : nullptr;
    }
    coconet_rt::compute_output(op, rank, out, threads);
    return COCONET_OK;
}

Box MpiComm::part(const Op &op, int from, int to) {
    return from != to && op.reads_from(to, from)
               ? intersect(op.input_box(from), op.output_limit(to))
               : coconet_rt::no_box(op.dims);
}

std::vector<Box> MpiComm::send_boxes(const Op &op) const {
    std::vector<Box> boxes;
    for (int q = op.src.first; q < op.src.first + op.src.size; q++) {
        boxes.push_back(part(op, rank, q));
    }
    return boxes;
}

std::vector<Box> MpiComm::recv_boxes(const Op &op) const {
    std::vector<Box> boxes;
    for (int q = op.src.first; q < op.src.first + op.src.size; q++) {
        boxes.push_back(part(op, q, rank));
    }
    return boxes;
}

int64_t MpiComm::bytes_sent(const Op &op) const {
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

int MpiComm::timed_out(const std::string &what, const std::string &whom) {
    failure = coconet_rt::timeout_message(rank, what, timeout, whom);
    failed_timeout = timeout;
    return fail(COCONET_ERR_TIMEOUT, failure);
}

int MpiComm::mpi_error(int err, const std::string &what) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, text, &len);
    failure = coconet_rt::op_label(rank, what) + ": MPI error: " + std::string(text, len);
    return fail(COCONET_ERR_BACKEND, failure);
}

int MpiComm::aborted(const std::string &what) {
    return fail(COCONET_ERR_ABORTED, coconet_rt::op_label(rank, what) + " aborted: " + failure);
}

MpiComm *mpi_comm(coconet_comm *comm) {
    return coconet_rt::is_live_comm(comm) ? dynamic_cast<MpiComm *>(comm) : nullptr;
}

} // namespace coconet_rt::mpi

using namespace coconet_rt::mpi;

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
    // Making the communicator is collective over MPI_COMM_WORLD through
    // blocking calls, which cannot be polled: a rank that never comes (one
    // finalizing, or stuck before it) ends this one at the timeout, named.
    const coconet_rt::Watchdog::Guard guard = watch_blocking(
        rank, "coconet_mpi_comm_create", coconet_rt::initial_timeout(timeout_seconds),
        "every rank of MPI_COMM_WORLD to make it");
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
    MPI_Comm world = MPI_COMM_NULL, notices = MPI_COMM_NULL;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &world) != MPI_SUCCESS ||
        MPI_Comm_dup(MPI_COMM_WORLD, &notices) != MPI_SUCCESS) {
        std::fprintf(stderr, "coconet: MPI_Comm_dup of MPI_COMM_WORLD failed\n");
        return nullptr;
    }
    MPI_Comm_set_errhandler(notices, MPI_ERRORS_RETURN);
    auto *comm = new MpiComm(rank, size, timeout_seconds, node_size == size, world, notices);
    comm->threads = coconet_rt::threads_per_rank(1, std::max(1, node_size));
    return comm;
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

int coconet_mpi_is_mpi_comm(const coconet_comm *comm) {
    return mpi_comm(const_cast<coconet_comm *>(comm)) ? 1 : 0;
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

int coconet_mpi_is_mpi_comm(const coconet_comm *) {
    return 0;
}

uint64_t coconet_mpi_window_bytes(const coconet_comm *) {
    return 0;
}

void coconet_mpi_finalize(void) {}

} // extern "C"

#endif
