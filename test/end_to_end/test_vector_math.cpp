// Math a distributed Func's definition calls, computed in vector operations
// (src/VectorMath.h) where Halide calls the C library once per lane: the
// function's accuracy over floats across its range, and that a program's
// lowered pipeline and the reference both compute exactly it.
#include <cstring>

#include "TestUtil.h"
#include "VectorMath.h"

using namespace coconet;

namespace {

float from_bits(uint32_t b) {
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}

uint32_t to_bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

// Every 127th float from 0 to 10.5 (past where tanh rounds to 1), both signs,
// and values at the ends of float's range.
std::vector<float> tanh_samples() {
    std::vector<float> v;
    for (uint32_t b = 0; b <= to_bits(10.5f); b += 127) {
        v.push_back(from_bits(b));
        v.push_back(-from_bits(b));
    }
    for (float x : {0.9f, std::nextafter(0.9f, 0.0f), 9.0f, 9.01f, 9.02f, 88.0f, 1e30f,
                    std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(),
                    std::numeric_limits<float>::min()}) {
        v.push_back(x);
        v.push_back(-x);
    }
    return v;
}

// |got - exact| in units of the last place of float at the exact value.
double ulp_error(float got, double exact) {
    float r = std::fabs((float)exact);
    double ulp = r < std::numeric_limits<float>::min() ? std::numeric_limits<float>::denorm_min()
                                                       : (double)std::nextafter(r, 2.0f) - r;
    return std::fabs(got - exact) / ulp;
}

Halide::Buffer<float> buffer_of(const std::vector<float> &v) {
    Halide::Buffer<float> b((int)v.size());
    std::copy(v.begin(), v.end(), b.data());
    return b;
}

// vector_tanh evaluated directly, vectorized.
Halide::Buffer<float> direct_tanh(const Halide::Buffer<float> &x) {
    Halide::Func f("direct_tanh");
    Halide::Var i("i");
    f(i) = vector_tanh(x(Halide::clamp(i, 0, x.width() - 1)));
    f.vectorize(i, 16);
    return f.realize({x.width()}, jit_target());
}

} // namespace

TEST_CASE("tanh of a float32 is within 1.2 units in the last place, odd, with its limits",
          "[tanh]") {
    Halide::Buffer<float> x = buffer_of(tanh_samples());
    Halide::Buffer<float> y = direct_tanh(x);
    double worst = 0;
    float worst_at = 0;
    for (int i = 0; i < x.width(); i++) {
        double e = ulp_error(y(i), std::tanh((double)x(i)));
        if (e > worst) {
            worst = e;
            worst_at = x(i);
        }
        // Odd to the bit: the samples come in pairs x, -x.
        if (i % 2 == 1) {
            REQUIRE(to_bits(y(i)) == (to_bits(y(i - 1)) ^ 0x80000000u));
        }
    }
    INFO("the largest error, at x = " << worst_at);
    CHECK(worst <= 1.2);
    CHECK(worst > 0.5); // the samples reach where it is not correctly rounded

    const float inf = std::numeric_limits<float>::infinity();
    Halide::Buffer<float> s =
        direct_tanh(buffer_of({0.0f, -0.0f, inf, -inf, std::nanf(""), 10.0f, -1e30f}));
    CHECK(to_bits(s(0)) == to_bits(0.0f));
    CHECK(to_bits(s(1)) == to_bits(-0.0f));
    CHECK(s(2) == 1.0f);
    CHECK(s(3) == -1.0f);
    CHECK(std::isnan(s(4)));
    CHECK(s(5) == 1.0f);
    CHECK(s(6) == -1.0f);
}

TEST_CASE("a program's tanh is the vector one, in the lowered program and the reference",
          "[tanh]") {
    std::vector<float> samples = tanh_samples();
    const int n = (int)samples.size();
    DFunc x = input("x", Halide::Float(32), {n}, Sliced(0));
    Halide::Var i("i");
    DFunc y("y");
    y(i) = Halide::tanh(x(i));
    Program p("tanh_program");
    p.output(y, Sliced(0));

    Halide::Buffer<float> xs = buffer_of(samples);
    Halide::Buffer<float> expected = direct_tanh(xs);
    // Halide's own tanh (the C library's) differs from it somewhere: the
    // comparison below tells which one ran.
    bool libm_differs = false;
    for (int k = 0; k < n && !libm_differs; k++) {
        libm_differs = to_bits(std::tanh(samples[k])) != to_bits(expected(k));
    }
    REQUIRE(libm_differs);

    JitProgram jit(p);
    Reference reference(p);
    for (int ranks : {1, 3}) {
        INFO(ranks << " ranks");
        std::vector<RankBuffers> inputs;
        for (int r = 0; r < ranks; r++) {
            Range slice = slice_range(n, ranks, r);
            Halide::Buffer<float> mine((int)slice.extent());
            mine.set_min(std::vector<int>{(int)slice.begin});
            mine.copy_from(xs);
            inputs.push_back(RankBuffers{{"x", mine}});
        }
        for (const auto &outputs :
             {jit.run_threads(ranks, inputs, 30.0), reference.run(ranks, inputs)}) {
            int64_t seen = 0;
            for (const RankBuffers &r : outputs) {
                Halide::Buffer<const float> out(r.at("y"));
                for (int k = out.dim(0).min(); k <= out.dim(0).max(); k++) {
                    REQUIRE(to_bits(out(k)) == to_bits(expected(k)));
                }
                seen += out.width();
            }
            CHECK(seen == n);
        }
    }
}
