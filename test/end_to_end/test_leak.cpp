// A process that builds, lowers and runs JIT programs again and again (a
// server compiling requests, a training loop rebuilding its step) must not
// grow: the distributed Funcs of a program nobody holds any more are freed,
// and the registry of distributed Funcs stays bounded meanwhile. Built with
// AddressSanitizer (label asan), so LeakSanitizer also checks at exit that
// nothing else leaked.
#include <algorithm>
#include <fstream>
#include <iostream>

#include "TestUtil.h"

using namespace coconet;

namespace {

// The resident set size in MiB (Linux; 0 elsewhere), printed to follow growth.
double rss_mib() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * 4096.0 / (1 << 20);
}

// Every kind of distributed Func a schedule makes: a split all_reduce, a Func
// computed on slices in the pass of the reduce_scatter, and one in the pass of
// its own all_gather (the two hold each other).
Program scheduled_program() {
    Halide::Var i("i"), j("j");
    DFunc g = input("g", Halide::Float(32), {6, 3}, Local());
    DFunc s = input("s", Halide::Float(32), {6, 3}, Sliced(0));
    DFunc w = input("w", Halide::Float(32), {6, 3}, Replicated());
    DFunc t = all_reduce(g, ReduceOp::Sum, "t");
    DFunc a("a"), b("b");
    a(i, j) = s(i, j) * 0.5f + t(i, j);
    b(i, j) = w(i, j) - t(i, j) * 0.25f;
    DFunc a_all = all_gather(a, "a_all");
    t.split_collective(0);
    b.compute_sliced();
    b.fuse_with(t);
    a.fuse_with(a_all);
    Program p("leak");
    p.output(a_all, Replicated()).output(b, Replicated());
    return p;
}

} // namespace

TEST_CASE("a JIT program built, lowered and run 100 times frees its distributed Funcs",
          "[asan][leak]") {
    const int runs = 100, ranks = 2;
    const size_t before = Internal::collect_dfuncs();
    size_t per_program = 0, most = 0;
    double rss_first = 0;
    for (int k = 0; k < runs; k++) {
        {
            Program p = scheduled_program();
            auto inputs = make_inputs(p, ranks, k);
            auto outputs = JitProgram(p).run_threads(ranks, inputs, 10.0);
            if (k == 0) {
                per_program = Internal::registered_dfuncs() - before;
                REQUIRE(max_abs_diff(outputs, Reference(p).run(ranks, inputs)) == 0);
                rss_first = rss_mib();
            }
        }
        most = std::max(most, Internal::registered_dfuncs());
    }
    std::cout << "test_leak: " << runs << " runs, " << per_program
              << " distributed Funcs per program, at most " << most << " registered, RSS "
              << rss_first << " MiB after the first run, " << rss_mib() << " MiB after the last\n";
    // Collected whenever the registry doubles: never more than twice what is
    // live (what was there before and the program being built), or the threshold.
    CHECK(most <= std::max(Internal::dfunc_collection_threshold, 2 * (before + per_program)));
    CHECK(Internal::collect_dfuncs() == before);
}
