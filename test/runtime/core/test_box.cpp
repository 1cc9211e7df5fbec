// Boxes over halide_buffer_t (runtime/core/Box.h): which leading dimensions of a
// box form runs of consecutive elements in given buffers, the runs
// for_each_row visits, and copy_box over runs and over strided rows, against
// an element-by-element copy.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "core/Box.h"

using coconet_rt::Box;

namespace {

// A dense float buffer holding `box` (global coordinates), element k = base + k.
struct Dense {
    std::vector<float> data;
    halide_dimension_t dim[coconet_rt::kMaxDims];
    halide_buffer_t buf{};

    Dense(const Dense &) = delete; // buf points into it
    Dense &operator=(const Dense &) = delete;

    Dense(const Box &box, float base) {
        int64_t stride = 1;
        for (int d = 0; d < box.dims; d++) {
            dim[d] =
                halide_dimension_t((int32_t)box.min[d], (int32_t)box.extent[d], (int32_t)stride);
            stride *= box.extent[d];
        }
        data.resize((size_t)stride);
        for (size_t k = 0; k < data.size(); k++) {
            data[k] = base + (float)k;
        }
        buf.host = reinterpret_cast<uint8_t *>(data.data());
        buf.type = halide_type_t(halide_type_float, 32);
        buf.dimensions = box.dims;
        buf.dim = dim;
    }
    float at(const int64_t *x) const {
        return *reinterpret_cast<const float *>(coconet_rt::element_address(&buf, x));
    }
};

Box make_box(std::vector<int64_t> min, std::vector<int64_t> extent) {
    Box b;
    b.dims = (int)min.size();
    for (int d = 0; d < b.dims; d++) {
        b.min[d] = min[d];
        b.extent[d] = extent[d];
    }
    return b;
}

// Every element of `box` in dst equals src's; every other element of dst
// keeps `untouched + its index`.
void check_copied(const Dense &src, const Dense &dst, const Box &box, float untouched) {
    const Box whole = coconet_rt::box_of(&dst.buf);
    int64_t wrong = 0;
    coconet_rt::for_each_row(whole, [&](const int64_t *x, int64_t n) {
        int64_t p[coconet_rt::kMaxDims] = {x[0], x[1], x[2], x[3]};
        for (int64_t k = 0; k < n; k++, p[0]++) {
            bool inside = true;
            for (int d = 0; d < box.dims; d++) {
                inside = inside && p[d] >= box.min[d] && p[d] < box.min[d] + box.extent[d];
            }
            const float expected =
                inside ? src.at(p) : untouched + (float)coconet_rt::element_offset(&dst.buf, p);
            wrong += dst.at(p) == expected ? 0 : 1;
        }
    });
    CHECK(wrong == 0);
}

} // namespace

TEST_CASE("leading dimensions a box spans whole join one run", "[runtime][box]") {
    // (dim 8, samples 12, tables 3): a slice of samples spans dim whole.
    const Dense value(make_box({0, 0, 0}, {8, 12, 3}), 0);
    const Box samples = make_box({0, 4, 0}, {8, 4, 3});
    CHECK(coconet_rt::run_dims(samples, {&value.buf}) == 2);
    // A slice of dim does not: rows along it only.
    CHECK(coconet_rt::run_dims(make_box({0, 0, 0}, {4, 12, 3}), {&value.buf}) == 1);
    // The whole value is one run; a box holding one sample per table too
    // spans dim, so samples join but tables do not.
    CHECK(coconet_rt::run_dims(make_box({0, 0, 0}, {8, 12, 3}), {&value.buf}) == 3);
    CHECK(coconet_rt::run_dims(make_box({0, 5, 0}, {8, 1, 3}), {&value.buf}) == 2);
    // Another buffer holding only the slice: both must agree.
    const Dense slice(samples, 0);
    CHECK(coconet_rt::run_dims(samples, {&value.buf, &slice.buf}) == 2);
    const Dense wider(make_box({0, 0, 0}, {9, 12, 3}), 0); // dim padded to 9
    CHECK(coconet_rt::run_dims(samples, {&value.buf, &wider.buf}) == 1);
    // Padded strides: dim spanned whole, but a sample starts 9 elements on.
    Dense padded(make_box({0, 0, 0}, {8, 12, 3}), 0);
    padded.dim[1].stride = 9;
    padded.dim[2].stride = 9 * 12;
    CHECK(coconet_rt::run_dims(samples, {&padded.buf}) == 1);
    // A 0-D box has no dimension to run along.
    CHECK(coconet_rt::run_dims(Box{}, {&value.buf}) == 0);

    // for_each_row visits the runs: one per table of 32 elements.
    std::vector<std::pair<int64_t, int64_t>> runs; // (table, length)
    coconet_rt::for_each_row(
        samples, [&](const int64_t *x, int64_t n) { runs.emplace_back(x[2], n); }, 2);
    CHECK(runs == std::vector<std::pair<int64_t, int64_t>>{{0, 32}, {1, 32}, {2, 32}});
    int64_t visited = 0;
    coconet_rt::for_each_row(
        samples, [&](const int64_t *, int64_t n) { visited += n; }, 0);
    CHECK(visited == samples.count());
    int rows = 0;
    coconet_rt::for_each_row(samples, [&](const int64_t *, int64_t n) { rows += n == 8 ? 1 : 0; });
    CHECK(rows == 4 * 3);
}

TEST_CASE("copy_box copies runs, rows and strided rows alike", "[runtime][box]") {
    const Dense src(make_box({0, 0, 0, 0}, {8, 12, 3, 2}), 0);
    for (const Box &box :
         {make_box({0, 4, 0, 0}, {8, 5, 3, 2}), // runs of 40
          make_box({2, 4, 1, 1}, {5, 7, 2, 1}), // rows of 5
          make_box({1, 1, 0, 0}, {3, 4, 3, 2}), // rows of 3, stepping in three dimensions
          make_box({0, 0, 0, 0}, {8, 12, 3, 2}), make_box({0, 3, 0, 0}, {0, 2, 1, 1})}) {
        INFO("box " << box.to_string());
        // Into a buffer of the same shape, and into one holding the box alone.
        Dense same(coconet_rt::box_of(&src.buf), 1000);
        coconet_rt::copy_box(&src.buf, &same.buf, box);
        check_copied(src, same, box, 1000);
        if (!box.empty()) {
            Dense alone(box, 5000);
            coconet_rt::copy_box(&src.buf, &alone.buf, box);
            check_copied(src, alone, box, 5000);
        }
    }
    // Strided along dimension 0 (every other element of a wider row).
    std::vector<float> wide(2 * 8 * 4);
    for (size_t k = 0; k < wide.size(); k++) {
        wide[k] = (float)k;
    }
    halide_dimension_t dims[2] = {{0, 8, 2}, {0, 4, 16}};
    halide_buffer_t strided{};
    strided.host = reinterpret_cast<uint8_t *>(wide.data());
    strided.type = halide_type_t(halide_type_float, 32);
    strided.dimensions = 2;
    strided.dim = dims;
    const Box all = make_box({0, 0}, {8, 4});
    CHECK(coconet_rt::run_dims(all, {&strided}) == 1);
    Dense out(all, -1);
    coconet_rt::copy_box(&strided, &out.buf, all);
    int64_t wrong = 0;
    for (int64_t y = 0; y < 4; y++) {
        for (int64_t x = 0; x < 8; x++) {
            const int64_t p[2] = {x, y};
            wrong += out.at(p) == wide[(size_t)(2 * x + 16 * y)] ? 0 : 1;
        }
    }
    CHECK(wrong == 0);
}
