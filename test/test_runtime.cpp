// The runtime's C ABI on the threads backend, below the compiler: bounds
// queries, argument checks, barriers, abort, byte counters and timeouts.
#include <cstring>
#include <thread>

#include <catch2/catch.hpp>

#include "coconet_runtime.h"

namespace {

// A 1-D float buffer over the global range [min, min + extent).
struct Buf {
    std::vector<float> data;
    halide_dimension_t dim;
    halide_buffer_t b{};
    Buf(int min, int extent, bool bounds_query = false)
        : data(std::max(extent, 1)), dim(min, extent, 1) {
        b.type = halide_type_t(halide_type_float, 32);
        b.dimensions = 1;
        b.dim = &dim;
        b.host = bounds_query ? nullptr : (uint8_t *)data.data();
    }
    Buf(const Buf &) = delete; // b points into this object
    Buf &operator=(const Buf &) = delete;
};

// Runs f(rank, comm) on every rank of a new threads world, one thread each.
// Catch2's assertions are not thread-safe: f records, the test checks after.
template<typename F>
void on_ranks(int ranks, double timeout, F &&f) {
    coconet_threads_world *w = coconet_threads_world_create(ranks, timeout);
    std::vector<std::thread> t;
    for (int r = 0; r < ranks; r++) {
        t.emplace_back([&, r] { f(r, coconet_threads_world_comm(w, r)); });
    }
    for (auto &x : t) {
        x.join();
    }
    coconet_threads_world_destroy(w);
}

int gather(coconet_comm *c, Buf &in, Buf &out, const char *name = "x") {
    return coconet_collective(c, name, COCONET_ALL_GATHER, COCONET_SUM, 0, 0, -1, 1, 0, 0, 10, 1, 1,
                              1, &in.b, &out.b);
}

} // namespace

TEST_CASE("partitions match the north star", "[runtime]") {
    int64_t b, e;
    coconet_slice_range(10, 4, 3, &b, &e); // blocks of 3: [9, 10)
    CHECK((b == 9 && e == 10));
    coconet_slice_range(2, 4, 3, &b, &e); // n < parts: the last parts are empty
    CHECK((b == 2 && e == 2));
    int first, count;
    coconet_group_range(5, 2, 1, &first, &count); // floor(5/2) = 2: ranks [2, 5)
    CHECK((first == 2 && count == 3));
}

TEST_CASE("bounds queries ask for the rank's slice", "[runtime]") {
    int rc[3], min[3], extent[3];
    on_ranks(3, 5.0, [&](int r, coconet_comm *c) {
        Buf q(0, 0, true), out(0, 10);
        rc[r] = gather(c, q, out);
        min[r] = q.dim.min;
        extent[r] = q.dim.extent;
    });
    for (int r = 0; r < 3; r++) {
        CHECK(rc[r] == COCONET_OK);
        CHECK(min[r] == std::min(10, 4 * r));
        CHECK(extent[r] == std::min(10, 4 * r + 4) - std::min(10, 4 * r));
    }
}

TEST_CASE("all_gather result, byte counters and op counts", "[runtime]") {
    int rc[3];
    std::vector<float> result[3];
    uint64_t bytes[3], ops[3];
    on_ranks(3, 5.0, [&](int r, coconet_comm *c) {
        const int begin = std::min(10, 4 * r), end = std::min(10, 4 * r + 4);
        Buf in(begin, end - begin), out(0, 10);
        for (int i = begin; i < end; i++) {
            in.data[i - begin] = 100.0f * r + i;
        }
        rc[r] = gather(c, in, out);
        result[r] = out.data;
        coconet_barrier(c, "counters settled");
        bytes[r] = coconet_comm_bytes_sent(c, COCONET_ALL_GATHER);
        ops[r] = coconet_comm_op_count(c, COCONET_ALL_GATHER);
    });
    for (int r = 0; r < 3; r++) {
        CHECK(rc[r] == COCONET_OK);
        for (int i = 0; i < 10; i++) {
            CHECK(result[r][i] == 100.0f * (i / 4) + i);
        }
        // Both peers read this rank's whole slice (4, 4 and 2 floats).
        CHECK(bytes[r] == 2u * (std::min(10, 4 * r + 4) - std::min(10, 4 * r)) * 4);
        CHECK(ops[r] == 1u);
    }
}

TEST_CASE("an output the rank cannot produce is refused with a message", "[runtime]") {
    int rc[2];
    std::string msg[2];
    on_ranks(2, 5.0, [&](int r, coconet_comm *c) {
        Buf in(0, 10), out(0, 10);
        // reduce_scatter: rank r may only produce its own slice.
        rc[r] = coconet_collective(c, "rs", COCONET_REDUCE_SCATTER, COCONET_SUM, 0, 0, -1, 1, 0, 0,
                                   10, 1, 1, 1, &in.b, &out.b);
        msg[r] = coconet_comm_last_error(c);
    });
    for (int r = 0; r < 2; r++) {
        CHECK(rc[r] == COCONET_ERR_INVALID);
        CHECK(msg[r].find("rank " + std::to_string(r) + ": reduce_scatter 'rs'") !=
              std::string::npos);
        CHECK(msg[r].find("can produce [" + std::to_string(5 * r)) != std::string::npos);
    }
}

TEST_CASE("a missing rank times out with its name; abort stops the others", "[runtime]") {
    std::string errors[3];
    int rc[3];
    on_ranks(3, 1.0, [&](int r, coconet_comm *c) {
        if (r == 2) {
            return; // never arrives
        }
        Buf in(4 * r, 4), out(0, 10);
        rc[r] = gather(c, in, out, "late");
        errors[r] = coconet_comm_last_error(c);
    });
    for (int r : {0, 1}) {
        CHECK(rc[r] != COCONET_OK);
        CHECK(errors[r].find("rank " + std::to_string(r)) != std::string::npos);
        CHECK(errors[r].find("all_gather 'late'") != std::string::npos);
        CHECK(errors[r].find("waiting for rank 2") != std::string::npos);
    }

    int barrier_rc = 0;
    std::string msg;
    on_ranks(2, 30.0, [&](int r, coconet_comm *c) {
        if (r == 0) {
            coconet_comm_abort(c, "bad input");
            return;
        }
        barrier_rc = coconet_barrier(c, "after abort");
        msg = coconet_comm_last_error(c);
    });
    // Rank 1 fails at once (not after the 30 s timeout), naming rank 0's reason.
    CHECK(barrier_rc == COCONET_ERR_ABORTED);
    CHECK(msg.find("rank 0 failed: bad input") != std::string::npos);
}
