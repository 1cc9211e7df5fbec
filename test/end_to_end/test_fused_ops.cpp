// The fused computation-collective operators (embedding + all_to_all, GEMV +
// all_reduce, GEMM + all_to_all) on 1, 2, 3, 4 and 8 thread ranks, at sizes
// that no rank count divides (7 tables or experts: on 8 ranks one holds
// none), unscheduled and overlapped tile by tile: the results equal the
// single-process reference bit for bit.
#include "Apps.h"
#include "TestUtil.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_test::check_matches_reference;
using coconet_test::thread_rank_outcomes;
using coconet_test::ThreadOutcome;

TEST_CASE("embedding + all_to_all matches the reference", "[fusedops]") {
    apps::EmbeddingConfig c;
    for (int chunks : {0, 1, 3, 4}) {
        INFO("overlap " << chunks);
        c.overlap = chunks;
        check_matches_reference(apps::embedding_all_to_all(c));
    }
    // Fewer samples per tile than ranks: some ranks receive nothing.
    c.tile = 2;
    check_matches_reference(apps::embedding_all_to_all(c));
    // A rank with no table (5 tables in slices of 2 on 4 ranks) computes
    // nothing and still takes part in every tile's all_to_all.
    c.tables = 5;
    for (int chunks : {0, 2}) {
        INFO("5 tables, overlap " << chunks);
        c.overlap = chunks;
        check_matches_reference(apps::embedding_all_to_all(c), {3, 4});
    }
}

TEST_CASE("gemv + all_reduce matches the reference", "[fusedops]") {
    apps::GemvConfig c;
    for (apps::Schedule s : {apps::Schedule::None, apps::Schedule::Split, apps::Schedule::Fused}) {
        for (int chunks : {0, 3}) {
            INFO(apps::to_string(s) << ", overlap " << chunks);
            c.schedule = s;
            c.overlap = chunks;
            check_matches_reference(apps::gemv_all_reduce(c));
        }
    }
    // The ring adds up in another order.
    c.fuse.path = FusedPath::Ring;
    check_matches_reference(apps::gemv_all_reduce(c), {2, 3}, 1e-5);
}

TEST_CASE("gemm + all_to_all matches the reference", "[fusedops]") {
    apps::GemmConfig c;
    for (int chunks : {0, 2, 4}) {
        INFO("overlap " << chunks);
        c.overlap = chunks;
        check_matches_reference(apps::gemm_all_to_all(c));
    }
    // Register tiles wider than a tile's slots (AVX-512 targets' 8).
    c.register_cols = 8;
    check_matches_reference(apps::gemm_all_to_all(c));
}

namespace {

// What one call of a program did on each thread rank: its outputs, its
// all_to_all bytes and calls, and its overlap report.
struct RankRun {
    RankBuffers out;
    uint64_t a2a_bytes = 0, a2a_ops = 0;
    std::string report;
};

std::vector<RankRun> run_once(const Program &program, const std::vector<RankBuffers> &inputs) {
    JitProgram jit(program);
    const int ranks = (int)inputs.size();
    std::vector<RankRun> runs(ranks);
    const std::vector<ThreadOutcome> outcomes =
        thread_rank_outcomes(ranks, 10.0, [&](int r, coconet_comm *comm) {
            runs[r].out = jit.run_rank(comm, inputs[r]);
            runs[r].a2a_bytes = coconet_comm_bytes_sent(comm, COCONET_ALL_TO_ALL);
            runs[r].a2a_ops = coconet_comm_op_count(comm, COCONET_ALL_TO_ALL);
            runs[r].report = coconet_comm_overlap_report(comm);
        });
    for (int r = 0; r < ranks; r++) {
        INFO("rank " << r);
        REQUIRE(outcomes[r].error.empty());
    }
    return runs;
}

std::vector<RankBuffers> outputs_of(const std::vector<RankRun> &runs) {
    std::vector<RankBuffers> out;
    for (const RankRun &r : runs) {
        out.push_back(r.out);
    }
    return out;
}

} // namespace

TEST_CASE("an overlapped all_to_all on thread ranks computes its source into the ranks' outputs",
          "[fusedops]") {
    // p's dimension 2 (5, sliced) goes to dimension 1 (6); tiles along 3.
    DFunc x = input("x", Halide::Float(32), {4, 6, 5, 3}, Sliced(2));
    Halide::Var i("i"), j("j"), k("k"), t("t");
    DFunc p("p");
    p(i, j, k, t) = x(i, j, k, t) * 2.0f + Halide::cast<float>(j * 7 + t);
    DFunc a = all_to_all(p, 1, 2, "a");
    a.overlap(p, 3);
    Program direct("a2a_direct");
    direct.output(a, Sliced(1));
    // The same, unscheduled: the runtime's all_to_all of a computed source.
    DFunc x0 = input("x", Halide::Float(32), {4, 6, 5, 3}, Sliced(2));
    DFunc p0("p");
    p0(i, j, k, t) = x0(i, j, k, t) * 2.0f + Halide::cast<float>(j * 7 + t);
    Program unscheduled("a2a_unscheduled");
    unscheduled.output(all_to_all(p0, 1, 2, "a"), Sliced(1));

    for (int ranks : {1, 3, 4}) {
        INFO(ranks << " ranks");
        const std::vector<RankBuffers> inputs = make_inputs(direct, ranks, 5);
        const std::vector<RankRun> got = run_once(direct, inputs);
        const std::vector<RankRun> plain = run_once(unscheduled, inputs);
        CHECK(max_abs_diff(outputs_of(got), Reference(direct).run(ranks, inputs)) == 0.0);
        uint64_t moved = 0;
        for (int r = 0; r < ranks; r++) {
            moved += got[r].a2a_bytes;
            INFO("rank " << r << ": " << got[r].report);
            // The first call is direct: one call, the bytes of the runtime's all_to_all.
            CHECK_THAT(got[r].report, Contains("a2a_direct step 0 (a): tuning direct, 3, 1 tiles"));
            CHECK(got[r].a2a_ops == 1);
            CHECK(got[r].a2a_bytes == plain[r].a2a_bytes);
        }
        CHECK((moved > 0) == (ranks > 1));
    }
}

TEST_CASE("the plan shows the per-tile sends", "[fusedops]") {
    apps::EmbeddingConfig e;
    e.overlap = 2;
    CHECK_THAT(print_plan(lower(apps::embedding_all_to_all(e)), 3),
               Contains("collective pooled_a2a = all_to_all(pooled, split 1, concat 2)  "
                        "Sliced(1)"));
    CHECK_THAT(print_plan(lower(apps::embedding_all_to_all(e)), 3),
               Contains("[overlapped with pooled: 2 tiles of 2 along dimension 3, the next tile "
                        "computed while this one moves (each tile sent to its ranks as soon as it "
                        "is computed)]"));
    CHECK_THAT(print_plan(lower(apps::embedding_all_to_all(e)), 3),
               Contains("on thread ranks (host memory) an overlapped all_to_all also times its "
                        "producer computing straight into the ranks' outputs"));
    apps::GemvConfig g;
    g.schedule = apps::Schedule::Fused;
    g.overlap = 4;
    CHECK_THAT(print_plan(lower(apps::gemv_all_reduce(g)), 2),
               Contains("computes y_sliced in the same pass; overlapped with partial: 4 tiles of "
                        "1 along dimension 1"));
}
