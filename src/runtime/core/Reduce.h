// Element types and typed reductions shared by every backend and matching the
// compiler's reference bit for bit: identities, the combine step, and a
// dispatch from a halide_type_t to the C++ element type.
#ifndef COCONET_RUNTIME_REDUCE_H
#define COCONET_RUNTIME_REDUCE_H

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "coconet_runtime.h"

namespace coconet_rt {

// float32/64, int8..64, uint8..64, one lane.
bool supported_type(const halide_type_t &t);
std::string type_name(const halide_type_t &t);
bool valid_reduce_op(int op);
const char *reduce_op_name(int op);

template<typename T>
T reduce_identity(int op) {
    switch (op) {
    case COCONET_PROD: return T(1);
    case COCONET_MAX:
        return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::lowest();
    case COCONET_MIN:
        return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::max();
    default: return T(0);
    }
}

template<typename T>
T reduce_combine(int op, T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        // Wrap around on overflow (what the hardware and the reference do) without
        // the undefined behaviour of signed overflow or of promotion to int.
        const uint64_t x = (uint64_t)a, y = (uint64_t)b;
        switch (op) {
        case COCONET_PROD: return (T)(x * y);
        case COCONET_MAX: return a > b ? a : b;
        case COCONET_MIN: return a < b ? a : b;
        default: return (T)(x + y);
        }
    } else {
        switch (op) {
        case COCONET_PROD: return a * b;
        case COCONET_MAX: return a > b ? a : b;
        case COCONET_MIN: return a < b ? a : b;
        default: return a + b;
        }
    }
}

// Calls f(T{}) with T the element type of t (which must be supported).
template<typename F>
void with_element_type(const halide_type_t &t, F &&f) {
    switch (t.code) {
    case halide_type_float:
        if (t.bits == 32) {
            f(float{});
        } else {
            f(double{});
        }
        return;
    case halide_type_int:
        switch (t.bits) {
        case 8: return f(int8_t{});
        case 16: return f(int16_t{});
        case 32: return f(int32_t{});
        default: return f(int64_t{});
        }
    default:
        switch (t.bits) {
        case 8: return f(uint8_t{});
        case 16: return f(uint16_t{});
        case 32: return f(uint32_t{});
        default: return f(uint64_t{});
        }
    }
}

} // namespace coconet_rt

#endif
