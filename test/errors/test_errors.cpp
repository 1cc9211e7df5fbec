// Every layout-inference error and every bad call fails with a message that
// names the Funcs, layouts and ranks involved.
#include "TestUtil.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_test::message_of;
using coconet_test::run_thread_ranks;
using Halide::Bool;
using Halide::Float;
using Halide::Param;
using Halide::Var;

namespace {

std::string analyze_error(const Program &p) {
    return message_of<UserError>([&] { analyze(p); });
}

} // namespace

TEST_CASE("Local op Sliced is refused", "[error]") {
    DFunc g = input("g", Float(32), {8}, Local());
    DFunc m = input("m", Float(32), {8}, Sliced(0));
    Var i;
    DFunc bad("bad");
    bad(i) = g(i) + m(i);
    Program p("p");
    p.output(bad, Local());
    std::string msg = analyze_error(p);
    CHECK_THAT(msg, Contains("bad combines g (Local) with m (Sliced(0))"));
    CHECK_THAT(msg, Contains("Local op Sliced"));
}

TEST_CASE("Sliced(d) op Sliced(e) is refused", "[error]") {
    DFunc a = input("a", Float(32), {4, 4}, Sliced(0));
    DFunc b = input("b", Float(32), {4, 4}, Sliced(1));
    Var i, j;
    DFunc bad("bad");
    bad(i, j) = a(i, j) * b(i, j);
    Program p("p");
    p.output(bad, Sliced(0));
    CHECK_THAT(analyze_error(p), Contains("bad combines a (Sliced(0)) and b (Sliced(1))"));
}

TEST_CASE("reading a slice at another index is refused", "[error]") {
    DFunc m = input("m", Float(32), {8}, Sliced(0));
    Var i;
    DFunc shifted("shifted");
    shifted(i) = m(i + 1);
    Program p("p");
    p.output(shifted, Sliced(0));
    std::string msg = analyze_error(p);
    CHECK_THAT(msg, Contains("shifted reads m (Sliced(0)) at index"));
    CHECK_THAT(msg, Contains("all_gather(m)"));
}

TEST_CASE("an update writing a sliced Func at other indices is refused", "[error]") {
    DFunc x = input("x", Halide::Int(32), {12}, Sliced(0));
    Var i("i");
    Halide::RDom r(1, 11, "r");
    DFunc scan("scan");
    scan(i) = x(i);
    scan(r) = scan(r) + scan(r - 1); // a prefix sum across the ranks' slices
    Program p("scan");
    p.output(scan, Sliced(0));
    CHECK_THAT(analyze_error(p), Contains("scan is sliced along dimension 0 (it reads x "
                                          "(Sliced(0))), and its update 1 writes it at index "
                                          "r.x there"));
    DFunc first("first");
    first(i) = x(i);
    first(0) = 100;
    Program q("first");
    q.output(first, Sliced(0));
    CHECK_THAT(analyze_error(q),
               Contains("its update 1 writes it at index 0 there: a rank computes only "
                        "its own slice"));
}

TEST_CASE("collectives check their input layouts", "[error]") {
    DFunc s = input("s", Float(32), {8}, Sliced(0));
    DFunc l = input("l", Float(32), {8}, Local());
    DFunc r = input("r", Float(32), {8}, Replicated());
    struct Case {
        DFunc out;
        Layout layout;
        std::string text;
    };
    std::vector<Case> cases = {
        {all_reduce(s), Replicated(),
         "all_reduce_s: all_reduce needs a Local input, but s (Sliced(0))"},
        {reduce_scatter(r, 0), Sliced(0),
         "reduce_scatter_r: reduce_scatter needs a Local input, but r (Replicated)"},
        {all_gather(l), Replicated(),
         "all_gather_l: all_gather needs a Sliced input, but l (Local)"},
        {broadcast(s, 0), Replicated(), "broadcast_s: broadcast needs a Local input"},
    };
    for (const Case &c : cases) {
        Program p("p");
        p.output(c.out, c.layout);
        CHECK_THAT(analyze_error(p), Contains(c.text));
    }
}

TEST_CASE("all_to_all needs two different dimensions", "[error]") {
    DFunc s = input("s", Float(32), {8, 2}, Sliced(1));
    CHECK_THAT(message_of<UserError>([&] { all_to_all(s, 1, 1); }),
               Contains("all_to_all of s: split 1 and concat 1 must be two different "
                        "dimensions"));
    DFunc wrong = all_to_all(s, 1, 0, "wrong");
    Program p("p");
    p.output(wrong, Sliced(1));
    CHECK_THAT(analyze_error(p), Contains("all_to_all needs a Sliced(0) input, but s (Sliced(1))"));
}

TEST_CASE("a declared output layout must match", "[error]") {
    DFunc g = input("g", Float(32), {8}, Local());
    Program p("adam_like");
    p.output(all_reduce(g), Sliced(0));
    CHECK_THAT(analyze_error(p),
               Contains("Program adam_like: output all_reduce_g is declared Sliced(0) but its "
                        "definition makes it Replicated"));
}

TEST_CASE("groups cannot be mixed without send", "[error]") {
    std::vector<Group> g = Group::world().split(2);
    DFunc a = input("a", Float(32), {4}, Replicated(g[0]));
    DFunc b = input("b", Float(32), {4}, Replicated(g[1]));
    Var i;
    DFunc mixed("mixed");
    mixed(i) = a(i) + b(i);
    Program p("p");
    p.output(mixed, Replicated(g[0]));
    CHECK_THAT(analyze_error(p), Contains("mixed combines Funcs of different groups"));

    DFunc same = send(a, g[0], "same");
    Program q("q");
    q.output(same, Replicated(g[0]));
    CHECK_THAT(analyze_error(q), Contains("same: send moves a value between two groups"));
}

TEST_CASE("shapes must be inferable and consistent", "[error]") {
    Var i;
    DFunc iota("iota");
    iota(i) = i;
    Program p("p");
    p.output(iota, Replicated());
    CHECK_THAT(analyze_error(p), Contains("Cannot infer the extent of dimension 0 of iota"));

    DFunc a = input("a", Float(32), {4}, Replicated());
    DFunc b = input("b", Float(32), {5}, Replicated());
    DFunc sum("sum");
    sum(i) = a(i) + b(i);
    Program q("q");
    q.output(sum, Replicated());
    CHECK_THAT(analyze_error(q), Contains("a gives 4 and b gives 5"));
}

TEST_CASE("undefined and duplicate Funcs are refused", "[error]") {
    DFunc undefined("undefined");
    Var i;
    DFunc dup1 = input("dup", Float(32), {4}, Replicated());
    DFunc dup2 = input("dup", Float(32), {4}, Replicated());
    DFunc both("both");
    both(i) = dup1(i) + dup2(i);
    Program q("q");
    q.output(both, Replicated());
    CHECK_THAT(analyze_error(q), Contains("uses two different distributed Funcs named dup"));
    CHECK_THAT(message_of<UserError>([&] { all_reduce(undefined); }),
               Contains("all_reduce of undefined: the input has no definition yet"));
    // Two collectives of one input, neither given a name, get the same one.
    DFunc x = input("x", Float(32), {4}, Local());
    Program r("r");
    r.output(all_reduce(x, ReduceOp::Sum), Replicated());
    CHECK_THAT(message_of<UserError>([&] { r.output(all_reduce(x, ReduceOp::Max), Replicated()); }),
               Contains("two different distributed Funcs named all_reduce_x are declared outputs; "
                        "give them distinct names (a collective given no name is named "
                        "all_reduce_<input>"));
}

TEST_CASE("collectives' arguments are checked when built, naming the collective", "[error]") {
    DFunc x = input("x", Float(32), {8, 2}, Local());
    CHECK_THAT(message_of<UserError>([&] { reduce_scatter(x, 2, ReduceOp::Sum, "rs"); }),
               Contains("reduce_scatter 'rs' of x: dim 2 is not a dimension of the input, which "
                        "has 2."));
    CHECK_THAT(message_of<UserError>([&] { reduce(x, -1, ReduceOp::Sum, "rv"); }),
               Contains("reduce 'rv' of x: root -1 is negative."));
    CHECK_THAT(message_of<UserError>([&] { broadcast(x, -2); }),
               Contains("broadcast of x: root -2 is negative."));
    // Halide's directives on a collective or an input: refused naming it,
    // not Halide's error about the runtime's Func.
    DFunc s = all_reduce(x, ReduceOp::Sum, "s");
    Var i("i");
    CHECK_THAT(message_of<UserError>([&] { s.func().vectorize(i, 4); }),
               Contains("s.func(): s is a collective (all_reduce), whose Halide Func is the "
                        "runtime's; Halide's directives apply to computed Funcs"));
    CHECK_THAT(message_of<UserError>([&] { x.func(); }), Contains("x.func(): x is an input"));
}

TEST_CASE("element types the collectives do not take are refused when declared", "[error]") {
    CHECK_THAT(message_of<UserError>([&] { input("h", Float(16), {4}, Local()); }),
               Contains("Input h has element type float16; distributed Funcs take float, double "
                        "or an 8- to 64-bit integer."));
    CHECK_THAT(message_of<UserError>([&] { input("flags", Bool(), {4}, Local()); }),
               Contains("Input flags has element type bool"));
    // A computed value of such a type is refused when the program is analyzed.
    DFunc x = input("x", Float(32), {4}, Local());
    Var i;
    DFunc half("half");
    half(i) = Halide::cast(Float(16), x(i));
    Program p("p");
    p.output(all_reduce(half), Replicated());
    CHECK_THAT(analyze_error(p), Contains("half has element type float16"));
}

TEST_CASE("run-time sizes and Params are named apart from each other and from inputs",
          "[error][shapes]") {
    // Halide tells Params apart by name: two Params of one name, or a Param
    // named like an input, are refused naming them (never Halide's own error,
    // which is no std::exception).
    Param<int32_t> n1("n"), n2("n"), named_x("x");
    DFunc a = input("a", Float(32), {n1}, Local());
    DFunc b = input("b", Float(32), {n2}, Local());
    Var i;
    DFunc sum("sum");
    sum(i) = a(i) + b(i);
    Program p("p");
    p.output(sum, Local());
    CHECK_THAT(analyze_error(p), Contains("Program p: two different Params are named n (extents of "
                                          "a and b); sizes are told apart by name"));
    DFunc x = input("x", Float(32), {named_x}, Local());
    Program q("q");
    q.output(all_reduce(x), Replicated());
    CHECK_THAT(analyze_error(q), Contains("Program q: the run-time size x of x has the name of an "
                                          "input"));
    // A scalar Param that is no run-time size (read by a definition, or as
    // an RDom's min): refused naming the Func and the Param, never Halide's
    // "not found in the argument list".
    Param<float> scale("y");
    DFunc y = input("y", Float(32), {4}, Local());
    DFunc scaled("scaled");
    scaled(i) = y(i) * scale;
    Program r("r");
    r.output(scaled, Local());
    CHECK_THAT(message_of<UserError>([&] { JitProgram jit(r); }),
               Contains("Program r: Func scaled reads Param y, which is none of the program's "
                        "run-time sizes (it has none)"));
    Param<int32_t> offset("offset"), m("m");
    DFunc z = input("z", Float(32), {m}, Replicated());
    Halide::RDom k(offset, 10, "k");
    DFunc total("total", {});
    total() = 0.0f;
    total() += z(k);
    Program s("s");
    s.output(total, Replicated());
    CHECK_THAT(analyze_error(s), Contains("Program s: Func total reads Param offset, which is none "
                                          "of the program's run-time sizes (m)"));
}

TEST_CASE("values too large for a buffer are refused, not overflowed", "[error]") {
    // 2^31 x 2^31 floats: the outer stride and the byte size overflow 32 bits.
    DFunc x = input("x", Float(32), {1 << 30, 1 << 30, 4}, Local());
    Program p("huge");
    p.output(all_reduce(x), Replicated());
    CHECK_THAT(message_of<UserError>([&] { make_inputs(p, 1); }),
               Contains("does not fit a Halide buffer (32-bit extents and strides)"));
}

TEST_CASE("bad buffers for a rank are refused before running", "[error]") {
    DFunc m = input("m", Float(32), {10}, Sliced(0));
    Var i;
    DFunc twice("twice");
    twice(i) = m(i) * 2.0f;
    Program p("p");
    p.output(all_gather(twice), Replicated());
    JitProgram jit(p);

    auto inputs = make_inputs(p, 3);
    inputs[1]["m"] = Halide::Buffer<float>(3); // rank 1 holds [4, 8): 4 elements
    CHECK_THAT(message_of<UserError>([&] { jit.run_threads(3, inputs); }),
               Contains("rank 1 of 3: input m is Sliced(0) with global extents [0..10], so this "
                        "rank must pass the box [4..8], but its buffer is [0..3]"));

    for (int size : {0, -2}) {
        CHECK_THAT(message_of<UserError>([&] { jit.run_threads(size, {}); }),
                   Contains("run_threads: world size " + std::to_string(size) + " < 1"));
        CHECK_THAT(message_of<UserError>([&] { make_inputs(p, size); }),
                   Contains("world size " + std::to_string(size)));
    }
    CHECK_THAT(message_of<UserError>([&] { jit.run_threads(2, make_inputs(p, 3)); }),
               Contains("inputs for 3 ranks given to a run on 2 ranks"));

    inputs = make_inputs(p, 3);
    inputs[2]["m"] = Halide::Buffer<int>(2);
    CHECK_THAT(message_of<UserError>([&] { jit.run_threads(3, inputs); }),
               Contains("rank 2: input m has element type int32, expected float32"));

    inputs = make_inputs(p, 3);
    inputs[0].erase("m");
    CHECK_THAT(message_of<UserError>([&] { jit.run_threads(3, inputs); }),
               Contains("rank 0: no buffer for input m"));

    inputs = make_inputs(p, 3);
    inputs[1]["mm"] = inputs[1]["m"];
    CHECK_THAT(message_of<UserError>([&] { jit.run_threads(3, inputs); }),
               Contains("rank 1: a buffer for 'mm', which is none of its inputs (m"));

    CHECK_THAT(message_of<UserError>([&] { jit.run_threads(2, make_inputs(p, 3)); }),
               Contains("inputs for 3 ranks given to a run on 2 ranks"));
}

TEST_CASE("groups that do not fit the world are refused", "[error]") {
    std::vector<Group> g = Group::world().split(2);
    DFunc x = input("x", Float(32), {6}, Local(g[0]));
    Program p("p");
    p.output(send(x, g[1]), Local(g[1]));
    CHECK_THAT(message_of<UserError>([&] { make_inputs(p, 1); }),
               Contains("A world of 1 rank cannot be split into 2 groups"));
    JitProgram jit(p);
    std::string msg = message_of<RuntimeError>([&] { jit.run_threads(3, make_inputs(p, 3), 5.0); });
    CHECK_THAT(msg, Contains("send_x"));
    CHECK_THAT(msg, Contains("group"));
    CHECK_THAT(message_of<UserError>([&] { Reference(p).run(3, make_inputs(p, 3)); }),
               Contains("send_x: send of x (Local on group 0 of world.split(2), 1 ranks) to "
                        "group 1 of world.split(2) (2 ranks) needs groups of the same size"));
    CHECK_THAT(msg, Contains("a Local value cannot be sent from a group of 1 rank ("));
}

TEST_CASE("a rank that never arrives is named, not waited for", "[error]") {
    DFunc g = input("g", Float(32), {6}, Local());
    Program p("p");
    p.output(all_reduce(g, ReduceOp::Sum, "g_sum"), Replicated());
    JitProgram jit(p);
    auto inputs = make_inputs(p, 3);
    std::string errors[3];
    int codes[3] = {};
    run_thread_ranks(3, 1.5, [&](int r, coconet_comm *comm) {
        if (r == 1) { // never calls
            return;
        }
        try {
            jit.run_rank(comm, inputs[r]);
        } catch (const RuntimeError &e) {
            errors[r] = e.what();
            codes[r] = e.code();
        }
    });
    for (int r : {0, 2}) {
        CHECK_THAT(errors[r], Contains("rank " + std::to_string(r)));
        CHECK_THAT(errors[r], Contains("all_reduce 'g_sum'"));
        CHECK_THAT(errors[r], Contains("rank 1"));
        // The kind, without reading the message: this rank timed out, or a
        // peer that timed out first aborted the world.
        CHECK((codes[r] == COCONET_ERR_TIMEOUT || codes[r] == COCONET_ERR_ABORTED));
    }
    CHECK((codes[0] == COCONET_ERR_TIMEOUT || codes[2] == COCONET_ERR_TIMEOUT));
}

TEST_CASE("a Halide error on the ranks fails the run instead of hanging it", "[error]") {
    // Reading past the end of an input fails inside the pipeline, before the
    // all_reduce that the ranks would otherwise meet in.
    DFunc g = input("g", Float(32), {8}, Local());
    Var i;
    DFunc ahead("ahead");
    ahead(i) = g(i) + g(i + 1);
    Program p("p");
    p.output(all_reduce(ahead), Replicated());
    JitProgram jit(p);
    int code = 0;
    std::string msg = message_of<RuntimeError>([&] {
        try {
            jit.run_threads(3, make_inputs(p, 3), 5.0);
        } catch (const RuntimeError &e) {
            code = e.code();
            throw;
        }
    });
    CHECK_THAT(msg, Contains("Program p, rank"));
    CHECK_THAT(msg, Contains("Input buffer g"));
    CHECK(code == COCONET_ERR_BACKEND); // Halide's own codes are not the runtime's
}

TEST_CASE("a buffer over Halide's 2^31 bytes is named as the user wrote it", "[error]") {
    // 65536 x 32769 bytes: 2^31 + 2^16, computed from 16 bytes.
    DFunc x = input("x", Halide::UInt(8), {16}, Local());
    Var i, j;
    DFunc big("big", {65536, 32769});
    big(i, j) = x(i % 16);
    Program p("big");
    p.output(big, Local());
    JitProgram jit(p);
    int code = 0;
    const std::string msg = message_of<RuntimeError>([&] {
        try {
            jit.run_threads(1, make_inputs(p, 1), 5.0);
        } catch (const RuntimeError &e) {
            code = e.code();
            throw;
        }
    });
    INFO(msg);
    CHECK(code == COCONET_ERR_INVALID);
    CHECK_THAT(msg, Contains("big "));
    CHECK_THAT(msg, !Contains("$"));
    CHECK_THAT(msg, Contains("a Halide buffer holds at most 2^31 - 1 bytes"));
}

TEST_CASE("the plan names every stage, its layout and each rank's box", "[error]") {
    DFunc g = input("g", Float(32), {5}, Local());
    Program p("plan");
    p.output(reduce_scatter(g, 0, ReduceOp::Max, "g_max"), Sliced(0));
    std::string plan = print_plan(lower(p), 3);
    CHECK_THAT(plan, Contains("plan of plan on 3 ranks"));
    CHECK_THAT(plan, Contains("input      g  Local  r0:[0..5] r1:[0..5] r2:[0..5]"));
    CHECK_THAT(plan, Contains("collective g_max = reduce_scatter<max>(g)  Sliced(0)  r0:[0..2] "
                              "r1:[2..4] r2:[4..5]"));
}

TEST_CASE("a root outside the group is refused", "[error]") {
    DFunc x = input("x", Float(32), {3}, Local());
    Program p("p");
    p.output(broadcast(x, 5, "bcast"), Replicated());
    CHECK_THAT(message_of<UserError>([&] { Reference(p).run(2, make_inputs(p, 2)); }),
               Contains("bcast: root 5 is not a rank of world, which has 2 ranks"));
    JitProgram jit(p);
    CHECK_THAT(message_of<RuntimeError>([&] { jit.run_threads(2, make_inputs(p, 2), 5.0); }),
               Contains("bcast"));
}

TEST_CASE("error reports throw from issue(), with their message word for word", "[error]") {
    const int n = 3;
    CHECK(message_of<UserError>([&] { coconet_user_error << "bad n = " << n << "."; }) ==
          "bad n = 3.");
    CHECK(message_of<UserError>([&] { coconet_user_assert(n == 4) << "n is " << n; }) == "n is 3");
    const std::string internal =
        message_of<InternalError>([&] { coconet_internal_assert(n < 0) << "n = " << n; });
    CHECK_THAT(internal, Contains("CoCoNet internal error at "));
    CHECK_THAT(internal, Contains(" (condition failed: n < 0): n = 3"));
    // A holding condition evaluates nothing of the message; an `else` after the
    // macro binds to the caller's `if`.
    int evaluated = 0;
    bool took_else = false;
    if (n == 4)
        coconet_user_assert(false) << ++evaluated;
    else
        took_else = true;
    coconet_user_assert(n == 3) << ++evaluated;
    CHECK(evaluated == 0);
    CHECK(took_else);
    // Runtime errors carry the runtime's code; the message-only form has none.
    CHECK(RuntimeError(COCONET_ERR_TIMEOUT, "late").code() == COCONET_ERR_TIMEOUT);
    CHECK(RuntimeError("late").code() == 0);
}
