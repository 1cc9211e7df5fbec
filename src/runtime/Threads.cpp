// Threads backend: R ranks as threads of one process. Ranks meet at a
// rendezvous per set of participants, post their input buffers, read their
// peers' inputs directly (shared address space) and meet again before anyone
// returns, so no input is freed while a peer reads it.
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "Comm.h"

using coconet_rt::Op;

namespace {

struct ThreadsComm;

struct Rendezvous {
    uint64_t generation = 0;
    size_t arrived = 0;
    std::vector<uint64_t> arrived_in; // per world rank: 1 + the generation it last arrived in
    std::vector<const halide_buffer_t *> inputs;
    // The inputs of the last completed generation: a woken rank reads them
    // after faster ranks may already have posted to the next one.
    std::vector<const halide_buffer_t *> completed;
};

} // namespace

struct coconet_threads_world {
    explicit coconet_threads_world(int size) : size(size) {}

    // Every rank in `members` posts `in`; returns when all have (then `inputs`,
    // if given, receives every member's posted buffer), fails on timeout or abort.
    int meet(ThreadsComm &c, const std::vector<int> &members, const halide_buffer_t *in,
             const std::string &what, std::vector<const halide_buffer_t *> *inputs);
    void fail_all(const std::string &why);

    const int size;
    std::mutex mutex;
    std::condition_variable cv;
    bool failed = false;
    std::string failure;
    std::map<std::vector<int>, Rendezvous> rendezvous;
    std::vector<std::unique_ptr<ThreadsComm>> comms;
};

namespace {

struct ThreadsComm : coconet_comm {
    ThreadsComm(coconet_threads_world *w, int rank, double timeout)
        : coconet_comm(rank, w->size, timeout), world(w) {}

    const char *backend() const override { return "threads"; }

    int barrier(const char *what) override {
        std::vector<int> all;
        for (int r = 0; r < size; r++) {
            all.push_back(r);
        }
        return world->meet(*this, all, nullptr, std::string("barrier '") + what + "'", nullptr);
    }

    void abort(const char *reason) override {
        world->fail_all("rank " + std::to_string(rank) + " failed: " + reason);
    }

    int run(Op &op, const halide_buffer_t *in, halide_buffer_t *out) override {
        const std::vector<int> members = op.participants();
        const std::string what = std::string(op.kind_name()) + " '" + op.name + "'";
        int rc = world->meet(*this, members, in, what, &op.peer_inputs);
        if (rc != COCONET_OK) {
            return rc;
        }
        if (op.dst.has(rank)) {
            coconet_rt::compute_output(op, rank, out);
            for (int q : members) {
                if (q != rank) {
                    world->comms[q]->count(op.kind, coconet_rt::bytes_read(op, rank, q, out));
                }
            }
        }
        // Peers may still be reading this rank's input.
        return world->meet(*this, members, nullptr, what, nullptr);
    }

    coconet_threads_world *world;
};

std::string rank_list(const std::vector<int> &ranks) {
    std::ostringstream s;
    s << (ranks.size() == 1 ? "rank " : "ranks ");
    for (size_t i = 0; i < ranks.size(); i++) {
        s << (i ? ", " : "") << ranks[i];
    }
    return s.str();
}

} // namespace

int coconet_threads_world::meet(ThreadsComm &c, const std::vector<int> &members,
                                const halide_buffer_t *in, const std::string &what,
                                std::vector<const halide_buffer_t *> *inputs) {
    std::unique_lock<std::mutex> lock(mutex);
    auto aborted = [&] {
        return c.fail(COCONET_ERR_ABORTED,
                      "rank " + std::to_string(c.rank) + ": " + what + " aborted: " + failure);
    };
    if (failed) {
        return aborted();
    }
    Rendezvous &r = rendezvous[members];
    if (r.inputs.empty()) {
        r.inputs.assign(size, nullptr);
        r.arrived_in.assign(size, 0);
    }
    const uint64_t gen = r.generation;
    r.inputs[c.rank] = in;
    r.arrived_in[c.rank] = gen + 1;
    if (++r.arrived == members.size()) {
        r.arrived = 0;
        r.generation++;
        r.completed = r.inputs;
        cv.notify_all();
    } else {
        const auto deadline =
            std::chrono::steady_clock::now() + std::chrono::duration<double>(c.timeout);
        if (!cv.wait_until(lock, deadline, [&] { return r.generation != gen || failed; })) {
            std::vector<int> missing;
            for (int m : members) {
                if (r.arrived_in[m] != gen + 1) {
                    missing.push_back(m);
                }
            }
            std::ostringstream msg;
            msg << "rank " << c.rank << ": " << what << " timed out after " << c.timeout
                << " s waiting for " << rank_list(missing);
            failed = true;
            failure = msg.str();
            cv.notify_all();
            return c.fail(COCONET_ERR_TIMEOUT, msg.str());
        }
        if (r.generation == gen) {
            return aborted();
        }
    }
    if (inputs) {
        *inputs = r.completed;
    }
    return COCONET_OK;
}

void coconet_threads_world::fail_all(const std::string &why) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!failed) {
        failed = true;
        failure = why;
    }
    cv.notify_all();
}

extern "C" {

coconet_threads_world *coconet_threads_world_create(int nranks, double timeout_seconds) {
    if (nranks < 1) {
        std::fprintf(stderr, "coconet: a threads world needs at least 1 rank, not %d\n", nranks);
        return nullptr;
    }
    auto *w = new coconet_threads_world(nranks);
    for (int r = 0; r < nranks; r++) {
        w->comms.push_back(std::make_unique<ThreadsComm>(w, r, timeout_seconds));
    }
    return w;
}

coconet_comm *coconet_threads_world_comm(coconet_threads_world *world, int rank) {
    return world && rank >= 0 && rank < world->size ? world->comms[rank].get() : nullptr;
}

void coconet_threads_world_destroy(coconet_threads_world *world) {
    delete world;
}

} // extern "C"
