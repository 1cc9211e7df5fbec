// A ThreadWorld kept across calls, as a training loop keeps one: every call
// equals the reference with the inputs rewritten in place between calls, a
// call's traffic is its own (that of a call on a world of its own), outputs
// passed back are written again where no input shares their memory, the
// overlap tuning carries over from call to call, and misuse is a UserError,
// not a hang.
// A failed call on a kept world is in test_faults_threads.cpp.
#include <functional>
#include <thread>

#include "Apps.h"
#include "TestUtil.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_test::message_of;

namespace {

// The Megatron block fused and overlapped in 4 tiles: 16 features and 64
// hidden units, which 3 does not divide.
Program overlapped_block() {
    apps::MlpConfig c;
    c.schedule = apps::Schedule::Fused;
    c.overlap = 4;
    return apps::megatron_mlp(c);
}

// Writes `from`'s values into `into`'s buffers, whose memory stays.
void rewrite_in_place(std::vector<RankBuffers> &into, const std::vector<RankBuffers> &from) {
    for (size_t r = 0; r < into.size(); r++) {
        for (auto &[name, b] : into[r]) {
            b.copy_from(from[r].at(name));
        }
    }
}

} // namespace

TEST_CASE("a kept ThreadWorld gives every call the reference's result in the same outputs",
          "[thread_world]") {
    // Tuning changes the tile count from call to call, and with it the bytes.
    const coconet_test::ScopedEnv untuned("COCONET_OVERLAP_TUNING", "off");
    const Program program = overlapped_block();
    const JitProgram jit(program);
    const Reference reference(program);
    for (int ranks : {1, 3, 4}) {
        INFO(ranks << " ranks");
        ThreadWorld world(ranks, 5.0);
        std::vector<RankBuffers> inputs = make_inputs(program, ranks, 1), outputs;
        // What a call on a world of its own moves, rank by rank.
        std::vector<RankTraffic> fresh;
        (void)jit.run_threads(ranks, inputs, 5.0, &fresh);
        std::vector<const void *> memory;
        for (uint32_t call = 0; call < 5; call++) {
            INFO("call " << call);
            rewrite_in_place(inputs, make_inputs(program, ranks, 100 + call));
            std::vector<RankTraffic> traffic;
            jit.run_threads(world, inputs, outputs, {}, &traffic);
            CHECK(max_abs_diff(outputs, reference.run(ranks, inputs)) == 0.0);
            REQUIRE(traffic.size() == (size_t)ranks);
            for (int r = 0; r < ranks; r++) {
                CHECK(traffic[r].total_bytes() == fresh[r].total_bytes());
                // The first call's outputs are written again.
                if (call == 0) {
                    memory.push_back(outputs[r].at("y").data());
                }
                CHECK(outputs[r].at("y").data() == memory[r]);
            }
        }
        // The output fed back as the next call's input (a residual stream,
        // x = y) gets new memory: writing it in place would change x while
        // the call reads it. So does an output that every rank reads (rank
        // 0's y as every rank's x), and one that two ranks' outputs share.
        for (int feed = 0; feed < 3; feed++) {
            INFO("feed " << feed);
            if (feed < 2) {
                for (int r = 0; r < ranks; r++) {
                    inputs[r]["x"] = outputs[feed == 1 ? 0 : r].at("y");
                }
            } else {
                inputs = make_inputs(program, ranks, 7);
                for (int r = 1; r < ranks; r++) {
                    outputs[r]["y"] = outputs[0].at("y");
                }
            }
            const std::vector<RankBuffers> expected = reference.run(ranks, inputs);
            jit.run_threads(world, inputs, outputs);
            CHECK(max_abs_diff(outputs, expected) == 0.0);
            for (int r = 0; r < ranks; r++) {
                for (int q = 0; q < ranks; q++) {
                    CHECK(outputs[r].at("y").data() != inputs[q].at("x").data());
                    CHECK((q == r || outputs[r].at("y").data() != outputs[q].at("y").data()));
                }
            }
        }
    }
}

namespace {

// y = 3 * all_reduce(x), at the run-time size n: its calls agree on the
// sizes only where they differ from the last call's.
Program sized_sum(const std::string &name) {
    const Halide::Param<int32_t> n("n");
    DFunc x = input("x", Halide::Float(32), {n}, Local());
    DFunc s = all_reduce(x, ReduceOp::Sum, "s");
    Halide::Var i("i");
    DFunc y("y");
    y(i) = s(i) * 3.0f;
    Program p(name);
    p.output(y, Replicated());
    return p;
}

// A call made from a frame 4 KiB below the caller's.
[[gnu::noinline]] void call_deeper(const std::function<void()> &call) {
    volatile char pad[4096];
    pad[0] = 0;
    call();
    (void)pad[0];
}

} // namespace

TEST_CASE("a kept ThreadWorld takes calls from any frame and thread, of programs named alike",
          "[thread_world]") {
    // Two programs of one name, each known to the world's communicators by
    // its own table, whatever frame or thread calls it.
    const Program one = sized_sum("sum"), other = sized_sum("sum");
    const JitProgram first(one), second(other);
    const Reference reference(one);
    const int ranks = 3;
    const Sizes sizes{{"n", 10}};
    ThreadWorld world(ranks, 5.0);
    const std::vector<RankBuffers> inputs = make_sized_inputs(one, ranks, sizes, 1);
    const std::vector<RankBuffers> expected = reference.run(ranks, inputs, sizes);
    int call = 0;
    auto check = [&](const JitProgram &jit) {
        INFO("call " << call++);
        CHECK(max_abs_diff(jit.run_threads(world, inputs, sizes), expected) == 0.0);
    };
    check(first);
    call_deeper([&] { check(first); });
    std::thread([&] { check(first); }).join();
    check(second);
    call_deeper([&] { check(second); });
    check(first);
}

TEST_CASE("a kept ThreadWorld's overlap tuning settles over its first calls", "[thread_world]") {
    const Program program = overlapped_block();
    const JitProgram jit(program);
    const int ranks = 3;
    const std::vector<RankBuffers> inputs = make_inputs(program, ranks, 2);
    ThreadWorld world(ranks, 5.0);
    auto settled = [&] {
        for (int r = 0; r < ranks; r++) {
            if (!coconet_comm_overlap_settled(world.comm(r))) {
                return false;
            }
        }
        return true;
    };
    // A warm-up, then 4 timed calls of each of 4, 2 and 1 tiles.
    int calls = 0;
    for (; calls < 30 && (calls == 0 || !settled()); calls++) {
        (void)jit.run_threads(world, inputs);
    }
    INFO("after " << calls << " calls: " << coconet_comm_overlap_report(world.comm(0)));
    CHECK(settled());
    CHECK(calls == 13);
    CHECK_THAT(coconet_comm_overlap_report(world.comm(0)), Contains("of 4, 2, 1 tiles"));
}

TEST_CASE("ThreadWorld runs each rank on its own thread, rank 0 on the caller's",
          "[thread_world]") {
    ThreadWorld world(4, 5.0);
    CHECK(world.size() == 4);
    CHECK(world.timeout_seconds() == 5.0);
    for (int call = 0; call < 3; call++) {
        std::vector<std::thread::id> ran(4);
        std::vector<int> ranks(4, -1);
        world.run([&](coconet_comm *comm) {
            const int r = coconet_comm_rank(comm);
            ranks[r] = r;
            ran[r] = std::this_thread::get_id();
            if (coconet_barrier(comm, "thread_world test") != COCONET_OK) {
                throw RuntimeError(coconet_comm_last_error(comm));
            }
        });
        CHECK(ranks == std::vector<int>({0, 1, 2, 3}));
        CHECK(ran[0] == std::this_thread::get_id());
        for (int r = 1; r < 4; r++) {
            CHECK(ran[r] != ran[0]);
            CHECK(ran[r] != ran[r == 1 ? 2 : 1]);
        }
    }
}

TEST_CASE("ThreadWorld refuses misuse with a UserError", "[thread_world][error]") {
    CHECK_THAT(message_of<UserError>([] { ThreadWorld world(0); }),
               Contains("ThreadWorld: size 0 < 1"));
    ThreadWorld world(2, 5.0);
    CHECK_THAT(message_of<UserError>([&] { world.comm(2); }),
               Contains("rank 2 of a world of 2 ranks"));
    // A call from a rank's body would wait for itself. (Catch2's assertions
    // are for the test's thread: the bodies record what they see.)
    std::vector<std::string> nested(2);
    world.run([&](coconet_comm *comm) {
        try {
            world.run([](coconet_comm *) {});
        } catch (const UserError &e) {
            nested[coconet_comm_rank(comm)] = e.what();
        }
    });
    for (const std::string &message : nested) {
        CHECK_THAT(message, Contains("while another call runs on it"));
    }
    // Uncaught, the ranks' UserErrors reach the caller as one, its message
    // once.
    const std::string uncaught =
        message_of<UserError>([&] { world.run([&](coconet_comm *) { world.run({}); }); });
    CHECK_THAT(uncaught, Contains("while another call runs on it"));
    CHECK(uncaught.find("while another", uncaught.find("while another") + 1) == std::string::npos);
    const Program program = overlapped_block();
    const JitProgram jit(program);
    CHECK_THAT(message_of<UserError>([&] { jit.run_threads(world, make_inputs(program, 3, 1)); }),
               Contains("inputs for 3 ranks given to a run on 2 ranks"));
    // The world still works.
    const std::vector<RankBuffers> inputs = make_inputs(program, 2, 1);
    CHECK(max_abs_diff(jit.run_threads(world, inputs), Reference(program).run(2, inputs)) == 0.0);
}
