// GELU of floats on the AVX2 and AVX-512 paths (device/cpu_isa.h), for the
// _Gelu kernel (gelu_op.cc) that the GELU rewrite makes
// (executor/optimizer/gelu_rule.h).
//
// Exact: x * Phi(x) = x erfc(-x / sqrt 2) / 2, with erfc from Numerical
// Recipes' erfcc formula (relative error below 1.2e-7) evaluated in float
// with the square of the argument split exactly in two, and no cancellation
// on either side of 0; the nodes it replaces took 2.1 ns per value through
// the double-precision Erfc (erfc_float.h) and four more passes. Tanh
// approximation: x (1 + tanh(y)) / 2, y = sqrt(2 / pi) (x + 0.044715 x^3),
// computed as x * sigmoid(2y) with sigmoid_float.h's sigmoid. Results are
// within a few float ulps of the exact function of the rounded input
// (gelu_float_test.cc: 6 ulps, or 6 times |x| times the smallest subnormal
// where the sigmoid or erfc is below the normal range and rounded there
// before x multiplies it), the tanh form's plus |2y| times the few roundings
// of 2y relative (for x < -3 the tanh nodes' 1 + tanh(y) cancels, losing
// far more); NaN gives NaN, +inf gives +inf, -inf gives NaN (0 * -inf, as the
// nodes give).
#ifndef WEFT_KERNELS_CPU_GELU_FLOAT_H_
#define WEFT_KERNELS_CPU_GELU_FLOAT_H_

#include <cstdint>

namespace weft {

// out[i] = gelu(in[i]) (the tanh form when `approximate`) for i < n on the
// active vector path, `out` may be `in`; returns false, writing nothing, on
// the baseline path.
bool GeluFloatOnVectorPath(const float* in, float* out, int64_t n,
                           bool approximate);

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_GELU_FLOAT_H_
