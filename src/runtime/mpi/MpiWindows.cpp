// Shared windows, group communicators and the memory of the executor's
// values under MPI (see MpiComm.h).
#ifdef COCONET_HAS_MPI

#include "mpi/MpiComm.h"

namespace coconet_rt::mpi {

WindowPlace MpiComm::place_of(const halide_buffer_t *b, const Box &box) const {
    int64_t first = 0;
    if (!b->host || box.empty() || !coconet_rt::is_contiguous(b, box, &first)) {
        return {};
    }
    const uint8_t *at = b->host + first * b->type.bytes();
    const size_t bytes = (size_t)box.count() * b->type.bytes();
    for (size_t i = 0; i < user_windows.size(); i++) {
        const UserWindow &u = user_windows[i];
        if (u.win != MPI_WIN_NULL && at >= u.base[rank] &&
            at + bytes <= u.base[rank] + u.bytes[rank]) {
            return {(int64_t)i, (int64_t)(at - u.base[rank])};
        }
    }
    return {};
}

uint8_t *MpiComm::window_host(const WindowPlace &at, int q, uint8_t *otherwise) const {
    return at.window >= 0 ? user_windows[(size_t)at.window].base[q] + at.offset : otherwise;
}

std::unique_ptr<coconet_rt::DenseView> MpiComm::in_window(const WindowPlace &at, int q,
                                                          uint8_t *otherwise, const Box &box,
                                                          const halide_type_t &type) const {
    uint8_t *host = window_host(at, q, otherwise);
    return host ? std::make_unique<coconet_rt::DenseView>(host, box, type) : nullptr;
}

int MpiComm::alloc(size_t bytes, void **out) {
    *out = nullptr;
    const std::string what = "coconet_mpi_alloc";
    if (!one_node) {
        return fail(COCONET_ERR_INVALID,
                    coconet_rt::op_label(rank, what) +
                        ": the ranks are on more than one node, and window memory is shared "
                        "within a node; allocate ordinary memory (fused calls then take the "
                        "ring path)");
    }
    Group world;
    world.size = size;
    UserWindow u;
    int err = MPI_SUCCESS;
    {
        const coconet_rt::Watchdog::Guard guard = blocking(world, what);
        err = allocate_shared(group_comms.at(std::make_pair(0, size)),
                              std::max<MPI_Aint>((MPI_Aint)bytes, 1), &u.win, &u.base, &u.bytes);
    }
    if (err != MPI_SUCCESS) {
        return mpi_error(err, what);
    }
    *out = u.base[rank];
    user_windows.push_back(std::move(u));
    return COCONET_OK;
}

size_t MpiComm::places_values_from() const {
    if (!one_node) {
        return SIZE_MAX;
    }
    const char *mode =
        coconet_rt::env_choice("COCONET_MPI_VALUE_MEMORY", {"auto", "window", "ordinary"});
    return std::strcmp(mode, "ordinary") == 0 ? SIZE_MAX
           : std::strcmp(mode, "window") == 0 ? 0
                                              : size_t(64) << 10;
}

int MpiComm::value_memory(const std::string &key, const std::vector<size_t> &bytes,
                          std::vector<uint8_t *> *out) {
    out->clear();
    if (!one_node || bytes.empty()) {
        return COCONET_OK;
    }
    auto it = value_windows.find(key);
    if (it == value_windows.end()) {
        size_t total = 0;
        for (size_t b : bytes) {
            total += align64(b);
        }
        void *mem = nullptr;
        const char *what = "placing the executor's values in window memory";
        int rc = meet_all(what, what);
        if (rc == COCONET_OK) {
            rc = alloc(total, &mem);
        }
        if (rc != COCONET_OK) {
            return rc;
        }
        it = value_windows.emplace(key, static_cast<uint8_t *>(mem)).first;
    }
    uint8_t *at = it->second;
    for (size_t b : bytes) {
        out->push_back(at);
        at += align64(b);
    }
    return COCONET_OK;
}

int MpiComm::release_value_memory(const std::string &prefix) {
    const char *what = "releasing the executor's window memory";
    int rc = meet_all(what, what);
    for (auto it = value_windows.begin(); rc == COCONET_OK && it != value_windows.end();) {
        if (it->first.compare(0, prefix.size(), prefix) != 0) {
            ++it;
            continue;
        }
        rc = free_window(it->second);
        it = value_windows.erase(it);
    }
    return rc;
}

uint64_t MpiComm::window_bytes() const {
    uint64_t total = 0;
    for (const UserWindow &u : user_windows) {
        total += u.win != MPI_WIN_NULL ? (uint64_t)u.bytes[rank] : 0;
    }
    return total;
}

int MpiComm::free_window(void *p) {
    for (UserWindow &u : user_windows) {
        if (u.win != MPI_WIN_NULL && u.base[rank] == p) {
            Group world;
            world.size = size;
            const coconet_rt::Watchdog::Guard guard = blocking(world, "coconet_mpi_free");
            MPI_Win_unlock_all(u.win);
            MPI_Win_free(&u.win);
            return COCONET_OK;
        }
    }
    return fail(COCONET_ERR_INVALID, coconet_rt::op_label(rank, "coconet_mpi_free") +
                                         ": not memory from coconet_mpi_alloc on this "
                                         "communicator (or freed already)");
}

SharedWindow *MpiComm::existing_window(const Group &g) {
    auto it = windows.find(std::make_pair(g.first, g.size));
    return it != windows.end() && it->second.win != MPI_WIN_NULL ? &it->second : nullptr;
}

int MpiComm::shared_window(const Group &g, size_t need, const std::string &what,
                           SharedWindow **out) {
    SharedWindow &w = windows[std::make_pair(g.first, g.size)];
    w.first = g.first;
    if (w.comm == MPI_COMM_NULL) {
        const int rc = group_comm(g, what, &w.comm);
        if (rc != COCONET_OK) {
            windows.erase(std::make_pair(g.first, g.size));
            return rc;
        }
    }
    if ((size_t)w.bytes < need) {
        const std::string allocating = what + " (allocating the shared window)";
        // Every member grows alike: same history of calls, same sizes.
        const MPI_Aint bytes = std::max<MPI_Aint>((MPI_Aint)need, 2 * w.bytes);
        int err = MPI_SUCCESS;
        std::vector<MPI_Aint> sizes;
        {
            const coconet_rt::Watchdog::Guard guard = blocking(g, allocating);
            if (w.win != MPI_WIN_NULL) {
                MPI_Win_unlock_all(w.win);
                MPI_Win_free(&w.win);
            }
            err = allocate_shared(w.comm, bytes, &w.win, &w.base, &sizes);
        }
        if (err != MPI_SUCCESS) {
            w.bytes = 0;
            return mpi_error(err, allocating);
        }
        w.bytes = bytes;
        std::vector<coconet_rt::FlagBarrierSlot *> slots;
        for (uint8_t *segment : w.base) {
            slots.push_back(reinterpret_cast<coconet_rt::FlagBarrierSlot *>(segment));
        }
        w.barrier = coconet_rt::FlagBarrier(slots, g.local(rank));
        w.barrier.reset();
        // Every member's slot is zero before any member first arrives.
        MPI_Request req;
        MPI_Ibarrier(w.comm, &req);
        std::vector<MPI_Request> reqs = {req};
        const int rc = wait_all(reqs, {-1}, allocating, nullptr);
        if (rc != COCONET_OK) {
            return rc;
        }
    }
    *out = &w;
    return COCONET_OK;
}

int MpiComm::group_comm(const Group &g, const std::string &what, MPI_Comm *out) {
    // MPI_COMM_NULL is not a value-initialized MPI_Comm: insert it.
    MPI_Comm &comm =
        group_comms.emplace(std::make_pair(g.first, g.size), MPI_COMM_NULL).first->second;
    if (comm == MPI_COMM_NULL) {
        MPI_Group world_group, members;
        MPI_Comm_group(world, &world_group);
        int range[1][3] = {{g.first, g.first + g.size - 1, 1}};
        MPI_Group_range_incl(world_group, 1, range, &members);
        // Collective over the group only, unlike MPI_Comm_split.
        const coconet_rt::Watchdog::Guard guard =
            blocking(g, what + " (creating the group's communicator)");
        const int err = MPI_Comm_create_group(
            world, members, kGroupCommTag + (g.first * (size + 1) + g.size) % 8000, &comm);
        MPI_Group_free(&members);
        MPI_Group_free(&world_group);
        if (err != MPI_SUCCESS) {
            group_comms.erase(std::make_pair(g.first, g.size));
            return mpi_error(err, what + " (creating the group's communicator)");
        }
    }
    *out = comm;
    return COCONET_OK;
}

coconet_rt::Watchdog::Guard MpiComm::blocking(const Group &g, const std::string &what) {
    coconet_rt::fault_point(
        this, coconet_rt::FaultSite::Blocking, [&] { return what; }, false);
    std::vector<int> others;
    for (int r = g.first; r < g.first + g.size; r++) {
        if (r != rank) {
            others.push_back(r);
        }
    }
    return watch_blocking(rank, what, timeout, coconet_rt::rank_list(others));
}

coconet_rt::Watchdog::Guard watch_blocking(int rank, const std::string &what, double timeout,
                                           const std::string &whom) {
    return coconet_rt::Watchdog::process().guard(
        coconet_rt::timeout_message(rank, what, timeout, whom) +
            " in a blocking MPI call; ending this process (mpirun then ends the job)",
        timeout, 1);
}

int MpiComm::window_barrier(SharedWindow &w, const std::string &what, int *failed) {
    w.barrier.arrive(failed && *failed >= 0 ? kKernelFailed : kArrivedOk,
                     std::memory_order_release);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(timeout));
    if (!w.barrier.wait(deadline, std::memory_order_acquire)) {
        std::vector<int> late;
        for (const int k : w.barrier.late()) {
            late.push_back(w.first + k);
        }
        return timed_out(what, late.empty() ? "other ranks" : coconet_rt::rank_list(late));
    }
    for (int k = 0; k < w.barrier.members(); k++) {
        if (w.barrier.word(k) == kAborted) {
            // It never meets again: later calls fail at once, and the
            // windows are left to MPI_Finalize (see ~MpiComm). Its notice,
            // sent before it arrived, says why (none after a timeout).
            const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
            while (!peer_aborted() && std::chrono::steady_clock::now() < until) {
                std::this_thread::sleep_for(std::chrono::microseconds(100));
            }
            if (failure.empty()) {
                failure =
                    "rank " + std::to_string(w.first + k) + " failed (it aborted the communicator)";
            }
            return aborted(what);
        }
    }
    if (failed) {
        *failed = -1;
        for (int k = 0; k < w.barrier.members() && *failed < 0; k++) {
            *failed = w.barrier.word(k) == kKernelFailed ? w.first + k : -1;
        }
    }
    return COCONET_OK;
}

bool MpiComm::members_present(MPI_Comm comm) const {
    MPI_Request req;
    if (MPI_Ibarrier(comm, &req) != MPI_SUCCESS) {
        return false;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    while (std::chrono::steady_clock::now() < deadline) {
        int done = 0;
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done) {
            return true;
        }
        int noticed = 0; // a rank that aborted never comes
        MPI_Iprobe(MPI_ANY_SOURCE, kAbortTag, notices, &noticed, MPI_STATUS_IGNORE);
        if (noticed) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return false;
}

} // namespace coconet_rt::mpi

#endif
