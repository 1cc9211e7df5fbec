// Threads backend: R ranks as threads of one process. The participants of a
// collective meet at a rendezvous (one per set of participants), post their
// buffers, read their peers' inputs directly (shared address space) and meet
// again before anyone returns, so no input is freed while a peer reads it.
// A timeout or an abort marks the whole world failed: its rendezvous state is
// then inconsistent, and peers must not wait for ranks that gave up.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/Comm.h"
#include "core/Env.h"
#include "core/Errors.h"
#include "core/Pack.h"
#include "core/Parts.h"
#include "core/ReadMeter.h"
#include "core/Reduce.h"
#include "device/Device.h"
#include "device/DeviceCollective.h"

using coconet_rt::Op;

namespace {

struct ThreadsComm;

// What a rank shows its peers at a rendezvous.
struct Posted {
    const Op *op = nullptr;
    const halide_buffer_t *in = nullptr;
    const halide_buffer_t *out = nullptr;
    const coconet_rt::FusedPlan *fused = nullptr;
    // An all_to_all whose members write into each other's outputs (`in` then
    // has no memory).
    bool produced = false;
    // At the meeting that ends a fused pass: how the rank's kernel ended, so
    // that peers whose gathered outputs lack its slices fail too.
    int status = COCONET_OK;
    // A barrier's label ("barrier 'what'"); read by peers only when the
    // meeting holds other calls, and then the barrier waits for them.
    const std::string *barrier = nullptr;
};

struct Rendezvous {
    // Written under the world's mutex; read without it by ranks spinning.
    std::atomic<uint64_t> generation{0};
    size_t arrived = 0;
    std::vector<uint64_t> arrived_in; // per world rank: 1 + the generation it last arrived in
    std::vector<Posted> posted;
    // What was posted in the last completed generation: a woken rank reads it
    // after faster ranks may already have posted to the next one.
    std::vector<Posted> completed;
};

// A meeting that starts an operation gives up when the world has failed. One
// inside a started operation does not: every member is known to be on its way
// (nothing between the meetings blocks), and leaving early would let a rank
// free its input while peers still read it.
enum Stage { kStart, kInside };

// Whether COCONET_DEVICE_COLLECTIVES is `mode`: how device stages of collectives move data
// among ranks sharing the device.
bool device_collectives_are(const char *mode) {
    return coconet_rt::env_is("COCONET_DEVICE_COLLECTIVES", {"device", "host", "library"}, mode);
}

// COCONET_DEVICE_COLLECTIVES=library: a collective library (as NCCL is to
// CUDA) made of this backend's own device collectives on the library's 1-D
// buffers, so that the library path (LibraryCollective.h) runs, and is
// tested, on any device: the same segments, padding and copies as under NCCL.
struct ThreadsLibrary : coconet_rt::DeviceLibrary {
    explicit ThreadsLibrary(coconet_comm &comm) : comm(comm) {}

    bool supports(int kind, int red, const halide_type_t &t) const override {
        return !coconet_rt::is_reduction(kind) || coconet_rt::find_combiner(comm.running, red, t);
    }
    int all_reduce(const Op &stage, int red, const halide_buffer_t *send,
                   halide_buffer_t *recv) override {
        return call(stage, COCONET_ALL_REDUCE, red, 0, send, recv);
    }
    int reduce(const Op &stage, int red, int root, const halide_buffer_t *send,
               halide_buffer_t *recv) override {
        return call(stage, COCONET_REDUCE, red, root, send, recv);
    }
    int broadcast(const Op &stage, int root, const halide_buffer_t *send,
                  halide_buffer_t *recv) override {
        return call(stage, COCONET_BROADCAST, COCONET_SUM, root, send, recv);
    }
    int reduce_scatter(const Op &stage, int red, const halide_buffer_t *send,
                       halide_buffer_t *recv) override {
        return call(stage, COCONET_REDUCE_SCATTER, red, 0, send, recv);
    }
    // A fused pass gathers in place (send is this rank's segment of recv, as
    // NCCL allows), and the device copy of that segment onto itself is one
    // OpenCL refuses (CL_MEM_COPY_OVERLAP): the peers read a copy of send.
    int all_gather(const Op &stage, const halide_buffer_t *send, halide_buffer_t *recv) override {
        const coconet_rt::Box box = coconet_rt::box_of(send);
        coconet_rt::DeviceTemp copy(comm, box, send->type);
        int rc = coconet_rt::device_malloc(comm, &copy.view.buf, send->device_interface);
        rc = rc != 0 ? rc : coconet_rt::device_copy_box(comm, send, &copy.view.buf, box);
        if (rc != 0) {
            return coconet_rt::backend_error(comm, stage, "copying its segment on the device", rc);
        }
        return call(stage, COCONET_ALL_GATHER, COCONET_SUM, 0, &copy.view.buf, recv);
    }
    // As the runtime's all_to_all of a value X(element, to, from) of R x R
    // segments: rank r's send is X(:, :, r) (sliced along `from`), rank p's
    // recv is X(:, p, :) (sliced along `to`).
    int all_to_all(const Op &stage, const halide_buffer_t *send, halide_buffer_t *recv) override {
        const int32_t segment = recv->dim[0].extent / comm.size, R = comm.size;
        coconet_collective_desc d;
        coconet_collective_desc_init(&d, COCONET_ALL_TO_ALL);
        d.dim = 1;
        d.concat_dim = 2;
        d.dims = 3;
        d.extents[0] = segment;
        d.extents[1] = R;
        d.extents[2] = R;
        Op op = coconet_rt::make_op(stage.name.c_str(), d, comm.size);
        op.on_device = true;
        halide_buffer_t in = *send, out = *recv;
        halide_dimension_t in_dims[3] = {
            {0, segment, 1, 0}, {0, R, segment, 0}, {comm.rank, 1, segment * R, 0}};
        halide_dimension_t out_dims[3] = {
            {0, segment, 1, 0}, {comm.rank, 1, segment * R, 0}, {0, R, segment, 0}};
        in.dimensions = out.dimensions = 3;
        in.dim = in_dims;
        out.dim = out_dims;
        return comm.run(op, &in, &out);
    }

private:
    // The library's call as a device collective of 1-D values: the segments
    // of reduce_scatter and all_gather are the equal slices of the whole, so
    // this rank's segment starts at rank * its count.
    int call(const Op &stage, int kind, int red, int root, const halide_buffer_t *send,
             halide_buffer_t *recv) {
        const bool sliced = kind == COCONET_REDUCE_SCATTER || kind == COCONET_ALL_GATHER;
        const int64_t whole =
            kind == COCONET_REDUCE_SCATTER ? send->dim[0].extent : recv->dim[0].extent;
        coconet_collective_desc d;
        coconet_collective_desc_init(&d, kind);
        d.op = red;
        d.root = root;
        d.dim = sliced ? 0 : -1;
        d.dims = 1;
        d.extents[0] = (int32_t)whole;
        Op op = coconet_rt::make_op(stage.name.c_str(), d, comm.size);
        op.on_device = true;
        op.combiner = coconet_rt::is_reduction(kind)
                          ? coconet_rt::find_combiner(comm.running, red, send->type)
                          : nullptr;
        halide_buffer_t in = *send, out = *recv;
        halide_dimension_t in_dim = send->dim[0], out_dim = recv->dim[0];
        in.dim = &in_dim;
        out.dim = &out_dim;
        if (kind == COCONET_ALL_GATHER) {
            in_dim.min = comm.rank * in_dim.extent;
        } else if (kind == COCONET_REDUCE_SCATTER) {
            out_dim.min = comm.rank * out_dim.extent;
        }
        return comm.run(op, &in, &out);
    }

    coconet_comm &comm;
};

} // namespace

struct coconet_threads_world {
    explicit coconet_threads_world(int size) : size(size) {}

    // Every rank in `members` posts `mine`; returns when all have (then `all`,
    // if given, receives what every rank posted, indexed by world rank).
    // Fails on timeout (naming the ranks that did not arrive) or abort.
    int meet(ThreadsComm &c, Stage stage, const std::vector<int> &members, Posted mine,
             const std::string &what, std::vector<Posted> *all);
    void fail_all(const std::string &why);

    const int size;
    // Meetings of at most this many members spin before they sleep: as many
    // as the machine runs at once.
    const size_t spinning_members = std::max(1u, std::thread::hardware_concurrency());
    static constexpr std::chrono::microseconds kSpin{50};
    std::mutex mutex;
    std::condition_variable cv;
    bool failed = false;
    std::string failure;
    // By members: barriers and collectives over the same ranks meet at one,
    // so that a rank in a barrier is refused with a peer in a collective.
    std::map<std::vector<int>, Rendezvous> rendezvous;
    std::vector<std::unique_ptr<ThreadsComm>> comms;
};

namespace {

struct ThreadsComm : coconet_comm {
    ThreadsComm(coconet_threads_world *w, int rank, double timeout)
        : coconet_comm(rank, w->size, timeout), world(w) {
        local_ranks = w->size;
        threads = coconet_rt::threads_per_rank(w->size, w->size);
    }

    const char *backend() const override { return "threads"; }

    // A meeting of the world that every rank must reach with a barrier. A
    // peer in a collective over the same ranks meets it there: both are
    // refused, each naming the other's call, after a second meeting (the
    // collective's) so that the peer's call outlives this rank's reading it.
    int barrier(const char *what) override {
        std::vector<int> all;
        for (int r = 0; r < size; r++) {
            all.push_back(r);
        }
        const std::string label = std::string("barrier '") + what + "'";
        Posted mine;
        mine.barrier = &label;
        std::vector<Posted> posted;
        int rc = world->meet(*this, kStart, all, mine, label, &posted);
        if (rc != COCONET_OK) {
            return rc;
        }
        std::string mismatch;
        for (int q : all) {
            if (!posted[q].barrier) {
                mismatch = peer_called(q, posted[q]) + " at the same time: every rank must make "
                                                       "the same barriers and collective calls in "
                                                       "the same order";
                break;
            }
        }
        if (mismatch.empty()) {
            return COCONET_OK;
        }
        world->meet(*this, kInside, all, Posted{}, label, nullptr);
        return fail(COCONET_ERR_INVALID, coconet_rt::op_label(rank, label) + ": " + mismatch);
    }

    void abort(const char *reason) override {
        world->fail_all("rank " + std::to_string(rank) + " failed: " + reason);
    }

    int run(Op &op, const halide_buffer_t *in, halide_buffer_t *out) override {
        const std::vector<int> members = op.participants();
        const std::string what = op.what();
        std::vector<Posted> posted;
        int rc = world->meet(*this, kStart, members, Posted{&op, in, out}, what, &posted);
        if (rc != COCONET_OK) {
            return rc;
        }
        const std::string mismatch = find_mismatch(op, in, false, members, posted);
        if (mismatch.empty()) {
            for (int q : members) {
                op.peer_inputs[q] = posted[q].in;
            }
            if (op.kind == COCONET_ALL_REDUCE && op.dims > 0 &&
                all_outputs_full(op, members, posted)) {
                rc = all_reduce_by_blocks(op, members, posted, out);
            } else if (op.dst.has(rank)) {
                coconet_rt::ReadMeter meter;
                if (op.on_device) {
                    rc = coconet_rt::compute_output_on_device(*this, op, out,
                                                              coconet_rt::box_of(out));
                } else {
                    coconet_rt::compute_output(op, rank, out, threads);
                }
                // Host reads are measured; device copies are counted as planned.
                for (int q : members) {
                    if (q != rank) {
                        world->comms[q]->count_bytes(
                            op.kind, op.on_device ? coconet_rt::bytes_read(op, rank, q, out)
                                                  : meter.bytes_from(posted[q].in));
                    }
                }
            }
        }
        // Peers may still be reading this rank's buffers (or its Op, to compare).
        const int done = world->meet(*this, kInside, members, Posted{}, what, nullptr);
        if (!mismatch.empty()) {
            return fail(COCONET_ERR_INVALID, coconet_rt::op_label(rank, what) + ": " + mismatch);
        }
        return rc != COCONET_OK ? rc : done;
    }

    bool writes_peer_outputs() const override { return true; }
    bool peers_share_device() const override { return true; }

    // Ranks sharing a device read each other's device buffers, unless
    // COCONET_DEVICE_COLLECTIVES=host stages them through host memory, or
    // =library runs them through the library path (ThreadsLibrary).
    bool device_collectives() const override { return device_collectives_are("device"); }

    coconet_rt::DeviceLibrary *device_library(const halide_device_interface_t *) override {
        return device_collectives_are("library") ? &library : nullptr;
    }

    // Peers' memory is ours: the direct path unless the ring is asked for,
    // which threads run as the MPI ring adds up (to test that order here).
    coconet_fused_path fused_path(int requested) const override {
        return requested == COCONET_PATH_RING ? COCONET_PATH_RING : COCONET_PATH_DIRECT;
    }

    // The sources of one chunk of this rank's slice. Direct: every member's
    // input, in rank order. Ring: the partial sum the ring would bring (the
    // members after this one, wrapping around) and this rank's own input.
    std::vector<const halide_buffer_t *>
    chunk_sources(const coconet_rt::FusedPlan &plan, coconet_fused_path path,
                  const std::vector<const halide_buffer_t *> &srcs, const coconet_rt::Box &chunk,
                  std::unique_ptr<coconet_rt::PackedBox> &partial) {
        const int R = plan.group.size, me = plan.group.local(rank);
        if (!plan.reduces()) {
            return {};
        }
        if (path != COCONET_PATH_RING || R == 1) {
            return srcs;
        }
        partial = coconet_rt::pack(srcs[(me + 1) % R], chunk);
        for (int k = 2; k < R; k++) {
            coconet_rt::combine_into(plan.call.op, &partial->buf, srcs[(me + k) % R], chunk);
        }
        // The copy reads and writes the chunk once, each addition reads two and writes one.
        count_bytes(COCONET_FUSED,
                    (uint64_t)chunk.count() * plan.element_bytes() * (2 + 3 * (R - 2)));
        return {&partial->buf, srcs[me]};
    }

    // Chunk `chunk` of output i, which this rank's kernel just computed, into
    // a peer's output i: through the caller's gather (a device the ranks
    // share) or as a host copy.
    int gather(const coconet_rt::FusedPlan &plan, int i, halide_buffer_t *peer,
               const coconet_rt::Box &chunk) {
        const coconet_fused_call &c = plan.call;
        if (!c.gather) {
            coconet_rt::copy_box(c.outs[i], peer, chunk);
            return COCONET_OK;
        }
        int32_t min[coconet_rt::kMaxDims], extent[coconet_rt::kMaxDims];
        for (int d = 0; d < chunk.dims; d++) {
            min[d] = (int32_t)chunk.min[d];
            extent[d] = (int32_t)chunk.extent[d];
        }
        const std::string earlier = last_error;
        const int status = c.gather(c.kernel_context, i, peer, min, extent);
        if (status == 0) {
            return COCONET_OK;
        }
        return fail(COCONET_ERR_BACKEND,
                    coconet_rt::op_label(rank, plan.what()) +
                        ": copying a gathered chunk to a peer failed" +
                        (last_error != earlier ? ": " + last_error
                                               : " (error " + std::to_string(status) + ")"));
    }

    // Every member reads the chunks of its slice from all members' sources,
    // runs the kernel on them and writes its slice of gathered outputs into
    // the members' outputs while the chunk is in cache.
    int run_fused(const coconet_rt::FusedPlan &plan, coconet_fused_path path) override {
        std::vector<int> members;
        for (int q = plan.group.first; q < plan.group.first + plan.group.size; q++) {
            members.push_back(q);
        }
        const std::string what = plan.what();
        std::vector<Posted> posted;
        Posted mine;
        mine.fused = &plan;
        int rc = world->meet(*this, kStart, members, mine, what, &posted);
        if (rc != COCONET_OK) {
            return rc;
        }
        std::string mismatch;
        for (int q : members) {
            const Posted &p = posted[q];
            if (!p.fused || !p.fused->same_call(plan)) {
                mismatch =
                    peer_called(q, p) +
                    (p.fused && p.fused->what() == plan.what() ? " with other arguments" : "") +
                    " at the same time: every group member must make the same collective "
                    "calls in the same order";
            }
        }
        if (mismatch.empty()) {
            std::vector<const halide_buffer_t *> srcs;
            for (int q : members) {
                srcs.push_back(posted[q].fused->call.src);
            }
            const coconet_fused_call &c = plan.call;
            for (const coconet_rt::Box &chunk : plan.chunks(plan.slice(rank))) {
                std::unique_ptr<coconet_rt::PackedBox> partial;
                rc = plan.run_kernel(*this, chunk, chunk_sources(plan, path, srcs, chunk, partial));
                if (rc != COCONET_OK) {
                    break;
                }
                for (int i = 0; i < c.nout; i++) {
                    if (!c.gathered[i]) {
                        continue;
                    }
                    for (int q : members) {
                        if (q != rank && rc == COCONET_OK) {
                            // Host copies are measured; a caller's gather (on
                            // a device) is counted as planned.
                            coconet_rt::ReadMeter written;
                            rc = gather(plan, i, posted[q].fused->call.outs[i], chunk);
                            count_bytes(COCONET_FUSED,
                                        c.gather ? (uint64_t)chunk.count() * c.outs[i]->type.bytes()
                                                 : written.bytes_from(c.outs[i]));
                        }
                    }
                }
            }
        }
        // Peers may still read this rank's source or write into its outputs.
        return meet_after_writes(members, what, rc, mismatch, "the fused kernel");
    }

    // The all_to_all computed straight into the members' outputs: this
    // rank's producer writes, into every member's output, the part of it
    // whose source this rank holds.
    int run_produced(Op &op, const halide_buffer_t *in, halide_buffer_t *out,
                     const Produce &produce) override {
        const std::vector<int> members = op.participants();
        const std::string what = op.what();
        std::vector<Posted> posted;
        Posted mine{&op, in, out};
        mine.produced = true;
        int rc = world->meet(*this, kStart, members, mine, what, &posted);
        if (rc != COCONET_OK) {
            return rc;
        }
        const std::string mismatch = find_mismatch(op, in, true, members, posted);
        if (mismatch.empty()) {
            const coconet_rt::Box source = op.input_box(rank);
            const size_t me = std::find(members.begin(), members.end(), rank) - members.begin();
            // From this rank's own part on, so that ranks start on different outputs.
            for (size_t k = 0; k < members.size() && rc == COCONET_OK; k++) {
                const int q = members[(me + k) % members.size()];
                halide_buffer_t *theirs = const_cast<halide_buffer_t *>(posted[q].out);
                const coconet_rt::Box part =
                    coconet_rt::intersect(source, coconet_rt::box_of(theirs));
                if (part.empty()) {
                    continue;
                }
                coconet_rt::BufferView view(theirs, part);
                rc = produce(&view.buf);
                if (q != rank && rc == COCONET_OK) {
                    count_bytes(op.kind, (uint64_t)part.count() * out->type.bytes());
                }
            }
        }
        // Peers may still be writing into this rank's output.
        return meet_after_writes(members, what, rc, mismatch, "the producer");
    }

    // The last meeting of an operation in which members write into each
    // other's outputs, this rank's part having ended with `rc`: no member
    // returns an output that a failed member's part is missing from.
    int meet_after_writes(const std::vector<int> &members, const std::string &what, int rc,
                          const std::string &mismatch, const char *part) {
        Posted result;
        result.status = rc;
        std::vector<Posted> posted;
        const int done = world->meet(*this, kInside, members, result, what, &posted);
        if (!mismatch.empty()) {
            return fail(COCONET_ERR_INVALID, coconet_rt::op_label(rank, what) + ": " + mismatch);
        }
        if (rc != COCONET_OK || done != COCONET_OK) {
            return rc != COCONET_OK ? rc : done;
        }
        for (int q : members) {
            if (posted[q].status != COCONET_OK) {
                return fail(COCONET_ERR_ABORTED, coconet_rt::op_label(rank, what) + " aborted: " +
                                                     part + " failed on rank " + std::to_string(q));
            }
        }
        return COCONET_OK;
    }

    // " (its global extents [..], this rank's [..])" where those differ.
    static std::string extents_differ(const Op &theirs, const Op &mine) {
        auto text = [](const Op &o) {
            std::string t;
            for (int d = 0; d < o.dims; d++) {
                t += (d ? ", " : "") + std::to_string(o.n[d]);
            }
            return "[" + t + "]";
        };
        return text(theirs) == text(mine)
                   ? ""
                   : " (its global extents " + text(theirs) + ", this rank's " + text(mine) + ")";
    }

    // "rank q called <its call>", for a peer whose call differs from this rank's.
    static std::string peer_called(int q, const Posted &p) {
        return "rank " + std::to_string(q) + " called " +
               (p.op      ? p.op->what()
                : p.fused ? p.fused->what()
                          : *p.barrier);
    }

    // Ranks that meet must make the same call: every rank compares itself with
    // all the others, so either all of them find a mismatch or none does.
    // `produced`: this rank's call writes into the members' outputs (run_produced).
    std::string find_mismatch(const Op &op, const halide_buffer_t *in, bool produced,
                              const std::vector<int> &members,
                              const std::vector<Posted> &posted) const {
        for (int q : members) {
            const Posted &p = posted[q];
            if (!p.op || !p.op->same_call(op) || p.produced != produced) {
                const bool same_kind_and_name = p.op && p.op->what() == op.what();
                return peer_called(q, p) +
                       (same_kind_and_name ? " with other arguments" + extents_differ(*p.op, op)
                                           : "") +
                       " at the same time: every participant must make the same collective "
                       "calls in the same order";
            }
            if (!(p.in->type == in->type)) {
                return "rank " + std::to_string(q) + " passed " +
                       coconet_rt::type_name(p.in->type) + " buffers, this rank " +
                       coconet_rt::type_name(in->type);
            }
        }
        return "";
    }

    static bool all_outputs_full(const Op &op, const std::vector<int> &members,
                                 const std::vector<Posted> &posted) {
        for (int q : members) {
            if (coconet_rt::box_of(posted[q].out).count() != op.output_limit(q).count()) {
                return false;
            }
        }
        return true;
    }

    // An all-reduce whose every output is the full box: each rank reduces one
    // block of the inputs into its own output, then copies the other blocks
    // from their owners' outputs. Every input element is read once instead of
    // once per rank, and the traffic is that of a reduce-scatter + all-gather.
    // On a device alike, with device copies (a reduction that failed there
    // is reported to the peers copying its block).
    int all_reduce_by_blocks(Op &op, const std::vector<int> &members,
                             const std::vector<Posted> &posted, halide_buffer_t *out) {
        const int bytes = out->type.bytes();
        const coconet_rt::Box mine = op.block(rank);
        int reduced = COCONET_OK;
        coconet_rt::ReadMeter reads;
        if (op.on_device) {
            reduced = coconet_rt::compute_output_on_device(*this, op, out, mine);
        } else if (!mine.empty()) {
            coconet_rt::BufferView view(out, mine);
            coconet_rt::compute_output(op, rank, &view.buf, threads);
        }
        for (int q : members) {
            if (q != rank) {
                world->comms[q]->count_bytes(op.kind, op.on_device
                                                          ? (uint64_t)mine.count() * bytes
                                                          : reads.bytes_from(posted[q].in));
            }
        }
        Posted status;
        status.status = reduced;
        std::vector<Posted> blocks;
        int rc =
            world->meet(*this, kInside, members, status, op.what() + " (reduced blocks)", &blocks);
        if (rc != COCONET_OK || reduced != COCONET_OK) {
            return rc != COCONET_OK ? rc : reduced;
        }
        for (int q : members) {
            const coconet_rt::Box theirs = op.block(q);
            if (q == rank || theirs.empty()) {
                continue;
            }
            if (blocks[q].status != COCONET_OK) {
                return fail(COCONET_ERR_BACKEND, coconet_rt::op_label(rank, op.what()) + ": rank " +
                                                     std::to_string(q) +
                                                     " could not reduce its block");
            }
            coconet_rt::ReadMeter copied;
            if (!op.on_device) {
                coconet_rt::for_parts(theirs, threads, bytes, [&](const coconet_rt::Box &part) {
                    coconet_rt::copy_box(posted[q].out, out, part);
                });
            } else if (coconet_rt::device_copy_box(*this, posted[q].out, out, theirs) != 0) {
                return fail(COCONET_ERR_BACKEND, coconet_rt::op_label(rank, op.what()) +
                                                     ": copying rank " + std::to_string(q) +
                                                     "'s block on the device failed");
            }
            world->comms[q]->count_bytes(op.kind, op.on_device ? (uint64_t)theirs.count() * bytes
                                                               : copied.bytes_from(posted[q].out));
        }
        return COCONET_OK;
    }

    coconet_threads_world *world;
    ThreadsLibrary library{*this};
};

} // namespace

int coconet_threads_world::meet(ThreadsComm &c, Stage stage, const std::vector<int> &members,
                                Posted mine, const std::string &what, std::vector<Posted> *all) {
    std::unique_lock<std::mutex> lock(mutex);
    auto aborted = [&] {
        return c.fail(COCONET_ERR_ABORTED,
                      coconet_rt::op_label(c.rank, what) + " aborted: " + failure);
    };
    const bool give_up_on_failure = stage == kStart;
    if (failed && give_up_on_failure) {
        return aborted();
    }
    Rendezvous &r = rendezvous[members];
    if (r.posted.empty()) {
        r.posted.assign(size, Posted{});
        r.arrived_in.assign(size, 0);
    }
    const uint64_t gen = r.generation.load(std::memory_order_relaxed);
    r.posted[c.rank] = mine;
    r.arrived_in[c.rank] = gen + 1;
    if (++r.arrived == members.size()) {
        r.arrived = 0;
        r.completed = r.posted;
        r.generation.store(gen + 1, std::memory_order_release);
        cv.notify_all();
    } else {
        // Waking from the condition variable takes tens of microseconds, as
        // long as a small collective on a device: where every member can run
        // at once, a rank first spins a little for the last to arrive.
        if (members.size() <= spinning_members) {
            lock.unlock();
            const auto until = std::chrono::steady_clock::now() + kSpin;
            while (r.generation.load(std::memory_order_acquire) == gen &&
                   std::chrono::steady_clock::now() < until) {
                std::this_thread::yield();
            }
            lock.lock();
        }
        const auto deadline =
            std::chrono::steady_clock::now() + std::chrono::duration<double>(c.timeout);
        if (!cv.wait_until(lock, deadline,
                           [&] { return r.generation != gen || (failed && give_up_on_failure); })) {
            std::vector<int> missing;
            for (int m : members) {
                if (r.arrived_in[m] != gen + 1) {
                    missing.push_back(m);
                }
            }
            const std::string msg = coconet_rt::timeout_message(c.rank, what, c.timeout,
                                                                coconet_rt::rank_list(missing));
            if (!failed) {
                failed = true;
                failure = msg;
            }
            cv.notify_all();
            return c.fail(COCONET_ERR_TIMEOUT, msg);
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

int coconet_threads_world_failed(coconet_threads_world *world) {
    if (!world) {
        return 0;
    }
    std::lock_guard<std::mutex> lock(world->mutex);
    return world->failed ? 1 : 0;
}

} // extern "C"
