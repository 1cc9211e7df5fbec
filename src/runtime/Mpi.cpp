// MPI backend: one rank per process over MPI_COMM_WORLD, point-to-point only
// (groups are subsets of ranks, no communicator splits). Each rank sends every
// peer that reads its input the part that peer can use (the sender's input box
// intersected with the receiver's largest output), packed; the receiver reads
// the packed parts as buffers in global coordinates and computes its output
// with the same code as the threads backend. ALL_REDUCE is a reduce-scatter
// then an all-gather by blocks, still reducing in group-rank order.
// Non-blocking calls polled against the timeout: a missing peer is an error
// naming it, never a hang. Compiled to stubs without COCONET_HAS_MPI.
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
#include <chrono>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include "Errors.h"
#include "Pack.h"

using coconet_rt::Box;
using coconet_rt::Op;
using coconet_rt::PackedBox;

namespace {

bool initialized_here = false;

// Messages of different kinds never match each other; messages of the same
// kind between two ranks match in call order (MPI's non-overtaking rule).
constexpr int kTagBase = 7000;

using Parts = std::vector<std::unique_ptr<PackedBox>>;
// The box a rank sends to / receives from peer q; an empty box means nothing.
using BoxFor = std::function<Box(int q)>;

struct MpiComm : coconet_comm {
    MpiComm(int rank, int size, double timeout) : coconet_comm(rank, size, timeout) {}

    const char *backend() const override { return "mpi"; }

    // Later calls on this rank fail at once; other processes are told by the
    // application (MPI_Abort), which MPI cannot do gracefully for us.
    void abort(const char *reason) override {
        failure = "rank " + std::to_string(rank) + " failed: " + reason;
    }

    int barrier(const char *what) override {
        const std::string label = std::string("barrier '") + what + "'";
        if (!failure.empty()) {
            return aborted(label);
        }
        MPI_Request req;
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        std::vector<MPI_Request> reqs = {req};
        return wait_all(reqs, {-1}, label, nullptr);
    }

    int run(Op &op, const halide_buffer_t *in, halide_buffer_t *out) override {
        const std::string what = op.what();
        if (!failure.empty()) {
            return aborted(what);
        }
        if (op.kind == COCONET_ALL_REDUCE && op.dims > 0) {
            return all_reduce_by_blocks(op, in, out, what);
        }
        Parts received;
        int rc = exchange(
            op, in,
            [&](int q) {
                return op.reads_from(q, rank) ? intersect(op.input_box(rank), op.output_limit(q))
                                              : coconet_rt::no_box(op.dims);
            },
            [&](int q) {
                return op.reads_from(rank, q) ? intersect(op.input_box(q), op.output_limit(rank))
                                              : coconet_rt::no_box(op.dims);
            },
            received, what);
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

    // Reduce-scatter then all-gather by blocks of the outermost dimension: each
    // rank sends about 2 (R-1)/R of its input instead of R-1 copies of it.
    int all_reduce_by_blocks(Op &op, const halide_buffer_t *in, halide_buffer_t *out,
                             const std::string &what) {
        Parts parts;
        int rc = exchange(
            op, in, [&](int q) { return op.block(q); }, [&](int) { return op.block(rank); }, parts,
            what);
        if (rc != COCONET_OK) {
            return rc;
        }
        for (int q = 0; q < size; q++) {
            op.peer_inputs[q] = q == rank ? in : parts[q] ? &parts[q]->buf : nullptr;
        }
        PackedBox reduced(op.block(rank), in->type);
        coconet_rt::compute_output(op, rank, &reduced.buf);
        Parts blocks;
        rc = exchange(
            op, &reduced.buf, [&](int) { return op.block(rank); },
            [&](int q) { return op.block(q); }, blocks, what + " (all-gather of reduced blocks)");
        if (rc != COCONET_OK) {
            return rc;
        }
        const Box want = coconet_rt::box_of(out);
        for (int q : op.participants()) {
            const Box part = intersect(op.block(q), want);
            if (!part.empty()) {
                coconet_rt::copy_box(q == rank ? &reduced.buf : &blocks[q]->buf, out, part);
            }
        }
        return COCONET_OK;
    }

    // Sends send_box(q) of src to every other participant q and receives
    // recv_box(q) from each (empty boxes are skipped on both sides, which
    // compute the same boxes): received[q] holds what came from q.
    int exchange(const Op &op, const halide_buffer_t *src, const BoxFor &send_box,
                 const BoxFor &recv_box, Parts &received, const std::string &what) {
        const int tag = kTagBase + op.kind;
        Parts sends;
        std::vector<MPI_Request> reqs;
        std::vector<int> peers;
        received.clear();
        received.resize(size);
        for (int q : op.participants()) {
            if (q == rank) {
                continue;
            }
            const Box r = recv_box(q);
            if (!r.empty()) {
                received[q] = std::make_unique<PackedBox>(r, src->type);
                reqs.emplace_back();
                peers.push_back(q);
                const int err = MPI_Irecv(received[q]->data.data(), (int)received[q]->size_bytes(),
                                          MPI_BYTE, q, tag, MPI_COMM_WORLD, &reqs.back());
                if (err != MPI_SUCCESS) {
                    keep_forever(sends, received); // earlier requests may still use them
                    return mpi_error(err, what);
                }
            }
            const Box s = send_box(q);
            if (!s.empty()) {
                sends.push_back(coconet_rt::pack(src, s));
                count_bytes(op.kind, sends.back()->size_bytes());
                reqs.emplace_back();
                peers.push_back(q);
                const int err =
                    MPI_Isend(sends.back()->data.data(), (int)sends.back()->size_bytes(), MPI_BYTE,
                              q, tag, MPI_COMM_WORLD, &reqs.back());
                if (err != MPI_SUCCESS) {
                    keep_forever(sends, received); // earlier requests may still use them
                    return mpi_error(err, what);
                }
            }
        }
        return wait_all(reqs, peers, what, [&] { keep_forever(sends, received); });
    }

    // Polls the requests until all complete or the timeout passes. On timeout,
    // cancels what can be cancelled; `on_abandon` then keeps the buffers of
    // requests MPI may still read or write.
    int wait_all(std::vector<MPI_Request> &reqs, const std::vector<int> &peers,
                 const std::string &what, const std::function<void()> &on_abandon) {
        const auto deadline =
            std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
        auto nap = std::chrono::microseconds(10);
        while (true) {
            int done = 0;
            const int err = MPI_Testall((int)reqs.size(), reqs.data(), &done, MPI_STATUSES_IGNORE);
            if (err != MPI_SUCCESS) {
                return mpi_error(err, what);
            }
            if (done) {
                return COCONET_OK;
            }
            if (std::chrono::steady_clock::now() > deadline) {
                break;
            }
            std::this_thread::sleep_for(nap);
            nap = std::min(nap * 2, std::chrono::microseconds(500));
        }
        std::vector<int> waiting;
        bool pending = false;
        for (size_t i = 0; i < reqs.size(); i++) {
            int done = 0;
            MPI_Test(&reqs[i], &done, MPI_STATUS_IGNORE);
            if (!done) {
                waiting.push_back(peers[i]);
                MPI_Cancel(&reqs[i]);
                MPI_Test(&reqs[i], &done, MPI_STATUS_IGNORE);
                pending |= !done;
            }
        }
        if (pending && on_abandon) {
            on_abandon();
        }
        const bool everyone = std::find(waiting.begin(), waiting.end(), -1) != waiting.end();
        const std::string msg = coconet_rt::timeout_message(
            rank, what, timeout, everyone ? "other ranks" : coconet_rt::rank_list(waiting));
        // The exchange state with the missing peers is lost: refuse later calls.
        failure = msg;
        return fail(COCONET_ERR_TIMEOUT, msg);
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
};

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
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return new MpiComm(rank, size, timeout_seconds);
}

void coconet_mpi_comm_destroy(coconet_comm *comm) {
    delete comm;
}

void coconet_mpi_finalize(void) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (initialized_here && !finalized) {
        MPI_Finalize();
    }
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

void coconet_mpi_finalize(void) {}

} // extern "C"

#endif
