// MPI backend: one rank per process over MPI_COMM_WORLD. Each rank sends every
// peer that reads its input the part the peer can use (input box of the sender
// intersected with the largest output of the receiver), packed; the receiver
// unpacks those parts as buffers in global coordinates and computes its output
// exactly as the threads backend does. Non-blocking calls polled against the
// timeout, so a missing peer is an error naming it, never a hang.
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

#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

using coconet_rt::Box;
using coconet_rt::Op;

namespace {

bool initialized_here = false;

// A dense copy of one box of a buffer, itself described as a buffer in global
// coordinates so that compute_output can read it like a peer's input.
struct Part {
    Box box;
    std::vector<uint8_t> data;
    std::vector<halide_dimension_t> dims;
    halide_buffer_t buf{};

    Part(const Box &b, const halide_type_t &type) : box(b), data((size_t)b.count() * type.bytes()) {
        int32_t stride = 1;
        for (int d = 0; d < b.dims; d++) {
            dims.push_back(halide_dimension_t((int32_t)b.min[d], (int32_t)b.extent[d], stride));
            stride *= (int32_t)b.extent[d];
        }
        buf.type = type;
        buf.dimensions = b.dims;
        buf.dim = dims.data();
        buf.host = data.data();
    }
};

using Parts = std::vector<std::unique_ptr<Part>>;

struct MpiComm : coconet_comm {
    MpiComm(int rank, int size, double timeout) : coconet_comm(rank, size, timeout) {}

    const char *backend() const override { return "mpi"; }

    void abort(const char *reason) override { failure = reason; }

    int barrier(const char *what) override {
        MPI_Request req;
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        std::vector<MPI_Request> reqs = {req};
        return wait_all(reqs, {-1}, std::string("barrier '") + what + "'");
    }

    int run(Op &op, const halide_buffer_t *in, halide_buffer_t *out) override {
        const std::string what = std::string(op.kind_name()) + " '" + op.name + "'";
        if (!failure.empty()) {
            return fail(COCONET_ERR_ABORTED,
                        "rank " + std::to_string(rank) + ": " + what + " aborted: " + failure);
        }
        if (op.kind == COCONET_ALL_REDUCE && op.dims > 0) {
            return all_reduce_by_blocks(op, in, out, what);
        }
        // Each peer gets the part of this rank's input that its largest output can use.
        Parts received;
        int rc = exchange(
            op, in,
            [&](int q) -> std::optional<Box> {
                if (!op.reads_from(q, rank)) {
                    return std::nullopt;
                }
                return intersect(op.input_box(rank), op.output_limit(q));
            },
            [&](int q) -> std::optional<Box> {
                if (!op.reads_from(rank, q)) {
                    return std::nullopt;
                }
                return intersect(op.input_box(q), op.output_limit(rank));
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
    // rank sends about 2 (R-1)/R of its input instead of R-1 copies of it. The
    // reduction order is still the group's rank order.
    int all_reduce_by_blocks(Op &op, const halide_buffer_t *in, halide_buffer_t *out,
                             const std::string &what) {
        Parts parts;
        int rc = exchange(
            op, in, [&](int q) { return std::optional<Box>(op.block(q)); },
            [&](int) { return std::optional<Box>(op.block(rank)); }, parts, what);
        if (rc != COCONET_OK) {
            return rc;
        }
        for (int q = 0; q < size; q++) {
            op.peer_inputs[q] = q == rank ? in : parts[q] ? &parts[q]->buf : nullptr;
        }
        Part reduced(op.block(rank), in->type);
        coconet_rt::compute_output(op, rank, &reduced.buf);
        Parts blocks;
        rc = exchange(
            op, &reduced.buf, [&](int) { return std::optional<Box>(op.block(rank)); },
            [&](int q) { return std::optional<Box>(op.block(q)); }, blocks, what + " (gather)");
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
    // recv_box(q) from each (nullopt and empty boxes are skipped): received[q]
    // holds what came from q.
    template<typename SendBox, typename RecvBox>
    int exchange(const Op &op, const halide_buffer_t *src, SendBox send_box, RecvBox recv_box,
                 Parts &received, const std::string &what) {
        const int tag = 7000 + op.kind;
        std::vector<std::unique_ptr<Part>> sends;
        std::vector<MPI_Request> reqs;
        std::vector<int> peers;
        received.clear();
        received.resize(size);
        for (int q : op.participants()) {
            if (q == rank) {
                continue;
            }
            const std::optional<Box> r = recv_box(q);
            if (r && !r->empty()) {
                received[q] = std::make_unique<Part>(*r, src->type);
                reqs.emplace_back();
                peers.push_back(q);
                MPI_Irecv(received[q]->data.data(), (int)received[q]->data.size(), MPI_BYTE, q, tag,
                          MPI_COMM_WORLD, &reqs.back());
            }
            const std::optional<Box> s = send_box(q);
            if (s && !s->empty()) {
                sends.push_back(std::make_unique<Part>(*s, src->type));
                coconet_rt::copy_box(src, &sends.back()->buf, *s);
                count(op.kind, sends.back()->data.size());
                reqs.emplace_back();
                peers.push_back(q);
                MPI_Isend(sends.back()->data.data(), (int)sends.back()->data.size(), MPI_BYTE, q,
                          tag, MPI_COMM_WORLD, &reqs.back());
            }
        }
        int rc = wait_all(reqs, peers, what);
        if (rc != COCONET_OK) {
            abandon(reqs, std::move(sends), std::move(received));
        }
        return rc;
    }

    // After a timeout: cancel what can be cancelled; requests still pending keep
    // their buffers forever, since MPI may still write or read them.
    void abandon(std::vector<MPI_Request> &reqs, Parts sends, Parts recvs) {
        bool pending = false;
        for (MPI_Request &r : reqs) {
            int done = 0;
            MPI_Test(&r, &done, MPI_STATUS_IGNORE);
            if (!done) {
                MPI_Cancel(&r);
                MPI_Test(&r, &done, MPI_STATUS_IGNORE);
                pending |= !done;
            }
        }
        if (pending) {
            static auto *kept = new std::vector<std::unique_ptr<Part>>();
            for (auto *parts : {&sends, &recvs}) {
                for (auto &p : *parts) {
                    kept->push_back(std::move(p));
                }
            }
        }
    }

    // Polls the requests until all complete or the timeout passes.
    int wait_all(std::vector<MPI_Request> &reqs, const std::vector<int> &peers,
                 const std::string &what) {
        const auto deadline =
            std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
        while (true) {
            int done = 0;
            if (MPI_Testall((int)reqs.size(), reqs.data(), &done, MPI_STATUSES_IGNORE) !=
                MPI_SUCCESS) {
                return fail(COCONET_ERR_BACKEND,
                            "rank " + std::to_string(rank) + ": " + what + ": MPI error");
            }
            if (done) {
                return COCONET_OK;
            }
            if (std::chrono::steady_clock::now() > deadline) {
                break;
            }
            std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
        std::ostringstream waiting;
        for (size_t i = 0; i < reqs.size(); i++) {
            int done = 0;
            MPI_Test(&reqs[i], &done, MPI_STATUS_IGNORE);
            if (!done) {
                waiting << (waiting.tellp() > 0 ? ", " : "")
                        << (peers[i] < 0 ? std::string("all ranks") : std::to_string(peers[i]));
            }
        }
        std::ostringstream msg;
        msg << "rank " << rank << ": " << what << " timed out after " << timeout
            << " s waiting for rank(s) " << waiting.str();
        failure = msg.str();
        return fail(COCONET_ERR_TIMEOUT, msg.str());
    }

    std::string failure;
};

} // namespace

extern "C" {

coconet_comm *coconet_mpi_comm_create(double timeout_seconds) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
        int provided = 0;
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
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
