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

// What a rank shows its peers at a rendezvous.
struct Posted {
    const halide_buffer_t *in = nullptr;
    const halide_buffer_t *out = nullptr;
};

struct Rendezvous {
    uint64_t generation = 0;
    size_t arrived = 0;
    std::vector<uint64_t> arrived_in; // per world rank: 1 + the generation it last arrived in
    std::vector<Posted> posted;
    // What was posted in the last completed generation: a woken rank reads it
    // after faster ranks may already have posted to the next one.
    std::vector<Posted> completed;
};

} // namespace

struct coconet_threads_world {
    explicit coconet_threads_world(int size) : size(size) {}

    // Every rank in `members` posts `mine`; returns when all have (then `all`,
    // if given, receives what every rank posted), fails on timeout or abort.
    int meet(ThreadsComm &c, const std::vector<int> &members, Posted mine, const std::string &what,
             std::vector<Posted> *all);
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
        return world->meet(*this, all, Posted{}, std::string("barrier '") + what + "'", nullptr);
    }

    void abort(const char *reason) override {
        world->fail_all("rank " + std::to_string(rank) + " failed: " + reason);
    }

    int run(Op &op, const halide_buffer_t *in, halide_buffer_t *out) override {
        const std::vector<int> members = op.participants();
        const std::string what = std::string(op.kind_name()) + " '" + op.name + "'";
        std::vector<Posted> posted;
        int rc = world->meet(*this, members, Posted{in, out}, what, &posted);
        if (rc != COCONET_OK) {
            return rc;
        }
        for (int q : members) {
            op.peer_inputs[q] = posted[q].in;
        }
        if (op.kind == COCONET_ALL_REDUCE && op.dims > 0 && all_outputs_full(op, members, posted)) {
            rc = all_reduce_by_blocks(op, members, posted, out, what);
        } else if (op.dst.has(rank)) {
            coconet_rt::compute_output(op, rank, out);
            for (int q : members) {
                if (q != rank) {
                    world->comms[q]->count(op.kind, coconet_rt::bytes_read(op, rank, q, out));
                }
            }
        }
        // Peers may still be reading this rank's buffers.
        return rc != COCONET_OK ? rc : world->meet(*this, members, Posted{}, what, nullptr);
    }

    static bool all_outputs_full(const Op &op, const std::vector<int> &members,
                                 const std::vector<Posted> &posted) {
        for (int q : members) {
            coconet_rt::Box b = coconet_rt::box_of(posted[q].out);
            if (b.count() != op.output_limit(q).count()) {
                return false;
            }
        }
        return true;
    }

    // An all-reduce whose every output is the full box: each rank reduces one
    // block of the inputs into its own output, then copies the other blocks
    // from their owners' outputs. Every input element is read once instead of
    // once per rank.
    int all_reduce_by_blocks(Op &op, const std::vector<int> &members,
                             const std::vector<Posted> &posted, halide_buffer_t *out,
                             const std::string &what) {
        const int bytes = out->type.bytes();
        const coconet_rt::Box mine = op.block(rank);
        if (!mine.empty()) {
            coconet_rt::BufferView view(out, mine);
            coconet_rt::compute_output(op, rank, &view.buf);
        }
        for (int q : members) {
            if (q != rank) {
                world->comms[q]->count(op.kind, (uint64_t)mine.count() * bytes);
            }
        }
        int rc = world->meet(*this, members, Posted{}, what + " (reduced blocks)", nullptr);
        if (rc != COCONET_OK) {
            return rc;
        }
        for (int q : members) {
            const coconet_rt::Box theirs = op.block(q);
            if (q != rank && !theirs.empty()) {
                coconet_rt::copy_box(posted[q].out, out, theirs);
                world->comms[q]->count(op.kind, (uint64_t)theirs.count() * bytes);
            }
        }
        return COCONET_OK;
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

int coconet_threads_world::meet(ThreadsComm &c, const std::vector<int> &members, Posted mine,
                                const std::string &what, std::vector<Posted> *all) {
    std::unique_lock<std::mutex> lock(mutex);
    auto aborted = [&] {
        return c.fail(COCONET_ERR_ABORTED,
                      "rank " + std::to_string(c.rank) + ": " + what + " aborted: " + failure);
    };
    if (failed) {
        return aborted();
    }
    Rendezvous &r = rendezvous[members];
    if (r.posted.empty()) {
        r.posted.assign(size, Posted{});
        r.arrived_in.assign(size, 0);
    }
    const uint64_t gen = r.generation;
    r.posted[c.rank] = mine;
    r.arrived_in[c.rank] = gen + 1;
    if (++r.arrived == members.size()) {
        r.arrived = 0;
        r.generation++;
        r.completed = r.posted;
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
    if (all) {
        *all = r.completed;
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
