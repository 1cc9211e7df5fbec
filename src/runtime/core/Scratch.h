// Memory for a call's short-lived bookkeeping (argument lists, buffer
// views, the executor's tables): a block inside the object that holds it
// (on the stack), then the heap, all given back at once when it goes. A
// call of an AOT program made about 25 small heap allocations, 20-40 ns
// each; with these, the common calls make none. A Scratch serves one
// thread: a function that may run on an overlapped producer's thread keeps
// one of its own.
#ifndef COCONET_RUNTIME_SCRATCH_H
#define COCONET_RUNTIME_SCRATCH_H

#include <cstddef>
#include <memory_resource>
#include <vector>

namespace coconet_rt {

template<size_t N>
class Scratch : public std::pmr::monotonic_buffer_resource {
public:
    // The base only records where the block is; nothing reads it yet.
    Scratch() : std::pmr::monotonic_buffer_resource(block_, N) {}
    Scratch(const Scratch &) = delete;
    Scratch &operator=(const Scratch &) = delete;

private:
    alignas(std::max_align_t) std::byte block_[N];
};

// A vector whose memory comes from a Scratch (or any memory resource).
template<typename T>
using ScratchVector = std::pmr::vector<T>;

} // namespace coconet_rt

#endif
