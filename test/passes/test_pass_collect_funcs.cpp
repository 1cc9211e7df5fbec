// The collect_funcs pass on tiny programs: which distributed Funcs it
// collects, their order, and the inputs in the signature's order, asserted on
// the Analysis it returns (before any layout is inferred).
#include "CollectFuncs.h"
#include "TestUtil.h"

using namespace coconet;
using coconet_test::contents;
using Halide::Var;

namespace {

using Funcs = std::vector<const DFuncContents *>;

Funcs contents_of(const std::vector<DFunc> &fs) {
    Funcs out;
    for (const DFunc &f : fs) {
        out.push_back(contents(f));
    }
    return out;
}

// The position of f in the analysis's order, -1 if it is not there.
int position(const Analysis &a, const DFunc &f) {
    for (size_t k = 0; k < a.order.size(); k++) {
        if (contents(a.order[k]) == contents(f)) {
            return (int)k;
        }
    }
    return -1;
}

} // namespace

TEST_CASE("collect_funcs: producers before consumers, unreachable Funcs left out", "[passes]") {
    DFunc x = input("x", Halide::Float(32), {8}, Local());
    DFunc w = input("w", Halide::Float(32), {8}, Replicated());
    Var i("i");
    DFunc scaled("scaled"), unread("unread"), y("y");
    scaled(i) = x(i) * w(i);
    unread(i) = x(i) + 1.0f; // reachable from no output
    DFunc s = all_reduce(scaled, ReduceOp::Sum, "s");
    y(i) = s(i) + w(i);
    Program p("order");
    p.output(y, Replicated());
    const Analysis a = collect_funcs(p);

    CHECK(position(a, unread) == -1);
    for (const DFunc &f : {x, w, scaled, s, y}) {
        INFO(f.name());
        CHECK(position(a, f) >= 0);
    }
    CHECK(position(a, x) < position(a, scaled));
    CHECK(position(a, w) < position(a, scaled));
    CHECK(position(a, scaled) < position(a, s));
    CHECK(position(a, s) < position(a, y));
    CHECK(a.order.size() == 5);
    // Layouts are the next pass's: nothing is inferred yet.
    CHECK(a.info.count(contents(y)) == 0);
}

TEST_CASE("collect_funcs: inputs in the order they were made, whatever reads them first",
          "[passes]") {
    DFunc b = input("b", Halide::Float(32), {4}, Replicated());
    DFunc a_in = input("a", Halide::Float(32), {4}, Replicated());
    DFunc unused = input("unused", Halide::Float(32), {4}, Replicated());
    Var i("i");
    DFunc y("y");
    y(i) = a_in(i) - b(i); // reads a before b
    Program p("inputs");
    p.output(y, Replicated());
    const Analysis a = collect_funcs(p);
    // An input no output reaches is no argument of the program.
    CHECK(contents_of(a.inputs) == Funcs{contents(b), contents(a_in)});
}

TEST_CASE("collect_funcs: a Func read by several consumers and by itself appears once",
          "[passes]") {
    DFunc x = input("x", Halide::Float(32), {6}, Replicated());
    Var i("i");
    Halide::RDom r(1, 5, "r");
    DFunc prefix("prefix"), left("left"), right("right"), y("y");
    prefix(i) = x(i);
    prefix(r) = prefix(r - 1) + x(r); // an update reading the Func itself
    left(i) = prefix(i) * 2.0f;
    right(i) = prefix(i) + 1.0f;
    y(i) = left(i) + right(i);
    Program p("diamond");
    p.output(y, Replicated());
    const Analysis a = collect_funcs(p);

    CHECK(a.order.size() == 5);
    int seen = 0;
    for (const DFunc &f : a.order) {
        seen += contents(f) == contents(prefix);
    }
    CHECK(seen == 1);
    CHECK(position(a, prefix) < position(a, left));
    CHECK(position(a, prefix) < position(a, right));
    CHECK(position(a, left) < position(a, y));
    CHECK(position(a, right) < position(a, y));
}

TEST_CASE("collect_funcs: a Func that depends on itself is refused, naming the cycle",
          "[passes][error]") {
    // An update of a reading a collective of a: each needs the other first.
    DFunc x = input("x", Halide::Int(32), {12}, Local());
    Var i("i");
    DFunc a("a");
    a(i) = x(i);
    DFunc s = all_reduce(a, ReduceOp::Sum, "s");
    a(i) += s(i);
    Program p("cycle");
    p.output(s, Replicated());
    CHECK_THAT(coconet_test::message_of<UserError>([&] { collect_funcs(p); }),
               Catch::Matchers::Contains("Program cycle: s depends on itself (s reads a, which "
                                         "reads s): an update of a Func cannot read a value "
                                         "computed from that Func"));
}
