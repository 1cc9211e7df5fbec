// Counter-based random numbers for distributed programs: the value at a point
// depends only on (seed, global coordinates), so every rank and every schedule
// draws the same dropout mask for the same element.
#ifndef COCONET_RANDOM_H
#define COCONET_RANDOM_H

#include <vector>

#include "Halide.h"

namespace coconet {

// Uniform in [0, 1), from a hash of the seed and the coordinates.
Halide::Expr random_uniform(Halide::Expr seed, const std::vector<Halide::Expr> &coords);

// Inverted dropout: 0 with probability p, value / (1 - p) otherwise.
Halide::Expr dropout(Halide::Expr value, Halide::Expr p, Halide::Expr seed,
                     const std::vector<Halide::Expr> &coords);

} // namespace coconet

#endif
