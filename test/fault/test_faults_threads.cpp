// Faults on thread ranks (ctest -L fault): rank 1 fails in the middle of a
// collective, of a fused pass, of an overlapped chunk and of an all_to_all it
// computes into its peers' outputs (JIT programs whose
// Halide code refuses a value only rank 1's inputs hold), or throws while its
// peers are inside an AOT library's fused pass. Every other rank must return
// an error naming the operation and rank 1 within the timeout + 5 s, and a new
// world in the same process must then compute the reference's result, as must
// a kept ThreadWorld at its next call.
#include <chrono>
#include <thread>

#include "AotRunner.h"
#include "TestUtil.h"
#include "aot_adam.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_test::thread_rank_outcomes;
using coconet_test::ThreadOutcome;
using Halide::Var;

namespace {

constexpr int kRanks = 3;
constexpr int kFaulty = 1;
constexpr double kTimeout = 3.0;
// What the faulty rank's inputs hold where its Halide code refuses them.
constexpr float kPoison = -1e6f;

// A value of x that only rank kFaulty's inputs hold makes its pipeline fail.
Halide::Expr refusing_poison(const Halide::Expr &x) {
    return Halide::require(x > kPoison / 2, x, "fault injected on this rank");
}

// Every rank failed; each peer of the faulty rank named `operation` and the
// faulty rank within the timeout + 5 s.
void check_peers_named(const std::vector<ThreadOutcome> &outcomes, const std::string &operation) {
    CHECK_THAT(outcomes[kFaulty].error, Contains("fault injected on this rank"));
    for (int r = 0; r < kRanks; r++) {
        if (r == kFaulty) {
            continue;
        }
        INFO("rank " << r << " after " << outcomes[r].seconds << " s: " << outcomes[r].error);
        CHECK_THAT(outcomes[r].error, Contains("rank " + std::to_string(r) + ": " + operation));
        CHECK_THAT(outcomes[r].error, Contains("rank " + std::to_string(kFaulty)));
        CHECK(outcomes[r].seconds < kTimeout + 5.0);
    }
}

// Runs `program` with rank kFaulty's input `input` poisoned at `at` (global
// coordinates), checks the peers' errors, then runs it again cleanly in a new
// world and compares with the reference.
void check_fault(const Program &program, const std::string &input, const std::vector<int> &at,
                 const std::string &operation) {
    JitProgram jit(program);
    std::vector<RankBuffers> inputs = make_inputs(program, kRanks, 7);
    // A first clean run compiles the fused kernels, which ranks would
    // otherwise compile while their peers wait.
    (void)jit.run_threads(kRanks, inputs, kTimeout);
    std::vector<RankBuffers> poisoned = inputs;
    Halide::Buffer<float> x = poisoned[kFaulty].at(input).copy();
    x(at.data()) = kPoison;
    poisoned[kFaulty][input] = x;
    check_peers_named(
        thread_rank_outcomes(kRanks, kTimeout,
                             [&](int r, coconet_comm *comm) { jit.run_rank(comm, poisoned[r]); }),
        operation);
    const std::vector<RankBuffers> outputs = jit.run_threads(kRanks, inputs, kTimeout);
    CHECK(max_abs_diff(outputs, Reference(program).run(kRanks, inputs)) == 0.0);
}

} // namespace

TEST_CASE("a rank failing before its part of a collective stops its peers", "[fault][collective]") {
    Var i("i"), j("j");
    DFunc x = input("x", Halide::Float(32), {6, 8}, Local());
    DFunc p("p");
    p(i, j) = refusing_poison(x(i, j)) * 2.0f;
    DFunc s = all_reduce(p, ReduceOp::Sum, "s");
    Program program("fault_collective");
    program.output(s, Replicated());
    check_fault(program, "x", {2, 3}, "all_reduce 's'");
}

TEST_CASE("a rank whose fused kernel fails stops its peers", "[fault][fused]") {
    Var i("i");
    DFunc g = input("g", Halide::Float(32), {40}, Local());
    DFunc m = input("m", Halide::Float(32), {40}, Sliced(0));
    DFunc t = all_reduce(g, ReduceOp::Sum, "t");
    t.split_collective(0);
    DFunc u("u");
    u(i) = refusing_poison(m(i)) + t(i);
    DFunc w = all_gather(u, "w");
    FuseOptions chunks;
    chunks.chunk_elements = 4;
    u.fuse_with(t, chunks);
    Program program("fault_fused");
    program.output(w, Replicated());
    // Rank 1's slice of m is [14, 28): its kernel fails on its third chunk.
    check_fault(program, "m", {22}, "fused reduce_scatter 't_rs'");
}

TEST_CASE("a rank whose fused kernel fails in an overlapped pass stops its peers",
          "[fault][fused][overlap]") {
    Var i("i");
    DFunc x = input("x", Halide::Float(32), {40}, Local());
    DFunc m = input("m", Halide::Float(32), {40}, Sliced(0));
    DFunc g("g");
    g(i) = x(i) * 2.0f;
    DFunc t = all_reduce(g, ReduceOp::Sum, "t");
    t.split_collective(0);
    DFunc u("u");
    u(i) = refusing_poison(m(i)) + t(i);
    DFunc w = all_gather(u, "w");
    u.fuse_with(t);
    t.overlap(g, 2);
    Program program("fault_fused_overlap");
    program.output(w, Replicated());
    // Rank 1's slice of m is [14, 28): its kernel fails on the second tile.
    check_fault(program, "m", {24}, "fused reduce_scatter 't_rs'");
}

TEST_CASE("a rank failing in an overlapped chunk stops its peers", "[fault][overlap]") {
    Var i("i"), j("j");
    DFunc x = input("x", Halide::Float(32), {6, 8}, Local());
    DFunc p("p");
    p(i, j) = refusing_poison(x(i, j)) * 2.0f;
    DFunc s = all_reduce(p, ReduceOp::Sum, "s");
    s.overlap(p, 4);
    Program program("fault_overlap");
    program.output(s, Replicated());
    // Chunks of 2 along j: rank 1's producer fails on the third chunk, while
    // the second moves.
    check_fault(program, "x", {1, 5}, "all_reduce 's'");
}

TEST_CASE("a rank whose producer fails while writing into its peers' outputs stops them",
          "[fault][overlap]") {
    Var i("i"), j("j"), k("k"), t("t");
    DFunc x = input("x", Halide::Float(32), {4, 6, 5, 3}, Sliced(2));
    DFunc p("p");
    p(i, j, k, t) = refusing_poison(x(i, j, k, t)) * 2.0f;
    DFunc a = all_to_all(p, 1, 2, "a");
    a.overlap(p, 3);
    Program program("fault_produced");
    program.output(a, Sliced(1));
    // Rank 1 holds k in [2, 4); it computes rank 1's samples [2, 4) first,
    // then fails on rank 2's [4, 6).
    check_fault(program, "x", {1, 5, 3, 1},
                "all_to_all 'a' aborted: the producer failed on rank 1");
}

TEST_CASE("a rank throwing while its peers are in an AOT library's pass stops them",
          "[fault][aot]") {
    const Program program = apps::aot_program_source(aot_adam_program());
    const std::vector<RankBuffers> inputs = apps::optimizer_inputs(program, kRanks, 5);
    auto call = [&](int r, coconet_comm *comm) {
        RankBuffers in = inputs[r], out = apps::allocate_aot_outputs(aot_adam_program(), r, kRanks);
        const int rc =
            aot_adam(comm, in.at("g").raw_buffer(), in.at("w").raw_buffer(),
                     in.at("m").raw_buffer(), in.at("v").raw_buffer(), out.at("w_new").raw_buffer(),
                     out.at("m_new").raw_buffer(), out.at("v_new").raw_buffer());
        if (rc != COCONET_OK) {
            throw std::runtime_error(coconet_comm_last_error(comm));
        }
        return out;
    };
    const std::vector<ThreadOutcome> outcomes =
        thread_rank_outcomes(kRanks, kTimeout, [&](int r, coconet_comm *comm) {
            if (r == kFaulty) {
                // Its peers are waiting in the pass by now.
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
                throw std::runtime_error("fault injected on this rank");
            }
            call(r, comm);
        });
    check_peers_named(outcomes, "fused reduce_scatter 'g_sum_rs'");
    std::vector<RankBuffers> got(kRanks);
    const std::vector<ThreadOutcome> clean = thread_rank_outcomes(
        kRanks, kTimeout, [&](int r, coconet_comm *comm) { got[r] = call(r, comm); });
    for (const ThreadOutcome &o : clean) {
        CHECK(o.error.empty());
    }
    CHECK(max_abs_diff(got, Reference(program).run(kRanks, inputs)) == 0.0);
}

TEST_CASE("a kept ThreadWorld whose call failed runs the next call", "[fault][thread_world]") {
    Var i("i"), j("j");
    DFunc x = input("x", Halide::Float(32), {6, 8}, Local());
    DFunc p("p");
    p(i, j) = refusing_poison(x(i, j)) + 1.0f;
    DFunc s = all_reduce(p, ReduceOp::Sum, "s");
    Program program("fault_kept_world");
    program.output(s, Replicated());
    const JitProgram jit(program);
    ThreadWorld world(kRanks, kTimeout);
    const std::vector<RankBuffers> inputs = make_inputs(program, kRanks, 3);
    std::vector<RankBuffers> poisoned = inputs;
    Halide::Buffer<float> bad = poisoned[kFaulty].at("x").copy();
    bad(1, 2) = kPoison;
    poisoned[kFaulty]["x"] = bad;
    for (int call = 0; call < 2; call++) {
        INFO("call " << call);
        const auto start = std::chrono::steady_clock::now();
        // The rank that failed is reported, not the peers its abort stopped.
        const std::string error =
            coconet_test::message_of<RuntimeError>([&] { jit.run_threads(world, poisoned); });
        CHECK_THAT(error, Contains("fault injected on this rank"));
        CHECK_THAT(error, !Contains("aborted"));
        CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
              kTimeout + 5.0);
        const std::vector<RankBuffers> outputs = jit.run_threads(world, inputs);
        CHECK(max_abs_diff(outputs, Reference(program).run(kRanks, inputs)) == 0.0);
    }
}

TEST_CASE("a kept ThreadWorld whose communicator failed outside a call runs the next call",
          "[fault][thread_world]") {
    Var i("i");
    DFunc x = input("x", Halide::Float(32), {10}, Local());
    Program program("fault_outside_run");
    program.output(all_reduce(x, ReduceOp::Sum, "s"), Replicated());
    const JitProgram jit(program);
    ThreadWorld world(kRanks, kTimeout);
    const std::vector<RankBuffers> inputs = make_inputs(program, kRanks, 5);
    const std::vector<RankBuffers> expected = Reference(program).run(kRanks, inputs);
    SECTION("a rank's call alone from the caller's thread times out") {
        const auto start = std::chrono::steady_clock::now();
        const std::string error = coconet_test::message_of<RuntimeError>(
            [&] { jit.run_rank(world.comm(kFaulty), inputs[kFaulty]); });
        CHECK_THAT(error, Contains("timed out"));
        CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
              kTimeout + 5.0);
    }
    SECTION("the caller aborts a rank's communicator") {
        coconet_comm_abort(world.comm(kFaulty), "the caller gave up");
    }
    // That failure was reported where it happened; the next call starts afresh.
    CHECK(max_abs_diff(jit.run_threads(world, inputs), expected) == 0.0);
    CHECK(max_abs_diff(jit.run_threads(world, inputs), expected) == 0.0);
}
