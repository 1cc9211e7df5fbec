// The reference itself, checked against plain C++ loops written from the
// algorithms' definitions, for every app and fused operator, so that the
// oracle is not only compared with code that shares its analysis.
#include <algorithm>
#include <cmath>

#include "Apps.h"
#include "TestUtil.h"

using namespace coconet;

namespace {

// A global array assembled from every rank's box of a Replicated or Sliced input.
std::vector<float> gather_global(const std::vector<RankBuffers> &ranks, const std::string &name,
                                 const std::vector<int> &extents) {
    size_t size = 1;
    for (int e : extents) {
        size *= e;
    }
    std::vector<float> out(size, 0.0f);
    for (const RankBuffers &r : ranks) {
        Halide::Buffer<float> b(r.at(name));
        b.for_each_element([&](const int *pos) {
            size_t flat = 0;
            for (int d = (int)extents.size() - 1; d >= 0; d--) {
                flat = flat * extents[d] + pos[d];
            }
            out[flat] = b(pos);
        });
    }
    return out;
}

// A global array and its extents, indexed as Halide's buffers are (dimension 0
// innermost).
struct Global {
    std::vector<float> data;
    std::vector<int> extents;

    Global(const std::vector<RankBuffers> &ranks, const std::string &name,
           const std::vector<int> &extents)
        : data(gather_global(ranks, name, extents)), extents(extents) {}
    float operator()(std::initializer_list<int> at) const {
        size_t flat = 0, stride = 1, d = 0;
        for (int i : at) {
            flat += stride * i;
            stride *= extents[d++];
        }
        return data[flat];
    }
};

// Local input `name` summed over the ranks in rank order, as the reference's
// all_reduce and reduce_scatter add.
std::vector<float> summed_over_ranks(const std::vector<RankBuffers> &inputs,
                                     const std::string &name, int n) {
    std::vector<float> sum(n, 0.0f);
    for (const RankBuffers &r : inputs) {
        Halide::Buffer<float> b(r.at(name));
        for (int i = 0; i < n; i++) {
            sum[i] += b(i);
        }
    }
    return sum;
}

// An optimizer's run by the reference on `ranks` ranks, its inputs and outputs
// as global arrays (g summed over the ranks); v and v_new where it has them.
struct OptimizerRun {
    std::vector<float> w, m, v, g, w_new, m_new, v_new;

    OptimizerRun(const Program &p, const apps::InputMaker &make, int n, int ranks, uint32_t seed) {
        auto inputs = make(p, ranks, seed);
        auto out = Reference(p).run(ranks, inputs);
        w = gather_global({inputs[0]}, "w", {n});
        m = gather_global(inputs, "m", {n});
        g = summed_over_ranks(inputs, "g", n);
        w_new = gather_global({out[ranks - 1]}, "w_new", {n});
        m_new = gather_global(out, "m_new", {n});
        if (inputs[0].count("v")) {
            v = gather_global(inputs, "v", {n});
            v_new = gather_global(out, "v_new", {n});
        }
    }
};

// Whether `got` is within `rel` of `want`, relative to max(1, |want|).
bool close(float got, float want, float rel) {
    return std::fabs(got - want) <= rel * std::max(1.0f, std::fabs(want));
}

uint32_t mix(uint32_t h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ (h >> 16);
}

float uniform(uint32_t seed, int a, int b) {
    uint32_t h = mix(seed ^ 0x9e3779b9u);
    h = mix(h ^ ((uint32_t)a * 0x27d4eb2fu));
    h = mix(h ^ ((uint32_t)b * 0x27d4eb2fu));
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

} // namespace

TEST_CASE("reference adam equals plain loops", "[reference]") {
    apps::OptimizerConfig c;
    c.n = 101;
    c.step = 2;
    Program p = apps::adam(c);
    for (int ranks : {1, 3, 4}) {
        OptimizerRun r(p, apps::optimizer_inputs, c.n, ranks, 5);
        const float bc1 = 1 - std::pow(c.beta1, 2.0f), bc2 = 1 - std::pow(c.beta2, 2.0f);
        for (int i = 0; i < c.n; i++) {
            float m1 = c.beta1 * r.m[i] + (1 - c.beta1) * r.g[i];
            float v1 = c.beta2 * r.v[i] + (1 - c.beta2) * r.g[i] * r.g[i];
            float w1 = r.w[i] - c.lr * (m1 / bc1) / (std::sqrt(v1 / bc2) + c.eps);
            REQUIRE(std::fabs(r.w_new[i] - w1) <= 1e-6f);
            REQUIRE(close(r.m_new[i], m1, 1e-6f));
            REQUIRE(close(r.v_new[i], v1, 1e-6f));
        }
    }
}

TEST_CASE("reference megatron mlp equals plain loops", "[reference]") {
    apps::MlpConfig c;
    c.batch = 2;
    c.hidden = 5;
    c.ffn = 7;
    c.dropout = 0.3f;
    Program p = apps::megatron_mlp(c);
    for (int ranks : {1, 3}) {
        auto inputs = make_inputs(p, ranks);
        auto out = Reference(p).run(ranks, inputs);
        std::vector<float> x = gather_global({inputs[0]}, "x", {c.hidden, c.batch});
        std::vector<float> w1 = gather_global(inputs, "w1", {c.ffn, c.hidden});
        std::vector<float> w2 = gather_global(inputs, "w2", {c.hidden, c.ffn});
        std::vector<float> b2 = gather_global({inputs[0]}, "b2", {c.hidden});
        std::vector<float> y = gather_global({out[0]}, "y", {c.hidden, c.batch});
        int dropped = 0;
        for (int b = 0; b < c.batch; b++) {
            std::vector<float> act(c.ffn);
            for (int f = 0; f < c.ffn; f++) {
                float s = 0;
                for (int h = 0; h < c.hidden; h++) {
                    s += w1[f + c.ffn * h] * x[h + c.hidden * b];
                }
                act[f] = 0.5f * s * (1.0f + std::tanh(0.7978845608f * (s + 0.044715f * s * s * s)));
            }
            for (int h = 0; h < c.hidden; h++) {
                float z = 0;
                for (int f = 0; f < c.ffn; f++) {
                    z += w2[h + c.hidden * f] * act[f];
                }
                const bool keep = uniform((uint32_t)c.seed, h, b) >= c.dropout;
                dropped += keep ? 0 : 1;
                float expect = x[h + c.hidden * b] + (keep ? (z + b2[h]) / (1 - c.dropout) : 0.0f);
                REQUIRE(std::fabs(y[h + c.hidden * b] - expect) <= 1e-4f);
            }
        }
        // The mask is a real mask: some of the 10 elements are dropped, not all.
        CHECK(dropped > 0);
        CHECK(dropped < c.batch * c.hidden);
    }
}

TEST_CASE("reference lamb equals plain loops", "[reference]") {
    apps::OptimizerConfig c;
    c.n = 101;
    Program p = apps::lamb(c);
    for (int ranks : {1, 3, 4}) {
        OptimizerRun r(p, apps::optimizer_inputs, c.n, ranks, 6);
        const float bc1 = 1 - c.beta1, bc2 = 1 - c.beta2; // step 1
        std::vector<float> update(c.n);
        double w_norm2 = 0, u_norm2 = 0;
        for (int i = 0; i < c.n; i++) {
            float m1 = c.beta1 * r.m[i] + (1 - c.beta1) * r.g[i];
            float v1 = c.beta2 * r.v[i] + (1 - c.beta2) * r.g[i] * r.g[i];
            REQUIRE(close(r.m_new[i], m1, 1e-6f));
            REQUIRE(close(r.v_new[i], v1, 1e-6f));
            update[i] = (m1 / bc1) / (std::sqrt(v1 / bc2) + c.eps) + c.weight_decay * r.w[i];
            u_norm2 += (double)update[i] * update[i];
            w_norm2 += (double)r.w[i] * r.w[i];
        }
        const double wn = std::sqrt(w_norm2), un = std::sqrt(u_norm2);
        const float trust = (float)(wn > 0 && un > 0 ? wn / un : 1.0);
        CHECK(trust != 1.0f); // a real ratio, not the fallback
        for (int i = 0; i < c.n; i++) {
            REQUIRE(close(r.w_new[i], r.w[i] - c.lr * trust * update[i], 1e-6f));
        }
    }
}

TEST_CASE("reference sgd_clip equals plain loops", "[reference]") {
    apps::OptimizerConfig c;
    c.n = 101;
    Program p = apps::sgd_clip(c);
    for (int ranks : {1, 3, 4}) {
        OptimizerRun r(p, make_inputs, c.n, ranks, 7);
        double norm2 = 0;
        for (float x : r.g) {
            norm2 += (double)x * x;
        }
        const double norm = std::sqrt(norm2);
        REQUIRE(norm > 1); // the clip applies
        const float scale = (float)(1.0 / norm);
        for (int i = 0; i < c.n; i++) {
            float m1 = c.beta1 * r.m[i] + scale * r.g[i];
            REQUIRE(close(r.m_new[i], m1, 1e-6f));
            REQUIRE(close(r.w_new[i], r.w[i] - c.lr * (m1 + c.weight_decay * r.w[i]), 1e-6f));
        }
    }
}

TEST_CASE("reference two-stage pipeline equals plain loops", "[reference]") {
    apps::PipelineConfig c;
    c.batch = 3;
    c.hidden = 7;
    Program p = apps::two_stage_pipeline(c);
    for (int ranks : {2, 3, 5}) {
        auto inputs = make_inputs(p, ranks, 8);
        auto out = Reference(p).run(ranks, inputs);
        const int h = c.hidden;
        Global x({inputs[0]}, "x", {h, c.batch}), w0(inputs, "w0", {h, h}),
            w1(inputs, "w1", {h, h}), y({out[ranks - 1]}, "y", {h, c.batch});
        for (int b = 0; b < c.batch; b++) {
            std::vector<float> a0(h);
            for (int o = 0; o < h; o++) {
                float s = 0;
                for (int k = 0; k < h; k++) {
                    s += w0({o, k}) * x({k, b});
                }
                a0[o] = std::max(s, 0.0f);
            }
            for (int o = 0; o < h; o++) {
                float s = 0;
                for (int k = 0; k < h; k++) {
                    s += w1({o, k}) * a0[k];
                }
                // Each rank of a stage sums its slice of k: another order.
                REQUIRE(close(y({o, b}), std::max(s, 0.0f) + a0[o], 1e-5f));
            }
        }
    }
}

TEST_CASE("reference fused operators equal plain loops", "[reference]") {
    for (int ranks : {1, 3, 4}) {
        INFO(ranks << " ranks");
        apps::EmbeddingConfig e;
        Program emb = apps::embedding_all_to_all(e);
        auto inputs = make_inputs(emb, ranks, 9);
        // Indices out of range in both directions: each wraps to a row.
        for (RankBuffers &r : inputs) {
            Halide::Buffer<int> idx(r.at("indices"));
            idx.for_each_element([&](const int *pos) {
                idx(pos) =
                    (int)(mix((uint32_t)(pos[0] + 7 * pos[1] + 131 * pos[2] + 997 * pos[3])) %
                          (4 * e.rows)) -
                    2 * e.rows;
            });
        }
        auto out = Reference(emb).run(ranks, inputs);
        Global tables(inputs, "tables", {e.dim, e.rows, e.tables});
        Halide::Buffer<int> indices(inputs[0].at("indices"));
        Global pooled(out, "pooled_a2a", {e.dim, e.tile, e.tables, e.tiles});
        for (int j = 0; j < e.tiles; j++) {
            for (int t = 0; t < e.tables; t++) {
                for (int s = 0; s < e.tile; s++) {
                    for (int d = 0; d < e.dim; d++) {
                        float sum = 0;
                        for (int k = 0; k < e.bag; k++) {
                            const int row = (indices(k, s, t, j) % e.rows + e.rows) % e.rows;
                            sum += tables({d, row, t});
                        }
                        REQUIRE(pooled({d, s, t, j}) == sum);
                    }
                }
            }
        }

        apps::GemvConfig g;
        Program gemv = apps::gemv_all_reduce(g);
        inputs = make_inputs(gemv, ranks, 10);
        out = Reference(gemv).run(ranks, inputs);
        Global w(inputs, "w", {g.tile, g.tiles, g.cols}), x(inputs, "x", {g.cols}),
            bias({inputs[0]}, "bias", {g.tile, g.tiles}), y({out[0]}, "y", {g.tile, g.tiles});
        for (int j = 0; j < g.tiles; j++) {
            for (int o = 0; o < g.tile; o++) {
                float sum = 0;
                for (int k = 0; k < g.cols; k++) {
                    sum += w({o, j, k}) * x({k});
                }
                // The ranks' partial sums over their columns: another order.
                REQUIRE(close(y({o, j}), sum + bias({o, j}), 1e-5f));
            }
        }

        apps::GemmConfig m;
        Program gemm = apps::gemm_all_to_all(m);
        inputs = make_inputs(gemm, ranks, 11);
        out = Reference(gemm).run(ranks, inputs);
        Global tokens(inputs, "tokens", {m.hidden, m.capacity, m.experts, m.tiles}),
            wm(inputs, "w", {m.out, m.hidden, m.experts}),
            routed(out, "routed", {m.out, m.capacity, m.experts, m.tiles});
        for (int j = 0; j < m.tiles; j++) {
            for (int e2 = 0; e2 < m.experts; e2++) {
                for (int s = 0; s < m.capacity; s++) {
                    for (int h = 0; h < m.out; h++) {
                        float sum = 0;
                        for (int k = 0; k < m.hidden; k++) {
                            sum += wm({h, k, e2}) * tokens({k, s, e2, j});
                        }
                        REQUIRE(routed({h, s, e2, j}) == sum);
                    }
                }
            }
        }
    }
}

// The comparison every correctness test uses: a NaN or an infinity in a run
// never passes for a finite reference, and a NaN never matches a NaN.
TEST_CASE("max_abs_diff: non-finite values never pass for the reference", "[reference]") {
    const float inf = INFINITY, nan = std::nanf("");
    auto diff = [](float got, float want) {
        Halide::Buffer<float> a(1), b(1);
        a(0) = got;
        b(0) = want;
        return max_abs_diff({{{"out", a}}}, {{{"out", b}}});
    };
    CHECK(diff(1.5f, 1.0f) == 0.5);
    CHECK(diff(nan, 1.0f) == INFINITY);
    CHECK(diff(1.0f, nan) == INFINITY);
    CHECK(diff(nan, nan) == INFINITY);
    CHECK(diff(inf, 1.0f) == INFINITY);
    CHECK(diff(-inf, 1.0f) == INFINITY);
    CHECK(diff(inf, -inf) == INFINITY);
    // A max's identity on a rank that holds no element: equal infinities agree.
    CHECK(diff(-inf, -inf) == 0.0);
}

TEST_CASE("a reference run reading outside an input fails naming the Func and the rank",
          "[reference][error]") {
    // s() += x(k + 1) reads one element past x: Halide's bounds check fails,
    // and the failure is a UserError (a std::exception), not Halide's own.
    DFunc x = input("x", Halide::Float(32), {100}, Replicated());
    Halide::RDom k(0, 100, "k");
    DFunc s("s", {});
    s() = 0.0f;
    s() += x(k + 1);
    Program p("past_the_end");
    p.output(s, Replicated());
    const std::string message =
        coconet_test::message_of<UserError>([&] { Reference(p).run(2, make_inputs(p, 2)); });
    CHECK_THAT(message, Catch::Matchers::Contains(
                            "Reference run of past_the_end: computing s on rank 0 failed"));
    CHECK_THAT(message, Catch::Matchers::Contains("Input buffer x"));
}
