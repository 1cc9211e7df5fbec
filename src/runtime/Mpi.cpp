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

void pack(const halide_buffer_t *src, Part &p) {
    const int bytes = src->type.bytes();
    uint8_t *dst = p.data.data();
    coconet_rt::for_each_row(p.box, [&](const int64_t *x, int64_t n) {
        const uint8_t *s = coconet_rt::element_address(src, x);
        const int64_t stride = (src->dimensions > 0 ? src->dim[0].stride : 1) * bytes;
        for (int64_t k = 0; k < n; k++) {
            std::memcpy(dst, s + k * stride, bytes);
            dst += bytes;
        }
    });
}

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
        const int tag = 7000 + op.kind;
        std::vector<std::unique_ptr<Part>> sends, recvs;
        std::vector<MPI_Request> reqs;
        std::vector<int> peers;
        for (int q : op.participants()) {
            if (q == rank) {
                continue;
            }
            if (op.reads_from(rank, q)) {
                Box b = coconet_rt::intersect(op.input_box(q), op.output_limit(rank));
                recvs.push_back(std::make_unique<Part>(b, in->type));
                op.peer_inputs[q] = &recvs.back()->buf;
                reqs.emplace_back();
                peers.push_back(q);
                MPI_Irecv(recvs.back()->data.data(), (int)recvs.back()->data.size(), MPI_BYTE, q,
                          tag, MPI_COMM_WORLD, &reqs.back());
            }
            if (op.reads_from(q, rank)) {
                Box b = coconet_rt::intersect(op.input_box(rank), op.output_limit(q));
                sends.push_back(std::make_unique<Part>(b, in->type));
                pack(in, *sends.back());
                count(op.kind, sends.back()->data.size());
                reqs.emplace_back();
                peers.push_back(q);
                MPI_Isend(sends.back()->data.data(), (int)sends.back()->data.size(), MPI_BYTE, q,
                          tag, MPI_COMM_WORLD, &reqs.back());
            }
        }
        op.peer_inputs[rank] = in;
        int rc = wait_all(reqs, peers, what);
        if (rc == COCONET_OK && op.dst.has(rank)) {
            coconet_rt::compute_output(op, rank, out);
        } else if (rc != COCONET_OK) {
            abandon(reqs, std::move(sends), std::move(recvs));
        }
        return rc;
    }

    // After a timeout: cancel what can be cancelled; requests still pending keep
    // their buffers forever, since MPI may still write or read them.
    void abandon(std::vector<MPI_Request> &reqs, std::vector<std::unique_ptr<Part>> sends,
                 std::vector<std::unique_ptr<Part>> recvs) {
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
