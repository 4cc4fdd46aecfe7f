// Exp of floats on the AVX2 and AVX-512 paths (device/cpu_isa.h), for the
// Exp kernel's float loop (cwise_unary_ops_math.cc). Its other loop is
// Eigen's packet exp, whose width Eigen fixes when it is compiled: SSE in
// the portable build, a quarter of an AVX-512 vector.
//
// vector_float.inc's Exp: e^x = 2^k e^r, k the integer nearest x / ln 2,
// e^r from a degree-7 polynomial, 2^k applied in one rounding, so results
// in the subnormal range are right too; exp(-inf) = 0, exp(x) = +inf from
// about 88.72 up, NaN gives NaN. Measured within 1 float ulp of exp in long
// double (exp_float_test.cc bounds it at 2).
#ifndef WEFT_KERNELS_CPU_EXP_FLOAT_H_
#define WEFT_KERNELS_CPU_EXP_FLOAT_H_

#include <cstdint>

namespace weft {

// out[i] = exp(in[i]) for i < n on the active vector path, `out` may be
// `in`; returns false, writing nothing, on the baseline path.
bool ExpFloatOnVectorPath(const float* in, float* out, int64_t n);

// The same on every path: the Exp kernel's float loop (the vector loop
// above, or Eigen's packets on the baseline path), for fused kernels that
// must give the node's bits (_FusedElementwise). Defined with the kernel in
// cwise_unary_ops_math.cc.
void ExpFloat(const float* in, float* out, int64_t n);

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_EXP_FLOAT_H_
