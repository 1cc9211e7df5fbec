// Unfused collectives on MPI's own non-blocking collectives (native) or by
// exchanges reduced in rank order (deterministic), and point-to-point
// messages, every wait polled against the timeout (see MpiComm.h).
#ifdef COCONET_HAS_MPI

#include "mpi/MpiComm.h"

namespace coconet_rt::mpi {

int MpiComm::all_reduce_by_blocks(Op &op, MPI_Comm gc, const halide_buffer_t *in,
                                  halide_buffer_t *out, const std::string &what) {
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
    coconet_rt::compute_output(op, rank, &block.buf, threads);
    return gather_boxes(g, gc, reduced, blocks, out, what + " (all-gather of reduced blocks)");
}

int MpiComm::native_reduction(Op &op, MPI_Comm gc, const halide_buffer_t *in, halide_buffer_t *out,
                              const std::string &what) {
    const Box want = coconet_rt::box_of(out);
    const bool gets_result = op.kind == COCONET_ALL_REDUCE || rank == op.src.first + op.root;
    const Box result = gets_result ? op.output_limit(rank) : coconet_rt::no_box(op.dims);
    auto send = std::make_unique<Flat>(), recv = std::make_unique<Flat>();
    flatten(in, in->type, {op.input_box(rank)}, true, true, send.get());
    // In place when the output is exactly the result.
    const bool exact = want.contains(result) && result.contains(want);
    flatten(exact ? out : nullptr, in->type, {result}, false, true, recv.get());
    const MPI_Datatype type = arith_type(in->type);
    const MPI_Op red = mpi_op(op.red, in->type);
    Posted posted;
    const int err =
        post_pieces(posted, send->count[0], -1, [&](int64_t at, int n, MPI_Request *req) {
            const uint8_t *from = send->at(send->displ[0] + at);
            uint8_t *to = recv->at(at);
            return op.kind == COCONET_ALL_REDUCE
                       ? MPI_Iallreduce(from, to, n, type, red, gc, req)
                       : MPI_Ireduce(from, to, n, type, red, op.root, gc, req);
        });
    const int rc = finish(posted, err, op.src, what, send, recv);
    if (rc != COCONET_OK) {
        return rc;
    }
    if (!gets_result) {
        coconet_rt::compute_output(op, rank, out, threads); // the identity (see Collective.cpp)
    } else {
        unflatten(*recv, out);
    }
    return COCONET_OK;
}

int MpiComm::gather_boxes(const Group &g, MPI_Comm gc, const halide_buffer_t *mine,
                          const std::vector<Box> &boxes, halide_buffer_t *out,
                          const std::string &what) {
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
            err = post_pieces(posted, recv->count[k], -1, [&](int64_t at, int n, MPI_Request *req) {
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

int MpiComm::broadcast(Op &op, MPI_Comm gc, const halide_buffer_t *in, halide_buffer_t *out,
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

int MpiComm::post_pieces(Posted &posted, int64_t count, int peer,
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

int MpiComm::post_box(Posted &posted, bool send, PackedBox &box, int peer, int tag, MPI_Comm comm) {
    const int bytes = box.buf.type.bytes();
    uint8_t *data = box.data.data();
    return post_pieces(posted, (int64_t)box.size_bytes() / bytes, peer,
                       [&](int64_t at, int n, MPI_Request *req) {
                           uint8_t *p = data + (size_t)at * bytes;
                           return send ? MPI_Isend(p, n, word_type(bytes), peer, tag, comm, req)
                                       : MPI_Irecv(p, n, word_type(bytes), peer, tag, comm, req);
                       });
}

int MpiComm::finish(Posted &posted, int err, const Group &g, const std::string &what,
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

std::vector<int> MpiComm::group_ranks_except(const Group &g, int rank) {
    std::vector<int> ranks;
    for (int q = g.first; q < g.first + g.size; q++) {
        if (q != rank) {
            ranks.push_back(q);
        }
    }
    return ranks;
}

int MpiComm::send_recv(Op &op, const halide_buffer_t *in, halide_buffer_t *out,
                       const std::string &what) {
    Parts received;
    const int rc = point_to_point(
        op, in, [&](int q) { return part(op, rank, q); }, [&](int q) { return part(op, q, rank); },
        received, what);
    if (rc != COCONET_OK) {
        return rc;
    }
    for (int q = 0; q < size; q++) {
        op.peer_inputs[q] = q == rank ? in : received[q] ? &received[q]->buf : nullptr;
    }
    if (op.dst.has(rank)) {
        coconet_rt::compute_output(op, rank, out, threads);
    }
    return COCONET_OK;
}

int MpiComm::exchange(const Op &op, MPI_Comm gc, const halide_buffer_t *src,
                      const std::vector<Box> &sends, const std::vector<Box> &recvs,
                      Received &received, const std::string &what) {
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
                                        return MPI_Isend(send->at(send->displ[k] + at), n, type, k,
                                                         kExchangeTag, gc, req);
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

int MpiComm::point_to_point(const Op &op, const halide_buffer_t *src, const BoxFor &send_box,
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
            err = post_box(posted, false, *received[q], q, tag, world);
        }
        const Box s = send_box(q);
        if (!s.empty() && err == MPI_SUCCESS) {
            sends.push_back(coconet_rt::pack(src, s));
            count_bytes(op.kind, sends.back()->size_bytes());
            err = post_box(posted, true, *sends.back(), q, tag, world);
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

int MpiComm::wait_all(std::vector<MPI_Request> &reqs, const std::vector<int> &peers,
                      const std::string &what, const std::function<void()> &on_abandon,
                      const std::function<std::string()> &whom, Pace pace) {
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + std::chrono::duration<double>(timeout);
    const auto eager_until = start + std::chrono::milliseconds(1);
    auto next_look = eager_until; // for a notice: none on a wait that ends at once
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
        if (now > next_look) {
            next_look = now + std::chrono::milliseconds(1);
            if (peer_aborted()) {
                (void)abandon(reqs, peers, on_abandon);
                return aborted(what);
            }
        }
        if (pace == Pace::Patient && now > eager_until) {
            std::this_thread::sleep_for(std::chrono::microseconds(20));
        } else {
            std::this_thread::yield();
        }
    }
    const std::vector<int> waiting = abandon(reqs, peers, on_abandon);
    const bool everyone = std::find(waiting.begin(), waiting.end(), -1) != waiting.end();
    return timed_out(what, whom       ? whom()
                           : everyone ? "other ranks"
                                      : coconet_rt::rank_list(waiting));
}

std::vector<int> MpiComm::abandon(std::vector<MPI_Request> &reqs, const std::vector<int> &peers,
                                  const std::function<void()> &on_abandon) {
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
    return waiting;
}

void MpiComm::keep_forever(Parts &sends, Parts &recvs) {
    static auto *kept = new Parts();
    for (Parts *parts : {&sends, &recvs}) {
        for (auto &p : *parts) {
            if (p) {
                kept->push_back(std::move(p));
            }
        }
    }
}

} // namespace coconet_rt::mpi

#endif
