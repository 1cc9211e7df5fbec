#include "core/Parts.h"

#include <algorithm>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "core/ReadMeter.h"

namespace coconet_rt {

void for_parts(const Box &box, int threads, int element_bytes,
               const std::function<void(const Box &)> &f) {
    int d = box.dims - 1;
    while (d > 0 && box.extent[d] <= 1) {
        d--;
    }
    const int64_t by_size = box.count() * element_bytes / kMinPartBytes;
    const int parts =
        d < 0 ? 1 : (int)std::min<int64_t>({(int64_t)threads, by_size, box.extent[d]});
    if (parts <= 1) {
        f(box);
        return;
    }
    auto part = [&](int k) {
        Box b = box;
        b.min[d] = box.min[d] + box.extent[d] * k / parts;
        b.extent[d] = box.min[d] + box.extent[d] * (k + 1) / parts - b.min[d];
        return b;
    };
    std::vector<ReadMeter::Reads> reads(parts);
    std::vector<std::thread> helpers;
    int k = 1;
    try {
        for (; k < parts; k++) {
            helpers.emplace_back([&, k] {
                ReadMeter meter;
                f(part(k));
                reads[k] = meter.reads();
            });
        }
    } catch (const std::system_error &) {
        // No thread to be had: the caller does the rest.
    }
    for (int rest = k; rest < parts; rest++) {
        f(part(rest));
    }
    f(part(0));
    for (std::thread &t : helpers) {
        t.join();
    }
    for (const ReadMeter::Reads &r : reads) {
        for (const auto &[at, bytes] : r) {
            ReadMeter::count(at, bytes);
        }
    }
}

} // namespace coconet_rt
