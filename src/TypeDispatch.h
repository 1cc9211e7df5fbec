// Calls a generic lambda with a value of the C++ type matching a Halide
// element type, for code that works on type-erased buffers.
#ifndef COCONET_TYPE_DISPATCH_H
#define COCONET_TYPE_DISPATCH_H

#include <cstdint>

#include "Error.h"
#include "Halide.h"

namespace coconet {

template<typename F>
auto with_element_type(const Halide::Type &t, F &&f) {
    if (t == Halide::Float(32))
        return f(float{});
    if (t == Halide::Float(64))
        return f(double{});
    if (t == Halide::Int(8))
        return f(int8_t{});
    if (t == Halide::Int(16))
        return f(int16_t{});
    if (t == Halide::Int(32))
        return f(int32_t{});
    if (t == Halide::Int(64))
        return f(int64_t{});
    if (t == Halide::UInt(8))
        return f(uint8_t{});
    if (t == Halide::UInt(16))
        return f(uint16_t{});
    if (t == Halide::UInt(32))
        return f(uint32_t{});
    if (t == Halide::UInt(64))
        return f(uint64_t{});
    coconet_user_error
        << "Element type " << t
        << " is not supported by distributed Funcs (use float, double or an integer type).";
    return f(float{});
}

} // namespace coconet

#endif
