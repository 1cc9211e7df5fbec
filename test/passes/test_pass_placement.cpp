// The place pass on tiny programs: the Halide segment of every Func, the slot
// of every fused pass, what is exported and what each pass leaves, asserted on
// Placement.
#include "TestUtil.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_test::contents;
using coconet_test::message_of;
using Halide::Var;

namespace {

struct Placed {
    Analysis analysis;
    std::vector<FusedPass> passes;
    Liveness liveness;
    Placement placement;
};

Placed place_program(const Program &p) {
    Placed r{analyze(p), {}, {}, {}};
    r.passes = find_fused_passes(r.analysis);
    r.liveness = find_liveness(p, r.analysis, r.passes);
    r.placement = place(r.analysis, r.passes, r.liveness);
    return r;
}

} // namespace

TEST_CASE("place: without fuse_with everything is in segment 0", "[passes][schedules]") {
    auto [g, m, t] = coconet_test::split_sum();
    Var i("i");
    DFunc u("u"), v("v");
    u(i) = m(i) * t(i);
    v(i) = u(i) + 1.0f;
    Program p("one_segment");
    p.output(v, Sliced(0)).output(u, Sliced(0));
    const Placement pl = place_program(p).placement;
    const DFuncContents *rs = contents(t)->sliced_part.get(), *ag = contents(t)->gathered.get();
    CHECK(pl.segment == std::map<const DFuncContents *, int>{
                            {rs, 0}, {ag, 0}, {contents(u), 0}, {contents(v), 0}});
    CHECK(pl.last == 0);
    CHECK(pl.slot.empty());
    // Only the outputs leave the segment.
    CHECK(pl.exported == std::set<const DFuncContents *>{contents(u), contents(v)});
}

TEST_CASE("place: a fused pass between two Halide segments", "[passes][schedules]") {
    DFunc x = input("x", Halide::Float(32), {8}, Local());
    DFunc m = input("m", Halide::Float(32), {8}, Sliced(0));
    Var i("i");
    DFunc g("g"), a("a"), b("b");
    g(i) = x(i) * 3.0f; // the pass's source, computed first
    DFunc t = all_reduce(g, ReduceOp::Sum, "t");
    t.split_collective(0);
    a(i) = m(i) + t(i);
    b(i) = a(i) * 2.0f + t(i);
    a.fuse_with(t);
    Program p("between");
    p.output(b, Sliced(0)).output(a, Sliced(0));
    const Placed placed = place_program(p);
    const Placement &pl = placed.placement;
    const DFuncContents *rs = contents(t)->sliced_part.get();
    CHECK(pl.segment.at(contents(g)) == 0);
    // b reads what the pass leaves: the segment after the pass's slot.
    CHECK(pl.slot == std::vector<int>{0});
    CHECK(pl.segment.at(contents(b)) == 1);
    CHECK(pl.last == 1);
    CHECK(pl.exported == std::set<const DFuncContents *>{contents(g), contents(b)});
    // What the pass leaves, in the order first read: the outputs' a, then b's t_rs.
    REQUIRE(pl.pass_outputs.size() == 1);
    const std::vector<FusedOutput> &outs = pl.pass_outputs[0];
    REQUIRE(outs.size() == 2);
    CHECK(outs[0].member == contents(a));
    CHECK(outs[0].slice_value == contents(a));
    CHECK(outs[0].gathered_value == nullptr);
    CHECK(outs[1].member == rs);
    CHECK(outs[1].slice_value == rs);
}

TEST_CASE("place: a pass that gathers leaves the gathered value", "[passes][schedules]") {
    DFunc x = input("x", Halide::Float(32), {8}, Sliced(0));
    Var i("i");
    DFunc v("v");
    v(i) = x(i) * 2.0f;
    DFunc gathered = all_gather(v, "gathered");
    v.fuse_with(gathered);
    Program p("gather");
    p.output(gathered, Replicated());
    const Placement pl = place_program(p).placement;
    CHECK(pl.slot == std::vector<int>{0});
    CHECK(pl.last == 0);
    CHECK(pl.segment.empty());
    REQUIRE(pl.pass_outputs.at(0).size() == 1);
    CHECK(pl.pass_outputs[0][0].member == contents(v));
    CHECK(pl.pass_outputs[0][0].slice_value == nullptr);
    CHECK(pl.pass_outputs[0][0].gathered_value == contents(gathered));
}

TEST_CASE("place refuses a pass that reads its own result", "[passes][error]") {
    DFunc g = input("g", Halide::Float(32), {12}, Local());
    DFunc m = input("m", Halide::Float(32), {12}, Sliced(0));
    DFunc t = all_reduce(g, ReduceOp::Sum, "t");
    t.split_collective(0);
    Var i("i");
    DFunc a("a"), total("total"), b("b");
    a(i) = m(i) + t(i);
    Halide::RDom k(0, 12, "k");
    total() = 0.0f;
    total() += a(k);
    DFunc sum = all_reduce(total, ReduceOp::Sum, "sum");
    b(i) = m(i) * t(i) * sum();
    a.fuse_with(t);
    b.fuse_with(t);
    Program p("cycle");
    p.output(b, Sliced(0));
    const Analysis analysis = analyze(p);
    const std::vector<FusedPass> passes = find_fused_passes(analysis);
    const Liveness liveness = find_liveness(p, analysis, passes);
    CHECK_THAT(message_of<UserError>([&] { place(analysis, passes, liveness); }),
               Contains("fuse_with(..., t_rs): the Funcs fused into the pass of t_rs read a value "
                        "that needs the pass's result (through t_rs)."));
}
