// Sigmoid of floats on the AVX2 and AVX-512 paths (device/cpu_isa.h).
//
// The Sigmoid kernel's float loop (cwise_unary_ops_math.cc, SigmoidFunctor)
// is written with Eigen's packets, whose width Eigen fixes when it is
// compiled: SSE in the portable build, and there Sigmoid was 60% of
// EfficientNetB0's run (its Swish activations are Sigmoid then Mul). The
// vector paths get their own loop, 8 or 16 floats wide, with the same
// formula: e = exp(-|x|), then 1 / (1 + e) for x >= 0 and e / (1 + e) for
// x < 0, so nothing cancels and tiny results keep their precision. exp is
// its own: Cody-Waite reduction by ln 2 (k = round(x / ln 2), r = x - k ln 2
// in two parts), a degree-7 Taylor polynomial on |r| <= ln 2 / 2 (truncation
// below 6e-9 relative), and 2^k applied as two factors so that results below
// the smallest normal float round once, as denormals. Results: within a few
// ulps of the exact value (the same bound as the baseline path, tested in
// cpu_cwise_unary_test.cc), exactly 0 at -inf, 1 at +inf, 0.5 at +-0, NaN
// for NaN.
#ifndef WEFT_KERNELS_CPU_SIGMOID_FLOAT_H_
#define WEFT_KERNELS_CPU_SIGMOID_FLOAT_H_

#include <cstdint>

namespace weft {

// out[i] = sigmoid(in[i]) for i < n on the active vector path, `out` may be
// `in`; returns false, writing nothing, on the baseline path.
bool SigmoidFloatOnVectorPath(const float* in, float* out, int64_t n);

// out[i] = in[i] * sigmoid(beta * in[i]), each of the three operations
// rounded as the Mul, Sigmoid and Mul nodes it stands for round them (the
// sigmoid above), as above.
bool SwishFloatOnVectorPath(const float* in, float* out, int64_t n, float beta);

// The same on every path: the Sigmoid kernel's float loop (the vector loop
// above, or SigmoidFunctor's packets on the baseline path), for fused
// kernels that must give the node's bits (_FusedElementwise). Defined with
// the kernel in cwise_unary_ops_math.cc.
void SigmoidFloat(const float* in, float* out, int64_t n);

// The same on every path: the _Swish kernel's function, which the fused
// kernels' epilogues (gemm.h's kSwish) share so that a fused swish gives the
// node's bits. On the baseline path it is the Sigmoid kernel's Eigen
// functor; defined with it in cwise_unary_ops_math.cc.
void SwishFloat(const float* in, float* out, int64_t n, float beta);

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_SIGMOID_FLOAT_H_
