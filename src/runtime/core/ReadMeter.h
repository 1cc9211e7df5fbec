// What the runtime's host copies and reductions read, counted where they
// read it: traffic counters then report the bytes that moved from a peer's
// memory, not a formula written beside the operation. A meter counts on the
// thread that made it while it lives; meters nest, the innermost counts.
#ifndef COCONET_RUNTIME_CORE_READ_METER_H
#define COCONET_RUNTIME_CORE_READ_METER_H

#include <cstdint>
#include <utility>
#include <vector>

#include "HalideRuntime.h"

namespace coconet_rt {

class ReadMeter {
public:
    ReadMeter();
    ~ReadMeter();
    ReadMeter(const ReadMeter &) = delete;
    ReadMeter &operator=(const ReadMeter &) = delete;

    // The bytes read from b's memory (its host allocation, views into it
    // included) while this meter counted.
    uint64_t bytes_from(const halide_buffer_t *b) const;

    // What this meter counted: where each read began, and its bytes.
    using Reads = std::vector<std::pair<const uint8_t *, uint64_t>>;
    const Reads &reads() const { return reads_; }

    // For the readers: `bytes` read from memory at `at`, added to the
    // thread's active meter if there is one.
    static void count(const void *at, uint64_t bytes);

private:
    Reads reads_;
    ReadMeter *outer_;
};

} // namespace coconet_rt

#endif
