// erfc of floats on the AVX2 and AVX-512 paths (device/cpu_isa.h).
//
// The Erfc kernel's float loop (cwise_unary_ops_math.cc, ErfcFunctor) is
// written with Eigen's packets, whose width Eigen fixes when it is compiled:
// SSE in the portable build. Erfc is Keras 3's exact GELU, the costliest
// node of a transformer block, so the vector paths get their own loop: the
// same formula (Numerical Recipes' "erfcc" in double, erfc(z) =
// t exp(-z^2 + P(t)), t = 1 / (1 + z/2), erfc(x) = 2 - erfc(-x) for x < 0)
// with 4 or 8 doubles per vector and an exp of its own (Cody-Waite
// reduction by ln 2, degree-11 Taylor polynomial: relative error about
// 1e-15, far below the formula's 1.2e-7). Results: NaN for NaN, 0 at +inf,
// 2 at -inf, and within a float ulp or two of the baseline path's.
#ifndef WEFT_KERNELS_CPU_ERFC_FLOAT_H_
#define WEFT_KERNELS_CPU_ERFC_FLOAT_H_

#include <cstdint>

namespace weft {

// out[i] = erfc(in[i]) for i < n on the active vector path, `out` may be
// `in`; returns false, writing nothing, on the baseline path.
bool ErfcFloatOnVectorPath(const float* in, float* out, int64_t n);

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_ERFC_FLOAT_H_
