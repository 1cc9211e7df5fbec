// The runtime's C ABI on the threads backend, below the compiler: every
// collective kind, element type and reduction op against a naive reference
// computed here (bit-exact: reductions go in group-rank order), for several
// rank counts, shapes, groups and output boxes; bounds-query answers; argument
// checks; timeouts, abort, mismatched calls and byte counters.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "ThreadRanks.h"
#include "coconet_aot.h"
#include "coconet_runtime.h"
#include "runtime/RuntimeCases.h"

using Catch::Matchers::Contains;
using coconet_test::run_thread_ranks;

namespace {

// Runs `cases` in one world, every rank calling them in the same order;
// returns each rank's failures.
std::vector<std::vector<std::string>> run_cases(int R, const std::vector<Case> &cases) {
    std::vector<std::vector<std::string>> failures(R);
    run_thread_ranks(R, 30.0, [&](int r, coconet_comm *comm) {
        for (const Case &c : cases) {
            std::string e;
            with_type(c.type, [&](auto zero) { e = run_case<decltype(zero)>(c, R, r, comm); });
            if (!e.empty() && failures[r].size() < 10) {
                failures[r].push_back(c.str() + ": " + e);
            }
        }
    });
    return failures;
}

std::vector<std::vector<std::string>> run_all(int R, size_t *ncases) {
    const std::vector<Case> cases = make_cases(R);
    *ncases = cases.size();
    return run_cases(R, cases);
}

halide_buffer_t *no_buffer = nullptr;

} // namespace

TEST_CASE("partitions follow the north star", "[runtime]") {
    for (int64_t n : {0, 1, 2, 7, 8, 9, 100}) {
        for (int parts = 1; parts <= 9; parts++) {
            const int64_t block = (n + parts - 1) / parts;
            for (int p = 0; p < parts; p++) {
                int64_t b = -1, e = -1;
                coconet_slice_range(n, parts, p, &b, &e);
                INFO("n " << n << " parts " << parts << " part " << p);
                CHECK(b == std::min(n, p * block));
                CHECK(e == std::min(n, (p + 1) * block));
            }
        }
    }
    for (int R = 1; R <= 9; R++) {
        for (int nsplit = 1; nsplit <= R; nsplit++) {
            int next = 0;
            for (int g = 0; g < nsplit; g++) {
                int first = -1, count = -1;
                coconet_group_range(R, nsplit, g, &first, &count);
                INFO("R " << R << " nsplit " << nsplit << " group " << g);
                CHECK(first == g * R / nsplit);
                CHECK(first == next); // contiguous, covering the world
                CHECK(count == (g + 1) * R / nsplit - g * R / nsplit);
                next = first + count;
            }
            CHECK(next == R);
        }
    }
    int first, count;
    coconet_group_range(5, 2, 1, &first, &count); // ranks [2, 5)
    CHECK((first == 2 && count == 3));
}

TEST_CASE("a rank's CPU threads: the process's CPUs shared among its ranks, or the environment's",
          "[runtime]") {
    // No other thread runs here; the environment the test was given comes back after it.
    const char *given = std::getenv("COCONET_RANK_THREADS");
    const std::string kept = given ? given : "";
    unsetenv("COCONET_RANK_THREADS");
    auto threads = [](int ranks) {
        coconet_threads_world *w = coconet_threads_world_create(ranks, 1.0);
        REQUIRE(w);
        const int t = coconet_comm_threads(coconet_threads_world_comm(w, ranks - 1));
        CHECK(coconet_rank_threads(coconet_threads_world_comm(w, 0)) == t);
        coconet_threads_world_destroy(w);
        return t;
    };
    const int cpus = threads(1);
    CHECK(cpus >= 1);
    CHECK(cpus <= (int)std::max(1u, std::thread::hardware_concurrency()));
    CHECK(threads(2) == std::max(1, cpus / 2));
    CHECK(threads(cpus + 1) == 1);
    for (const char *value : {"1", "5", "1024"}) {
        setenv("COCONET_RANK_THREADS", value, 1);
        CHECK(threads(3) == std::atoi(value));
    }
    // Empty is unset; not a count, a warning: the CPUs shared as without it.
    for (const char *garbage : {"", "0", "-2", "abc", "4x", "1025"}) {
        INFO("COCONET_RANK_THREADS='" << garbage << "'");
        setenv("COCONET_RANK_THREADS", garbage, 1);
        CHECK(threads(2) == std::max(1, cpus / 2));
    }
    if (given) {
        setenv("COCONET_RANK_THREADS", kept.c_str(), 1);
    } else {
        unsetenv("COCONET_RANK_THREADS");
    }
}

TEST_CASE("communicator queries", "[runtime]") {
    coconet_threads_world *w = coconet_threads_world_create(3, 4.5);
    REQUIRE(w);
    coconet_comm *c = coconet_threads_world_comm(w, 2);
    CHECK(coconet_comm_rank(c) == 2);
    CHECK(coconet_comm_size(c) == 3);
    CHECK(std::string(coconet_comm_backend(c)) == "threads");
    CHECK(coconet_comm_local_ranks(c) == 3); // every thread rank is in this process
    CHECK(coconet_comm_timeout(c) == 4.5);
    coconet_comm_set_timeout(c, 0.7);
    CHECK(coconet_comm_timeout(c) == 0.7);
    CHECK(std::string(coconet_comm_last_error(c)).empty());
    CHECK(coconet_rank(c) == 2);
    CHECK(coconet_size(c) == 3);
    CHECK(coconet_threads_world_comm(w, 3) == nullptr);
    coconet_threads_world_destroy(w);
    CHECK(coconet_threads_world_create(0, 1.0) == nullptr);

    w = coconet_threads_world_create(1, 0); // the default
    CHECK(coconet_comm_timeout(coconet_threads_world_comm(w, 0)) == 10.0);
    coconet_threads_world_destroy(w);
    setenv("COCONET_TIMEOUT_S", "2.5", 1); // no other thread runs here
    w = coconet_threads_world_create(1, 7.0);
    CHECK(coconet_comm_timeout(coconet_threads_world_comm(w, 0)) == 2.5);
    coconet_threads_world_destroy(w);
    // Garbage is neither a hang (no timeout) nor silent: a warning and the
    // requested timeout; beyond a day it is a day.
    for (const char *garbage : {"abc", "", "-1", "0", "nan", "inf", "3s", "1e99"}) {
        INFO("COCONET_TIMEOUT_S='" << garbage << "'");
        setenv("COCONET_TIMEOUT_S", garbage, 1);
        w = coconet_threads_world_create(1, 7.0);
        const double t = coconet_comm_timeout(coconet_threads_world_comm(w, 0));
        CHECK(t == (std::string(garbage) == "1e99" ? 86400.0 : 7.0));
        coconet_threads_world_destroy(w);
    }
    unsetenv("COCONET_TIMEOUT_S");
    w = coconet_threads_world_create(1, 1e99);
    c = coconet_threads_world_comm(w, 0);
    CHECK(coconet_comm_timeout(c) == 86400.0);
    for (double bad : {-1.0, 0.0, std::nan(""), (double)INFINITY}) {
        coconet_comm_set_timeout(c, bad); // ignored
    }
    CHECK(coconet_comm_timeout(c) == 86400.0);
    coconet_threads_world_destroy(w);
    CHECK(coconet_threads_world_create(-3, 1.0) == nullptr);
}

TEST_CASE("a fused step takes the collective library only where it can and is asked to",
          "[runtime]") {
    coconet_threads_world *w = coconet_threads_world_create(2, 1.0);
    REQUIRE(w);
    const coconet_comm *c = coconet_threads_world_comm(w, 0);
    const halide_device_interface_t device{}; // the threads library takes any device's memory
    coconet_aot_step step{};
    step.kind = COCONET_STEP_FUSED;
    step.pass.nsplit = 1;
    unsetenv("COCONET_DEVICE_COLLECTIVES");                        // no other thread runs here
    CHECK(coconet_aot_step_takes_library(c, &step, &device) == 0); // device collectives
    setenv("COCONET_DEVICE_COLLECTIVES", "library", 1);
    CHECK(coconet_aot_step_takes_library(c, &step, &device) == 1);
    CHECK(coconet_aot_step_takes_library(c, &step, nullptr) == 0); // kernels on the host
    step.pass.nsplit = 2; // groups of one rank: not the world
    CHECK(coconet_aot_step_takes_library(c, &step, &device) == 0);
    unsetenv("COCONET_DEVICE_COLLECTIVES");
    coconet_threads_world_destroy(w);
}

TEST_CASE("coconet_gpu_count finds no device where the system has none", "[runtime]") {
    // CUDA's devices are the driver's /dev/nvidiaN nodes: never more GPUs than
    // those, and none without them (a driver library alone is no device).
    int nodes = 0;
    for (int k = 0; k < 64; k++) {
        nodes += access(("/dev/nvidia" + std::to_string(k)).c_str(), F_OK) == 0;
    }
    const int n = coconet_gpu_count();
    INFO(n << " GPUs, " << nodes << " device nodes");
    CHECK(n >= 0);
    CHECK(n <= nodes);
    CHECK(coconet_gpu_count() == n); // asking again changes nothing
}

TEST_CASE("every collective matches the reference", "[runtime][collectives]") {
    for (int R : {1, 2, 3, 4, 5, 8}) {
        size_t ncases = 0;
        auto failures = run_all(R, &ncases);
        INFO(R << " ranks, " << ncases << " cases");
        CHECK(ncases > 300);
        for (int r = 0; r < R; r++) {
            INFO("rank " << r);
            for (const std::string &f : failures[r]) {
                UNSCOPED_INFO(f);
            }
            CHECK(failures[r].empty());
        }
    }
}

TEST_CASE("collectives of megabytes, shared among a rank's threads, match the reference",
          "[runtime][collectives]") {
    // Outputs of two megabytes or more, split among the threads of a rank
    // (3; each part a megabyte at least): every kind, dense and strided,
    // whole and a sub-box, sliced along the outer dimension and the inner
    // one. Few and small enough for the sanitizers' builds.
    const std::string kept = std::getenv("COCONET_RANK_THREADS") ?: "";
    setenv("COCONET_RANK_THREADS", "3", 1); // no other thread runs here
    for (int R : {1, 3}) {
        std::vector<Case> cases;
        auto add = [&](Case c) {
            c.name = "large" + std::to_string(cases.size());
            c.out_mode = (int)cases.size() % 2;
            c.strided = cases.size() % 4 >= 2;
            cases.push_back(c);
        };
        for (int k : {0, 3}) { // float sums along dimension 0, int32 maxima along 1
            Case c;
            c.full.dims = 1;
            c.full.extent[0] = (1 << 19) + 1;
            c.dim = 0;
            c.op = k % 2 ? COCONET_MAX : COCONET_SUM;
            c.type = k < 2 ? type_of<float>() : type_of<int32_t>();
            for (int kind :
                 {COCONET_ALL_REDUCE, COCONET_REDUCE_SCATTER, COCONET_REDUCE, COCONET_ALL_GATHER}) {
                c.kind = kind;
                c.root = R - 1;
                add(c);
            }
            c.full.dims = 2;
            c.full.extent[0] = 513;
            c.full.extent[1] = 1031;
            c.dim = k % 2;
            for (int kind : {COCONET_ALL_REDUCE, COCONET_REDUCE_SCATTER, COCONET_ALL_GATHER,
                             COCONET_BROADCAST, COCONET_ALL_TO_ALL}) {
                c.kind = kind;
                c.dim = kind == COCONET_BROADCAST ? -1 : k % 2;
                c.concat_dim = kind == COCONET_ALL_TO_ALL ? 1 - k % 2 : -1;
                add(c);
            }
        }
        const auto failures = run_cases(R, cases);
        for (int r = 0; r < R; r++) {
            INFO(R << " ranks, rank " << r);
            for (const std::string &f : failures[r]) {
                UNSCOPED_INFO(f);
            }
            CHECK(failures[r].empty());
        }
    }
    if (kept.empty()) {
        unsetenv("COCONET_RANK_THREADS");
    } else {
        setenv("COCONET_RANK_THREADS", kept.c_str(), 1);
    }
}

TEST_CASE("reduce leaves the op's identity on the other ranks", "[runtime]") {
    // Spelled out rather than computed, for every type and op.
    std::vector<std::string> problems;
    run_thread_ranks(2, 10.0, [&](int r, coconet_comm *comm) {
        for (const halide_type_t &t : kAllTypes) {
            for (int op : {COCONET_SUM, COCONET_PROD, COCONET_MAX, COCONET_MIN}) {
                TBox full = empty_box(1);
                full.extent[0] = 3;
                Buf in(t, full, false), out(t, full, false);
                std::memset(in.data.data(), 0, in.data.size());
                coconet_collective_desc d = make_desc(COCONET_REDUCE, full);
                d.op = op;
                int rc = coconet_collective_call(comm, "red", &d, &in.b, &out.b);
                if (r == 0 || rc != COCONET_OK) {
                    if (rc != COCONET_OK) {
                        problems.push_back(coconet_comm_last_error(comm));
                    }
                    continue;
                }
                with_type(t, [&](auto zero) {
                    using T = decltype(zero);
                    const T v = *(T *)out.data.data();
                    const bool f = t.code == halide_type_float;
                    bool ok = false;
                    switch (op) {
                    case COCONET_SUM: ok = v == T(0); break;
                    case COCONET_PROD: ok = v == T(1); break;
                    case COCONET_MAX:
                        ok = f ? (std::isinf((double)v) && v < 0)
                               : v == std::numeric_limits<T>::lowest();
                        break;
                    default:
                        ok = f ? (std::isinf((double)v) && v > 0)
                               : v == std::numeric_limits<T>::max();
                    }
                    if (!ok) {
                        problems.push_back("op " + std::to_string(op) + " type " +
                                           std::to_string(t.code) + "/" + std::to_string(t.bits));
                    }
                });
            }
        }
    });
    for (const auto &p : problems) {
        UNSCOPED_INFO(p);
    }
    CHECK(problems.empty());
}

TEST_CASE("bounds queries: slices, full boxes, nothing for non-members", "[runtime]") {
    // world.split(2) of 5 ranks: groups [0, 2) and [2, 5); all_gather of 7 along dim 1 of
    // a 3x7 value in group 1: group ranks 0, 1, 2 hold [0, 3), [3, 6), [6, 7).
    TBox got[5];
    int rc[5];
    run_thread_ranks(5, 10.0, [&](int r, coconet_comm *comm) {
        TBox zero = empty_box(2);
        Buf q(type_of<float>(), zero, false, true), out(type_of<float>(), zero, false);
        q.dim[0].min = q.dim[1].min = 99; // must be overwritten
        q.dim[0].extent = q.dim[1].extent = 99;
        TBox full = empty_box(2);
        full.extent[0] = 3, full.extent[1] = 7;
        coconet_collective_desc d = make_desc(COCONET_ALL_GATHER, full);
        d.dim = 1, d.nsplit = 2, d.group = 1;
        rc[r] = coconet_collective_call(comm, "q", &d, &q.b, &out.b);
        got[r].dims = 2;
        for (int d = 0; d < 2; d++) {
            got[r].min[d] = q.dim[d].min;
            got[r].extent[d] = q.dim[d].extent;
        }
    });
    const int64_t want[5][4] = {
        {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 3, 0, 3}, {0, 3, 3, 3}, {0, 3, 6, 1}};
    for (int r = 0; r < 5; r++) {
        INFO("rank " << r << " got " << got[r].str());
        CHECK(rc[r] == COCONET_OK);
        CHECK(got[r].min[0] == want[r][0]);
        CHECK(got[r].extent[0] == want[r][1]);
        CHECK(got[r].min[1] == want[r][2]);
        CHECK(got[r].extent[1] == want[r][3]);
    }
}

TEST_CASE("send between groups of different sizes", "[runtime]") {
    // 5 ranks, world.split(2): group 0 = {0, 1}, group 1 = {2, 3, 4}. Sender r's input
    // holds 10 r + i at index i.
    std::string msg[5];
    int rc[5], rc_sliced[5], rc_rep[5];
    std::vector<float> sliced_out[5], rep_out[5];
    run_thread_ranks(5, 10.0, [&](int r, coconet_comm *comm) {
        TBox full = empty_box(1);
        full.extent[0] = 5;
        const bool sender = r < 2, receiver = r >= 2;
        auto send = [&](const char *name, int dim, bool local, const TBox &ib, const TBox &ob,
                        std::vector<float> *result) {
            Buf in(type_of<float>(), ib, false), out(type_of<float>(), ob, false);
            for_each_point(ib, [&](const int64_t *x) { in.at<float>(x) = 10.0f * r + x[0]; });
            coconet_collective_desc d = make_desc(COCONET_SEND_RECV, full);
            d.dim = dim, d.local_value = local ? 1 : 0;
            d.nsplit = 2, d.group = 0, d.dst_group = 1;
            const int code = coconet_collective_call(comm, name, &d, &in.b, &out.b);
            for_each_point(ob, [&](const int64_t *x) { result->push_back(out.at<float>(x)); });
            return code;
        };
        // Sliced: senders hold [0, 3) and [3, 5); receivers want [0, 2), [2, 4), [4, 5).
        rc_sliced[r] =
            send("stage_sliced", 0, false, sender ? sliced(full, 0, Grp{0, 2}, r) : empty_box(1),
                 receiver ? sliced(full, 0, Grp{2, 3}, r) : empty_box(1), &sliced_out[r]);
        // Replicated: receiver i reads sender i mod 2.
        rc_rep[r] = send("stage_rep", -1, false, sender ? full : empty_box(1),
                         receiver ? full : empty_box(1), &rep_out[r]);
        // Local: needs groups of the same size.
        std::vector<float> unused;
        rc[r] = send("stage_local", -1, true, sender ? full : empty_box(1),
                     receiver ? full : empty_box(1), &unused);
        msg[r] = coconet_comm_last_error(comm);
    });
    const std::vector<float> want_sliced[5] = {{}, {}, {0.0f, 1.0f}, {2.0f, 13.0f}, {14.0f}};
    for (int r = 0; r < 5; r++) {
        INFO("rank " << r << ": " << msg[r]);
        CHECK(rc_sliced[r] == COCONET_OK);
        CHECK(sliced_out[r] == want_sliced[r]);
        CHECK(rc_rep[r] == COCONET_OK);
        if (r >= 2) {
            const float s = (r - 2) % 2 == 0 ? 0.0f : 10.0f;
            CHECK(rep_out[r] == std::vector<float>{s, s + 1, s + 2, s + 3, s + 4});
        }
        CHECK(rc[r] == COCONET_ERR_INVALID);
        CHECK_THAT(msg[r], Contains("rank " + std::to_string(r) + ": send 'stage_local'"));
        CHECK_THAT(msg[r], Contains("a Local value cannot be sent from a group of 2 ranks "
                                    "(group 0 of world.split(2), first rank 0) to a group of 3 "
                                    "ranks (group 1 of world.split(2), first rank 2)"));
    }
}

TEST_CASE("a rank outside the result's group takes a stand-in of one element and leaves it",
          "[runtime]") {
    // GPU schedules hand ranks outside a group's value such a buffer: Halide's
    // GPU runtimes abort on an empty device allocation. 4 ranks, world.split(2):
    // group 0 = {0, 1}, group 1 = {2, 3}.
    int rc_reduce[4], rc_send[4], rc_two[4];
    float reduce_out[4], send_out[4];
    std::string msg[4];
    run_thread_ranks(4, 10.0, [&](int r, coconet_comm *comm) {
        TBox full = empty_box(1);
        full.extent[0] = 5;
        TBox one = empty_box(1), two = empty_box(1);
        one.extent[0] = 1;
        two.extent[0] = 2;
        const bool first = r < 2;
        Buf in(type_of<float>(), first ? full : one, false);
        for_each_point(first ? full : one, [&](const int64_t *x) { in.at<float>(x) = 1.0f; });
        // An all_reduce of group 0: ranks 2 and 3 hold none of its result.
        Buf sum(type_of<float>(), first ? full : one, false);
        const int64_t at[1] = {0};
        sum.at<float>(at) = -7.0f;
        coconet_collective_desc d = make_desc(COCONET_ALL_REDUCE, full);
        d.op = COCONET_SUM, d.nsplit = 2, d.group = 0;
        rc_reduce[r] = coconet_collective_call(comm, "group_sum", &d, &in.b, &sum.b);
        reduce_out[r] = sum.at<float>(at);
        // A send from group 0 to group 1: the senders hold none of its result.
        Buf sent(type_of<float>(), first ? one : full, false);
        sent.at<float>(at) = -7.0f;
        coconet_collective_desc s = make_desc(COCONET_SEND_RECV, full);
        s.dim = -1, s.nsplit = 2, s.group = 0, s.dst_group = 1;
        rc_send[r] = coconet_collective_call(comm, "stage", &s, &in.b, &sent.b);
        send_out[r] = sent.at<float>(at);
        // Two elements are no stand-in: refused as before.
        Buf wide(type_of<float>(), first ? full : two, false);
        rc_two[r] = coconet_collective_call(comm, "group_sum_wide", &d, &in.b, &wide.b);
        msg[r] = coconet_comm_last_error(comm);
    });
    for (int r = 0; r < 4; r++) {
        INFO("rank " << r << ": " << msg[r]);
        CHECK(rc_reduce[r] == COCONET_OK);
        CHECK(reduce_out[r] == (r < 2 ? 2.0f : -7.0f));
        CHECK(rc_send[r] == COCONET_OK);
        CHECK(send_out[r] == (r < 2 ? -7.0f : 1.0f));
        if (r >= 2) {
            CHECK(rc_two[r] == COCONET_ERR_INVALID);
            CHECK_THAT(msg[r], Contains("the output asks for [0..2] but this rank can produce"));
        }
    }
}

TEST_CASE("bad arguments are refused with a message naming rank, kind and name", "[runtime]") {
    std::string msg[2][7];
    int rc[2][7], code[2][7];
    run_thread_ranks(2, 10.0, [&](int r, coconet_comm *comm) {
        TBox full = empty_box(1);
        full.extent[0] = 10;
        Buf in(type_of<float>(), full, false), out(type_of<float>(), full, false);
        Buf iout(type_of<int32_t>(), full, false);
        TBox small = full;
        small.extent[0] = 3;
        Buf short_in(type_of<float>(), small, false);
        auto run = [&](int i, int kind, int op, int dim, halide_buffer_t *x, halide_buffer_t *y,
                       int nsplit = 1, int root = 0) {
            coconet_collective_desc d = make_desc(kind, full);
            d.op = op, d.dim = dim, d.nsplit = nsplit, d.root = root;
            rc[r][i] = coconet_collective_call(comm, ("bad" + std::to_string(i)).c_str(), &d, x, y);
            msg[r][i] = coconet_comm_last_error(comm);
            code[r][i] = coconet_comm_last_error_code(comm);
        };
        // reduce_scatter: rank r may only produce its own slice.
        run(0, COCONET_REDUCE_SCATTER, COCONET_SUM, 0, &in.b, &out.b);
        run(1, COCONET_ALL_REDUCE, COCONET_SUM, -1, &in.b, &iout.b);      // types differ
        run(2, COCONET_ALL_GATHER, 0, 3, &in.b, &out.b);                  // no dimension 3
        run(3, COCONET_ALL_REDUCE, 7, -1, &in.b, &out.b);                 // unknown op
        run(4, COCONET_ALL_REDUCE, COCONET_SUM, -1, &short_in.b, &out.b); // input too small
        run(5, COCONET_ALL_REDUCE, COCONET_SUM, -1, &in.b, &out.b, 3);    // 3 groups of 2 ranks
        run(6, COCONET_BROADCAST, 0, -1, &in.b, &out.b, 1, 2);            // no rank 2
    });
    const char *want[7] = {"the output asks for [0..10] but this rank can produce [",
                           "element types differ: float32 and int32",
                           "dim = 3 is not a dimension of a 1-D buffer",
                           "unknown reduction op 7",
                           "the input holds [0..3] but this rank must provide [0..10]",
                           "a world of 2 ranks cannot be split into 3 groups",
                           "root 2 is not a rank of a group of 2 ranks (group 0 of world.split(1), "
                           "first rank 0): a root is a rank of its group, 0 to 1"};
    const char *kind[7] = {"reduce_scatter", "all_reduce", "all_gather", "all_reduce",
                           "all_reduce",     "all_reduce", "broadcast"};
    for (int r = 0; r < 2; r++) {
        for (int i = 0; i < 7; i++) {
            INFO("rank " << r << " case " << i << ": " << msg[r][i]);
            CHECK(rc[r][i] == COCONET_ERR_INVALID);
            CHECK(code[r][i] == COCONET_ERR_INVALID);
            CHECK_THAT(msg[r][i], Contains("rank " + std::to_string(r) + ": " + kind[i] + " 'bad" +
                                           std::to_string(i) + "': "));
            CHECK_THAT(msg[r][i], Contains(want[i]));
        }
        CHECK_THAT(msg[r][0], Contains("can produce [" + std::to_string(5 * r) + ".." +
                                       std::to_string(5 * r + 5) + "]"));
    }
    // Missing buffers.
    coconet_threads_world *w = coconet_threads_world_create(1, 1.0);
    coconet_comm *c = coconet_threads_world_comm(w, 0);
    coconet_collective_desc d = make_desc(COCONET_ALL_REDUCE, empty_box(1));
    CHECK(coconet_collective_call(c, "nobuf", &d, no_buffer, no_buffer) == COCONET_ERR_INVALID);
    CHECK_THAT(std::string(coconet_comm_last_error(c)), Contains("rank 0: all_reduce 'nobuf'"));
    coconet_threads_world_destroy(w);
}

// A coconet_gemm descriptor as its extern stage receives it: a 1-D uint8
// buffer over the struct's bytes.
struct GemmDesc {
    coconet_gemm_desc d;
    halide_dimension_t dim{0, (int32_t)sizeof(coconet_gemm_desc), 1, 0};
    halide_buffer_t b{};
    GemmDesc() {
        coconet_gemm_desc_init(&d, COCONET_DEVICE_CUDA);
        b.host = reinterpret_cast<uint8_t *>(&d);
        b.type = halide_type_t(halide_type_uint, 8);
        b.dimensions = 1;
        b.dim = &dim;
    }
};

TEST_CASE("coconet_gemm: bounds queries, and refusals naming the rank and the MatMul",
          "[runtime][gemm]") {
    coconet_threads_world *w = coconet_threads_world_create(1, 1.0);
    coconet_comm *c = coconet_threads_world_comm(w, 0);
    TBox box = empty_box(3);
    box.min[0] = 4, box.extent[0] = 5, box.min[1] = 2, box.extent[1] = 3;
    box.min[2] = 1, box.extent[2] = 2;
    // A query of a batch of products: a walks k, x and the batch, b walks y
    // and k (the same matrix for every batch), the contraction [10, 17).
    GemmDesc desc;
    desc.d.dims = desc.d.a_dims = 3;
    desc.d.a_walks[0] = COCONET_GEMM_K, desc.d.a_walks[1] = 0, desc.d.a_walks[2] = 2;
    desc.d.b_walks[0] = 1, desc.d.b_walks[1] = COCONET_GEMM_K;
    Buf query(type_of<float>(), box, false, true);
    Buf a(type_of<float>(), empty_box(3), false, true),
        b(type_of<float>(), empty_box(2), false, true);
    CHECK(coconet_gemm(c, "mm", &desc.b, nullptr, 1, 10, 7, &a.b, &b.b, &query.b) == COCONET_OK);
    const int32_t want_a[3][2] = {{10, 7}, {4, 5}, {1, 2}}, want_b[2][2] = {{2, 3}, {10, 7}};
    for (int i = 0; i < 3; i++) {
        CHECK(a.dim[i].min == want_a[i][0]);
        CHECK(a.dim[i].extent == want_a[i][1]);
    }
    for (int i = 0; i < 2; i++) {
        CHECK(b.dim[i].min == want_b[i][0]);
        CHECK(b.dim[i].extent == want_b[i][1]);
    }
    // A rank that computes nothing asks for nothing.
    CHECK(coconet_gemm(c, "mm", &desc.b, nullptr, 0, 10, 7, &a.b, &b.b, &query.b) == COCONET_OK);
    CHECK(a.dim[0].extent == 0);
    CHECK(b.dim[0].extent == 0);
    // Refused: another descriptor version, walks that are no MatMul's, other
    // element types, and a call with no device to run on.
    auto refused = [&](const coconet_gemm_desc &d, halide_buffer_t *x, halide_buffer_t *y,
                       halide_buffer_t *out, const std::string &why) {
        GemmDesc bad;
        bad.d = d;
        CHECK(coconet_gemm(c, "mm", &bad.b, nullptr, 1, 0, 5, x, y, out) == COCONET_ERR_INVALID);
        CHECK_THAT(std::string(coconet_comm_last_error(c)),
                   Contains("rank 0: matmul 'mm': " + why));
    };
    TBox plain = empty_box(2);
    plain.extent[0] = plain.extent[1] = 5;
    Buf out(type_of<float>(), plain, false), ints(type_of<int32_t>(), plain, false);
    Buf x(type_of<float>(), plain, false), y(type_of<float>(), plain, false);
    coconet_gemm_desc d;
    coconet_gemm_desc_init(&d, COCONET_DEVICE_CUDA);
    d.version = 99;
    refused(d, &x.b, &y.b, &out.b, "its descriptor is not a coconet_gemm_desc of version 1");
    coconet_gemm_desc_init(&d, COCONET_DEVICE_CUDA);
    d.a_walks[1] = 0;
    refused(d, &x.b, &y.b, &out.b, "an operand does not walk its row and the sum once");
    coconet_gemm_desc_init(&d, COCONET_DEVICE_CUDA);
    refused(d, &x.b, &y.b, &ints.b, "takes float32 buffers of the descriptor's dimensions");
    refused(d, &x.b, &y.b, &out.b, "was given no device interface");
    coconet_threads_world_destroy(w);
}

TEST_CASE("the descriptor: version, size and dimensions are checked", "[runtime]") {
    coconet_threads_world *w = coconet_threads_world_create(1, 10.0);
    coconet_comm *c = coconet_threads_world_comm(w, 0);
    TBox full = empty_box(1);
    full.extent[0] = 4;
    Buf in(type_of<float>(), full, false), out(type_of<float>(), full, false);
    for_each_point(full, [&](const int64_t *x) { in.at<float>(x) = 1.5f * (float)x[0]; });
    // The bytes as lowered pipelines pass them: a 1-D uint8 buffer, here at an
    // odd address so that nothing assumes the struct's alignment.
    std::vector<uint8_t> storage(sizeof(coconet_collective_desc) + 1);
    halide_dimension_t desc_dim(0, (int32_t)sizeof(coconet_collective_desc), 1);
    halide_buffer_t desc{};
    desc.host = storage.data() + 1;
    desc.type = halide_type_t(halide_type_uint, 8);
    desc.dimensions = 1;
    desc.dim = &desc_dim;
    auto call = [&](const coconet_collective_desc &d) {
        std::memcpy(desc.host, &d, sizeof(d));
        return coconet_collective(c, "g", &desc, d.extents[0], 1, 1, 1, &in.b, &out.b);
    };
    const coconet_collective_desc good = make_desc(COCONET_ALL_REDUCE, full);
    CHECK(call(good) == COCONET_OK);
    CHECK(out.at<float>(std::vector<int64_t>{3}.data()) == 4.5f);

    coconet_collective_desc d = good;
    d.version = COCONET_COLLECTIVE_ABI_VERSION + 1;
    CHECK(call(d) == COCONET_ERR_INVALID);
    CHECK(coconet_comm_last_error_code(c) == COCONET_ERR_INVALID);
    CHECK_THAT(std::string(coconet_comm_last_error(c)),
               Contains("rank 0: collective 'g': the caller was compiled against collective ABI "
                        "version " +
                        std::to_string(COCONET_COLLECTIVE_ABI_VERSION + 1) +
                        ", this runtime has version " +
                        std::to_string(COCONET_COLLECTIVE_ABI_VERSION) + "; rebuild the library"));

    d = good;
    d.size = sizeof(d) - 4;
    CHECK(call(d) == COCONET_ERR_INVALID);
    CHECK_THAT(
        std::string(coconet_comm_last_error(c)),
        Contains("the collective descriptor has " + std::to_string(sizeof(d) - 4) + " bytes"));
    // Fewer bytes than the struct: refused, not read past.
    desc_dim.extent = 8;
    CHECK(call(good) == COCONET_ERR_INVALID);
    desc_dim.extent = (int32_t)sizeof(coconet_collective_desc);

    // Up to COCONET_MAX_DIMS dimensions fit the struct; this runtime takes 4.
    for (int dims : {5, COCONET_MAX_DIMS, COCONET_MAX_DIMS + 1, -1}) {
        d = good;
        d.dims = dims;
        INFO("dims " << dims);
        CHECK(call(d) == COCONET_ERR_INVALID);
        CHECK(coconet_collective_call(c, "g", &d, &in.b, &out.b) == COCONET_ERR_INVALID);
        CHECK_THAT(std::string(coconet_comm_last_error(c)),
                   Contains("rank 0: all_reduce 'g': the value has " + std::to_string(dims) +
                            " dimensions; this runtime supports 0 to 4"));
    }
    // A NULL descriptor, or one that is no byte buffer.
    CHECK(coconet_collective(c, "g", nullptr, 4, 1, 1, 1, &in.b, &out.b) == COCONET_ERR_INVALID);
    CHECK(coconet_collective_call(c, "g", nullptr, &in.b, &out.b) == COCONET_ERR_INVALID);
    CHECK(coconet_collective(c, "g", &in.b, 4, 1, 1, 1, &in.b, &out.b) == COCONET_ERR_INVALID);
    CHECK_THAT(std::string(coconet_comm_last_error(c)),
               Contains("rank 0: collective 'g': the collective descriptor is missing"));
    coconet_threads_world_destroy(w);
}

TEST_CASE("ranks making different calls at once are told so", "[runtime]") {
    int rc[2];
    std::string msg[2];
    run_thread_ranks(2, 10.0, [&](int r, coconet_comm *comm) {
        TBox full = empty_box(1);
        full.extent[0] = 4;
        Buf in(r == 0 ? type_of<float>() : type_of<int32_t>(), full, false);
        Buf out(r == 0 ? type_of<float>() : type_of<int32_t>(), full, false);
        coconet_collective_desc d = make_desc(COCONET_ALL_REDUCE, full);
        rc[r] = coconet_collective_call(comm, r == 0 ? "a" : "b", &d, &in.b, &out.b);
        msg[r] = coconet_comm_last_error(comm);
    });
    for (int r = 0; r < 2; r++) {
        INFO(msg[r]);
        CHECK(rc[r] == COCONET_ERR_INVALID);
        CHECK_THAT(msg[r], Contains("rank " + std::to_string(r) + ": all_reduce '" +
                                    (r == 0 ? "a" : "b") + "'"));
        CHECK_THAT(msg[r], Contains("rank " + std::to_string(1 - r) + " called all_reduce '" +
                                    (r == 0 ? "b" : "a") + "'"));
    }
    // The same call at other global extents: the message gives both.
    run_thread_ranks(2, 10.0, [&](int r, coconet_comm *comm) {
        TBox full = empty_box(1);
        full.extent[0] = 4 + r;
        Buf in(type_of<float>(), full, false), out(type_of<float>(), full, false);
        coconet_collective_desc d = make_desc(COCONET_ALL_REDUCE, full);
        rc[r] = coconet_collective_call(comm, "g", &d, &in.b, &out.b);
        msg[r] = coconet_comm_last_error(comm);
    });
    for (int r = 0; r < 2; r++) {
        INFO(msg[r]);
        CHECK(rc[r] == COCONET_ERR_INVALID);
        CHECK_THAT(msg[r], Contains("(its global extents [" + std::to_string(5 - r) +
                                    "], this rank's [" + std::to_string(4 + r) + "])"));
    }
    // A barrier against a collective of the world: refused at once (not
    // after the timeout) on every rank, naming the other call; the world
    // still meets afterwards.
    int bc[3], after[3];
    std::string bmsg[3];
    const auto start = std::chrono::steady_clock::now();
    run_thread_ranks(3, 30.0, [&](int r, coconet_comm *comm) {
        TBox full = empty_box(1);
        full.extent[0] = 4;
        Buf in(type_of<float>(), full, false), out(type_of<float>(), full, false);
        coconet_collective_desc d = make_desc(COCONET_ALL_REDUCE, full);
        bc[r] = r == 2 ? coconet_barrier(comm, "checkpoint")
                       : coconet_collective_call(comm, "g", &d, &in.b, &out.b);
        bmsg[r] = coconet_comm_last_error(comm);
        after[r] = coconet_barrier(comm, "after");
    });
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 10.0);
    for (int r = 0; r < 3; r++) {
        INFO(bmsg[r]);
        CHECK(bc[r] == COCONET_ERR_INVALID);
        CHECK(after[r] == COCONET_OK);
        CHECK_THAT(bmsg[r], Contains(r == 2 ? "rank 2: barrier 'checkpoint': rank 0 called "
                                              "all_reduce 'g' at the same time"
                                            : "rank " + std::to_string(r) +
                                                  ": all_reduce 'g': rank 2 called barrier "
                                                  "'checkpoint' at the same time"));
    }
}

TEST_CASE("a rank's communicator takes one call at a time", "[runtime]") {
    // Two threads of rank 0 call coconet_barrier at once: whichever comes
    // second is refused at once, naming the call, and the first meets rank 1
    // (which comes once the refused one has returned). No barrier passes
    // without rank 1, nothing crashes.
    std::atomic<int> returned{0};
    int rc[2] = {-1, -1};
    std::string msg[2];
    int rank1 = -1;
    run_thread_ranks(2, 30.0, [&](int r, coconet_comm *comm) {
        if (r == 1) {
            while (returned.load() == 0) {
                std::this_thread::yield();
            }
            rank1 = coconet_barrier(comm, "b");
            return;
        }
        auto call = [&](int k) {
            rc[k] = coconet_barrier(comm, "b");
            if (rc[k] != COCONET_OK) {
                msg[k] = coconet_comm_last_error(comm);
            }
            returned++;
        };
        std::thread other(call, 1);
        call(0);
        other.join();
    });
    CHECK(rank1 == COCONET_OK);
    CHECK(((rc[0] == COCONET_OK && rc[1] == COCONET_ERR_INVALID) ||
           (rc[0] == COCONET_ERR_INVALID && rc[1] == COCONET_OK)));
    CHECK_THAT(msg[0] + msg[1], Contains("rank 0: barrier 'b': the communicator is in a call on "
                                         "another thread; a communicator takes one call at a "
                                         "time"));
}

TEST_CASE("a missing rank times out with its name", "[runtime][timeout]") {
    for (int missing : {1, 2}) {
        std::string errors[4];
        int rc[4], code[4];
        const auto start = std::chrono::steady_clock::now();
        run_thread_ranks(4, 30.0, [&](int r, coconet_comm *comm) {
            // Start together, then wait 1 s for the skipping ranks: long enough
            // that a present rank is not late with them on a loaded machine.
            coconet_barrier(comm, "start");
            coconet_comm_set_timeout(comm, 1.0);
            if (r >= 4 - missing) {
                return; // never arrives
            }
            TBox full = empty_box(1);
            full.extent[0] = 10;
            Buf in(type_of<float>(), full, false), out(type_of<float>(), full, false);
            coconet_collective_desc d = make_desc(COCONET_ALL_REDUCE, full);
            rc[r] = coconet_collective_call(comm, "g_sum", &d, &in.b, &out.b);
            errors[r] = coconet_comm_last_error(comm);
            code[r] = coconet_comm_last_error_code(comm);
        });
        const double took =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        CHECK(took < 6.0); // the 1 s timeout, not the world's 30 s
        const std::string whom = missing == 1 ? "waiting for rank 3" : "waiting for ranks 2, 3";
        int timeouts = 0;
        for (int r = 0; r < 4 - missing; r++) {
            INFO("rank " << r << ": " << errors[r]);
            // The first rank to give up times out; the others are told why at once.
            CHECK((rc[r] == COCONET_ERR_TIMEOUT || rc[r] == COCONET_ERR_ABORTED));
            CHECK(code[r] == rc[r]); // the kind, without reading the message
            timeouts += rc[r] == COCONET_ERR_TIMEOUT;
            CHECK_THAT(errors[r], Contains("rank " + std::to_string(r) + ": all_reduce 'g_sum'"));
            CHECK_THAT(errors[r], Contains("all_reduce 'g_sum' timed out after 1.0 s " + whom));
        }
        CHECK(timeouts >= 1);
    }
}

TEST_CASE("abort stops the other ranks at once", "[runtime][abort]") {
    int rc[3] = {0, 0, 0}, code[3] = {0, 0, 0};
    std::string msg[3];
    std::atomic<int> waiting{0};
    const auto start = std::chrono::steady_clock::now();
    run_thread_ranks(3, 30.0, [&](int r, coconet_comm *comm) {
        if (r == 0) {
            // Let rank 1 block in the collective first; rank 2 arrives after the abort.
            while (waiting.load() < 1) {
                std::this_thread::yield();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            coconet_comm_abort(comm, "bad input");
            return;
        }
        if (r == 2) {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
        TBox full = empty_box(1);
        full.extent[0] = 6;
        Buf in(type_of<float>(), full, false), out(type_of<float>(), full, false);
        if (r == 1) {
            waiting++;
        }
        coconet_collective_desc d = make_desc(COCONET_ALL_REDUCE, full);
        rc[r] = coconet_collective_call(comm, "g", &d, &in.b, &out.b);
        msg[r] = coconet_comm_last_error(comm);
        code[r] = coconet_comm_last_error_code(comm);
    });
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(took < 5.0); // not the 30 s timeout
    for (int r : {1, 2}) {
        INFO(msg[r]);
        CHECK(rc[r] == COCONET_ERR_ABORTED);
        CHECK(code[r] == COCONET_ERR_ABORTED);
        CHECK_THAT(msg[r], Contains("rank " + std::to_string(r) + ": all_reduce 'g' aborted"));
        CHECK_THAT(msg[r], Contains("rank 0 failed: bad input"));
    }
    // Barriers too.
    int brc = 0;
    std::string bmsg;
    run_thread_ranks(2, 30.0, [&](int r, coconet_comm *comm) {
        if (r == 0) {
            coconet_comm_abort(comm, "oops");
            return;
        }
        brc = coconet_barrier(comm, "after abort");
        bmsg = coconet_comm_last_error(comm);
    });
    CHECK(brc == COCONET_ERR_ABORTED);
    CHECK_THAT(bmsg, Contains("rank 1: barrier 'after abort' aborted: rank 0 failed: oops"));
    // The world says it failed, for a caller keeping it to make a new one.
    coconet_threads_world *world = coconet_threads_world_create(2, 30.0);
    CHECK(coconet_threads_world_failed(world) == 0);
    coconet_comm_abort(coconet_threads_world_comm(world, 1), "given up");
    CHECK(coconet_threads_world_failed(world) == 1);
    coconet_threads_world_destroy(world);
    CHECK(coconet_threads_world_failed(nullptr) == 0);
}

TEST_CASE("byte counters and op counts", "[runtime][traffic]") {
    for (int R : {2, 3, 4}) {
        const int n = 10; // not divisible by 3 or 4: the slices differ
        uint64_t gather[4], bcast[4], reduce[4], scatter[4], send[4], allred[4];
        uint64_t ops[4], ops_after_reset[4], other_ops[4];
        run_thread_ranks(R, 10.0, [&](int r, coconet_comm *comm) {
            const Grp world{0, R};
            TBox full = empty_box(1);
            full.extent[0] = n;
            auto run = [&](const char *name, int kind, int root, int dim, const TBox &ib,
                           const TBox &ob, int nsplit = 1, int g = 0, int dg = 0) {
                Buf in(type_of<float>(), ib, false), out(type_of<float>(), ob, false);
                coconet_collective_desc d = make_desc(kind, full);
                d.root = root, d.dim = dim, d.nsplit = nsplit, d.group = g, d.dst_group = dg;
                coconet_collective_call(comm, name, &d, &in.b, &out.b);
            };
            run("ag", COCONET_ALL_GATHER, 0, 0, sliced(full, 0, world, r), full);
            run("ag2", COCONET_ALL_GATHER, 0, 0, sliced(full, 0, world, r), full);
            run("bc", COCONET_BROADCAST, R - 1, -1, full, full);
            run("rd", COCONET_REDUCE, 0, -1, full, full);
            run("rs", COCONET_REDUCE_SCATTER, 0, 0, full, sliced(full, 0, world, r));
            run("ar", COCONET_ALL_REDUCE, 0, -1, full, full);
            // send from group 0 to group 1 of world.split(2), replicated.
            const Grp g0 = grp(R, 2, 0), g1 = grp(R, 2, 1);
            run("sr", COCONET_SEND_RECV, 0, -1, g0.has(r) ? full : empty_box(1),
                g1.has(r) ? full : empty_box(1), 2, 0, 1);
            gather[r] = coconet_comm_bytes_sent(comm, COCONET_ALL_GATHER);
            bcast[r] = coconet_comm_bytes_sent(comm, COCONET_BROADCAST);
            reduce[r] = coconet_comm_bytes_sent(comm, COCONET_REDUCE);
            scatter[r] = coconet_comm_bytes_sent(comm, COCONET_REDUCE_SCATTER);
            allred[r] = coconet_comm_bytes_sent(comm, COCONET_ALL_REDUCE);
            send[r] = coconet_comm_bytes_sent(comm, COCONET_SEND_RECV);
            ops[r] = coconet_comm_op_count(comm, COCONET_ALL_GATHER);
            other_ops[r] = coconet_comm_op_count(comm, COCONET_ALL_TO_ALL);
            coconet_barrier(comm, "before reset"); // peers add to this rank's counters
            coconet_comm_reset_counters(comm);
            ops_after_reset[r] = coconet_comm_op_count(comm, COCONET_ALL_GATHER) +
                                 coconet_comm_bytes_sent(comm, COCONET_ALL_GATHER);
        });
        uint64_t allred_total = 0;
        for (int r = 0; r < R; r++) {
            INFO(R << " ranks, rank " << r);
            const Span s = slice(n, R, r);
            const uint64_t mine = (uint64_t)(s.end - s.begin) * 4;
            // Every peer reads this rank's slice, twice (two gathers).
            CHECK(gather[r] == 2 * mine * (R - 1));
            CHECK(bcast[r] == (r == R - 1 ? (uint64_t)n * 4 * (R - 1) : 0u));
            CHECK(reduce[r] == (r == 0 ? 0u : (uint64_t)n * 4));
            // Each peer p reads p's slice of this rank's input.
            CHECK(scatter[r] == (uint64_t)(n * 4) - mine);
            const Grp g0 = grp(R, 2, 0), g1 = grp(R, 2, 1);
            const uint64_t receivers =
                g0.has(r) ? (uint64_t)(g1.size / g0.size + (r - g0.first < g1.size % g0.size)) : 0u;
            CHECK(send[r] == receivers * n * 4);
            CHECK(ops[r] == 2u);
            CHECK(other_ops[r] == 0u);
            CHECK(ops_after_reset[r] == 0u);
            allred_total += allred[r];
        }
        // An all-reduce moves what a reduce-scatter + all-gather would.
        CHECK(allred_total == 2u * (R - 1) * n * 4);
    }
}

// ---- Fused reduce-scatters (coconet_fused_reduce_scatter) ---------------------
// The cases are shared with mpi_fused_check.cpp.
#include "runtime/FusedCases.h"

TEST_CASE("fused reduce_scatter matches the reference", "[runtime][fused]") {
    using namespace fused_test;
    SECTION("cases on 1 to 4 ranks") {
        for (int R : {1, 2, 3, 4}) {
            // Threads take the direct path unless the ring (its order of additions) is asked.
            for (int path : {COCONET_PATH_AUTO, COCONET_PATH_RING}) {
                std::vector<size_t> ncases(R, 0); // one per rank: ranks write concurrently
                std::vector<std::vector<std::string>> failures(R);
                coconet_fused_path resolved[4];
                int32_t sources[4];
                run_thread_ranks(R, 30.0, [&](int r, coconet_comm *comm) {
                    resolved[r] = coconet_fused_resolve_path(comm, path);
                    sources[r] = coconet_fused_sources(comm, path, R);
                    failures[r] = run_fused_cases(R, r, comm, path, &ncases[r]);
                });
                INFO(R << " ranks, path " << path << ", " << ncases[0] << " cases");
                CHECK(ncases[0] >= 30);
                for (int r = 0; r < R; r++) {
                    INFO("rank " << r);
                    const bool ring = path == COCONET_PATH_RING;
                    CHECK(resolved[r] == (ring ? COCONET_PATH_RING : COCONET_PATH_DIRECT));
                    CHECK(sources[r] == (ring ? std::min(R, 2) : R));
                    for (const std::string &f : failures[r]) {
                        UNSCOPED_INFO(f);
                    }
                    CHECK(failures[r].empty());
                }
            }
        }
    }

    SECTION("a rank making another fused call makes every member fail, without a hang") {
        int rc[2], again[2];
        std::string msg[2];
        const auto start = std::chrono::steady_clock::now();
        run_thread_ranks(2, 30.0, [&](int r, coconet_comm *comm) {
            SmallCall one(comm, 2, r, r == 1 ? "other" : "fm", COCONET_PATH_AUTO, 9);
            coconet_fused_call &call = one.call;
            rc[r] = coconet_fused_reduce_scatter(comm, &call);
            msg[r] = coconet_comm_last_error(comm);
            // Nothing moved: the world still works.
            call.name = "fm_again";
            again[r] = coconet_fused_reduce_scatter(comm, &call);
        });
        const double took =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        CHECK(took < 5.0);
        for (int r = 0; r < 2; r++) {
            INFO(msg[r]);
            CHECK(rc[r] == COCONET_ERR_INVALID);
            CHECK_THAT(msg[r], Contains("rank " + std::to_string(r) + ": fused reduce_scatter '" +
                                        (r == 1 ? "other" : "fm") + "'"));
            CHECK_THAT(msg[r],
                       Contains("rank " + std::to_string(1 - r) + " called fused reduce_scatter '" +
                                (r == 1 ? "fm" : "other") + "' at the same time"));
            CHECK(again[r] == COCONET_OK);
        }
    }

    SECTION("a replicable call whose outputs are not all gathered is refused") {
        // A replicated pass computes every output whole on every member: an
        // output holding this rank's slice only cannot take it.
        int rc[2];
        std::string msg[2];
        run_thread_ranks(2, 30.0, [&](int r, coconet_comm *comm) {
            SmallCall one(comm, 2, r, "fr", COCONET_PATH_AUTO, 9);
            one.call.replicable = 1;
            rc[r] = coconet_fused_reduce_scatter(comm, &one.call);
            msg[r] = coconet_comm_last_error(comm);
        });
        for (int r = 0; r < 2; r++) {
            INFO(msg[r]);
            CHECK(rc[r] == COCONET_ERR_INVALID);
            CHECK_THAT(msg[r], Contains("rank " + std::to_string(r) +
                                        ": fused reduce_scatter 'fr': replicable, but output 0 "
                                        "is not gathered"));
        }
    }

    SECTION("the library path needs device buffers and a library, and says so") {
        // COCONET_PATH_LIBRARY is for a caller (the executor) holding the
        // pass's buffers on a device whose memory the backend's collective
        // library moves; host buffers on threads have neither.
        int rc[2];
        std::string msg[2];
        int32_t sources[2];
        run_thread_ranks(2, 30.0, [&](int r, coconet_comm *comm) {
            SmallCall one(comm, 2, r, "fl", COCONET_PATH_LIBRARY, 9);
            sources[r] = coconet_fused_sources(comm, COCONET_PATH_LIBRARY, 2);
            rc[r] = coconet_fused_reduce_scatter(comm, &one.call);
            msg[r] = coconet_comm_last_error(comm);
        });
        for (int r = 0; r < 2; r++) {
            INFO(msg[r]);
            CHECK(sources[r] == 1);
            CHECK(rc[r] == COCONET_ERR_INVALID);
            CHECK_THAT(msg[r], Contains("rank " + std::to_string(r) +
                                        ": fused reduce_scatter 'fl': the library path needs "
                                        "every output allocated on one device"));
        }
    }

    SECTION("a gather hook moves gathered chunks instead of the host copies") {
        // What a caller keeping outputs on a device gets: one call per
        // gathered output, peer and chunk, covering every peer's slice once.
        static std::mutex mutex;
        static std::vector<int> outputs;
        static int64_t elements;
        outputs.clear();
        elements = 0;
        const int R = 3, n = 20;
        std::vector<std::vector<float>> gathered(R);
        std::vector<int> rc(R);
        run_thread_ranks(R, 30.0, [&](int r, coconet_comm *comm) {
            SmallCall one(comm, R, r, "fg", COCONET_PATH_AUTO, n);
            for (int64_t x = 0; x < n; x++) {
                one.out1.at<float>(&x) = -1.0f;
            }
            one.call.chunk_elements = 3;
            one.call.gather = [](void *, int32_t i, halide_buffer_t *, const int32_t *,
                                 const int32_t *extent) {
                std::lock_guard<std::mutex> lock(mutex);
                outputs.push_back(i);
                elements += extent[0];
                return 0;
            };
            rc[r] = coconet_fused_reduce_scatter(comm, &one.call);
            for (int64_t x = 0; x < n; x++) {
                gathered[r].push_back(one.out1.at<float>(&x));
            }
        });
        CHECK(rc == std::vector<int>(R, COCONET_OK));
        CHECK(elements == (int64_t)(R - 1) * n);
        CHECK(std::count(outputs.begin(), outputs.end(), 1) == (int)outputs.size());
        for (int r = 0; r < R; r++) {
            INFO("rank " << r);
            // The runtime copied nothing into this rank's gathered output:
            // only its own slice (the kernel's) is written.
            const Span mine = slice(n, R, r);
            for (int64_t x = 0; x < n; x++) {
                const bool own = x >= mine.begin && x < mine.end;
                CHECK((gathered[r][x] == -1.0f) == !own);
            }
        }
    }

    SECTION("counters: one fused op per call, with its memory traffic") {
        uint64_t ops[3], bytes[3], other[3];
        run_thread_ranks(3, 30.0, [&](int r, coconet_comm *comm) {
            SmallCall one(comm, 3, r, "fc", COCONET_PATH_AUTO, 20);
            coconet_comm_reset_counters(comm);
            coconet_fused_reduce_scatter(comm, &one.call);
            coconet_fused_reduce_scatter(comm, &one.call);
            ops[r] = coconet_comm_op_count(comm, COCONET_FUSED);
            bytes[r] = coconet_comm_bytes_sent(comm, COCONET_FUSED);
            other[r] = coconet_comm_op_count(comm, COCONET_REDUCE_SCATTER);
        });
        for (int r = 0; r < 3; r++) {
            INFO("rank " << r);
            CHECK(ops[r] == 2u);
            CHECK(bytes[r] > 0u);
            CHECK(other[r] == 0u);
        }
    }
}
