// Math functions a CoCoNet program computes in operations that every target
// vectorizes, where Halide's own would call the C library once per lane.
// Rebuilding a distributed Func's definitions (Rebuild.h) puts them in place
// of Halide's calls, so the lowered program and the reference compute the
// same bits.
#ifndef COCONET_VECTOR_MATH_H
#define COCONET_VECTOR_MATH_H

#include "Halide.h"

namespace coconet {

// tanh of a float32 Expr, within 1.2 units in the last place of the exact
// value for every float (test_vector_math), odd, tanh(+-0) = +-0, +-1 from
// |x| of about 9.01 on, NaN for NaN.
Halide::Expr vector_tanh(const Halide::Expr &x);

} // namespace coconet

#endif
