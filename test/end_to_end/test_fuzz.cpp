// Property test: random programs with random legal schedules (split_collective,
// compute_sliced, fuse_with and overlap on random subsets and in random orders,
// producers fused into an all_gather's pass, random chunk sizes of the fused
// pass and chunk counts and dimensions of the overlap, Halide
// vector widths on the compute, the fused passes' direct and ring paths, the
// default schedule on or off for what is left unscheduled, a sum across rows
// among the outputs),
// random shapes, sliced dimensions, ops and rank counts, and one case in eight
// JIT-compiled for OpenCL (the GPU pass's schedules, on PoCL in CI; half of
// those with the device collectives on the collective-library path NCCL
// takes, COCONET_DEVICE_COLLECTIVES=library) all equal
// the unscheduled reference: bit for bit, and within 1e-5 on the ring (which
// adds up in a rotation of rank order).
// Case k of seed s draws from its own generator, seeded with (s, k), so that
// any case reruns alone. The environment sets the cases run:
//   COCONET_FUZZ_SEED        the seed (default 2026), or "commit": the first 32
//                            bits of the source tree's git commit, so that CI
//                            tries new schedules on every commit;
//   COCONET_FUZZ_FIRST       the first case (default 0);
//   COCONET_FUZZ_ITERATIONS  how many (default 24; at least 1);
//   COCONET_FUZZ_DEVICE=all  every case on OpenCL (the draw is the same
//                            otherwise), to try the device path at length;
//   COCONET_FUZZ_DEVICE=some at least one case on OpenCL: where the draw put
//                            none there (about 2% of 30 cases), the last one
//                            goes (it reruns alone with =all).
// scripts/fuzz_nightly.sh runs thousands.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>

#include "TestUtil.h"

using namespace coconet;
using Halide::Var;

namespace {

int env_int(const char *name, int fallback) {
    const char *v = std::getenv(name);
    return v ? std::atoi(v) : fallback;
}

// The source tree's git commit (COCONET_SOURCE_DIR), or "" outside a checkout.
std::string source_commit() {
    std::string commit;
    if (FILE *git = popen("git -C \"" COCONET_SOURCE_DIR "\" rev-parse HEAD 2>/dev/null", "r")) {
        char line[64] = {0};
        if (std::fgets(line, sizeof(line), git)) {
            commit = line;
        }
        if (pclose(git) != 0) {
            commit.clear();
        }
    }
    return commit.substr(0, commit.find_first_not_of("0123456789abcdef"));
}

const uint32_t fixed_seed = 2026;

uint32_t fuzz_seed() {
    const char *v = std::getenv("COCONET_FUZZ_SEED");
    if (!v) {
        return fixed_seed;
    }
    if (std::string(v) != "commit") {
        return (uint32_t)std::strtoul(v, nullptr, 0);
    }
    const std::string commit = source_commit();
    if (commit.size() < 8) {
        std::cout << "test_fuzz: no git commit in " << COCONET_SOURCE_DIR
                  << "; the fixed seed instead\n";
        return fixed_seed;
    }
    std::cout << "test_fuzz: seed from commit " << commit << "\n";
    return (uint32_t)std::stoul(commit.substr(0, 8), nullptr, 16);
}

struct Drawn {
    Program program;
    int ranks;
    std::string description;
    double tolerance;
    bool device;           // JIT-compiled for OpenCL (PoCL in CI), else the host
    bool library;          // device collectives through the collective-library path
    bool default_schedule; // the default schedule for the Funcs left unscheduled (host)
    Sizes sizes;           // the run-time sizes' values, for a case whose extents are run-time
};

// Whether blocks of ceil(n / ranks) leave every rank a non-empty slice, as a
// GPU-target program needs (the executor refuses other worlds there).
bool every_rank_has_a_block(int n, int ranks) {
    return (int64_t)(ranks - 1) * ((n + ranks - 1) / ranks) < n;
}

Drawn draw(std::mt19937 &rng, bool force_device) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int n0 = pick(1, 13), n1 = pick(1, 5), d = pick(0, 1);
    // One case in four takes its extents at run time (Halide Params), at n0 x n1.
    const bool runtime_shape = pick(0, 3) == 0;
    const Halide::Param<int32_t> size0("n0"), size1("n1");
    const Extents shape = runtime_shape ? Extents{size0, size1} : to_extents({n0, n1});
    const ReduceOp op =
        std::vector<ReduceOp>{ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min}[pick(0, 2)];
    const bool split = pick(0, 1), slice_b = split && pick(0, 1);
    // fuse_with needs the split; a is sliced like the reduce_scatter, b only
    // once computed on slices.
    const bool fuse_a = split && pick(0, 1), fuse_b = slice_b && pick(0, 1);
    // Else a may be computed in the pass of its own all_gather, and with it
    // its producer ap.
    const bool gather_a = !fuse_a && pick(0, 1), gather_ap = gather_a && pick(0, 1);
    FuseOptions fuse;
    fuse.chunk_elements = std::vector<int>{0, 1, 3, 7}[pick(0, 3)];
    // Halide's own directives on the compute: a vector width for a (1: none).
    const int width = std::vector<int>{1, 4, 8}[pick(0, 2)];
    fuse.path = pick(0, 1) ? FusedPath::Ring : FusedPath::Direct;
    DFunc g = input("g", Halide::Float(32), shape, Local());
    DFunc s = input("s", Halide::Float(32), shape, Sliced(d));
    DFunc w = input("w", Halide::Float(32), shape, Replicated());
    Var i("i"), j("j");
    // A producer the all_reduce may overlap with: element-wise, or a
    // reduction accumulated in register tiles of random factors (tails).
    const int tile_x = std::vector<int>{0, 1, 3, 8, 16}[pick(0, 4)], tile_y = pick(1, 6);
    DFunc gp("gp");
    if (tile_x > 0) {
        Halide::RDom r(0, 3, "r");
        gp(i, j) = g(i, j) * 0.5f;
        gp(i, j) += g(i, j) * (Halide::cast<float>(r) + 1.0f);
        gp.accumulate_in_registers(i, j, tile_x, tile_y);
    } else {
        gp(i, j) = g(i, j) * 1.5f;
    }
    DFunc t = all_reduce(gp, op, "t");
    // Overlap in chunks of any dimension (-1: the default); along the
    // reduce_scatter's sliced one, pieces of every slice.
    const int overlap = pick(0, 3), overlap_dim = pick(-1, 1);
    DFunc ap("ap"), a("a"), b("b"), c("c");
    ap(i, j) = s(i, j) * 0.5f;                  // sliced like s
    a(i, j) = ap(i, j) + t(i, j);               // sliced like s
    b(i, j) = w(i, j) - t(i, j) * 0.25f;        // replicated, element-wise on t
    c(i, j) = t(shape[0] - 1 - i, j) + w(i, j); // replicated, reads other indices
    // A sum per column across its rows: vectors along j read across rows (the
    // default schedule's transposed tiles from 8 rows on).
    DFunc rows("rows");
    Halide::RDom over_rows(0, shape[0], "over_rows");
    rows(j) = 0.0f;
    rows(j) += b(over_rows, j);
    if (width > 1) {
        a.func().vectorize(i, width, Halide::TailStrategy::GuardWithIf);
    }
    // Directives in a random order where the order is free: fuse_with of b
    // needs b computed on slices first.
    std::vector<std::function<void()>> directives;
    if (slice_b) {
        directives.push_back([&, fuse_b] {
            b.compute_sliced();
            if (fuse_b) {
                b.fuse_with(t, fuse);
            }
        });
    }
    if (overlap > 0) {
        directives.push_back([&, overlap, overlap_dim] { t.overlap(gp, overlap, overlap_dim); });
    }
    if (fuse_a) {
        directives.push_back([&] { a.fuse_with(t, fuse); });
    }
    DFunc a_all = all_gather(a, "a_all");
    if (gather_a) {
        directives.push_back([&] { a.fuse_with(a_all, fuse); });
    }
    if (gather_ap) {
        directives.push_back([&] { ap.fuse_with(a_all, fuse); });
    }
    std::shuffle(directives.begin(), directives.end(), rng);
    if (split) {
        t.split_collective(d);
    }
    for (auto &directive : directives) {
        directive();
    }
    Program p("fuzz");
    const int outputs = pick(1, 31); // a non-empty subset of {a, b, c, ap, rows}
    if (outputs & 1) {
        p.output(a_all, Replicated()).output(a, Sliced(d));
    }
    if (outputs & 2) {
        p.output(b, Replicated());
    }
    if (outputs & 4) {
        p.output(c, Replicated());
    }
    if (outputs & 8) {
        p.output(ap, Sliced(d));
    }
    if (outputs & 16) {
        p.output(rows, Replicated());
    }
    std::ostringstream desc;
    desc << "shape " << n0 << "x" << n1 << (runtime_shape ? " (run-time sizes)" : "")
         << ", sliced dim " << d << ", op " << to_string(op) << ", split " << split
         << ", compute_sliced(b) " << slice_b << ", fuse a " << fuse_a << ", fuse b " << fuse_b
         << ", a in its gather's pass " << gather_a << " (ap too " << gather_ap
         << "), overlap chunks " << overlap << " along " << overlap_dim << ", chunk "
         << fuse.chunk_elements << ", vector width " << width << ", path "
         << (fuse.path == FusedPath::Ring ? "ring" : "direct") << ", outputs " << outputs
         << ", gp register tiles "
         << (tile_x ? std::to_string(tile_x) + "x" + std::to_string(tile_y) : "none");
    // The ring adds up in another order than the reference (rank order).
    const bool ring = (fuse_a || fuse_b) && fuse.path == FusedPath::Ring;
    // rows adds n0 elements of b, each within the ring's tolerance.
    const double ring_tolerance = 1e-5 * ((outputs & 16) ? n0 : 1);
    int ranks = pick(1, 8);
    // One case in eight on the OpenCL device, on ranks that all hold a slice.
    const bool drawn_device = pick(0, 7) == 0;
    const char *all = std::getenv("COCONET_FUZZ_DEVICE");
    const bool device = drawn_device || force_device || (all && std::string(all) == "all");
    while (device && !(every_rank_has_a_block(n0, ranks) && every_rank_has_a_block(n1, ranks))) {
        ranks--;
    }
    const bool library = device && pick(0, 1) == 0;
    const bool default_schedule = pick(0, 1) == 0;
    desc << ", target " << (device ? "opencl" : "host")
         << (library ? ", collectives through the library path" : "") << ", default schedule "
         << (default_schedule ? "on" : "off");
    const Sizes sizes = runtime_shape ? Sizes{{"n0", n0}, {"n1", n1}} : Sizes{};
    return Drawn{p,      ranks,   desc.str(),       ring ? ring_tolerance : 0.0,
                 device, library, default_schedule, sizes};
}

} // namespace

TEST_CASE("random legal schedules equal the reference", "[fuzz][schedules]") {
    const uint32_t seed = fuzz_seed();
    const int first = env_int("COCONET_FUZZ_FIRST", 0);
    const int iterations = env_int("COCONET_FUZZ_ITERATIONS", 24);
    // Zero cases (or a value that is no number) would pass having tried nothing.
    if (iterations < 1) {
        FAIL("COCONET_FUZZ_ITERATIONS=" << std::getenv("COCONET_FUZZ_ITERATIONS")
                                        << ": at least 1 case is needed");
    }
    std::cout << "test_fuzz: seed " << seed << ", cases " << first << " to "
              << first + iterations - 1 << "; rerun case k alone with COCONET_FUZZ_SEED=" << seed
              << " COCONET_FUZZ_FIRST=k COCONET_FUZZ_ITERATIONS=1 build/test/test_fuzz"
              << std::endl;
    auto draw_case = [&](int k, bool force_device) {
        std::seed_seq case_seed{seed, (uint32_t)k};
        std::mt19937 rng(case_seed);
        return draw(rng, force_device);
    };
    const char *device_env = std::getenv("COCONET_FUZZ_DEVICE");
    const bool some_on_device = device_env && std::string(device_env) == "some";
    int forced = -1;
    if (some_on_device) {
        bool drawn = false;
        for (int k = first; k < first + iterations && !drawn; k++) {
            drawn = draw_case(k, false).device;
        }
        if (!drawn) {
            forced = first + iterations - 1;
            std::cout << "test_fuzz: no case drew OpenCL; case " << forced
                      << " runs there (alone: COCONET_FUZZ_DEVICE=all)" << std::endl;
        }
    }
    int on_device = 0;
    for (int k = first; k < first + iterations; k++) {
        Drawn d = draw_case(k, k == forced);
        on_device += d.device ? 1 : 0;
        INFO("seed " << seed << ", case " << k << ": " << d.description << ", " << d.ranks
                     << " ranks");
        auto inputs = make_sized_inputs(d.program, d.ranks, d.sizes, 100 + k);
        JitOptions options;
        if (d.device) {
            options.target = Halide::get_host_target().with_feature(Halide::Target::OpenCL);
        }
        options.default_schedule = d.default_schedule;
        coconet_test::ScopedEnv collectives("COCONET_DEVICE_COLLECTIVES",
                                            d.library ? "library" : nullptr);
        auto outputs = JitProgram(d.program, options).run_threads(d.ranks, inputs, d.sizes, 5.0);
        auto expected = Reference(d.program).run(d.ranks, inputs, d.sizes);
        REQUIRE(max_abs_diff(outputs, expected) <= d.tolerance);
        REQUIRE(replicated_mismatches(d.program, outputs).empty());
    }
    if (some_on_device) {
        INFO("COCONET_FUZZ_DEVICE=some: no case of " << first << " to " << first + iterations - 1
                                                     << " ran on OpenCL");
        REQUIRE(on_device > 0);
    }
}
