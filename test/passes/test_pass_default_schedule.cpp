// The default schedule (choose_default_schedules, and rebuild_scheduled
// applying it) on a tiny program with one Func of each shape it tells apart:
// a MatMul gets register tiles (on a GPU target, a plain one the device's
// BLAS; a weight stored [out, in] is read through a transposed copy), a
// GEMV, a pooling and a pointwise Func get vectors with their reductions
// outside them (a long one unrolled inside the vector), a mean per token over
// a few features vectors gathering its strided rows (a sum over more, tiles
// of its rows transposed in registers), vectors no wider than a row, a
// short reduction to a scalar and the Funcs the user scheduled keep Halide's
// defaults. End to end, the program equals the reference with the default on
// and off. A long scalar sum (a norm) is added in parts, within rounding of
// the reference.
#include <algorithm>
#include <cstring>
#include <limits>
#include <tuple>

#include "GpuSchedule.h"
#include "Lower.h"
#include "Rebuild.h"
#include "TestUtil.h"
#include "coconet_runtime.h"

using namespace coconet;
using coconet_test::check_matches_reference;
using Halide::Float;
using Halide::Var;
using Halide::Internal::Function;

namespace {

struct Shapes {
    DFunc matmul, linear, gemv, long_gemv, pooled, rows_sum, row_mean, row_sumsq, scaled, total,
        tiled_by_hand, vectorized_by_hand;
    Program program{"shapes"};
};

// Sizes no rank count up to 5 divides; the MatMul's are at least a tile.
Shapes shapes() {
    Shapes s;
    const int m = 37, k = 13, n = 11;
    DFunc a = input("a", Float(32), {m, k}, Replicated());
    DFunc b = input("b", Float(32), {k, n}, Sliced(1));
    DFunc v = input("v", Float(32), {k}, Replicated());
    // 37 x 300 sums: too many for L1, so their reduction stays inside the rows.
    DFunc idx = input("idx", Halide::Int(32), {3, 300}, Replicated());
    DFunc wide = input("wide", Float(32), {m, 19}, Replicated());
    Var x("x"), y("y");
    Halide::RDom r(0, k, "r"), q(0, 3, "q"), all(0, m, "all"), long_r(0, 19, "long_r");
    s.matmul = DFunc("matmul");
    s.matmul(x, y) = 0.0f;
    s.matmul(x, y) += a(x, r) * b(r, y);
    // A weight stored as nn.Linear stores it ([out, in]: the contraction
    // innermost), each rank holding its slice of the outputs' rows.
    DFunc weight = input("weight", Float(32), {k, m}, Sliced(1));
    DFunc tokens_in = input("tokens_in", Float(32), {k, 41}, Replicated());
    s.linear = DFunc("linear");
    s.linear(x, y) = 0.0f;
    s.linear(x, y) += weight(r, x) * tokens_in(r, y);
    s.gemv = DFunc("gemv");
    s.gemv(x) = 0.0f;
    s.gemv(x) += a(x, r) * v(r);
    // A contraction of 19 columns: unrolled by 8.
    s.long_gemv = DFunc("long_gemv");
    s.long_gemv(x) = 0.0f;
    s.long_gemv(x) += wide(x, long_r) * 0.25f;
    s.pooled = DFunc("pooled");
    s.pooled(x, y) = 0.0f;
    s.pooled(x, y) += a(x, Halide::clamp(idx(q, y), 0, k - 1));
    // 19 terms into 37 x 300 sums: a long reduction over rows too many for L1.
    s.rows_sum = DFunc("rows_sum");
    s.rows_sum(x, y) = 0.0f;
    s.rows_sum(x, y) += wide(x, long_r) * Halide::cast<float>(idx(0, y));
    // A mean per token over its 7 features tokens(0..6, t): a vector along t
    // reads a strided element per lane.
    DFunc tokens = input("tokens", Float(32), {7, 299}, Sliced(1));
    Halide::RDom c(0, 7, "c");
    s.row_mean = DFunc("row_mean");
    s.row_mean(x) = 0.0f;
    s.row_mean(x) += tokens(c, x) / 7.0f;
    // A sum of squares per token over its 19 features: its vectors along t
    // read tiles of 8 tokens by 8 features, transposed.
    DFunc features = input("features", Float(32), {19, 299}, Sliced(1));
    s.row_sumsq = DFunc("row_sumsq");
    s.row_sumsq(x) = 0.0f;
    s.row_sumsq(x) += features(long_r, x) * features(long_r, x);
    s.scaled = DFunc("scaled");
    s.scaled(x, y) = s.matmul(x, y) * 0.5f + s.gemv(x) + s.long_gemv(x);
    s.total = DFunc("total", {});
    s.total() = 0.0f;
    s.total() += s.gemv(all);
    s.tiled_by_hand = DFunc("tiled_by_hand");
    s.tiled_by_hand(x, y) = 0.0f;
    s.tiled_by_hand(x, y) += a(x, r) * b(r, y) + 1.0f;
    s.tiled_by_hand.accumulate_in_registers(x, y, 16, 2);
    s.vectorized_by_hand = DFunc("vectorized_by_hand");
    s.vectorized_by_hand(x, y) = s.scaled(x, y) + s.tiled_by_hand(x, y) + s.total();
    s.vectorized_by_hand.func().vectorize(x, 4);
    s.program.output(s.vectorized_by_hand, Sliced(1))
        .output(s.pooled, Replicated())
        .output(s.rows_sum, Replicated())
        .output(s.row_mean, Sliced(0))
        .output(s.linear, Sliced(0))
        .output(s.row_sumsq, Sliced(0));
    return s;
}

LoweredProgram lower_for_host(const Program &p) {
    return lower(p, LowerOptions{Halide::DeviceAPI::None, Halide::get_host_target(), ""});
}

const DefaultSchedule *default_of(const LoweredProgram &l, const DFunc &f) {
    auto it = l.defaults.find(f.get_contents().get());
    return it == l.defaults.end() ? nullptr : &it->second;
}

// The segment's Funcs by plain name.
std::map<std::string, Function> segment_funcs(const LoweredProgram &l) {
    std::map<std::string, Function> out;
    for (const SpmdSegment &seg : l.spmd.segments) {
        if (seg.halide.pipeline.defined()) {
            for (const auto &[unique, fn] : pipeline_functions(seg.halide.pipeline)) {
                out.emplace(plain_name(unique), fn);
            }
        }
    }
    return out;
}

// Where loop `var` is in a stage's loop nest, innermost first (-1: absent).
int loop_index(const Halide::Internal::Definition &d, const std::string &var) {
    const std::vector<Halide::Internal::Dim> &dims = d.schedule().dims();
    for (size_t i = 0; i < dims.size(); i++) {
        if (dims[i].var == var) {
            return (int)i;
        }
    }
    return -1;
}

// The parallel loop of a stage's specialization for ranks of more than one
// thread: its name, or "" where it has none; and whether the stage itself
// (one thread) has any.
std::string parallel_loop(const Halide::Internal::Definition &d) {
    auto parallel = [](const Halide::Internal::Definition &s) -> std::string {
        for (const Halide::Internal::Dim &dim : s.schedule().dims()) {
            if (dim.for_type == Halide::Internal::ForType::Parallel) {
                return dim.var;
            }
        }
        return "";
    };
    CHECK(parallel(d).empty());
    return d.specializations().size() == 1 ? parallel(d.specializations()[0].definition) : "";
}

// A program of one MatMul, out(i, j) += w(..) * x(k, j): `rows` by `tokens`
// over `contraction` steps, the weight stored [rows, contraction] or, where
// `linear`, as nn.Linear stores it (the contraction innermost).
std::pair<Program, DFunc> matmul_program(int rows, int tokens, int contraction, bool linear) {
    DFunc w =
        input("w", Float(32),
              linear ? std::vector<int>{contraction, rows} : std::vector<int>{rows, contraction},
              Replicated());
    DFunc x = input("x", Float(32), {contraction, tokens}, Replicated());
    Var i("i"), j("j");
    Halide::RDom k(0, contraction, "k");
    DFunc out("out");
    out(i, j) = 0.0f;
    out(i, j) += (linear ? w(k, i) : w(i, k)) * x(k, j);
    Program p("matmul");
    p.output(out, Replicated());
    return {p, out};
}

bool has_vectorized_loop(const Halide::Internal::Definition &d) {
    for (const Halide::Internal::Dim &dim : d.schedule().dims()) {
        if (dim.for_type == Halide::Internal::ForType::Vectorized) {
            return true;
        }
    }
    return false;
}

} // namespace

TEST_CASE("choose_default_schedules: each shape gets its schedule, the user's Funcs none",
          "[passes][default_schedule]") {
    Shapes s = shapes();
    const Halide::Target host = Halide::get_host_target();
    const LoweredProgram l = lower(s.program, LowerOptions{Halide::DeviceAPI::None, host, ""});
    const int lanes = host.natural_vector_size(Float(32));

    const DefaultSchedule *matmul = default_of(l, s.matmul);
    REQUIRE(matmul);
    REQUIRE(matmul->tile);
    CHECK(matmul->tile->x == "x");
    CHECK(matmul->tile->y == "y");
    CHECK(matmul->tile->x_factor == 16);
    // 6 columns fill 12 of AVX2's 16 registers with sums; AVX-512 has room for 8.
    const int cols = matmul->tile->y_factor;
    CHECK((cols == 6 || cols == 8));
    // 37 rows by 11 columns: the operand read along x is the larger, so the
    // tiles along y run inside, reading it from panels.
    CHECK(matmul->y_tiles_inside);
    CHECK(matmul->panels == std::vector<std::string>{"a"});
    CHECK(matmul->transposed.empty());
    // 37 rows by 41 columns, a weight of 2 KiB: the tiles along x inside,
    // the weight (read along x in its second dimension) through a transposed
    // copy.
    const DefaultSchedule *linear = default_of(l, s.linear);
    REQUIRE(linear);
    REQUIRE(linear->tile);
    CHECK_FALSE(linear->y_tiles_inside);
    CHECK(linear->panels.empty());
    CHECK(linear->transposed == std::vector<std::string>{"weight"});

    for (const DFunc *f : {&s.gemv, &s.pooled}) {
        INFO(f->name());
        const DefaultSchedule *d = default_of(l, *f);
        REQUIRE(d);
        CHECK_FALSE(d->tile);
        CHECK(d->x == "x");
        CHECK(d->lanes == lanes);
        CHECK(d->reordered_updates == std::vector<int>{0});
        CHECK(d->unrolled_updates.empty()); // 13 and 3 terms: too few to unroll
    }
    using Reductions = DefaultSchedule::Reductions;
    CHECK(default_of(l, s.gemv)->reductions == Reductions::Outermost);
    CHECK(default_of(l, s.pooled)->reductions == Reductions::AroundVectors);
    const DefaultSchedule *rows_sum = default_of(l, s.rows_sum);
    REQUIRE(rows_sum);
    CHECK(rows_sum->reductions == Reductions::OutsideRows);
    CHECK(rows_sum->unrolled_updates == std::vector<int>{0});
    const DefaultSchedule *long_gemv = default_of(l, s.long_gemv);
    REQUIRE(long_gemv);
    CHECK(long_gemv->unrolled_updates == std::vector<int>{0});
    const DefaultSchedule *row_mean = default_of(l, s.row_mean);
    REQUIRE(row_mean);
    CHECK(row_mean->reordered_updates.empty());
    CHECK(row_mean->gathered_updates == std::vector<int>{0}); // 7 features: too few for tiles
    CHECK(row_mean->transposed_updates.empty());
    const DefaultSchedule *row_sumsq = default_of(l, s.row_sumsq);
    REQUIRE(row_sumsq);
    CHECK(row_sumsq->gathered_updates.empty());
    CHECK(row_sumsq->transposed_updates == std::vector<int>{0});
    const DefaultSchedule *scaled = default_of(l, s.scaled);
    REQUIRE(scaled);
    CHECK(scaled->reordered_updates.empty());
    CHECK(scaled->why == "vectors of " + std::to_string(lanes) + " along x");

    // A scalar, and the Funcs the user scheduled, keep what they have.
    CHECK_FALSE(default_of(l, s.total));
    CHECK_FALSE(default_of(l, s.tiled_by_hand));
    CHECK_FALSE(default_of(l, s.vectorized_by_hand));

    // The segment's Funcs carry them: the MatMul's staging Func, the vectors.
    std::map<std::string, Function> funcs = segment_funcs(l);
    CHECK(funcs.count("matmul_acc"));
    CHECK(funcs.count("tiled_by_hand_acc"));
    // The MatMul's panels of a (a_im): computed at each tile along x, stored
    // as 16 along x, in vectors.
    REQUIRE(funcs.count("a_im_panel"));
    const Function panel = funcs.at("a_im_panel");
    Halide::LoopLevel panel_at = panel.schedule().compute_level();
    panel_at.lock();
    CHECK(panel_at.func() == funcs.at("matmul").name());
    CHECK(panel_at.var().name() == "x_o");
    REQUIRE(!panel.schedule().storage_dims().empty());
    CHECK(Halide::Internal::is_const(panel.schedule().storage_dims()[0].bound, 16));
    CHECK(has_vectorized_loop(panel.definition()));
    CHECK_FALSE(funcs.count("b_im_panel"));
    CHECK_FALSE(funcs.count("a_im_transposed"));
    // The copy of the weight's input Func (weight_im), at the root.
    REQUIRE(funcs.count("weight_im_transposed"));
    const Function copy = funcs.at("weight_im_transposed");
    Halide::LoopLevel at = copy.schedule().compute_level();
    CHECK(at.lock().is_root());
    CHECK(has_vectorized_loop(copy.definition()));
    CHECK_FALSE(funcs.count("weight_im_panel"));
    CHECK_FALSE(funcs.count("tokens_in_im_transposed"));
    // The features' tiles, computed at each step of the sum of squares.
    REQUIRE(funcs.count("features_im_transposed"));
    Halide::LoopLevel step = funcs.at("features_im_transposed").schedule().compute_level();
    step.lock();
    CHECK(step.func() == funcs.at("row_sumsq").name());
    CHECK(step.var().name() == "long_r$x_steps0");
    CHECK_FALSE(funcs.count("tokens_im_transposed"));
    REQUIRE(funcs.count("gemv"));
    CHECK(has_vectorized_loop(funcs.at("gemv").definition()));
    CHECK(has_vectorized_loop(funcs.at("gemv").update(0)));
    // The reduction loop is outside the vector: the vector is the innermost loop.
    CHECK(funcs.at("gemv").update(0).schedule().dims().front().for_type ==
          Halide::Internal::ForType::Vectorized);
    CHECK_FALSE(has_vectorized_loop(funcs.at("total").update(0)));
    // The long contraction: 8 unrolled terms inside the vector, the rest outside.
    REQUIRE(funcs.count("long_gemv"));
    const std::vector<Halide::Internal::Dim> &dims =
        funcs.at("long_gemv").update(0).schedule().dims();
    REQUIRE(dims.size() >= 3);
    CHECK(dims[0].for_type == Halide::Internal::ForType::Unrolled);
    CHECK(dims[1].for_type == Halide::Internal::ForType::Vectorized);
    // The pooling's bag (3 rows) sits just outside each vector, the rest of
    // x outside it: a vector's sums stay in a register over the bag.
    const Halide::Internal::Definition &pooled = funcs.at("pooled").update(0);
    CHECK(pooled.schedule().dims().front().for_type == Halide::Internal::ForType::Vectorized);
    CHECK(loop_index(pooled, "q$x") == 1);
    CHECK(loop_index(pooled, "x.x") == 2);
    CHECK(loop_index(pooled, "y") == 3);
    // A long reduction over a large output: outside the whole of x.
    const Halide::Internal::Definition &rows = funcs.at("rows_sum").update(0);
    CHECK(loop_index(rows, "x") < loop_index(rows, "long_r$x.long_r$x_o"));

    const std::string dump = dump_default_schedules(l.defaults, l.analysis);
    CHECK(dump.find("  matmul: register tiles of 16 x " + std::to_string(cols) +
                    " along (x, y), a MatMul, the tiles along y inside those along x, a copied "
                    "into a panel at each tile along x\n") != std::string::npos);
    CHECK(dump.find("  linear: register tiles of 16 x " + std::to_string(cols) +
                    " along (x, y), a MatMul, weight read through a copy with x innermost\n") !=
          std::string::npos);
    CHECK(dump.find("  gemv: vectors of " + std::to_string(lanes) +
                    " along x, reduction loops outside all its loops\n") != std::string::npos);
    CHECK(dump.find("  long_gemv: vectors of " + std::to_string(lanes) +
                    " along x, reduction loops outside all its loops, the innermost unrolled "
                    "by 8\n") != std::string::npos);
    CHECK(dump.find("  pooled: vectors of " + std::to_string(lanes) +
                    " along x, reduction loops just outside each vector\n") != std::string::npos);
    CHECK(dump.find("  rows_sum: vectors of " + std::to_string(lanes) +
                    " along x, reduction loops outside them, the innermost unrolled by 8\n") !=
          std::string::npos);
    CHECK(dump.find("  row_mean: vectors of " + std::to_string(lanes) +
                    " along x, reductions read across the vectors gathering an element per "
                    "lane\n") != std::string::npos);
    CHECK(dump.find("  row_sumsq: vectors of " + std::to_string(lanes) +
                    " along x, reductions read across the vectors in vectors of " +
                    std::to_string(std::min(lanes, 8)) + " through tiles of " +
                    std::to_string(std::min(lanes, 8)) + " x 8 transposed in registers\n") !=
          std::string::npos);
}

TEST_CASE("choose_default_schedules: a vector is no wider than the Func's rows",
          "[passes][default_schedule]") {
    DFunc v = input("v", Float(32), {3, 40}, Replicated());
    Var x("x"), y("y");
    DFunc f("f");
    f(x, y) = v(x, y) * 2.0f;
    Program p("narrow");
    p.output(f, Replicated());
    const LoweredProgram l = lower_for_host(p);
    const DefaultSchedule *d = default_of(l, f);
    REQUIRE(d);
    CHECK(d->lanes == 2);
}

TEST_CASE("choose_default_schedules: panels unless the tokens outnumber a weight that fits in L2",
          "[passes][default_schedule]") {
    // Lowered, not run: o outputs by k inputs over t tokens, nn.Linear's
    // weight layout.
    auto decide = [](int o, int k, int t) {
        auto [p, y] = matmul_program(o, t, k, true);
        const LoweredProgram l = lower_for_host(p);
        const DefaultSchedule *d = default_of(l, y);
        REQUIRE(d);
        CHECK(d->panels.empty() != d->y_tiles_inside);
        CHECK(d->transposed.empty() == d->y_tiles_inside);
        return d->y_tiles_inside;
    };
    CHECK(decide(4096, 1024, 512));      // more outputs than tokens
    CHECK(decide(1024, 1024, 1024));     // as many
    CHECK(decide(1024, 4096, 2048));     // more tokens, a weight of 16 MiB
    CHECK_FALSE(decide(64, 1024, 2048)); // a weight of 256 KiB stays in L2
    CHECK_FALSE(decide(256, 512, 16384));
    CHECK(decide(257, 512, 16384)); // 514 KiB: over 512
}

TEST_CASE("choose_default_schedules: a reduction read across its vectors sums a token per lane",
          "[passes][default_schedule]") {
    // A LayerNorm's mean per token: token t's features are y(0..h, t), so
    // vectors along t read across rows; each lane adds its token's features
    // in their order. Over 24 features, in steps of 8 features, each reading
    // a tile of y transposed in registers; over 5, a strided element per lane.
    Var t("t");
    auto mean_of = [&](int features) {
        DFunc y = input("y", Float(32), {features, 40}, Replicated());
        Halide::RDom k(0, features, "k");
        DFunc mean("mean");
        mean(t) = 0.0f;
        mean(t) += y(k, t) / (float)features;
        return mean;
    };
    for (int features : {24, 5}) {
        INFO(features << " features");
        DFunc mean = mean_of(features);
        Program p("mean");
        p.output(mean, Replicated());
        const LoweredProgram l = lower_for_host(p);
        const DefaultSchedule *d = default_of(l, mean);
        REQUIRE(d);
        CHECK(d->reordered_updates.empty());
        const bool tiles = features == 24;
        CHECK(d->gathered_updates == (tiles ? std::vector<int>{} : std::vector<int>{0}));
        CHECK(d->transposed_updates == (tiles ? std::vector<int>{0} : std::vector<int>{}));
        const std::map<std::string, Function> funcs = segment_funcs(l);
        const Function mean_fn = funcs.at("mean");
        CHECK(has_vectorized_loop(mean_fn.definition()));
        CHECK(has_vectorized_loop(mean_fn.update(0)));
        const Halide::Internal::Definition &u = mean_fn.update(0);
        if (tiles) {
            // The vector innermost, the 8 steps of a tile around it, the tiles outside.
            CHECK(loop_index(u, "t.t_v") == 0);
            CHECK(loop_index(u, "k$x.k$x_i") == 1);
            CHECK(loop_index(u, "k$x.k$x_steps0") == 2);
            CHECK(u.schedule().dims()[1].for_type == Halide::Internal::ForType::Unrolled);
            CHECK(funcs.count("y_im_transposed"));
        } else {
            // The features' loop innermost, serial; the tokens' vector outside it.
            REQUIRE(u.schedule().dims().size() >= 2);
            CHECK(u.schedule().dims().front().var == "k$x");
            CHECK(u.schedule().dims().front().for_type == Halide::Internal::ForType::Serial);
            CHECK_FALSE(funcs.count("y_im_transposed"));
        }
        check_matches_reference(p, {1, 3}, 0.0, 1, make_inputs);
    }
    DFunc y = input("y", Float(32), {24, 40}, Replicated());
    Halide::RDom k(0, 24, "k");
    {
        // Two updates over one reduction domain, each with tiles of its own
        // operands at its own steps (Halide finds a loop by its name).
        DFunc z = input("z", Float(32), {24, 40}, Sliced(1));
        DFunc stats("stats");
        stats(t) = 0.0f;
        stats(t) += y(k, t);
        stats(t) += z(k, t) * y(k, t);
        Program p("stats");
        p.output(stats, Sliced(0));
        const LoweredProgram l = lower_for_host(p);
        const DefaultSchedule *d = default_of(l, stats);
        REQUIRE(d);
        CHECK(d->transposed_updates == std::vector<int>{0, 1});
        check_matches_reference(p, {1, 3, 7}, 0.0, 1, make_inputs);
    }
    // A histogram writes elsewhere than its pure variables: Halide's serial loops.
    DFunc hist("hist", {40});
    hist(t) = 0.0f;
    hist(Halide::clamp(Halide::cast<int>(mean_of(24)(k)), 0, 39)) += 1.0f;
    Program q("hist");
    q.output(hist, Replicated());
    const LoweredProgram lq = lower_for_host(q);
    const DefaultSchedule *h = default_of(lq, hist);
    REQUIRE(h);
    CHECK(h->gathered_updates.empty());
    CHECK_FALSE(has_vectorized_loop(segment_funcs(lq).at("hist").update(0)));
    CHECK_THAT(dump_default_schedules(lq.defaults, lq.analysis),
               Catch::Contains("hist: vectors of " + std::to_string(h->lanes) +
                               " along t, reductions writing elsewhere in Halide's serial loops"));
}

namespace {

// A LayerNorm per token of `features` features over `tokens` tokens: y, its
// mean and variance per token, normed; `shifted`, normed reads the next
// token's mean; `mean_out`, the mean is an output too.
struct LayerNorm {
    DFunc y, mean, var, normed;
    Program program{"layer_norm"};
};
LayerNorm layer_norm(int features, int tokens, bool shifted = false, bool mean_out = false) {
    LayerNorm n;
    // Another token's mean: every rank holds every token.
    const Layout layout = shifted ? Layout(Replicated()) : Layout(Sliced(1));
    DFunc in = input("in", Float(32), {features, tokens}, layout);
    DFunc bias = input("bias", Float(32), {features}, Replicated());
    Var h("h"), t("t");
    Halide::RDom k(0, features, "k");
    n.y = DFunc("y");
    n.y(h, t) = in(h, t) + bias(h);
    n.mean = DFunc("mean");
    n.mean(t) = 0.0f;
    n.mean(t) += n.y(k, t) / (float)features;
    n.var = DFunc("var");
    n.var(t) = 0.0f;
    n.var(t) += (n.y(k, t) - n.mean(t)) * (n.y(k, t) - n.mean(t)) / (float)features;
    n.normed = DFunc("normed");
    const Halide::Expr mean_at = shifted ? n.mean(Halide::min(t + 1, tokens - 1)) : n.mean(t);
    n.normed(h, t) = (n.y(h, t) - mean_at) / Halide::sqrt(n.var(t) + 1e-5f);
    n.program.output(n.normed, layout);
    if (mean_out) {
        n.program.output(n.mean, Sliced(0));
    }
    return n;
}

const DFuncContents *rows_of(const LoweredProgram &l, const DFunc &f) {
    const DefaultSchedule *d = default_of(l, f);
    REQUIRE(d);
    return d->rows_of;
}

} // namespace

TEST_CASE("group_rows: a LayerNorm's statistics are computed at each tile of its tokens",
          "[passes][default_schedule]") {
    // 4099 tokens (no rank count up to 5 divides them) of 67 features: enough
    // work for tasks.
    const int tile = Halide::get_host_target().natural_vector_size(Float(32));
    LayerNorm n = layer_norm(67, 4099);
    const LoweredProgram l = lower_for_host(n.program);
    const DFuncContents *root = n.normed.get_contents().get();
    CHECK(default_of(l, n.normed)->row_tile == tile);
    CHECK(default_of(l, n.normed)->tasks == "t");
    for (const DFunc &member : {n.y, n.mean, n.var}) {
        INFO(member.name());
        CHECK(rows_of(l, member) == root);
        CHECK(default_of(l, member)->tasks.empty());
    }
    const std::string tiles = "in tiles of " + std::to_string(tile) + " along t";
    CHECK_THAT(dump_default_schedules(l.defaults, l.analysis),
               Catch::Contains("normed: vectors of " +
                               std::to_string(default_of(l, n.normed)->lanes) + " along h, " +
                               tiles +
                               ", each computing y, mean, var first, its tiles along t in a "
                               "task per thread of the rank\n") &&
                   Catch::Contains("computed at each tile of " + std::to_string(tile) +
                                   " along t of normed\n"));
    // Each member is computed and stored at the root's loop over its tiles,
    // which its tasks split.
    const std::map<std::string, Function> funcs = segment_funcs(l);
    for (const char *member : {"y", "mean", "var"}) {
        INFO(member);
        const Halide::Internal::FuncSchedule &s = funcs.at(member).schedule();
        const std::string at = Halide::LoopLevel(s.compute_level()).lock().to_string();
        CHECK(at == funcs.at("normed").name() + ".t_o");
        CHECK(Halide::LoopLevel(s.store_level()).lock().to_string() == at);
        CHECK(parallel_loop(funcs.at(member).definition()).empty());
    }
    CHECK(parallel_loop(funcs.at("normed").definition()) == "t.t_o.t_o_task");
    for (const char *threads : {"1", "2", "3"}) {
        INFO("COCONET_RANK_THREADS=" << threads);
        coconet_test::ScopedEnv env("COCONET_RANK_THREADS", threads);
        check_matches_reference(n.program, {1, 3, 4}, 0.0, 1, make_inputs);
    }

    // normed reads the next token's mean: the mean's rows are no longer
    // the tile's, and y, read by the mean, stays out too.
    LayerNorm shifted = layer_norm(37, 1201, true);
    const LoweredProgram ls = lower_for_host(shifted.program);
    CHECK(rows_of(ls, shifted.mean) == nullptr);
    CHECK(rows_of(ls, shifted.y) == nullptr);
    CHECK(rows_of(ls, shifted.var) == shifted.normed.get_contents().get());
    check_matches_reference(shifted.program, {1, 3}, 0.0, 1, make_inputs);
    // The mean is an output too: it stays whole, and so does y, which it reads.
    LayerNorm exported = layer_norm(37, 1201, false, true);
    const LoweredProgram le = lower_for_host(exported.program);
    CHECK(rows_of(le, exported.mean) == nullptr);
    CHECK(rows_of(le, exported.y) == nullptr);
    CHECK(rows_of(le, exported.var) == exported.normed.get_contents().get());
    check_matches_reference(exported.program, {1, 3}, 0.0, 1, make_inputs);
    // A tile of y's rows of 16384 features takes more than L2 holds: the
    // statistics still join, y stays whole.
    LayerNorm wide = layer_norm(16384, 1201);
    const LoweredProgram lw = lower_for_host(wide.program);
    CHECK(rows_of(lw, wide.y) == nullptr);
    CHECK(rows_of(lw, wide.mean) == wide.normed.get_contents().get());
    // A running sum along the tokens writes its update at a reduction
    // variable: a tile of its rows needs the rows before it, so it stays whole.
    {
        DFunc in = input("in", Float(32), {37, 1201}, Replicated());
        Var h("h"), t("t");
        Halide::RDom r(1, 1200, "r");
        DFunc running("running"), scaled("scaled");
        running(h, t) = in(h, t);
        running(h, r) += running(h, r - 1);
        scaled(h, t) = running(h, t) * 0.5f;
        Program p("running");
        p.output(scaled, Replicated());
        const LoweredProgram lr = lower_for_host(p);
        CHECK(rows_of(lr, running) == nullptr);
        CHECK(default_of(lr, scaled)->row_tile == 0);
        check_matches_reference(p, {1, 3}, 0.0, 1, make_inputs);
    }
    // Fewer than 32 tiles of tokens to share among tasks: nothing is grouped.
    LayerNorm few = layer_norm(37, 32 * tile - 1);
    const LoweredProgram lf = lower_for_host(few.program);
    CHECK(default_of(lf, few.normed)->row_tile == 0);
    CHECK(rows_of(lf, few.y) == nullptr);
}

TEST_CASE("choose_default_schedules: none without a CPU target for it",
          "[passes][default_schedule]") {
    Shapes s = shapes();
    CHECK(lower(s.program).defaults.empty());
    CHECK(segment_funcs(lower(s.program)).count("matmul_acc") == 0);
}

TEST_CASE("choose_default_schedules: on a GPU target, a GPU thread per tile of a MatMul",
          "[passes][default_schedule][gpu]") {
    coconet_test::ScopedEnv kernels("COCONET_GPU_MATMUL", "kernels");
    // MatMuls get GPU register tiles, a sliced one on GPU loops only where
    // the rank's slice is non-empty; the other Funcs are left to the GPU
    // pass.
    DFunc a = input("a", Float(32), {37, 13}, Replicated());
    DFunc b = input("b", Float(32), {13, 11}, Replicated());
    DFunc rows = input("rows", Float(32), {37, 13}, Sliced(0));
    Var x("x"), y("y");
    Halide::RDom r(0, 13, "r");
    DFunc whole("whole"), sliced("sliced"), scaled("scaled");
    whole(x, y) = 0.0f;
    whole(x, y) += a(x, r) * b(r, y);
    sliced(x, y) = 0.0f;
    sliced(x, y) += rows(x, r) * b(r, y);
    scaled(x, y) = whole(x, y) * 2.0f;
    Program p("gpu_tiles");
    p.output(scaled, Replicated()).output(sliced, Sliced(0));
    const Halide::Target t = Halide::get_host_target().with_feature(Halide::Target::OpenCL);
    const LoweredProgram l = lower(p, LowerOptions{Halide::DeviceAPI::OpenCL, t, ""});
    const DefaultSchedule *d = default_of(l, whole);
    REQUIRE(d);
    REQUIRE(d->tile);
    CHECK(d->tile->x_factor == 4);
    CHECK(d->tile->y_factor == 8);
    CHECK(d->gpu_block == std::make_pair(16, 8));
    REQUIRE(default_of(l, sliced));
    CHECK(default_of(l, sliced)->gpu_block);
    CHECK(default_of(l, scaled) == nullptr);
    // The tiles' copy runs on GPU blocks and threads, the sums computed per
    // thread; the GPU pass counts it a kernel reading the MatMul's operands.
    const std::map<std::string, Function> funcs = segment_funcs(l);
    REQUIRE(funcs.count("whole_acc"));
    Halide::LoopLevel at = funcs.at("whole_acc").schedule().compute_level();
    at.lock();
    CHECK(plain_name(at.func()) == "whole");
    CHECK(at.var().name() == "x_thread");
    // It is computed over whole tiles, at the box's edge too (its operands
    // read clamped to the box), so that its loops need no guard.
    std::map<std::string, int> extents;
    for (const Halide::Internal::Bound &b : funcs.at("whole_acc").schedule().bounds()) {
        extents[b.var] = b.extent.defined() && !b.min.defined() && is_const(b.extent)
                             ? (int)*as_const_int(b.extent)
                             : -1;
    }
    CHECK(extents == std::map<std::string, int>{{"x", 4}, {"y", 8}});
    bool gpu_loops = false;
    for (const Halide::Internal::Dim &dim : funcs.at("whole").definition().schedule().dims()) {
        gpu_loops = gpu_loops || Halide::Internal::is_gpu(dim.for_type);
    }
    CHECK(gpu_loops);
    // The sliced one's GPU loops are those of its specialization.
    const Function &s_fn = funcs.at("sliced");
    CHECK(s_fn.definition().specializations().size() == 1);
    REQUIRE(l.spmd.segments.size() == 1);
    const GpuPlacement where =
        schedule_segment_for_gpu(l.spmd.segments[0].halide, l.analysis, l.spmd);
    CHECK(std::count(where.gpu.begin(), where.gpu.end(), "whole") == 1);
    CHECK(std::count(where.gpu.begin(), where.gpu.end(), "sliced") == 1);
    CHECK(std::count(where.reads.begin(), where.reads.end(), "a") == 1);
    CHECK(std::count(where.reads.begin(), where.reads.end(), "b") == 1);
    CHECK(std::count(where.reads.begin(), where.reads.end(), "rows") == 1);
    CHECK(std::count(where.reads.begin(), where.reads.end(), "whole_acc") == 0);
    // The kernels compile for CUDA (PTX) too, with no GPU.
    const Halide::Target cuda = Halide::get_host_target()
                                    .with_feature(Halide::Target::CUDA)
                                    .with_feature(Halide::Target::CUDACapability80)
                                    .with_feature(Halide::Target::UserContext);
    const LoweredProgram lc = lower(p, LowerOptions{Halide::DeviceAPI::CUDA, cuda, ""});
    const HalideSegment &h = lc.spmd.segments[0].halide;
    schedule_segment_for_gpu(h, lc.analysis, lc.spmd);
    Halide::Pipeline pipeline = h.pipeline;
    CHECK_NOTHROW(pipeline.compile_to_module(
        std::vector<Halide::Argument>(h.params.begin(), h.params.end()), "tiles", cuda));
}

TEST_CASE("choose_default_schedules: on a GPU target, too few tiles along a long contraction "
          "are left to the GPU pass",
          "[passes][default_schedule][gpu]") {
    // A few tokens by a large weight: 64 x 8 outputs are 16 tiles, which
    // would leave all but a few of a GPU's threads idle for 2048 steps each.
    // The GPU pass adds the outputs' sums in parts instead; a short
    // contraction, or tiles enough, keep the register tiles.
    const Halide::Target t = Halide::get_host_target().with_feature(Halide::Target::OpenCL);
    auto matmul = [](int rows, int tokens, int contraction) {
        return matmul_program(rows, tokens, contraction, false);
    };
    {
        auto [p, out] = matmul(64, 8, 2048);
        const LoweredProgram l = lower(p, LowerOptions{Halide::DeviceAPI::OpenCL, t, ""});
        CHECK(default_of(l, out) == nullptr);
        REQUIRE(l.spmd.segments.size() == 1);
        const GpuPlacement where =
            schedule_segment_for_gpu(l.spmd.segments[0].halide, l.analysis, l.spmd);
        CHECK(where.row_parts.at("out") == 128);
        // On a CPU, register tiles as before.
        const LoweredProgram host = lower_for_host(p);
        const DefaultSchedule *cpu = default_of(host, out);
        REQUIRE(cpu);
        CHECK(cpu->tile);
    }
    for (auto [rows, tokens, contraction] : {std::tuple{64, 8, 511}, std::tuple{512, 512, 2048}}) {
        INFO(rows << " x " << tokens << " by " << contraction);
        auto [p, out] = matmul(rows, tokens, contraction);
        const LoweredProgram l = lower(p, LowerOptions{Halide::DeviceAPI::OpenCL, t, ""});
        const DefaultSchedule *d = default_of(l, out);
        REQUIRE(d);
        CHECK(d->gpu_block);
    }
}

TEST_CASE("gemm_form: the MatMuls a BLAS computes as they are", "[passes][default_schedule]") {
    DFunc a = input("a", Float(32), {37, 13}, Replicated());
    DFunc b = input("b", Float(32), {13, 11}, Replicated());
    DFunc ints = input("ints", Halide::Int(32), {37, 13}, Replicated());
    Var x("x"), y("y");
    Halide::RDom r(0, 13, "r"), rr(0, 13, 0, 2, "rr"), odd(0, 13, "odd");
    odd.where(odd.x % 2 == 1);
    auto form = [](DFunc f) { return gemm_form(f.func().function()); };
    DFunc plain("plain"), swapped("swapped");
    plain(x, y) = 0.0f;
    plain(x, y) += a(x, r) * b(r, y);
    REQUIRE(form(plain));
    CHECK(form(plain)->a_walks == std::vector<int>{0, COCONET_GEMM_K});
    CHECK(form(plain)->b_walks == std::vector<int>{COCONET_GEMM_K, 1});
    CHECK(form(plain)->zero_init);
    CHECK(plain_name(form(plain)->a->name) == "a");
    // Written b * a.
    swapped(x, y) = 0.0f;
    swapped(x, y) += b(r, y) * a(x, r);
    REQUIRE(form(swapped));
    CHECK(plain_name(form(swapped)->a->name) == "a");
    CHECK(plain_name(form(swapped)->b->name) == "b");
    // Each operand with the contraction outside.
    DFunc transposed("transposed");
    transposed(x, y) = 0.0f;
    transposed(x, y) += a(y, r) * b(r, x);
    REQUIRE(form(transposed));
    CHECK(plain_name(form(transposed)->a->name) == "b");
    CHECK(form(transposed)->a_walks == std::vector<int>{COCONET_GEMM_K, 0});
    CHECK(form(transposed)->b_walks == std::vector<int>{1, COCONET_GEMM_K});
    // A batch of them (the experts of a mixture), one operand the same for
    // every token tile j.
    DFunc w = input("w", Float(32), {37, 13, 4}, Replicated());
    DFunc tokens = input("tokens", Float(32), {13, 11, 4, 3}, Replicated());
    Var e("e"), j("j");
    DFunc experts("experts");
    experts(x, y, e, j) = 0.0f;
    experts(x, y, e, j) += w(x, r, e) * tokens(r, y, e, j);
    REQUIRE(form(experts));
    CHECK(form(experts)->a_walks == std::vector<int>{0, COCONET_GEMM_K, 2});
    CHECK(form(experts)->b_walks == std::vector<int>{COCONET_GEMM_K, 1, 2, 3});
    // What BLAS does not compute as written.
    std::vector<DFunc> refused;
    auto make = [&](const std::string &name) {
        refused.emplace_back(name);
        return refused.back();
    };
    // Starting from a bias: the product, then the bias added.
    DFunc from_bias("from_bias");
    from_bias(x, y) = a(x, 0);
    from_bias(x, y) += a(x, r) * b(r, y);
    REQUIRE(form(from_bias));
    CHECK_FALSE(form(from_bias)->zero_init);
    DFunc shifted = make("shifted");
    shifted(x, y) = 0.0f;
    shifted(x, y) += a(x, r) * b(r, y + 1);
    DFunc two_rvars = make("two_rvars");
    two_rvars(x, y) = 0.0f;
    two_rvars(x, y) += a(x, rr.x) * b(rr.x, y) * b(rr.x, rr.y);
    DFunc predicated = make("predicated");
    predicated(x, y) = 0.0f;
    predicated(x, y) += a(x, odd) * b(odd, y);
    DFunc both_x = make("both_x");
    both_x(x, y) = 0.0f;
    both_x(x, y) += a(x, r) * a(x, r);
    DFunc cast_ints = make("cast_ints");
    cast_ints(x, y) = 0.0f;
    cast_ints(x, y) += Halide::cast<float>(ints(x, r)) * b(r, y);
    DFunc batch_in_sum = make("batch_in_sum"); // a batch variable twice in one operand
    batch_in_sum(x, y, e) = 0.0f;
    batch_in_sum(x, y, e) += w(x, r, e) * tokens(r, y, e, e);
    DFunc two_products = make("two_products");
    two_products(x, y) = 0.0f;
    two_products(x, y) += a(x, r) * b(r, y) + a(x, r) * b(r, y);
    DFunc scaled = make("scaled");
    scaled(x, y) = 0.0f;
    scaled(x, y) += 2.0f * a(x, r) * b(r, y);
    for (DFunc &f : refused) {
        INFO(f.name());
        CHECK_FALSE(form(f));
    }
}

TEST_CASE("choose_default_schedules: on a GPU target, a plain MatMul is one call of the "
          "device's BLAS",
          "[passes][default_schedule][gpu]") {
    const Halide::Target host = Halide::get_host_target();
    const Halide::Target opencl = host.with_feature(Halide::Target::OpenCL);
    const Halide::Target cuda =
        host.with_feature(Halide::Target::CUDA).with_feature(Halide::Target::CUDACapability80);
    {
        coconet_test::ScopedEnv unset("COCONET_GPU_MATMUL", "");
        CHECK(library_gemm_api(cuda) == Halide::DeviceAPI::CUDA);
        CHECK(library_gemm_api(opencl) == Halide::DeviceAPI::None);
        CHECK(library_gemm_api(host) == Halide::DeviceAPI::None);
    }
    for (const char *mode : {"auto", "blas"}) { // another value: a warning, then auto
        coconet_test::ScopedEnv set("COCONET_GPU_MATMUL", mode);
        CHECK(library_gemm_api(cuda) == Halide::DeviceAPI::CUDA);
        CHECK(library_gemm_api(opencl) == Halide::DeviceAPI::None);
    }
    {
        coconet_test::ScopedEnv kernels("COCONET_GPU_MATMUL", "kernels");
        CHECK(library_gemm_api(cuda) == Halide::DeviceAPI::None);
    }
    // The program's own choice wins over the environment's; a bad one is refused.
    CHECK(library_gemm_api(opencl, "library") == Halide::DeviceAPI::OpenCL);
    CHECK_THROWS_AS(library_gemm_api(cuda, "blas"), UserError);
    coconet_test::ScopedEnv library("COCONET_GPU_MATMUL", "library");
    CHECK(library_gemm_api(cuda, "kernels") == Halide::DeviceAPI::None);
    CHECK(library_gemm_api(opencl) == Halide::DeviceAPI::OpenCL);
    CHECK(library_gemm_api(host) == Halide::DeviceAPI::None);

    // A MatMul of an input and of a Func a kernel computes, sliced along its
    // contraction: each rank's call adds its slice, the range from its rank.
    DFunc a = input("a", Float(32), {37, 13}, Sliced(1));
    DFunc b = input("b", Float(32), {13, 11}, Replicated());
    Var x("x"), y("y");
    Halide::RDom r(0, 13, "r");
    DFunc halved("halved"), product("product");
    halved(x, y) = b(x, y) * 0.5f;
    product(x, y) = 0.0f;
    product(x, y) += a(x, r) * halved(r, y);
    Program p("blas");
    p.output(product, Local());
    const LoweredProgram l = lower(p, LowerOptions{Halide::DeviceAPI::OpenCL, opencl, ""});
    const DefaultSchedule *d = default_of(l, product);
    REQUIRE(d);
    CHECK(d->library_gemm == Halide::DeviceAPI::OpenCL);
    CHECK_FALSE(d->tile);
    CHECK(d->why == "one call of CLBlast's sgemm, a MatMul");
    CHECK(default_of(l, halved) == nullptr);
    const std::map<std::string, Function> funcs = segment_funcs(l);
    const Function &fn = funcs.at("product");
    REQUIRE(fn.has_extern_definition());
    CHECK(fn.extern_function_name() == "coconet_gemm");
    CHECK(fn.extern_function_device_api() == Halide::DeviceAPI::OpenCL);
    const std::vector<Halide::ExternFuncArgument> &args = fn.extern_arguments();
    REQUIRE(args.size() == 9);
    CHECK(args[2].is_buffer());      // the descriptor
    CHECK(args[7].is_image_param()); // the input itself, not a copy of it
    REQUIRE(args[8].is_func());
    CHECK(plain_name(Function(args[8].func).name()) == "halved");
    REQUIRE(l.spmd.segments.size() == 1);
    const GpuPlacement where =
        schedule_segment_for_gpu(l.spmd.segments[0].halide, l.analysis, l.spmd);
    CHECK(where.library == std::vector<std::string>{"product"});
    CHECK(where.gpu == std::vector<std::string>{"halved"});
    CHECK(std::count(where.reads.begin(), where.reads.end(), "a") == 1);
    CHECK(std::count(where.reads.begin(), where.reads.end(), "halved") == 1);
    CHECK(placement_text(where) == "GPU kernels for halved; the device's BLAS for product");
    // On CUDA (cuBLAS, PTX for the kernel) it compiles with no GPU.
    const Halide::Target cuda_uc = cuda.with_feature(Halide::Target::UserContext);
    const LoweredProgram lc = lower(p, LowerOptions{Halide::DeviceAPI::CUDA, cuda_uc, ""});
    CHECK(default_of(lc, product)->why == "one call of cuBLAS's sgemm, a MatMul");
    const HalideSegment &h = lc.spmd.segments[0].halide;
    schedule_segment_for_gpu(h, lc.analysis, lc.spmd);
    Halide::Pipeline pipeline = h.pipeline;
    CHECK_NOTHROW(pipeline.compile_to_module(
        std::vector<Halide::Argument>(h.params.begin(), h.params.end()), "blas", cuda_uc));
}

TEST_CASE("choose_default_schedules: a MatMul smaller than a tile gets vectors",
          "[passes][default_schedule]") {
    DFunc a = input("a", Float(32), {8, 5}, Replicated());
    DFunc b = input("b", Float(32), {5, 9}, Replicated());
    Var x("x"), y("y");
    Halide::RDom r(0, 5, "r");
    DFunc c("c");
    c(x, y) = 0.0f;
    c(x, y) += a(x, r) * b(r, y);
    Program p("small");
    p.output(c, Replicated());
    const LoweredProgram l = lower_for_host(p);
    const DefaultSchedule *d = default_of(l, c);
    REQUIRE(d);
    CHECK_FALSE(d->tile);
    CHECK(d->reordered_updates == std::vector<int>{0});
    // 8 x 9 sums fit in L1: the contraction sweeps them all, outside every loop.
    CHECK(d->reductions == DefaultSchedule::Reductions::Outermost);
    const Halide::Internal::Definition &u = segment_funcs(l).at("c").update(0);
    REQUIRE(loop_index(u, "y") >= 0);
    CHECK(loop_index(u, "r$x") > loop_index(u, "y"));
}

TEST_CASE("default schedule: results equal the reference with it and without it",
          "[passes][default_schedule]") {
    Shapes s = shapes();
    for (bool on : {true, false}) {
        INFO("default schedule " << (on ? "on" : "off"));
        JitOptions options;
        options.default_schedule = on;
        check_matches_reference(s.program, {1, 3, 4, 5}, 0.0, 1, make_inputs, options);
    }
}

TEST_CASE("default schedule: a Func large enough runs in a task per thread of its rank",
          "[passes][default_schedule]") {
    // Sizes no rank or thread count up to 4 divides; each Func computes more
    // than min_task_work values and reduction steps but the last.
    Program p("tasks");
    const int m = 70, k = 67, n = 61, tokens = 15001, features = 19, big = 300007;
    DFunc a = input("a", Float(32), {m, k}, Replicated());
    DFunc b = input("b", Float(32), {k, n}, Sliced(1));
    DFunc feats = input("feats", Float(32), {features, tokens}, Sliced(1));
    DFunc v = input("v", Float(32), {big}, Sliced(0));
    DFunc w = input("w", Float(32), {40, 401}, Replicated());
    DFunc u = input("u", Float(32), {1001}, Sliced(0));
    // Weights stored as nn.Linear stores them: 501 rows (32 tiles along x),
    // transposed into panels; with a dimension more (heads), 24 rows by 61
    // columns, through a transposed copy.
    DFunc linear_w = input("linear_w", Float(32), {k, 501}, Replicated());
    DFunc heads_w = input("heads_w", Float(32), {k, 24, 7}, Replicated());
    Var x("x"), y("y"), h("h");
    Halide::RDom r(0, k, "r"), f(0, features, "f");
    DFunc matmul("matmul"), sumsq("sumsq"), scaled("scaled"), rows("rows", {40, 401}),
        small("small"), linear("linear"), heads("heads");
    matmul(x, y) = 0.0f;
    matmul(x, y) += a(x, r) * b(r, y);
    linear(x, y) = 0.0f;
    linear(x, y) += linear_w(r, x) * b(r, y);
    heads(x, y, h) = 0.0f;
    heads(x, y, h) += heads_w(r, x, h) * b(r, y);
    sumsq(x) = 0.0f; // across the features: through transposed tiles
    sumsq(x) += feats(f, x) * feats(f, x);
    scaled(x) = v(x) * 2.0f + 1.0f;
    rows(x, y) = 0.0f; // 19 terms into 40 x 401 sums, outside the rows
    rows(x, y) += w(x, Halide::min(y + f, 400)) * 0.5f;
    small(x) = u(x) * 3.0f; // too little work for tasks
    p.output(matmul, Sliced(1))
        .output(sumsq, Sliced(0))
        .output(scaled, Sliced(0))
        .output(rows, Replicated())
        .output(small, Sliced(0))
        .output(linear, Sliced(1))
        .output(heads, Sliced(1));
    const LoweredProgram l = lower_for_host(p);
    // 501 x 61: a task per tile along x (each copies its panels); 70 x 61:
    // too few tiles along x, so the tiles along y in a task per thread, as
    // for 24 x 61 (heads), whose tiles along x run inside.
    CHECK(default_of(l, matmul)->tasks == "y");
    CHECK(default_of(l, linear)->tasks == "x");
    CHECK(default_of(l, heads)->tasks == "y");
    CHECK(default_of(l, sumsq)->tasks == "x");
    CHECK(default_of(l, scaled)->tasks == "x");
    CHECK(default_of(l, rows)->tasks == "y");
    const std::string dump = dump_default_schedules(l.defaults, l.analysis);
    CHECK(dump.find("its tiles along y in a task per thread of the rank\n") != std::string::npos);
    CHECK(dump.find("  linear: register tiles of 16 x ") != std::string::npos);
    CHECK(
        dump.find("linear_w copied into a panel at each tile along x, a task per tile along x\n") !=
        std::string::npos);
    CHECK(dump.find("in registers, its x in a task per thread of the rank\n") != std::string::npos);

    // Each stage's task loop is parallel, outside every other loop it runs
    // (along x, the loop over its vectors).
    std::map<std::string, Function> funcs = segment_funcs(l);
    CHECK(parallel_loop(funcs.at("matmul").definition()) == "y.y_o.y_o_task");
    CHECK(parallel_loop(funcs.at("sumsq").definition()) == "x.x.x_task");
    CHECK(parallel_loop(funcs.at("sumsq").update(0)) == "x.x.x_task");
    CHECK(parallel_loop(funcs.at("scaled").definition()) == "x.x.x_task");
    CHECK(parallel_loop(funcs.at("rows").definition()) == "y.y_task");
    CHECK(parallel_loop(funcs.at("rows").update(0)) == "y.y_task");
    CHECK(parallel_loop(funcs.at("matmul_acc").update(0)).empty()); // inside a task
    CHECK(parallel_loop(funcs.at("small").definition()).empty());
    // The transposed copy at the root: rows of tiles (and the heads) in
    // tasks. A panel is made inside the task that reads it.
    CHECK(parallel_loop(funcs.at("heads_w_im_transposed").definition()) == "c0.c0.c0_c2.c0_c2");
    CHECK(parallel_loop(funcs.at("linear_w_im_panel").definition()).empty());
    CHECK_FALSE(funcs.count("linear_w_im_transposed"));
    // 501 x 61 tiles along x outside those along y, 24 x 61 the other way;
    // the tasks outermost where there are threads: the tiles along x, or
    // the task loop over the tiles along y (outside the heads too).
    CHECK(default_of(l, linear)->y_tiles_inside);
    CHECK_FALSE(default_of(l, heads)->y_tiles_inside);
    for (const char *name : {"linear", "heads"}) {
        INFO(name);
        const Halide::Internal::Definition &one_thread = funcs.at(name).definition();
        const bool inside = std::string(name) == "linear";
        CHECK((loop_index(one_thread, "y.y_o") < loop_index(one_thread, "x.x_o")) == inside);
        REQUIRE(one_thread.specializations().size() == 1);
        const Halide::Internal::Definition &tasks = one_thread.specializations()[0].definition;
        const std::string task = inside ? "x.x_o" : "y.y_o.y_o_task";
        CHECK(parallel_loop(one_thread) == task);
        CHECK(loop_index(tasks, task) > loop_index(tasks, inside ? "y.y_o" : "x.x_o"));
        if (!inside) {
            CHECK(loop_index(tasks, task) > loop_index(tasks, "h"));
        }
    }

    // Every element is computed as on one thread: bit for bit the reference,
    // whatever the tasks (more threads than cores too).
    for (const char *threads : {"1", "2", "3"}) {
        INFO("COCONET_RANK_THREADS=" << threads);
        coconet_test::ScopedEnv env("COCONET_RANK_THREADS", threads);
        check_matches_reference(p, {1, 3, 4}, 0.0, 1, make_inputs);
    }
}

namespace {

// Norms as a global-norm clip computes them: each rank's part of a sum over
// its slice of g (100003 elements: no rank count up to 5 divides it), then an
// all_reduce. `norm2` (squares in double), `positives` (an int count) and
// `frobenius` (a matrix's squares, 1001 by 37 sliced along its rows) are
// long enough to add in parts; `short_norm2` (one step short) and `chain`
// (not associative) are not. So are a few sums along a long reduction:
// `lanes8`, 8 interleaved sums of squares of w (read along its lanes, as
// LAMB's w_lanes), and `per_layer`, a norm per layer of 3 (each layer's
// parameters contiguous).
struct Norms {
    DFunc norm2, positives, frobenius, short_norm2, chain, lanes8, per_layer;
    // Over the same steps: the largest gradient (a float max keeps its
    // order) and the largest integer (any order).
    DFunc largest, largest_int;
    Program program{"norms"};
};

Norms norms() {
    const int n = 100003;
    const int shorter = (int)DefaultSchedule::min_part_steps - 1;
    Norms s;
    DFunc g = input("g", Float(32), {n}, Sliced(0));
    DFunc h = input("h", Float(32), {shorter}, Replicated());
    DFunc matrix = input("matrix", Float(32), {1001, 37}, Sliced(1));
    const int wn = 160003; // 20001 steps of 8 lanes
    DFunc w = input("w", Float(32), {wn}, Replicated());
    DFunc layers = input("layers", Float(32), {40009, 3}, Replicated());
    Halide::RDom k(0, n, "k"), q(0, shorter, "q"), e(0, 1001, 0, 37, "e");
    const Halide::Expr gk = Halide::cast<double>(g(k));
    s.norm2 = DFunc("norm2", {});
    s.norm2() = Halide::Expr(0.0);
    s.norm2() += gk * gk;
    s.positives = DFunc("positives", {});
    s.positives() = 0;
    s.positives() += Halide::select(g(k) > 0.0f, 1, 0);
    s.frobenius = DFunc("frobenius", {});
    s.frobenius() = Halide::Expr(0.0);
    s.frobenius() += Halide::cast<double>(matrix(e.x, e.y)) * matrix(e.x, e.y);
    Var l("l"), layer("layer");
    Halide::RDom j(0, wn / 8 + 1, "j"), p(0, 40009, "p");
    const Halide::Expr wj = Halide::cast<double>(w(Halide::min(j * 8 + l, wn - 1)));
    s.lanes8 = DFunc("lanes8", {8});
    s.lanes8(l) = Halide::Expr(0.0);
    s.lanes8(l) += wj * wj;
    s.per_layer = DFunc("per_layer");
    s.per_layer(layer) = Halide::Expr(0.0);
    s.per_layer(layer) += Halide::cast<double>(layers(p, layer)) * layers(p, layer);
    s.short_norm2 = DFunc("short_norm2", {});
    s.short_norm2() = Halide::Expr(0.0);
    s.short_norm2() += Halide::cast<double>(h(q)) * h(q);
    s.chain = DFunc("chain", {});
    s.chain() = 0.0f;
    s.chain() = s.chain() * 0.5f + g(k);
    s.largest = DFunc("largest", {});
    s.largest() = Halide::Float(32).min();
    s.largest() = Halide::max(s.largest(), g(k));
    s.largest_int = DFunc("largest_int", {});
    s.largest_int() = 0;
    s.largest_int() = Halide::max(s.largest_int(), Halide::cast<int>(g(k) * 1000.0f));
    DFunc total = all_reduce(s.norm2, ReduceOp::Sum, "total");
    Var i("i");
    DFunc scaled("scaled");
    DFunc matrix_total = all_reduce(s.frobenius, ReduceOp::Sum, "matrix_total");
    scaled(i) = g(i) * Halide::cast<float>(Halide::Expr(1.0) / Halide::sqrt(total())) +
                Halide::cast<float>(Halide::Expr(1.0) / Halide::sqrt(matrix_total()));
    s.program.output(scaled, Sliced(0))
        .output(all_reduce(s.positives, ReduceOp::Sum, "positive_count"), Replicated())
        .output(s.short_norm2, Replicated())
        .output(all_reduce(s.chain, ReduceOp::Sum, "chains"), Replicated())
        .output(s.lanes8, Replicated())
        .output(s.per_layer, Replicated())
        .output(all_reduce(s.largest, ReduceOp::Max, "largest_gradient"), Replicated())
        .output(all_reduce(s.largest_int, ReduceOp::Max, "largest_integer"), Replicated());
    return s;
}

} // namespace

TEST_CASE("default schedule: a long scalar sum is added in parts, in tasks on the rank's threads",
          "[passes][default_schedule]") {
    Norms s = norms();
    const Halide::Target host = Halide::get_host_target();
    const LoweredProgram l = lower_for_host(s.program);
    const int lanes = host.natural_vector_size(Halide::Float(64));
    for (const DFunc *f :
         {&s.norm2, &s.positives, &s.frobenius, &s.lanes8, &s.per_layer, &s.largest_int}) {
        INFO(f->name());
        REQUIRE(default_of(l, *f));
        CHECK(default_of(l, *f)->part_rows > 0);
    }
    CHECK_FALSE(default_of(l, s.short_norm2));
    CHECK_FALSE(default_of(l, s.chain));
    CHECK_FALSE(default_of(l, s.largest));
    const std::string dump = dump_default_schedules(l.defaults, l.analysis);
    CHECK_THAT(dump, Catch::Contains("  norm2: added in parts of 16384 steps, each in 4 vectors "
                                     "of " +
                                     std::to_string(lanes) +
                                     " sums, the parts in tasks on the rank's threads, then in "
                                     "order: an order of additions of its own\n"));
    // The matrix in parts of 16 of its rows (16016 steps), each row in vectors.
    CHECK(default_of(l, s.frobenius)->part_rows == 16);
    CHECK_THAT(dump, Catch::Contains("  frobenius: added in parts of 16 steps of e.y, each in 4 "
                                     "vectors of "));

    // The parts' sums: a Func at the root, its parts a task each where the
    // rank has threads, its lanes a vector. Halide names it for the name of
    // the Func it splits (norm2$1_intm, or norm2_2_intm$2 where Halide made
    // that name unique first).
    std::map<std::string, Function> intms;
    for (const SpmdSegment &seg : l.spmd.segments) {
        if (seg.halide.pipeline.defined()) {
            for (const auto &[unique, fn] : pipeline_functions(seg.halide.pipeline)) {
                if (unique.find("_intm") != std::string::npos) {
                    intms.emplace(unique.substr(0, unique.find_first_of("$_")), fn);
                }
            }
        }
    }
    CHECK(intms.size() == 6);
    REQUIRE(intms.count("norm2"));
    const Function parts = intms.at("norm2");
    Halide::LoopLevel at = parts.schedule().compute_level();
    CHECK(at.lock().is_root());
    CHECK(parallel_loop(parts.update(0)) == "k$x_p");
    CHECK(has_vectorized_loop(parts.update(0)));
    CHECK(intms.count("positives"));
    REQUIRE(intms.count("frobenius"));
    CHECK(parallel_loop(intms.at("frobenius").update(0)) == "e$y_p");
    // The lanes' vectors along l, 4 such vectors in flight; the layers'
    // along each layer's parameters.
    CHECK_THAT(dump, Catch::Contains("  lanes8: vectors of " + std::to_string(lanes) +
                                     " along l, added in parts of 16384 steps, each in 4 vectors "
                                     "of sums, the parts in tasks"));
    CHECK_THAT(dump, Catch::Contains("  per_layer: added in parts of 16384 steps, each in 4 "
                                     "vectors of " +
                                     std::to_string(lanes) + " sums, the parts in tasks"));
    REQUIRE(intms.count("lanes8"));
    REQUIRE(intms.count("per"));
    CHECK(parallel_loop(intms.at("lanes8").update(0)) == "j$x_p");
    CHECK(parallel_loop(intms.at("per").update(0)) == "p$x_p");
    const Halide::Internal::Dim &vector = intms.at("lanes8").update(0).schedule().dims()[0];
    CHECK(vector.for_type == Halide::Internal::ForType::Vectorized);
    CHECK(vector.var.rfind("l.", 0) == 0);

    // Within rounding of the reference (each rank's sum in another order:
    // double sums up to about 13000 of 20000 or more terms, 1e-7 is 1e-11 of
    // them), and the same whatever the rank's threads: the parts are the
    // slice's.
    std::map<int, std::vector<RankBuffers>> first;
    for (const char *threads : {"1", "2", "3"}) {
        INFO("COCONET_RANK_THREADS=" << threads);
        coconet_test::ScopedEnv env("COCONET_RANK_THREADS", threads);
        check_matches_reference(s.program, {1, 3, 4}, 1e-7, 1, make_inputs);
        JitProgram jit(s.program);
        for (int r : {1, 3}) {
            std::vector<RankBuffers> out = jit.run_threads(r, make_inputs(s.program, r, 5), 5.0);
            if (first.count(r)) {
                CHECK(max_abs_diff(out, first.at(r)) == 0.0);
            } else {
                first[r] = out;
            }
        }
    }
    // The exact ones (the count, and the sums not in parts) bit for bit.
    Program exact("exact_norms");
    exact.output(all_reduce(s.positives, ReduceOp::Sum, "positive_count"), Replicated())
        .output(s.short_norm2, Replicated())
        .output(all_reduce(s.chain, ReduceOp::Sum, "chains"), Replicated());
    check_matches_reference(exact, {1, 3, 5}, 0.0, 1, make_inputs);

    // The float max keeps the reference's order, so its bits too where a NaN
    // is among its values (which NaN, and which values after it, win depends
    // on the order); the integer max in parts is exact in any order.
    Program maxima("maxima");
    maxima.output(all_reduce(s.largest, ReduceOp::Max, "largest_gradient"), Replicated())
        .output(all_reduce(s.largest_int, ReduceOp::Max, "largest_integer"), Replicated());
    const JitProgram jit_max(maxima);
    for (int R : {1, 3}) {
        INFO(R << " ranks");
        std::vector<RankBuffers> in = make_inputs(maxima, R, 9);
        for (int r = 0; r < R; r++) {
            Halide::Buffer<float> g = in[r].at("g");
            // The largest value before the NaN: the serial loop forgets it.
            if (g.contains(0)) {
                g(0) = 1000.0f;
            }
            if (g.contains(50000)) {
                g(50000) = std::numeric_limits<float>::quiet_NaN();
            }
        }
        const std::vector<RankBuffers> got = jit_max.run_threads(R, in, 5.0),
                                       want = Reference(maxima).run(R, in);
        for (int r = 0; r < R; r++) {
            for (const char *name : {"largest_gradient", "largest_integer"}) {
                INFO(name << " on rank " << r);
                CHECK(std::memcmp(got[r].at(name).data(), want[r].at(name).data(), 4) == 0);
            }
        }
    }
}
