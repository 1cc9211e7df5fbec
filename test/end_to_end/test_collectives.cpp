// Each collective through the algorithm language, on 1..8 thread ranks, for
// several element types, reduction ops, sliced dimensions and extents that do
// not divide (or are smaller than) the rank count: equal to the reference.
#include "TestUtil.h"

using namespace coconet;
using coconet_test::check_matches_reference;
using Halide::Var;

namespace {

const std::vector<Halide::Type> &types() {
    static const std::vector<Halide::Type> t = {Halide::Float(32), Halide::Float(64),
                                                Halide::Int(32)};
    return t;
}

} // namespace

TEST_CASE("all_reduce with every op and type", "[collectives]") {
    for (Halide::Type t : types()) {
        for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min}) {
            DFunc x = input("x", t, {7, 3}, Local());
            Program p("all_reduce");
            p.output(all_reduce(x, op), Replicated());
            check_matches_reference(p);
        }
    }
}

TEST_CASE("all_reduce of a scalar partial sum", "[collectives]") {
    DFunc x = input("x", Halide::Float(32), {11}, Sliced(0));
    Halide::RDom r(0, 11);
    DFunc part("part");
    part() = 0.0f;
    part() += x(r) * x(r);
    DFunc total = all_reduce(part, ReduceOp::Sum, "total");
    DFunc norm("norm");
    norm() = Halide::sqrt(total());
    Program p("norm");
    p.output(norm, Replicated());
    check_matches_reference(p);
}

TEST_CASE("all_reduce of partial sums over part of a sliced dimension", "[collectives]") {
    // Elements 5 to 8 of 12: on 3 ranks the first slice ([0, 4)) ends
    // before the domain starts, on 5 the last ones start after it ends.
    DFunc x = input("x", Halide::Int(32), {12}, Sliced(0));
    Halide::RDom k(5, 4, "k");
    DFunc part("part", {});
    part() = 0;
    part() += x(k);
    Program p("middle");
    p.output(all_reduce(part, ReduceOp::Sum, "total"), Replicated());
    for (int ranks : {1, 2, 3, 5}) {
        INFO(ranks << " ranks");
        const std::vector<RankBuffers> inputs = make_inputs(p, ranks, 3);
        int32_t want = 0;
        for (int i = 5; i < 9; i++) {
            // Every element of x from the rank whose slice holds it.
            for (const RankBuffers &r : inputs) {
                const Halide::Buffer<int32_t> b = r.at("x");
                if (i >= b.dim(0).min() && i <= b.dim(0).max()) {
                    want += b(i);
                }
            }
        }
        const std::vector<RankBuffers> out = JitProgram(p).run_threads(ranks, inputs);
        for (int r = 0; r < ranks; r++) {
            CHECK(Halide::Buffer<int32_t>(out[r].at("total"))() == want);
        }
        CHECK(max_abs_diff(out, Reference(p).run(ranks, inputs)) == 0.0);
    }
}

TEST_CASE("reduce_scatter along each dimension", "[collectives]") {
    for (int dim : {0, 1}) {
        for (Halide::Type t : types()) {
            DFunc x = input("x", t, {5, 9}, Local());
            Program p("reduce_scatter");
            p.output(reduce_scatter(x, dim, ReduceOp::Sum), Sliced(dim));
            check_matches_reference(p);
        }
    }
}

TEST_CASE("all_gather along each dimension, after element-wise work on slices", "[collectives]") {
    for (int dim : {0, 1}) {
        DFunc x = input("x", Halide::Float(32), {6, 3}, Sliced(dim));
        Var i, j;
        DFunc y("y");
        y(i, j) = x(i, j) * 2.0f + 1.0f;
        Program p("all_gather");
        p.output(all_gather(y), Replicated());
        check_matches_reference(p);
    }
}

TEST_CASE("broadcast and reduce from a root", "[collectives]") {
    for (int root : {0, 1}) {
        DFunc x = input("x", Halide::Int(32), {4, 2}, Local());
        Program b("broadcast");
        b.output(broadcast(x, root), Replicated());
        check_matches_reference(b, coconet_test::rank_counts(), 0.0, root + 1);
        Program r("reduce");
        r.output(reduce(x, root, ReduceOp::Max), Local());
        check_matches_reference(r, coconet_test::rank_counts(), 0.0, root + 1);
    }
}

TEST_CASE("all_to_all moves the slicing to another dimension", "[collectives]") {
    DFunc x = input("x", Halide::Float(32), {10, 3, 2}, Sliced(1));
    Program p("all_to_all");
    p.output(all_to_all(x, 0, 1), Sliced(0));
    check_matches_reference(p);
}

TEST_CASE("send re-slices a Sliced value between groups of any size", "[collectives]") {
    std::vector<Group> g = Group::world().split(2);
    DFunc x = input("x", Halide::Float(32), {9}, Sliced(0, g[0]));
    Program p("send_sliced");
    p.output(send(x, g[1]), Sliced(0, g[1]));
    check_matches_reference(p, {2, 3, 4, 5, 8});
}

TEST_CASE("all_reduce inside a group of world.split(3)", "[collectives]") {
    std::vector<Group> g = Group::world().split(3);
    DFunc x = input("x", Halide::Float(32), {5}, Local(g[2]));
    Program p("group_all_reduce");
    p.output(all_reduce(x), Replicated(g[2]));
    check_matches_reference(p, {3, 4, 8});
}

TEST_CASE("all_reduce equals a hand-written sum over ranks", "[collectives]") {
    DFunc x = input("x", Halide::Float(32), {13}, Local());
    Program p("all_reduce_by_hand");
    p.output(all_reduce(x), Replicated());
    JitProgram jit(p);
    for (int ranks : {1, 3, 8}) {
        auto inputs = make_inputs(p, ranks);
        auto out = jit.run_threads(ranks, inputs);
        for (int r = 0; r < ranks; r++) {
            Halide::Buffer<float> y(out[r].at("all_reduce_x"));
            for (int i = 0; i < 13; i++) {
                float sum = Halide::Buffer<float>(inputs[0].at("x"))(i);
                for (int q = 1; q < ranks; q++) {
                    sum += Halide::Buffer<float>(inputs[q].at("x"))(i);
                }
                REQUIRE(y(i) == sum);
            }
        }
    }
}
