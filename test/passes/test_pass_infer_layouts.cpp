// The infer_layouts pass on tiny programs: each Func's layout, extents and
// sliced reduction variables, the run-time sizes and the conditions a call
// must check, asserted on the Analysis. Its refusals are test/errors'.
#include "TestUtil.h"

using namespace coconet;
using Halide::Var;

namespace {

const FuncInfo &info_of(const Analysis &a, const DFunc &f) {
    return a.of(f);
}

// The extents as constants (every extent in these programs is one, unless
// the test says otherwise).
std::vector<int> constants(const Extents &extents) {
    std::vector<int> out;
    for (const Halide::Expr &e : extents) {
        const std::optional<int> c = constant_extent(e);
        out.push_back(c ? *c : -1);
    }
    return out;
}

} // namespace

TEST_CASE("infer_layouts: element-wise layouts", "[passes]") {
    DFunc rep = input("rep", Halide::Float(32), {6, 4}, Replicated());
    DFunc s0 = input("s0", Halide::Float(32), {6, 4}, Sliced(0));
    DFunc s0b = input("s0b", Halide::Float(32), {6, 4}, Sliced(0));
    DFunc loc = input("loc", Halide::Float(32), {6, 4}, Local());
    Var i("i"), j("j");
    DFunc rr("rr"), rs("rs"), ss("ss"), lr("lr");
    rr(i, j) = rep(i, j) * 2.0f;      // Replicated op constant
    rs(i, j) = rep(i, j) + s0(i, j);  // Replicated op Sliced(0)
    ss(i, j) = s0(i, j) * s0b(i, j);  // Sliced(0) op Sliced(0)
    lr(i, j) = loc(i, j) - rep(i, j); // Local op Replicated
    Program p("elementwise");
    p.output(rr, Replicated()).output(rs, Sliced(0)).output(ss, Sliced(0)).output(lr, Local());
    const Analysis a = analyze(p);

    CHECK(info_of(a, rr).layout == Layout(Replicated()));
    CHECK(info_of(a, rs).layout == Layout(Sliced(0)));
    CHECK(info_of(a, ss).layout == Layout(Sliced(0)));
    CHECK(info_of(a, lr).layout == Layout(Local()));
    for (const DFunc &f : {rr, rs, ss, lr}) {
        INFO(f.name());
        CHECK(constants(info_of(a, f).extents) == std::vector<int>{6, 4});
        CHECK(info_of(a, f).sliced_rvars.empty());
    }
}

TEST_CASE("infer_layouts: a slice read at another variable moves the sliced dimension",
          "[passes]") {
    DFunc a_in = input("a", Halide::Float(32), {6, 4}, Sliced(0));
    Var i("i"), j("j");
    DFunc t("t");
    t(i, j) = a_in(j, i); // a transposed read: a's dimension 0 is t's dimension 1
    Program p("transpose");
    p.output(t, Sliced(1));
    const Analysis a = analyze(p);
    CHECK(info_of(a, t).layout == Layout(Sliced(1)));
    CHECK(constants(info_of(a, t).extents) == std::vector<int>{4, 6});
}

TEST_CASE("infer_layouts: a reduction over a sliced dimension is a Local partial result",
          "[passes]") {
    // A row-parallel MatMul: the contraction dimension is sliced in both operands.
    DFunc w = input("w", Halide::Float(32), {5, 7}, Sliced(1));
    DFunc x = input("x", Halide::Float(32), {7, 3}, Sliced(0));
    Var i("i"), j("j");
    Halide::RDom k(0, 7, "k");
    DFunc c("c");
    c(i, j) = 0.0f;
    c(i, j) += w(i, k) * x(k, j);
    Program p("matmul");
    p.output(c, Local());
    const Analysis a = analyze(p);

    const FuncInfo &ci = info_of(a, c);
    CHECK(ci.layout == Layout(Local()));
    CHECK(constants(ci.extents) == std::vector<int>{5, 3});
    REQUIRE(ci.sliced_rvars.size() == 1);
    REQUIRE(ci.sliced_rvars.count(k.x.name()) == 1);
    CHECK(ci.sliced_rvars.at(k.x.name()).group == Group::world());
    CHECK(constant_extent(ci.sliced_rvars.at(k.x.name()).extent) == 7);
}

TEST_CASE("infer_layouts: collectives map layouts as the table says", "[passes]") {
    DFunc g = input("g", Halide::Float(32), {8, 6}, Local());
    DFunc s = input("s", Halide::Float(32), {8, 6}, Sliced(1));
    DFunc ar = all_reduce(g, ReduceOp::Sum, "ar");
    DFunc rs = reduce_scatter(g, 1, ReduceOp::Max, "rs");
    DFunc ag = all_gather(s, "ag");
    DFunc bc = broadcast(g, 0, "bc");
    DFunc rd = reduce(g, 0, ReduceOp::Sum, "rd");
    DFunc aa = all_to_all(s, 0, 1, "aa");
    Program p("collectives");
    p.output(ar, Replicated())
        .output(rs, Sliced(1))
        .output(ag, Replicated())
        .output(bc, Replicated())
        .output(rd, Local())
        .output(aa, Sliced(0));
    const Analysis a = analyze(p);

    CHECK(info_of(a, ar).layout == Layout(Replicated()));
    CHECK(info_of(a, rs).layout == Layout(Sliced(1)));
    CHECK(info_of(a, ag).layout == Layout(Replicated()));
    CHECK(info_of(a, bc).layout == Layout(Replicated()));
    CHECK(info_of(a, rd).layout == Layout(Local()));
    CHECK(info_of(a, aa).layout == Layout(Sliced(0)));
    for (const DFunc &f : {ar, rs, ag, bc, rd, aa}) {
        INFO(f.name());
        CHECK(constants(info_of(a, f).extents) == std::vector<int>{8, 6});
    }
}

TEST_CASE("infer_layouts: send keeps the layout on the receiving group", "[passes]") {
    const std::vector<Group> stages = Group::world().split(2);
    DFunc x = input("x", Halide::Float(32), {9}, Sliced(0, stages[0]));
    Var i("i");
    DFunc y("y");
    y(i) = x(i) * 3.0f;
    DFunc moved = send(y, stages[1], "moved");
    DFunc z("z");
    z(i) = moved(i) + 1.0f;
    Program p("pipeline");
    p.output(z, Sliced(0, stages[1]));
    const Analysis a = analyze(p);

    CHECK(info_of(a, y).layout == Layout(Sliced(0, stages[0])));
    CHECK(info_of(a, moved).layout == Layout(Sliced(0, stages[1])));
    CHECK(info_of(a, z).layout == Layout(Sliced(0, stages[1])));
    CHECK(constants(info_of(a, z).extents) == std::vector<int>{9});
}

TEST_CASE("infer_layouts: a declared shape where reads give none", "[passes]") {
    DFunc x = input("x", Halide::Float(32), {10}, Replicated());
    Var i("i");
    DFunc first("first", {3});
    first(i) = x(i) + x(i + 1); // reads x at i + 1: no shape from x
    Program p("declared");
    p.output(first, Replicated());
    const Analysis a = analyze(p);
    CHECK(info_of(a, first).layout == Layout(Replicated()));
    CHECK(constants(info_of(a, first).extents) == std::vector<int>{3});
}

TEST_CASE("infer_layouts: run-time sizes in the signature's order, and the checks a call makes",
          "[passes][shapes]") {
    Halide::Param<int32_t> tokens("tokens"), n("n"), m("m");
    // `tokens` is made first but belongs to the second input: sizes follow
    // the inputs, dimension by dimension.
    DFunc g = input("g", Halide::Float(32), {n}, Local());
    DFunc x = input("x", Halide::Float(32), {4, tokens}, Replicated());
    DFunc h = input("h", Halide::Float(32), {m}, Local());
    Var i("i"), j("j");
    DFunc y("y"), sum("sum");
    y(i, j) = x(i, j) * 2.0f;
    sum(i) = g(i) + h(i); // needs n == m, which only a call can check
    DFunc s = all_reduce(sum, ReduceOp::Sum, "s");
    Program p("sizes");
    p.output(y, Replicated()).output(s, Replicated());
    const Analysis a = analyze(p);

    REQUIRE(a.sizes.size() == 3);
    CHECK(a.sizes[0].name == "n");
    CHECK(a.sizes[1].name == "tokens");
    CHECK(a.sizes[2].name == "m");
    CHECK(size_name(info_of(a, y).extents[1]) == "tokens");
    CHECK(constant_extent(info_of(a, y).extents[0]) == 4);
    CHECK(size_name(info_of(a, s).extents[0]) != "");
    REQUIRE(a.constraints.size() == 1);
    const ExtentConstraint &c = a.constraints[0];
    CHECK(std::set<std::string>{size_name(c.a), size_name(c.b)} == std::set<std::string>{"n", "m"});
    CHECK(c.what.find("sum") != std::string::npos);
}

TEST_CASE("infer_layouts: a run-time size against a constant keeps the constant",
          "[passes][shapes]") {
    Halide::Param<int32_t> n("n");
    DFunc g = input("g", Halide::Float(32), {n}, Replicated());
    DFunc b = input("b", Halide::Float(32), {16}, Replicated());
    Var i("i");
    DFunc y("y");
    y(i) = g(i) + b(i);
    Program p("mixed");
    p.output(y, Replicated());
    const Analysis a = analyze(p);
    CHECK(constant_extent(info_of(a, y).extents[0]) == 16);
    REQUIRE(a.constraints.size() == 1);
    CHECK(std::set<std::string>{size_name(a.constraints[0].a), size_name(a.constraints[0].b)} ==
          std::set<std::string>{"n", ""});
}
