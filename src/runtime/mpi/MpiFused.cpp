// Fused reduce-scatters under MPI: a ring of messages, or on one node a
// shared window read directly (see MpiComm.h).
#ifdef COCONET_HAS_MPI

#include "mpi/MpiComm.h"

#include "core/ReadMeter.h"

namespace coconet_rt::mpi {

coconet_fused_path MpiComm::fused_path(int requested) const {
    return requested == COCONET_PATH_RING || !one_node ? COCONET_PATH_RING : COCONET_PATH_DIRECT;
}

int MpiComm::run_fused(const FusedPlan &plan, coconet_fused_path path) {
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

int MpiComm::check_same_call(const Group &g, const FusedSignature &mine, const std::string &what) {
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
                            kFusedTag, world, &reqs.back());
        if (err == MPI_SUCCESS) {
            reqs.emplace_back();
            peers.push_back(q);
            err = MPI_Isend(sent.get(), (int)sizeof(FusedSignature), MPI_BYTE, q, kFusedTag, world,
                            &reqs.back());
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
                     g, mine, [&](int k) -> const FusedSignature & { return (*theirs)[k]; }, what);
}

int MpiComm::same_call_in_window(SharedWindow &w, const Group &g, const FusedSignature &mine,
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

template<typename Theirs>
int MpiComm::compare_calls(const Group &g, const FusedSignature &mine, Theirs &&theirs,
                           const std::string &what) {
    for (int q = g.first; q < g.first + g.size; q++) {
        const FusedSignature &s = theirs(g.local(q));
        if (q == rank || (s.same_call(mine) && s.path == mine.path)) {
            continue;
        }
        // A call of another kind or name differs in more than its arguments.
        const bool same_name = std::strcmp(s.name, mine.name) == 0;
        std::string detail;
        if (s.same_call(mine)) {
            detail = " (rank " + std::to_string(q) + " takes the " + path_name(s.path) +
                     " path, this rank the " + path_name(mine.path) + " path)";
        }
        return fail(COCONET_ERR_INVALID,
                    coconet_rt::op_label(rank, what) + ": rank " + std::to_string(q) + " called " +
                        std::string(s.name) + (same_name ? " with other arguments" : "") +
                        " at the same time: every group member must make the same collective "
                        "calls in the same order" +
                        detail);
    }
    return COCONET_OK;
}

int MpiComm::fused_ring(const FusedPlan &plan, const std::string &what) {
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
        int err = post_box(posted, false, *bufs[1], left, kRingTag, world);
        if (err == MPI_SUCCESS) {
            err = post_box(posted, true, *bufs[0], right, kRingTag, world);
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

int MpiComm::gather_by_messages(const FusedPlan &plan, const std::string &what, bool failed) {
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
            MPI_Irecv(&(*status)[1 + q - g.first], 1, MPI_INT, q, kStatusTag, world,
                      &posted.reqs.back());
            posted.add(q);
            MPI_Isend(&(*status)[0], 1, MPI_INT, q, kStatusTag, world, &posted.reqs.back());
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
                err = post_box(posted, false, *recvs.back(), q, kGatherTag, world);
            }
            if (err == MPI_SUCCESS && !mine.empty()) {
                err = post_box(posted, true, *sends.back(), q, kGatherTag, world);
            }
            if (err != MPI_SUCCESS) {
                keep_forever(sends, recvs);
                return mpi_error(err, what);
            }
        }
    }
    const int rc = wait_all(posted.reqs, posted.peers, what + " (all-gather of the fused outputs)",
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

int MpiComm::fused_direct(const FusedPlan &plan, const FusedSignature &signature,
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
    std::vector<std::vector<std::unique_ptr<coconet_rt::DenseView>>> slices(c.nout), direct(c.nout);
    std::vector<bool> posting(c.nout, false); // some member reads slices from the window
    for (int i = 0; i < c.nout; i++) {
        for (int k = 0; c.gathered[i] && k < g.size; k++) {
            slices[i].push_back(std::make_unique<coconet_rt::DenseView>(
                w->base[k] + layout.out_offset[i], plan.slice(g.first + k), c.outs[i]->type));
            const WindowPlace at = FusedLayout::places(w->base[k])[1 + i];
            direct[i].push_back(at.window >= 0 && k != me ? in_window(at, g.first + k, nullptr,
                                                                      plan.full, c.outs[i]->type)
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
            for (int k = 0; c.gathered[i] && k < g.size; k++) {
                halide_buffer_t *to = direct[i][k]            ? &direct[i][k]->buf
                                      : k == me && posting[i] ? &slices[i][me]->buf
                                                              : nullptr;
                if (to) {
                    coconet_rt::ReadMeter copied;
                    coconet_rt::copy_box(c.outs[i], to, chunk);
                    count_bytes(COCONET_FUSED, copied.bytes_from(c.outs[i]));
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
        return kernel_rc != COCONET_OK
                   ? kernel_rc
                   : fail(COCONET_ERR_ABORTED, coconet_rt::op_label(rank, what) +
                                                   " aborted: the fused kernel failed on rank " +
                                                   std::to_string(failed));
    }
    for (int i = 0; i < c.nout; i++) {
        for (int k = 0; c.gathered[i] && mine[1 + i].window < 0 && k < g.size; k++) {
            const Box theirs = plan.slice(g.first + k);
            if (k != me && !theirs.empty()) {
                coconet_rt::ReadMeter copied;
                coconet_rt::copy_box(&slices[i][k]->buf, c.outs[i], theirs);
                count_bytes(COCONET_FUSED, copied.bytes_from(&slices[i][k]->buf));
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

int MpiComm::pass_window(const Group &g, size_t bytes, const FusedSignature &signature,
                         const std::string &what, SharedWindow **w, bool *ready) {
    *w = existing_window(g);
    *ready = *w && (size_t)(*w)->bytes >= bytes;
    if (*ready) {
        return COCONET_OK;
    }
    const int rc = check_same_call(g, signature, what);
    return rc != COCONET_OK ? rc : shared_window(g, bytes, what, w);
}

template<typename HostOf>
void MpiComm::sources_of(const FusedPlan &plan, HostOf &&host_of, Sources *s) const {
    for (int k = 0; plan.reduces() && k < plan.group.size; k++) {
        s->buffers.push_back(
            plan.group.first + k == rank
                ? plan.call.src
                : &s->views.emplace_back(host_of(k), plan.full, plan.call.src->type).buf);
    }
}

template<typename Boxes>
void MpiComm::post_source(const FusedPlan &plan, uint8_t *area, const Boxes &boxes) {
    coconet_rt::DenseView posted(area, plan.full, plan.call.src->type);
    for (const Box &b : boxes) {
        coconet_rt::ReadMeter copied;
        coconet_rt::copy_box(plan.call.src, &posted.buf, b);
        count_bytes(COCONET_FUSED, copied.bytes_from(plan.call.src));
    }
}

int MpiComm::sources_posted(SharedWindow &w, const Group &g, const FusedSignature &signature,
                            const std::string &what, bool ready) {
    return ready ? same_call_in_window(w, g, signature, what)
                 : window_barrier(w, what + " (sources posted)");
}

bool MpiComm::replicates(const FusedPlan &plan) const {
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

int MpiComm::fused_replicated(const FusedPlan &plan, const FusedSignature &signature,
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
                    w->base[g.local(rank)] + FusedLayout::replicated_source(w->barrier.epoch() + 1),
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

} // namespace coconet_rt::mpi

#endif
