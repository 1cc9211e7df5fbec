// A pipeline's own allocations (its intermediate Funcs) come from the rank's
// pool of host memory kept between calls (runtime/executor/HostPool.h): the
// C library maps a large freed block afresh, so without the pool a training
// loop's every call faults in the pages of its intermediates again. JIT
// programs give Halide the pool through their user context, AOT libraries
// through their Halide runtime's allocator, which still serves other callers.
#include <sys/resource.h>

#include <cstring>

#include "AotRunner.h"
#include "TestUtil.h"
#include "ThreadRanks.h"
#include "aot_megatron_mlp_none.h"

using namespace coconet;

namespace {

// The process's minor page faults so far: pages touched for the first time.
long minor_page_faults() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
}

// Bytes of the intermediate per rank: above the C library's largest
// threshold for keeping freed blocks (32 MiB), so it is mapped afresh
// whenever it is not kept.
constexpr int64_t kIntermediateBytes = int64_t(40) << 20;
constexpr int64_t kPages = kIntermediateBytes / 4096;

} // namespace

TEST_CASE("a JIT program's large intermediate is not faulted in again at later calls",
          "[runtime][pool]") {
    // y is computed and read inside one Halide pipeline: Halide allocates it.
    const int ranks = 2;
    const int n = (int)(kIntermediateBytes / 4) * ranks;
    Halide::Var i("i");
    DFunc x = input("x", Halide::Float(32), {n}, Sliced(0));
    DFunc y("y"), z("z");
    y(i) = x(i) * 2.0f;
    z(i) = y(i) + 1.0f;
    Program program("intermediate");
    program.output(z, Sliced(0));
    const JitProgram jit(program);
    ThreadWorld world(ranks, 30.0);
    const std::vector<RankBuffers> inputs = make_inputs(program, ranks, 1);
    const std::vector<RankBuffers> expected = Reference(program).run(ranks, inputs);
    std::vector<RankBuffers> outputs;
    for (int call = 0; call < 3; call++) {
        INFO("call " << call);
        const long before = minor_page_faults();
        jit.run_threads(world, inputs, outputs);
        const long faults = minor_page_faults() - before;
        CHECK(max_abs_diff(outputs, expected) == 0.0);
        // The first call faults every rank's intermediate in (and its
        // outputs); later ones reuse them.
        if (call > 0) {
            CHECK(faults < kPages / 4);
        }
    }
}

TEST_CASE("an AOT library's Halide runtime allocates from the rank's pool, and for others as "
          "before",
          "[runtime][pool][aot]") {
    const coconet_aot_program *p = aot_megatron_mlp_none_program();
    const Program source = apps::aot_program_source(p);
    const std::vector<RankBuffers> in = apps::inputs_for_generator(p->generator)(source, 1, 1);
    coconet_test::run_thread_ranks(1, 30.0, [&](int, coconet_comm *comm) {
        // The library's first run installs the allocator in its runtime.
        apps::run_aot_rank(p, comm, in[0]);
        auto touch = [](void *memory) {
            REQUIRE(memory);
            CHECK(reinterpret_cast<uintptr_t>(memory) % 64 == 0);
            const long before = minor_page_faults();
            std::memset(memory, 1, kIntermediateBytes);
            return minor_page_faults() - before;
        };
        void *first = halide_malloc(comm, kIntermediateBytes);
        touch(first);
        halide_free(comm, first);
        void *again = halide_malloc(comm, kIntermediateBytes);
        CHECK(again == first);
        CHECK(touch(again) < kPages / 4);
        halide_free(comm, again);
        // Another pipeline's memory (another user context) is Halide's.
        void *other = halide_malloc(nullptr, 4096);
        REQUIRE(other);
        std::memset(other, 1, 4096);
        halide_free(nullptr, other);
    });
}
