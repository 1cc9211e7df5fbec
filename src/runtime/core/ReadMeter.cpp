#include "core/ReadMeter.h"

namespace coconet_rt {

namespace {

thread_local ReadMeter *active = nullptr;

} // namespace

ReadMeter::ReadMeter() : outer_(active) {
    active = this;
}

ReadMeter::~ReadMeter() {
    active = outer_;
}

uint64_t ReadMeter::bytes_from(const halide_buffer_t *b) const {
    if (!b || !b->host) {
        return 0;
    }
    const uint8_t *begin = b->begin(), *end = b->end();
    uint64_t bytes = 0;
    for (const auto &[at, n] : reads_) {
        bytes += at >= begin && at < end ? n : 0;
    }
    return bytes;
}

void ReadMeter::count(const void *at, uint64_t bytes) {
    if (active && bytes > 0) {
        active->reads_.emplace_back(static_cast<const uint8_t *>(at), bytes);
    }
}

} // namespace coconet_rt
