// Host copies and reductions of a collective shared among a rank's CPU
// threads: a rank of several threads (coconet_comm::threads) moves its part
// of a large collective at the memory's bandwidth rather than one core's.
#ifndef COCONET_RUNTIME_CORE_PARTS_H
#define COCONET_RUNTIME_CORE_PARTS_H

#include <cstdint>
#include <functional>

#include "core/Box.h"

namespace coconet_rt {

// A part is at least this many bytes: smaller ones cost more to start on a
// thread than they take to copy.
constexpr int64_t kMinPartBytes = int64_t(1) << 20;

// Calls f on parts of `box` (elements of `element_bytes`) that together make
// it, split along its outermost dimension of more than one element, on up to
// `threads` threads, the caller's among them; returns when all are done. The
// bytes the other threads read are counted by the caller's ReadMeter.
void for_parts(const Box &box, int threads, int element_bytes,
               const std::function<void(const Box &)> &f);

} // namespace coconet_rt

#endif
