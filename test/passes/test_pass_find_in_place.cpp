// The find_in_place pass on tiny programs: which outputs may be passed in an
// input's memory (plan.in_place_of), asserted on the compiled plan, and the
// plan's lines naming them.
#include "Compile.h"
#include "TestUtil.h"

using namespace coconet;
using Halide::Var;

namespace {

// plan.in_place_of of p compiled for the host, its functions not compiled.
std::vector<int> in_place_of(const Program &p, bool default_schedule = true) {
    CompileOptions o;
    o.target = Halide::get_host_target();
    o.function_name = p.name();
    o.default_schedule = default_schedule;
    return compile_program(p, o, [](ProgramFunction &) {}).plan.in_place_of;
}

DFunc vec(const std::string &name, Layout layout = Replicated(), int n = 1001) {
    return input(name, Halide::Float(32), {n}, layout);
}

} // namespace

TEST_CASE("find_in_place: an optimizer's state updated element for element", "[passes]") {
    // SGD with momentum after an all_reduce: m_new over m, w_new over w
    // (inputs in call order g, w, m), unscheduled and by the default.
    for (bool by_default : {false, true}) {
        DFunc g = vec("g", Local()), w = vec("w"), m = vec("m");
        DFunc summed = all_reduce(g, ReduceOp::Sum, "summed");
        Var i("i");
        DFunc m_new("m_new"), w_new("w_new");
        m_new(i) = 0.9f * m(i) + summed(i);
        w_new(i) = w(i) - 0.01f * m_new(i);
        Program p("sgd");
        p.output(w_new, Replicated()).output(m_new, Replicated());
        CHECK(in_place_of(p, by_default) == std::vector<int>{1, 2});
    }
    // Sliced state, a value in two dimensions, an integer count.
    DFunc x = input("x", Halide::Float(32), {37, 101}, Sliced(1));
    DFunc c = input("c", Halide::Int(32), {7}, Sliced(0));
    Var a("a"), b("b"), k("k");
    DFunc y("y"), d("d");
    y(a, b) = x(a, b) * 2.0f + 1.0f;
    d(k) = c(k) + 1;
    Program p("sliced");
    p.output(y, Sliced(1)).output(d, Sliced(0));
    CHECK(in_place_of(p) == std::vector<int>{0, 1});
}

TEST_CASE("find_in_place: outputs that would read what they overwrote", "[passes]") {
    Var i("i");
    auto one = [](const DFunc &out) {
        Program p("one");
        p.output(out, Replicated());
        return p;
    };
    {
        // A neighbour: o(i) reads x(i + 1), which o(i + 1) will have written.
        DFunc x = vec("x"), o("o", {1001});
        o(i) = x(Halide::min(i + 1, 1000));
        CHECK(in_place_of(one(o)) == std::vector<int>{-1});
    }
    {
        // Another Func reads the input too.
        DFunc x = vec("x"), o("o"), q("q");
        o(i) = x(i) * 2.0f;
        q(i) = x(i) + 1.0f;
        Program p("two");
        p.output(o, Replicated()).output(q, Replicated());
        CHECK(in_place_of(p) == std::vector<int>{-1, -1});
    }
    {
        // A collective reads the input as well.
        DFunc x = vec("x", Local()), o("o");
        DFunc s = all_reduce(x, ReduceOp::Sum, "s");
        o(i) = x(i) + s(i);
        Program p("collective");
        p.output(o, Local());
        CHECK(in_place_of(p) == std::vector<int>{-1});
    }
    {
        // An update reads the output's elements again.
        DFunc x = vec("x"), o("o");
        o(i) = x(i);
        o(i) += 1.0f;
        CHECK(in_place_of(one(o)) == std::vector<int>{-1});
    }
    {
        // Another type, another shape.
        DFunc x = vec("x"), o("o");
        o(i) = Halide::cast<double>(x(i));
        CHECK(in_place_of(one(o)) == std::vector<int>{-1});
        DFunc longer = vec("longer", Replicated(), 1002), u("u", {1001});
        u(i) = longer(i) + 1.0f;
        CHECK(in_place_of(one(u)) == std::vector<int>{-1});
    }
}

TEST_CASE("find_in_place: a schedule that computes elements twice rules it out", "[passes]") {
    Var i("i");
    for (auto tail : {Halide::TailStrategy::Auto, Halide::TailStrategy::ShiftInwards,
                      Halide::TailStrategy::GuardWithIf}) {
        DFunc x = vec("x"), o("o");
        o(i) = x(i) * 2.0f;
        o.func().vectorize(i, 8, tail);
        Program p("vectors");
        p.output(o, Replicated());
        INFO("tail strategy " << (int)tail);
        CHECK(in_place_of(p) ==
              std::vector<int>{tail == Halide::TailStrategy::GuardWithIf ? 0 : -1});
    }
}

TEST_CASE("find_in_place: the plan names the outputs", "[passes]") {
    DFunc w = vec("w"), g = vec("g");
    Var i("i");
    DFunc w_new("w_new");
    w_new(i) = w(i) - 0.1f * g(i);
    Program p("step");
    p.output(w_new, Replicated());
    const std::string plan = JitProgram(p).plan(2);
    CHECK_THAT(plan, Catch::Matchers::Contains(
                         "w_new may be passed in the memory of w (updating it in place)"));
}
