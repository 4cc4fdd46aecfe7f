// Tanh of floats on the AVX2 and AVX-512 paths (device/cpu_isa.h), for the
// Tanh kernel's float loop (cwise_unary_ops_math.cc). Its other loop is
// Eigen's packet tanh, whose width Eigen fixes when it is compiled: SSE in
// the portable build, where Tanh ran at a quarter of Sigmoid's rate
// (bench/RESULTS.md section 48).
//
// With a = |x|: below 0.625, a + a^3 q(a^2), q a degree-4 polynomial fitted
// to (tanh(a) / a - 1) / a^2 on [0, 0.625] (relative error of the fit
// 4.5e-9, a thirteenth of a float ulp); from 0.625 up, (1 - e) / (1 + e)
// with e = e^(-2a) (vector_float.inc's exp), where 1 - e is at least 0.71
// and does not cancel; the sign of x put back. Measured within 1.5 float
// ulps of tanh in long double on every 97th float of either sign
// (tanh_float_test.cc bounds it at 3); tanh(+-0) = +-0, tanh(+-inf) = +-1,
// NaN gives NaN.
#ifndef WEFT_KERNELS_CPU_TANH_FLOAT_H_
#define WEFT_KERNELS_CPU_TANH_FLOAT_H_

#include <cstdint>

namespace weft {

// out[i] = tanh(in[i]) for i < n on the active vector path, `out` may be
// `in`; returns false, writing nothing, on the baseline path.
bool TanhFloatOnVectorPath(const float* in, float* out, int64_t n);

// The same on every path: the Tanh kernel's float loop (the vector loop
// above, or Eigen's packets on the baseline path), for fused kernels that
// must give the node's bits (_FusedElementwise). Defined with the kernel in
// cwise_unary_ops_math.cc.
void TanhFloat(const float* in, float* out, int64_t n);

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_TANH_FLOAT_H_
