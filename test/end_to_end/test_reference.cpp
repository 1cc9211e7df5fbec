// The reference itself, checked against plain C++ loops written from the
// algorithms' definitions, so that the oracle is not only compared with code
// that shares its analysis.
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
        auto inputs = apps::optimizer_inputs(p, ranks, 5);
        auto out = Reference(p).run(ranks, inputs);
        std::vector<float> w = gather_global({inputs[0]}, "w", {c.n});
        std::vector<float> m = gather_global(inputs, "m", {c.n});
        std::vector<float> v = gather_global(inputs, "v", {c.n});
        std::vector<float> w_new = gather_global({out[ranks - 1]}, "w_new", {c.n});
        const float bc1 = 1 - std::pow(c.beta1, 2.0f), bc2 = 1 - std::pow(c.beta2, 2.0f);
        for (int i = 0; i < c.n; i++) {
            float g = 0;
            for (int r = 0; r < ranks; r++) {
                g += Halide::Buffer<float>(inputs[r].at("g"))(i);
            }
            float m1 = c.beta1 * m[i] + (1 - c.beta1) * g;
            float v1 = c.beta2 * v[i] + (1 - c.beta2) * g * g;
            float w1 = w[i] - c.lr * (m1 / bc1) / (std::sqrt(v1 / bc2) + c.eps);
            REQUIRE(std::fabs(w_new[i] - w1) <= 1e-6f);
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
