// Run-time shapes: programs whose extents are Halide Param<int32_t>s, each
// compiled once and run at several sizes (1, fewer elements than ranks, sizes
// no rank count divides) on 1 to 5 thread ranks, equal to the reference at
// each; unscheduled, with fused passes and overlapped. Sizes that break what
// the program needs, or that differ between ranks, are refused by name.
#include "Apps.h"
#include "TestUtil.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_test::message_of;
using Halide::Var;

namespace {

const std::vector<int> kRanks = {1, 2, 3, 4, 5};

enum class Sched { None, Fused, Overlapped };

// SGD with momentum on a gradient all_reduce: w (Replicated), m (Sliced).
Program sgd(Sched s) {
    Halide::Param<int32_t> n("n");
    DFunc g = input("g", Halide::Float(32), {n}, Local());
    DFunc w = input("w", Halide::Float(32), {n}, Replicated());
    DFunc m = input("m", Halide::Float(32), {n}, Sliced(0));
    Var i("i");
    DFunc gs = reduce_scatter(g, 0, ReduceOp::Sum, "gs");
    DFunc m_new("m_new"), w_slice("w_slice");
    m_new(i) = 0.9f * m(i) + gs(i);
    w_slice(i) = w(i) - 0.01f * m_new(i);
    DFunc w_new = all_gather(w_slice, "w_new");
    if (s == Sched::Fused) {
        m_new.fuse_with(gs);
        w_slice.fuse_with(gs);
    }
    Program p("sgd");
    return p.output(w_new, Replicated()).output(m_new, Sliced(0));
}

// A row-parallel MatMul whose three extents are run-time sizes, its partial
// sums all_reduced; overlapped in chunks along the tokens.
Program matmul(Sched s) {
    Halide::Param<int32_t> rows("rows"), inner("inner"), tokens("tokens");
    DFunc x = input("x", Halide::Float(32), {inner, tokens}, Sliced(0));
    DFunc w = input("w", Halide::Float(32), {rows, inner}, Sliced(1));
    Var h("h"), t("t");
    Halide::RDom k(0, inner, "k");
    DFunc partial("partial");
    partial(h, t) = 0.0f;
    partial(h, t) += w(h, k) * x(k, t);
    DFunc out = all_reduce(partial, ReduceOp::Sum, "out");
    if (s == Sched::Overlapped) {
        out.overlap(partial, 3);
    }
    Program p("matmul");
    return p.output(out, Replicated());
}

// An app's config with its batch-like extent a run-time size, and `set`
// applied (a schedule, an overlap).
template<typename Config, typename Set>
Config runtime_sized(Set set) {
    Config c;
    c.runtime_size = true;
    set(c);
    return c;
}

// Inputs at `sizes`; an optimizer's second moment v is non-negative.
std::vector<RankBuffers> inputs_at(const Program &program, int ranks, const Sizes &sizes,
                                   uint32_t seed) {
    std::vector<RankBuffers> inputs = make_sized_inputs(program, ranks, sizes, seed);
    if (inputs[0].count("v")) {
        apps::make_second_moments_nonnegative(inputs);
    }
    return inputs;
}

void check_sizes(const Program &program, const std::vector<Sizes> &all_sizes,
                 const JitOptions &options = {}, int min_ranks = 1) {
    JitProgram jit(program, options); // compiled once
    Reference reference(program);
    for (const Sizes &sizes : all_sizes) {
        for (int r : kRanks) {
            if (r < min_ranks) {
                continue;
            }
            std::string shown;
            for (const auto &[name, value] : sizes) {
                shown += " " + name + "=" + std::to_string(value);
            }
            INFO(program.name() << " on " << r << " ranks," << shown);
            auto inputs = inputs_at(program, r, sizes, 7 + r);
            auto outputs = jit.run_threads(r, inputs, sizes, 10.0);
            auto expected = reference.run(r, inputs, sizes);
            CHECK(max_abs_diff(outputs, expected) == 0.0);
            CHECK(coconet_test::all_finite(outputs));
            CHECK(replicated_mismatches(program, outputs).empty());
        }
    }
}

} // namespace

TEST_CASE("one compiled program runs at every size", "[shapes]") {
    const std::vector<Sizes> sizes = {
        {{"n", 0}}, {{"n", 1}}, {{"n", 3}}, {{"n", 1001}}, {{"n", (1 << 16) + 3}}};
    for (Sched s : {Sched::None, Sched::Fused}) {
        check_sizes(sgd(s), sizes);
    }
    JitOptions off;
    off.default_schedule = false;
    check_sizes(sgd(Sched::None), {{{"n", 7}}}, off);
}

TEST_CASE("the optimizer apps with a run-time parameter count", "[shapes]") {
    const std::vector<Sizes> sizes = {
        {{"n", 1}}, {{"n", 2}}, {{"n", 1001}}, {{"n", (1 << 16) + 3}}};
    for (apps::Schedule s : {apps::Schedule::None, apps::Schedule::Split, apps::Schedule::Fused}) {
        const auto c = runtime_sized<apps::OptimizerConfig>([&](auto &c) { c.schedule = s; });
        check_sizes(apps::adam(c), sizes);
        check_sizes(apps::lamb(c), sizes);
        check_sizes(apps::sgd_clip(c), sizes);
    }
}

TEST_CASE("the model-parallel apps with a run-time batch", "[shapes]") {
    const std::vector<Sizes> batches = {{{"batch", 1}}, {{"batch", 5}}, {{"batch", 33}}};
    for (apps::Schedule s : {apps::Schedule::None, apps::Schedule::Split, apps::Schedule::Fused}) {
        auto schedule = [&](auto &c) { c.schedule = s; };
        check_sizes(apps::megatron_mlp(runtime_sized<apps::MlpConfig>(schedule)), batches);
        check_sizes(apps::two_stage_pipeline(runtime_sized<apps::PipelineConfig>(schedule)),
                    batches, {}, 2);
    }
    // Overlapped in chunks of the features, and along the tokens (sequence
    // parallelism: pieces of every rank's run-time share of the batch).
    auto mlp = runtime_sized<apps::MlpConfig>([](auto &c) {
        c.schedule = apps::Schedule::Fused;
        c.overlap = 3;
    });
    check_sizes(apps::megatron_mlp(mlp), batches);
    mlp.split_dim = 1;
    check_sizes(apps::megatron_mlp(mlp), batches);
}

TEST_CASE("the fused operators with a run-time tile count", "[shapes]") {
    const std::vector<Sizes> tiles = {{{"tiles", 1}}, {{"tiles", 3}}, {{"tiles", 6}}};
    for (int overlap : {0, 2}) {
        auto overlapped = [&](auto &c) { c.overlap = overlap; };
        check_sizes(apps::embedding_all_to_all(runtime_sized<apps::EmbeddingConfig>(overlapped)),
                    tiles);
        check_sizes(apps::gemv_all_reduce(runtime_sized<apps::GemvConfig>(overlapped)), tiles);
        check_sizes(apps::gemm_all_to_all(runtime_sized<apps::GemmConfig>(overlapped)), tiles);
    }
}

TEST_CASE("a MatMul with run-time extents, tiled and overlapped", "[shapes]") {
    const std::vector<Sizes> sizes = {{{"rows", 1}, {"inner", 1}, {"tokens", 1}},
                                      {{"rows", 37}, {"inner", 19}, {"tokens", 23}},
                                      {{"rows", 64}, {"inner", 3}, {"tokens", 50}}};
    for (Sched s : {Sched::None, Sched::Overlapped}) {
        check_sizes(matmul(s), sizes);
    }
}

TEST_CASE("sizes a program cannot take are refused by name", "[shapes][error]") {
    // Two sizes the program combines must be equal at each call.
    Halide::Param<int32_t> n("n"), m("m");
    DFunc a = input("a", Halide::Float(32), {n}, Replicated());
    DFunc b = input("b", Halide::Float(32), {m}, Replicated());
    DFunc c_fixed = input("c", Halide::Float(32), {16}, Replicated());
    Var i("i");
    DFunc sum("sum");
    sum(i) = a(i) + b(i) + c_fixed(i);
    Program p("combine");
    p.output(sum, Replicated());
    JitProgram jit(p);
    const Sizes good = {{"n", 16}, {"m", 16}};
    auto inputs = make_sized_inputs(p, 2, good);
    CHECK(max_abs_diff(jit.run_threads(2, inputs, good), Reference(p).run(2, inputs, good)) == 0);

    // m differs from n: refused before anything runs, naming both.
    const Sizes bad = {{"n", 16}, {"m", 15}};
    const std::string e =
        message_of<RuntimeError>([&] { jit.run_threads(2, make_sized_inputs(p, 2, bad), bad); });
    CHECK_THAT(e, Contains("sum reads a and b along its dimension 0, which must be equal: n = 16, "
                           "m = 15"));
    // Against the fixed extent 16 of c.
    const Sizes small = {{"n", 15}, {"m", 15}};
    CHECK_THAT(
        message_of<RuntimeError>(
            [&] { jit.run_threads(2, make_sized_inputs(p, 2, small), small); }),
        Contains("sum reads a and c along its dimension 0, which must be equal: n = 15, 16"));
    // A size not given, a negative one, one the program does not have.
    CHECK_THAT(message_of<UserError>([&] {
                   jit.run_threads(2, inputs, Sizes{{"n", 16}, {"m", 16}, {"N", 16}});
               }),
               Contains("Program combine has no run-time size N (its sizes: n, m)"));
    CHECK_THAT(message_of<UserError>([&] {
                   jit.run_threads(2, inputs, Sizes{{"n", 16}});
               }),
               Contains("has the run-time extent m, but no value of m was given"));
    CHECK_THAT(message_of<UserError>([&] {
                   jit.run_threads(2, inputs, Sizes{{"n", -1}, {"m", 16}});
               }),
               Contains("run-time size n = -1 is negative"));
    // Buffers of another size than the sizes say.
    CHECK_THAT(message_of<UserError>([&] {
                   jit.run_threads(2, inputs, Sizes{{"n", 17}, {"m", 17}});
               }),
               Contains("input a is Replicated with global extents [0..17]"));
    // Two constants that differ are a compile-time error, as before.
    DFunc d = input("d", Halide::Float(32), {15}, Replicated());
    DFunc bad_sum("bad_sum");
    bad_sum(i) = c_fixed(i) + d(i);
    Program q("fixed");
    q.output(bad_sum, Replicated());
    CHECK_THAT(
        message_of<UserError>([&] { JitProgram{q}; }),
        Contains("Cannot infer the extent of dimension 0 of bad_sum: c gives 16 and d gives 15"));
    // An extent that is neither a constant nor a Param<int32_t>.
    CHECK_THAT(message_of<UserError>([&] { input("e", Halide::Float(32), {n * 2}, Replicated()); }),
               Contains("Input e: extent (n*2) is neither a constant nor a run-time size"));
}

namespace {

// Each rank's error when, after `agreed` calls at n = 9 on every rank, rank 2
// of 3 gives n = 8 and the others 9.
std::vector<std::string> errors_when_rank_2_differs(int agreed) {
    Program p = sgd(Sched::None);
    JitProgram jit(p);
    std::vector<std::string> errors(3);
    coconet_test::run_thread_ranks(3, 5.0, [&](int r, coconet_comm *comm) {
        const Sizes same = {{"n", 9}};
        for (int call = 0; call < agreed; call++) {
            jit.run_rank(comm, make_sized_inputs(p, 3, same)[r], same);
        }
        const Sizes sizes = {{"n", r == 2 ? 8 : 9}};
        try {
            jit.run_rank(comm, make_sized_inputs(p, 3, sizes)[r], sizes);
        } catch (const RuntimeError &e) {
            errors[r] = e.what();
        }
    });
    return errors;
}

} // namespace

TEST_CASE("ranks that give different sizes all fail, naming them", "[shapes][error]") {
    const std::vector<std::string> errors = errors_when_rank_2_differs(0);
    for (int r = 0; r < 3; r++) {
        INFO("rank " << r);
        CHECK_THAT(errors[r], Contains("every rank must give the same run-time sizes, but 'n' is "
                                       "8 on rank 2, 9 on ranks 0, 1"));
    }
}

TEST_CASE("a rank that changes its sizes alone fails on every rank", "[shapes][error]") {
    // After calls at sizes every rank agreed on, no sizes are gathered; the
    // first collective, whose call every rank compares, names rank 2.
    const std::vector<std::string> errors = errors_when_rank_2_differs(2);
    for (int r = 0; r < 3; r++) {
        INFO("rank " << r);
        CHECK_THAT(errors[r], Contains("rank 2"));
    }
}

TEST_CASE("braced extents of every kind pick one overload", "[shapes]") {
    Halide::Param<int32_t> n("n");
    const int width = 16;
    CHECK(input("scalar", Halide::Float(32), {}, Replicated()).dimensions() == 0);
    CHECK(input("fixed", Halide::Float(32), {width, 3}, Replicated()).dimensions() == 2);
    DFunc mixed = input("mixed", Halide::Float(32), {n, width}, Sliced(0));
    CHECK(size_name(mixed.get_contents()->extents[0]) == "n");
    CHECK(constant_extent(mixed.get_contents()->extents[1]) == width);
    CHECK(DFunc("declared", {n, 4}).get_contents()->extents.size() == 2);
}
