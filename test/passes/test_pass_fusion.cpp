// The find_fused_passes pass on tiny programs: which Funcs each fused pass
// computes, asserted on FusedPass rather than on the plan's words.
#include "TestUtil.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_test::contents;
using coconet_test::message_of;
using Halide::Var;

TEST_CASE("find_fused_passes: one pass per collective, members producers first",
          "[passes][schedules]") {
    auto [g, m, t] = coconet_test::split_sum();
    Var i("i");
    DFunc a("a"), b("b"), c("c");
    a(i) = m(i) + t(i);
    b(i) = a(i) * t(i);
    c(i) = b(i) + 1.0f; // not fused
    b.fuse_with(t);
    a.fuse_with(t);
    Program p("fusion");
    p.output(c, Sliced(0));
    const Analysis analysis = analyze(p);
    const std::vector<FusedPass> passes = find_fused_passes(analysis);
    REQUIRE(passes.size() == 1);
    const FusedPass &pass = passes[0];
    CHECK(pass.scatter.get() == contents(t)->sliced_part.get());
    CHECK(pass.reduces());
    CHECK(pass.members == std::vector<const DFuncContents *>{contents(a), contents(b)});
    CHECK(pass.computes(pass.scatter.get()));
    CHECK(pass.computes(contents(b)));
    CHECK_FALSE(pass.computes(contents(c)));
    // Later passes fill these.
    CHECK(pass.outputs.empty());
    CHECK(pass.extra_inputs.empty());
}

TEST_CASE("find_fused_passes: none without fuse_with, and a pass that only gathers",
          "[passes][schedules]") {
    DFunc g = input("g", Halide::Float(32), {8}, Local());
    DFunc w = input("w", Halide::Float(32), {8}, Replicated());
    DFunc t = all_reduce(g, ReduceOp::Sum, "t");
    Var i("i");
    DFunc r("r");
    r(i) = w(i) * t(i);
    Program plain("plain");
    plain.output(r, Replicated());
    CHECK(find_fused_passes(analyze(plain)).empty());

    // A Func fused into its own all_gather: a pass with nothing to reduce.
    DFunc x = input("x", Halide::Float(32), {8}, Sliced(0));
    DFunc v("v");
    v(i) = x(i) * 2.0f;
    DFunc gathered = all_gather(v, "gathered");
    v.fuse_with(gathered);
    Program gather("gather");
    gather.output(gathered, Replicated());
    const std::vector<FusedPass> passes = find_fused_passes(analyze(gather));
    REQUIRE(passes.size() == 1);
    CHECK_FALSE(passes[0].reduces());
    CHECK(passes[0].scatter.get() == contents(gathered));
    CHECK(passes[0].members == std::vector<const DFuncContents *>{contents(v)});
    CHECK(passes[0].gathers(*contents(gathered)));
    CHECK_FALSE(passes[0].computes(contents(gathered)));
}

TEST_CASE("find_fused_passes: a gather's pass with the gathered Func's producers",
          "[passes][schedules]") {
    DFunc x = input("x", Halide::Float(32), {8}, Sliced(0));
    Var i("i");
    DFunc u("u"), v("v");
    u(i) = x(i) + 1.0f;
    v(i) = u(i) * 2.0f;
    DFunc gathered = all_gather(v, "gathered");
    u.fuse_with(gathered);
    v.fuse_with(gathered);
    Program both("both");
    both.output(gathered, Replicated()).output(u, Sliced(0));
    const std::vector<FusedPass> passes = find_fused_passes(analyze(both));
    REQUIRE(passes.size() == 1);
    CHECK(passes[0].members == std::vector<const DFuncContents *>{contents(u), contents(v)});
    CHECK(passes[0].gathers(*contents(gathered)));
    // Without the gather among the outputs there is no pass: u is computed on its own.
    Program alone("alone");
    alone.output(u, Sliced(0));
    CHECK(find_fused_passes(analyze(alone)).empty());
}

TEST_CASE("find_fused_passes refuses a member sliced unlike the pass", "[passes][error]") {
    DFunc g = input("g", Halide::Float(32), {12}, Local());
    DFunc w = input("w", Halide::Float(32), {12}, Replicated());
    DFunc t = all_reduce(g, ReduceOp::Sum, "t");
    t.split_collective(0);
    Var i("i");
    DFunc r("r");
    r(i) = w(i) + t(i);
    r.fuse_with(t);
    Program p("refused");
    p.output(r, Replicated());
    const Analysis analysis = analyze(p);
    CHECK_THAT(message_of<UserError>([&] { find_fused_passes(analysis); }),
               Contains("fuse_with(r, t_rs): r is Replicated, but the pass computes t_rs"));
}
