// The find_liveness pass on tiny programs: roles, scheduled reads, the live
// set and the output values, asserted on Liveness.
#include "TestUtil.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_test::contents;
using coconet_test::message_of;
using Halide::Var;

namespace {

using Funcs = std::vector<const DFuncContents *>;

Liveness liveness_of(const Program &p) {
    const Analysis analysis = analyze(p);
    return find_liveness(p, analysis, find_fused_passes(analysis));
}

} // namespace

TEST_CASE("find_liveness: a split all_reduce whose gather nobody reads", "[passes][schedules]") {
    const coconet_test::SplitSumProgram s = coconet_test::split_sum_program();
    const DFunc &g = s.g, &m = s.m, &t = s.t, &u = s.u;
    const Program &p = s.program;
    const Liveness l = liveness_of(p);
    const DFuncContents *rs = contents(t)->sliced_part.get(), *ag = contents(t)->gathered.get();

    CHECK(l.role.at(contents(g)) == FuncRole::Input);
    CHECK(l.role.at(contents(t)) == FuncRole::StandsFor);
    CHECK(l.role.at(rs) == FuncRole::Halide);
    CHECK(l.role.at(ag) == FuncRole::Halide);
    CHECK(l.role.at(contents(u)) == FuncRole::Halide);
    CHECK(l.pass_of.empty());
    CHECK(l.pass_reads.empty());
    // u reads its slice of t: the reduce_scatter, not the gather.
    CHECK(l.reads.at(contents(u)) == Funcs{contents(m), rs});
    CHECK(l.reads.at(rs) == Funcs{contents(g)});
    CHECK(l.reads.count(contents(t)) == 0);
    CHECK(l.output_values == Funcs{contents(u)});
    CHECK(l.live == std::set<const DFuncContents *>{contents(g), contents(m), rs, contents(u)});
    CHECK(l.live_in_order.back() == contents(u));
    CHECK(l.chunked_source_of.empty());
}

TEST_CASE("find_liveness: an output that stands for its gather", "[passes][schedules]") {
    DFunc g = input("g", Halide::Float(32), {8}, Local());
    DFunc t = all_reduce(g, ReduceOp::Sum, "t");
    t.split_collective(0);
    Program p("gathered");
    p.output(t, Replicated());
    const Liveness l = liveness_of(p);
    const DFuncContents *rs = contents(t)->sliced_part.get(), *ag = contents(t)->gathered.get();
    CHECK(l.output_values == Funcs{ag});
    CHECK(l.live == std::set<const DFuncContents *>{contents(g), rs, ag});
}

TEST_CASE("find_liveness: what a fused pass reads", "[passes][schedules]") {
    auto [g, m, t] = coconet_test::split_sum();
    DFunc unused = input("unused", Halide::Float(32), {8}, Sliced(0));
    Var i("i");
    DFunc a("a"), b("b");
    a(i) = m(i) + t(i);
    b(i) = a(i) * 2.0f; // a Halide consumer of the pass
    a.fuse_with(t);
    Program p("fused");
    p.output(b, Sliced(0)).output(unused, Sliced(0));
    const Liveness l = liveness_of(p);
    const DFuncContents *rs = contents(t)->sliced_part.get();

    CHECK(l.role.at(rs) == FuncRole::Fused);
    CHECK(l.role.at(contents(a)) == FuncRole::Fused);
    CHECK(l.pass_of.at(contents(a)) == 0);
    CHECK(l.pass_of.at(rs) == 0);
    REQUIRE(l.pass_reads.size() == 1);
    CHECK(l.pass_reads[0].source == contents(g));
    CHECK(l.pass_reads[0].extra_inputs == Funcs{contents(m)});
    CHECK(l.pass_reads[0].all() == Funcs{contents(g), contents(m)});
    CHECK(l.reads.at(contents(b)) == Funcs{contents(a)});
    CHECK(l.output_values == Funcs{contents(b), contents(unused)});
    CHECK(l.live.count(contents(g)));
    CHECK_FALSE(l.live.count(contents(t)->gathered.get()));
}

TEST_CASE("find_liveness: the source of an overlapped fused pass is chunked",
          "[passes][schedules]") {
    DFunc x = input("x", Halide::Float(32), {8, 4}, Local());
    Var i("i"), j("j");
    DFunc partial("partial"), y("y");
    partial(i, j) = x(i, j) * 2.0f;
    DFunc s = all_reduce(partial, ReduceOp::Sum, "s");
    s.split_collective(0);
    s.overlap(partial, 2);
    y(i, j) = s(i, j) + 1.0f;
    y.compute_sliced();
    y.fuse_with(s);
    Program p("overlapped");
    p.output(y, Replicated());
    const Liveness l = liveness_of(p);
    const DFuncContents *rs = contents(s)->sliced_part.get();
    CHECK(l.chunked_source_of ==
          std::map<const DFuncContents *, const DFuncContents *>{{contents(partial), rs}});
    CHECK(l.chunked_pass(contents(partial)) == 0);
    CHECK(l.chunked_pass(contents(y)) == -1);
    CHECK_FALSE(l.chunked_collective(rs)); // the pass's, not the executor's alone
}

TEST_CASE("find_liveness: the source of an overlapped unfused collective is chunked",
          "[passes][schedules]") {
    DFunc x = input("x", Halide::Float(32), {8, 4}, Local());
    Var i("i"), j("j");
    DFunc partial("partial"), y("y");
    partial(i, j) = x(i, j) * 2.0f;
    DFunc total = all_reduce(partial, ReduceOp::Sum, "total");
    total.overlap(partial, 2);
    y(i, j) = total(i, j) + 1.0f;
    Program p("overlapped");
    p.output(y, Replicated());
    const Liveness l = liveness_of(p);
    CHECK(l.chunked_source_of == std::map<const DFuncContents *, const DFuncContents *>{
                                     {contents(partial), contents(total)}});
    CHECK(l.chunked_pass(contents(partial)) == -1);
    CHECK(l.chunked_collective(contents(total)));
    CHECK_FALSE(l.chunked_collective(contents(y)));
}

TEST_CASE("find_liveness refuses a member reading its own pass's gather", "[passes][error]") {
    auto [g, m, t] = coconet_test::split_sum();
    DFunc w = input("w", Halide::Float(32), {8}, Replicated());
    Var i("i");
    DFunc r("r"), b("b");
    r(i) = w(i) + t(i);
    r.compute_sliced();
    r.fuse_with(t);
    b(i) = m(i) * t(i) + r(7 - i); // not at its own slice: reads the gather
    b.fuse_with(t);
    Program p("own_gather");
    p.output(b, Sliced(0));
    const Analysis analysis = analyze(p);
    const std::vector<FusedPass> passes = find_fused_passes(analysis);
    CHECK_THAT(message_of<UserError>([&] { find_liveness(p, analysis, passes); }),
               Contains("fuse_with(b, t_rs): b reads r_ag, the gathered result of the same "
                        "pass."));
}
