// The MPI backend's communicator (see MpiComm.cpp): its parts are defined by
// what they do in MpiComm.cpp (the communicator, its checks and errors),
// MpiCollectives.cpp (unfused collectives and point-to-point messages),
// MpiFused.cpp (fused reduce-scatters: ring, direct and replicated) and
// MpiWindows.cpp (shared windows, group communicators, value memory). Only
// with COCONET_HAS_MPI.
#ifndef COCONET_RUNTIME_MPI_MPI_COMM_H
#define COCONET_RUNTIME_MPI_MPI_COMM_H

#include "mpi/MpiSupport.h"

namespace coconet_rt::mpi {

struct MpiComm : coconet_comm {
    // `world`: the whole world's group communicator, made with this one;
    // `notices`: a duplicate of the world for abort notices alone.
    MpiComm(int rank, int size, double timeout, bool one_node, MPI_Comm world, MPI_Comm notices);

    // Frees the windows when every member is still here to free them (freeing
    // is collective); after a failure they are left to MPI_Finalize.
    ~MpiComm() override;

    const char *backend() const override { return "mpi"; }
    bool deterministic() const override { return !native; }

    // Later calls on this rank fail at once. Peers sharing a window with it
    // learn it at their next meeting there: it arrives once more, saying so,
    // and never meets there again (its later calls end in aborted()). When
    // the failure is this rank's own (not a timeout, an MPI error or a
    // peer's notice), every other rank is sent a notice with the reason,
    // which its waits read (peer_aborted): peers stop at once instead of at
    // their timeout. A rank that timed out sends none: its peers are likely
    // waiting for the same missing rank, and name it themselves. Called
    // between this rank's calls, as coconet_comm_abort says, so that it is
    // not waiting at a barrier of its own.
    void abort(const char *reason) override;

    // Every rank's barrier: a meeting that also compares the ranks' calls
    // (check_same_call), so that a rank elsewhere is refused, not passed.
    int barrier(const char *what) override;

    int run(Op &op, const halide_buffer_t *in, halide_buffer_t *out) override;

    // The part of rank `from`'s input that rank `to`'s output reads (empty
    // when it reads none, and from itself: nothing to move).
    static Box part(const Op &op, int from, int to);

    // What this rank sends each group member in a direct exchange.
    std::vector<Box> send_boxes(const Op &op) const;

    // What this rank receives from each group member in a direct exchange.
    std::vector<Box> recv_boxes(const Op &op) const;

    // Elements counted as sent: what the deterministic path sends, whichever
    // path runs, so that counters do not depend on MPI's algorithms.
    int64_t bytes_sent(const Op &op) const;

    // Reduce-scatter then all-gather by blocks of the outermost dimension, each
    // block reduced in group-rank order by the rank owning it: each rank sends
    // about 2 (R-1)/R of its input.
    int all_reduce_by_blocks(Op &op, MPI_Comm gc, const halide_buffer_t *in, halide_buffer_t *out,
                             const std::string &what);

    // ALL_REDUCE and REDUCE by MPI's own reductions over the group's
    // communicator, in the order MPI picks.
    int native_reduction(Op &op, MPI_Comm gc, const halide_buffer_t *in, halide_buffer_t *out,
                         const std::string &what);

    // Every member's box boxes[k] into out (the parts it holds), this rank's
    // from `mine`, by MPI_Iallgatherv: received in place when out holds every
    // box contiguously, and sent in place when this rank's box is there too.
    int gather_boxes(const Group &g, MPI_Comm gc, const halide_buffer_t *mine,
                     const std::vector<Box> &boxes, halide_buffer_t *out, const std::string &what);

    // BROADCAST by MPI_Ibcast of the root's input (no arithmetic: both paths).
    int broadcast(Op &op, MPI_Comm gc, const halide_buffer_t *in, halide_buffer_t *out,
                  const std::string &what);

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
                           const std::function<int(int64_t, int, MPI_Request *)> &post);

    // Posts a message of a packed box to or from `peer`, in pieces.
    static int post_box(Posted &posted, bool send, PackedBox &box, int peer, int tag,
                        MPI_Comm comm);

    // Waits for what was posted for a call on the group's communicator (err:
    // how posting ended). MPI cannot cancel a collective: when one may still
    // run (a timeout, or a failure after others were posted), its buffers are
    // kept forever and the communicator is failed.
    int finish(Posted &posted, int err, const Group &g, const std::string &what,
               std::unique_ptr<Flat> &send, std::unique_ptr<Flat> &recv);

    static std::vector<int> group_ranks_except(const Group &g, int rank);

    // SEND_RECV between two groups: point-to-point messages to and from the
    // ranks whose parts meet.
    int send_recv(Op &op, const halide_buffer_t *in, halide_buffer_t *out, const std::string &what);

    // Ring for groups across nodes; the shared window when all ranks share a node.
    coconet_fused_path fused_path(int requested) const override;

    int run_fused(const FusedPlan &plan, coconet_fused_path path) override;

    // Every member sends its call's signature to every other member and
    // compares what it receives: either all find a mismatch or none does.
    // Also makes sure every member is here, or names those that are not,
    // before blocking MPI calls (creating a communicator or a window) and
    // before any collective is posted or data moves.
    // Where the group has a shared window, the signatures go through it
    // instead (same_call_in_window).
    int check_same_call(const Group &g, const FusedSignature &mine, const std::string &what);
    // A barrier of every rank for `call` (barrier_signature), named `what`
    // in messages: coconet_barrier's, and the runtime's own before it makes
    // or frees window memory.
    int meet_all(const char *call, const char *what);

    // check_same_call through the group's window, a flag barrier instead of
    // messages (a fraction of a microsecond against 2-3 us): every member
    // publishes its signature with its arrival and compares the others'.
    // Members that reach it by different calls meet here too: every call on
    // a group with a window checks this way. A fused pass over a window
    // large enough posts its sources before it comes here, so that this
    // meeting is also the pass's "sources posted" barrier (fused_direct).
    int same_call_in_window(SharedWindow &w, const Group &g, const FusedSignature &mine,
                            const std::string &what);

    // Fails naming the first member whose call differs from this rank's:
    // every member compares the same signatures, so all fail or none does.
    // theirs(k): member k's signature.
    template<typename Theirs>
    int compare_calls(const Group &g, const FusedSignature &mine, Theirs &&theirs,
                      const std::string &what);

    // Ring reduce-scatter of the members' slices: at step s a member sends the
    // partial of block (me - s - 1) to its right and receives block
    // (me - s - 2) from its left, adding its own source; at the last step it
    // receives its own block and, instead of adding, hands the partial and its
    // source to the kernel. Each block is reduced starting from the rank after
    // its owner: a rotation of rank order.
    int fused_ring(const FusedPlan &plan, const std::string &what);

    // Each member sends its slice of every gathered output to every other
    // member (the bytes a ring all-gather would send, in one round).
    // With them goes whether this rank's kernel `failed` (its slices are then
    // missing): a member told so fails instead of returning the outputs.
    int gather_by_messages(const FusedPlan &plan, const std::string &what, bool failed);

    // Through a shared-memory window of the group: each member posts the parts
    // of its source that peers read, reduces its slice chunk by chunk from all
    // members' sources in group-rank order (bit-identical to the reference),
    // posts its slice of gathered outputs and copies the others' slices.
    // Buffers in window memory of the caller's (coconet_mpi_alloc) are used in
    // place: peers read such a source where it is, and write their slices of
    // a gathered output straight into it.
    int fused_direct(const FusedPlan &plan, const FusedSignature &signature,
                     const std::string &what);

    // The group's window for a pass needing `bytes` per member (*ready: it
    // was large enough already). In a window large enough, the call's check
    // is its first meeting, once the sources are posted (the caller's). Else
    // the check comes first (by messages on the group's first call), then
    // the window is made or grown: blocking MPI calls, only once every
    // member is known here.
    int pass_window(const Group &g, size_t bytes, const FusedSignature &signature,
                    const std::string &what, SharedWindow **w, bool *ready);

    // The sources a pass's kernel reads, in group-rank order: this rank's
    // own in place, member k's as a dense full box at host_of(k) (the views
    // kept in `views`), all in `memory`.
    struct Sources {
        explicit Sources(std::pmr::memory_resource *memory) : views(memory), buffers(memory) {}
        std::pmr::deque<coconet_rt::DenseView> views;
        coconet_rt::ScratchVector<const halide_buffer_t *> buffers;
    };
    template<typename HostOf>
    void sources_of(const FusedPlan &plan, HostOf &&host_of, Sources *s) const;

    // Copies `boxes` of the pass's source into the dense full box at `area`
    // of this rank's segment, where peers read them.
    template<typename Boxes>
    void post_source(const FusedPlan &plan, uint8_t *area, const Boxes &boxes);

    // A pass's first meeting, once this rank's source is posted: the call's
    // check where the window was large enough (pass_window's *ready), else
    // (checked before) a barrier.
    int sources_posted(SharedWindow &w, const Group &g, const FusedSignature &signature,
                       const std::string &what, bool ready);

    // Whether a pass on the direct path runs replicated (fused_replicated):
    // its kernel allows it and its source is small (kReplicatedBytes;
    // COCONET_FUSED_REPLICATE=always|never decides instead for any source
    // up to that size). Every member decides alike; one whose switch
    // differs meets the others with another signature and fails.
    bool replicates(const FusedPlan &plan) const;

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
                         const std::string &what);

    // Where `box` of b lies in window memory of this rank's (coconet_mpi_alloc,
    // value_memory), when it is one contiguous range of b (the dense layout
    // peers assume): b holding exactly the box, or a range of b's outermost
    // dimension (an overlapped pass's chunk).
    WindowPlace place_of(const halide_buffer_t *b, const Box &box) const;

    // World rank q's memory at `at`, or `otherwise` when `at` is no window.
    uint8_t *window_host(const WindowPlace &at, int q, uint8_t *otherwise) const;

    // A dense view of `box` at world rank q's `at`, or at `otherwise` when
    // `at` is no window (null then: none).
    std::unique_ptr<coconet_rt::DenseView> in_window(const WindowPlace &at, int q,
                                                     uint8_t *otherwise, const Box &box,
                                                     const halide_type_t &type) const;

    // Window memory for callers (coconet_mpi_alloc): collective over the
    // world, each rank its own size; in one node only.
    int alloc(size_t bytes, void **out);

    // The executor's values in one window per program, made on the program's
    // first call once every rank is in it (a polled barrier names a missing
    // one before the blocking allocation). COCONET_MPI_VALUE_MEMORY=ordinary
    // keeps them in ordinary memory (where shared memory is scarce: a
    // container's small /dev/shm); every rank must see the same setting.
    // By default (`auto`) only values of 64 KiB per member or more: a GEMV
    // writing its 4 KiB of partial sums into window memory that peers had
    // read took 3.5 us longer (31 against 27.5 us, 2 ranks) than the copy of
    // the peers' half it saves costs; the Megatron block's 4 MiB sources
    // gained 6% (CHANGELOG.md). `window` places every value.
    size_t places_values_from() const override;
    int value_memory(const std::string &key, const std::vector<size_t> &bytes,
                     std::vector<uint8_t *> *out) override;

    int release_value_memory(const std::string &prefix) override;

    // This rank's segments of the windows not freed (coconet_mpi_window_bytes).
    uint64_t window_bytes() const;

    // Collective over the world, like coconet_mpi_alloc.
    int free_window(void *p);

    // The group's shared window, if a fused call made one (null if not).
    SharedWindow *existing_window(const Group &g);

    // The group's window, created (communicator too) or grown as needed. Only
    // the group's ranks take part, after check_same_call found them all in
    // this call, so these blocking calls do not wait for absent ranks.
    int shared_window(const Group &g, size_t need, const std::string &what, SharedWindow **out);

    // The group's communicator: the world's is made with this communicator;
    // another group's on its first call (only the group's ranks take part,
    // after check_same_call found them all in this call, so this blocking
    // call does not wait for absent ranks, only for one that stops in it;
    // see docs/architecture.md) and kept.
    int group_comm(const Group &g, const std::string &what, MPI_Comm *out);

    // Guards a blocking MPI call of `what` among group g, which cannot be
    // polled against the timeout: past it, the process watchdog names the
    // call and the group's other ranks, and ends this process.
    coconet_rt::Watchdog::Guard blocking(const Group &g, const std::string &what);

    // Makes this rank's writes to the window visible to the group and waits
    // for every member's: a flag barrier in the window (release on arrival,
    // acquire on waiting), no MPI call. With `failed`, the members' statuses
    // go with their arrivals: in, whether this rank failed (its rank, or -1);
    // out, the first member that did (or -1), the same on every member. A
    // member that aborted (abort) makes every member fail here, naming it.
    int window_barrier(SharedWindow &w, const std::string &what, int *failed = nullptr);

    // Whether every member of `comm` arrives at a barrier within the timeout,
    // and no rank's abort notice comes first (quietly: used while destroying
    // the communicator).
    bool members_present(MPI_Comm comm) const;

    // Sends sends[k] of src to group member k and receives recvs[k] from it
    // in one MPI_Ialltoallv on the group's communicator (sent in place where
    // src holds the boxes contiguously): received.from[q] holds what came
    // from world rank q.
    int exchange(const Op &op, MPI_Comm gc, const halide_buffer_t *src,
                 const std::vector<Box> &sends, const std::vector<Box> &recvs, Received &received,
                 const std::string &what);

    // SEND_RECV: sends send_box(q) of src to every other participant q and
    // receives recv_box(q) from each by point-to-point messages (empty boxes
    // are skipped on both sides, which compute the same boxes): received[q]
    // holds what came from q.
    int point_to_point(const Op &op, const halide_buffer_t *src, const BoxFor &send_box,
                       const BoxFor &recv_box, Parts &received, const std::string &what);

    // How a wait polls. MPI progresses non-blocking calls only inside MPI
    // calls, so a wait inside a collective that every member has entered
    // tests again at once (sleeping between tests made a 64 MiB all-reduce
    // 15-30x slower), yielding to ranks that share the core. A wait that may
    // be for a peer still computing (its arrival at a call, a message of a
    // pipeline) tests at once for 1 ms, then sleeps 20 us between tests,
    // leaving the cores to the ranks that compute (spinning there made a
    // 4-rank pipeline on 2 cores 1.5-2x slower).
    enum class Pace { Eager, Patient };

    // Polls the requests until all complete, the timeout passes or another
    // rank's abort notice comes (looked for once a millisecond after the
    // first). Then cancels what can be cancelled (point-to-point requests;
    // peer -1 marks a non-blocking collective, which MPI cannot cancel);
    // `on_abandon` then keeps the buffers of requests MPI may still read or
    // write. A timeout's message names the peers of the requests left, or
    // whom `whom` names; a notice's names the rank that sent it.
    int wait_all(std::vector<MPI_Request> &reqs, const std::vector<int> &peers,
                 const std::string &what, const std::function<void()> &on_abandon,
                 const std::function<std::string()> &whom = nullptr, Pace pace = Pace::Eager);

    // Whether another rank's abort notice has come; if so, it is read and
    // becomes this rank's failure ("rank q failed: reason").
    bool peer_aborted();

    // Cancels the requests of a wait that is given up that can be cancelled
    // and keeps (on_abandon) the buffers of those MPI may still use: the
    // peers of the requests left (-1 for a non-blocking collective).
    static std::vector<int> abandon(std::vector<MPI_Request> &reqs, const std::vector<int> &peers,
                                    const std::function<void()> &on_abandon);

    // A wait for `whom` in `what` passed the timeout. The exchange state with
    // the missing peers is lost: later calls are refused.
    int timed_out(const std::string &what, const std::string &whom);

    // Buffers of requests MPI may still use after a timeout are never freed.
    static void keep_forever(Parts &sends, Parts &recvs);

    // Only reached when the application set MPI_ERRORS_RETURN; with MPI's
    // default handler, MPI aborts the job itself.
    int mpi_error(int err, const std::string &what);

    int aborted(const std::string &what);

    std::string failure;
    // This communicator's own duplicate of MPI_COMM_WORLD, for its messages
    // and barriers: what a failed call leaves unmatched there never meets a
    // later communicator's calls.
    const MPI_Comm world;
    bool told_peers = false; // this rank's abort reached its windows (and notices went)
    MPI_Comm notices;        // errors return: a notice to a dead rank is no error here
    const bool one_node;     // every world rank on one node (shared memory possible)
    const bool native;       // unfused reductions by MPI's own (COCONET_MPI_COLLECTIVES)
    // By (first rank, size) of a group: its communicator and its window.
    std::map<std::pair<int, int>, MPI_Comm> group_comms;
    std::map<std::pair<int, int>, SharedWindow> windows;
    std::vector<UserWindow> user_windows;           // coconet_mpi_alloc's, in allocation order
    std::map<std::string, uint8_t *> value_windows; // value_memory's, by key
};

// comm as an MPI communicator, or null for another kind, a destroyed one or
// a pointer that is none (checked against the registry before it is read).
MpiComm *mpi_comm(coconet_comm *comm);

// Guards a blocking MPI call of `what` on `rank`, which waits for `whom` and
// cannot be polled: past `timeout` the process watchdog prints the call and
// whom it waited for, and ends this process (mpirun then ends the job).
coconet_rt::Watchdog::Guard watch_blocking(int rank, const std::string &what, double timeout,
                                           const std::string &whom);

} // namespace coconet_rt::mpi

#endif
