// The narrow_all_reduces pass on tiny programs: which all_reduces become
// their reduce_scatter, asserted on the Funcs' split and on Liveness, and
// that a later lowering redoes or undoes the split as the program then reads it.
#include "TestUtil.h"

#include "NarrowAllReduces.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_test::contents;
using coconet_test::message_of;
using Halide::Var;

namespace {

// The all_reduce's sliced dimension after lowering `p`, or -1 when it stays whole.
int narrowed_dim(const Program &p, const DFunc &sum) {
    lower(p);
    const DFuncContents *f = contents(sum);
    if (!f->sliced_part) {
        return -1;
    }
    CHECK(f->split_by_default);
    return f->sliced_part->collective->dim;
}

struct Summed {
    DFunc g, m, sum;
};

// A Local 6 x 4 gradient, a state Sliced along `dim`, and the gradient's all_reduce.
Summed summed(int dim) {
    DFunc g = input("g", Halide::Float(32), {6, 4}, Local());
    DFunc m = input("m", Halide::Float(32), {6, 4}, Sliced(dim));
    return Summed{g, m, all_reduce(g, ReduceOp::Sum, "sum")};
}

} // namespace

TEST_CASE("narrow_all_reduces: readers of their slices only", "[passes]") {
    for (int dim : {0, 1}) {
        INFO("sliced along " << dim);
        Summed s = summed(dim);
        Var x("x"), y("y");
        DFunc a("a"), b("b");
        a(x, y) = s.m(x, y) + s.sum(x, y);
        b(x, y) = a(x, y) * s.sum(x, y);
        Program p("slices");
        p.output(b, Sliced(dim));
        CHECK(narrowed_dim(p, s.sum) == dim);
        // Both readers read the reduce_scatter, and the gather is dead.
        const Analysis analysis = analyze(p);
        const Liveness l = find_liveness(p, analysis, find_fused_passes(analysis));
        const DFuncContents *rs = contents(s.sum)->sliced_part.get();
        CHECK(l.live.count(rs) == 1);
        CHECK(l.live.count(contents(s.sum)->gathered.get()) == 0);
        CHECK(l.live.count(contents(s.sum)) == 0);
        CHECK_THAT(rs->made_by,
                   Contains("the lowering (every reader of sum reads only its slice)"));
        coconet_test::check_matches_reference(p);
    }
}

TEST_CASE("narrow_all_reduces: an all_reduce needed whole stays whole", "[passes]") {
    Var x("x"), y("y");
    SECTION("a reader of another rank's element") {
        Summed s = summed(0);
        DFunc a("a");
        a(x, y) = s.m(x, y) + s.sum(5 - x, y);
        Program p("mirror");
        p.output(a, Sliced(0));
        CHECK(narrowed_dim(p, s.sum) == -1);
        coconet_test::check_matches_reference(p);
    }
    SECTION("a Replicated reader") {
        Summed s = summed(0);
        DFunc a("a"), r("r");
        a(x, y) = s.m(x, y) + s.sum(x, y);
        r(x, y) = s.sum(x, y) * 2.0f;
        Program p("replicated");
        p.output(a, Sliced(0)).output(r, Replicated());
        CHECK(narrowed_dim(p, s.sum) == -1);
    }
    SECTION("a reduction over it") {
        Summed s = summed(0);
        Halide::RDom k(0, 6, "k");
        DFunc n("n");
        n(y) = 0.0f;
        n(y) += s.sum(k, y);
        Program p("norm");
        p.output(n, Replicated());
        CHECK(narrowed_dim(p, s.sum) == -1);
    }
    SECTION("a program output") {
        Summed s = summed(0);
        DFunc a("a");
        a(x, y) = s.m(x, y) + s.sum(x, y);
        Program p("output");
        p.output(a, Sliced(0)).output(s.sum, Replicated());
        CHECK(narrowed_dim(p, s.sum) == -1);
    }
    SECTION("a scalar") {
        DFunc g = input("g", Halide::Float(32), {}, Local());
        DFunc sum = all_reduce(g, ReduceOp::Sum, "sum");
        DFunc a("a");
        a() = sum() + 1.0f;
        Program p("scalar");
        p.output(a, Replicated());
        CHECK(narrowed_dim(p, sum) == -1);
    }
    SECTION("a Func of the user's named as the split's would be") {
        Summed s = summed(0);
        DFunc a("sum_rs");
        a(x, y) = s.m(x, y) + s.sum(x, y);
        Program p("named");
        p.output(a, Sliced(0));
        CHECK(narrowed_dim(p, s.sum) == -1);
        coconet_test::check_matches_reference(p, {1, 3});
    }
    SECTION("overlapped by the user") {
        DFunc g = input("g", Halide::Float(32), {6, 4}, Local());
        DFunc m = input("m", Halide::Float(32), {6, 4}, Sliced(0));
        DFunc produced("produced");
        produced(x, y) = g(x, y) * 2.0f;
        DFunc sum = all_reduce(produced, ReduceOp::Sum, "sum");
        sum.overlap(produced, 2);
        DFunc a("a");
        a(x, y) = m(x, y) + sum(x, y);
        Program p("overlapped");
        p.output(a, Sliced(0));
        CHECK(narrowed_dim(p, sum) == -1);
    }
}

TEST_CASE("narrow_all_reduces: each lowering decides afresh; the user's split wins", "[passes]") {
    Summed s = summed(0);
    Var x("x"), y("y");
    DFunc a("a"), r("r");
    a(x, y) = s.m(x, y) + s.sum(x, y);
    r(x, y) = s.sum(x, y) * 2.0f;
    Program slices("slices"), whole("whole");
    slices.output(a, Sliced(0));
    whole.output(a, Sliced(0)).output(r, Replicated());

    CHECK(narrowed_dim(slices, s.sum) == 0);
    // The same Funcs in a program that also reads the sum whole: undone.
    CHECK(narrowed_dim(whole, s.sum) == -1);
    CHECK_FALSE(contents(s.sum)->split_by_default);
    coconet_test::check_matches_reference(whole, {1, 3});
    // And done again for the first program, whose results stay the reference's.
    CHECK(narrowed_dim(slices, s.sum) == 0);
    coconet_test::check_matches_reference(slices, {1, 3});

    // A directive that needs the user's split is refused as before lowering.
    CHECK_THAT(message_of<UserError>([&] { a.fuse_with(s.sum); }),
               Contains("an all_reduce that is not split"));
    // The user's split replaces the default's and is kept.
    s.sum.split_collective(0);
    CHECK_FALSE(contents(s.sum)->split_by_default);
    const DFuncContents *users = contents(s.sum)->sliced_part.get();
    lower(whole);
    CHECK(contents(s.sum)->sliced_part.get() == users);
    CHECK_FALSE(contents(s.sum)->split_by_default);
}

TEST_CASE("narrow_all_reduces: the pass alone reports whether the Funcs changed", "[passes]") {
    Summed s = summed(1);
    Var x("x"), y("y");
    DFunc a("a");
    a(x, y) = s.m(x, y) - s.sum(x, y);
    Program p("alone");
    p.output(a, Sliced(1));
    CHECK(narrow_all_reduces(p, analyze(p)));
    CHECK(contents(s.sum)->sliced_part->collective->dim == 1);
    CHECK_FALSE(narrow_all_reduces(p, analyze(p)));
}
