#include "Random.h"

namespace coconet {

using Halide::cast;
using Halide::Expr;
using Halide::UInt;
using Halide::Internal::UIntImm;

namespace {

// murmur3's 32-bit finalizer; unsigned arithmetic wraps, so it is exact.
Expr mix(Expr h) {
    h = h ^ (h >> 16);
    h = h * UIntImm::make(UInt(32), 0x85ebca6bu);
    h = h ^ (h >> 13);
    h = h * UIntImm::make(UInt(32), 0xc2b2ae35u);
    return h ^ (h >> 16);
}

} // namespace

Expr random_uniform(Expr seed, const std::vector<Expr> &coords) {
    Expr h = mix(cast<uint32_t>(seed) ^ UIntImm::make(UInt(32), 0x9e3779b9u));
    for (const Expr &c : coords) {
        h = mix(h ^ (cast<uint32_t>(c) * UIntImm::make(UInt(32), 0x27d4eb2fu)));
    }
    // 24 random bits are exactly representable in a float.
    return cast<float>(h >> 8) * (1.0f / 16777216.0f);
}

Expr dropout(Expr value, Expr p, Expr seed, const std::vector<Expr> &coords) {
    Expr keep = random_uniform(seed, coords) >= p;
    Expr scale = cast(value.type(), 1.0f / (1.0f - cast<float>(p)));
    return Halide::select(keep, value * scale, Halide::Internal::make_zero(value.type()));
}

} // namespace coconet
