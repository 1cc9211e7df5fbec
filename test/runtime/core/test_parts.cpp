// for_parts (runtime/core/Parts.h): the parts of a box cover it once, split
// along its outermost dimension of more than one element, on as many threads
// as asked where each part is large enough, and the bytes the helper threads
// read are counted by the caller's ReadMeter.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "core/Parts.h"
#include "core/ReadMeter.h"

using coconet_rt::Box;

namespace {

struct Seen {
    std::mutex mutex;
    std::vector<Box> parts;
    std::set<std::thread::id> threads;
};

// The parts for_parts gives `box`, after checking that they tile it.
std::vector<Box> parts_of(const Box &box, int threads, int element_bytes) {
    Seen seen;
    coconet_rt::for_parts(box, threads, element_bytes, [&](const Box &part) {
        std::lock_guard<std::mutex> lock(seen.mutex);
        seen.parts.push_back(part);
        seen.threads.insert(std::this_thread::get_id());
    });
    CHECK(seen.threads.size() == seen.parts.size());
    int64_t count = 0;
    for (const Box &p : seen.parts) {
        CHECK(box.contains(p));
        count += p.count();
        for (const Box &q : seen.parts) {
            CHECK((&p == &q || coconet_rt::intersect(p, q).empty()));
        }
    }
    CHECK(count == box.count());
    return seen.parts;
}

} // namespace

TEST_CASE("for_parts: parts of a megabyte or more, one per thread, that tile the box",
          "[runtime]") {
    const int64_t floats = coconet_rt::kMinPartBytes / 4;
    // 1-D: as many parts as threads while each holds a megabyte.
    CHECK(parts_of(Box{1, {5}, {3 * floats + 7}}, 4, 4).size() == 3);
    CHECK(parts_of(Box{1, {0}, {3 * floats}}, 2, 4).size() == 2);
    CHECK(parts_of(Box{1, {0}, {3 * floats}}, 1, 4).size() == 1);
    CHECK(parts_of(Box{1, {0}, {floats - 1}}, 8, 4).size() == 1);
    CHECK(parts_of(Box{1, {0}, {floats}}, 8, 8).size() == 2); // doubles
    // N-D: along the outermost dimension of more than one element.
    for (const Box &p : parts_of(Box{3, {0, 3, 0}, {1024, 700, 1}}, 3, 4)) {
        CHECK(p.extent[0] == 1024);
        CHECK(p.extent[2] == 1);
    }
    CHECK(parts_of(Box{2, {0, 0}, {floats * 4, 2}}, 8, 4).size() == 2);
    // A scalar and an empty box: one call.
    CHECK(parts_of(Box{}, 4, 4).size() == 1);
    CHECK(parts_of(coconet_rt::no_box(2), 4, 4).size() == 1);
}

TEST_CASE("for_parts: the helper threads' reads count in the caller's meter", "[runtime]") {
    std::vector<float> data(coconet_rt::kMinPartBytes); // four megabytes
    halide_dimension_t dim(0, (int32_t)data.size(), 1);
    halide_buffer_t buf{};
    buf.host = reinterpret_cast<uint8_t *>(data.data());
    buf.type = halide_type_t(halide_type_float, 32);
    buf.dimensions = 1;
    buf.dim = &dim;
    coconet_rt::ReadMeter meter;
    std::atomic<int> calls{0};
    coconet_rt::for_parts(coconet_rt::box_of(&buf), 4, 4, [&](const Box &part) {
        calls++;
        coconet_rt::ReadMeter::count(&data[part.min[0]], part.extent[0] * 4);
    });
    CHECK(calls == 4);
    CHECK(meter.bytes_from(&buf) == data.size() * 4);
}
