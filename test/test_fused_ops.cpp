// The fused computation-collective operators (embedding + all_to_all, GEMV +
// all_reduce, GEMM + all_to_all) on 1, 2, 3, 4 and 8 thread ranks, at sizes
// that no rank count divides (7 tables or experts: on 8 ranks one holds
// none), unscheduled and overlapped tile by tile: the results equal the
// single-process reference bit for bit.
#include "../apps/Apps.h"
#include "TestUtil.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_test::check_matches_reference;

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
    apps::GemvConfig g;
    g.schedule = apps::Schedule::Fused;
    g.overlap = 4;
    CHECK_THAT(print_plan(lower(apps::gemv_all_reduce(g)), 2),
               Contains("computes y_sliced in the same pass; overlapped with partial: 4 tiles of "
                        "1 along dimension 1"));
}
