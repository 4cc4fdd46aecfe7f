// Softmax and LogSoftmax rows of floats on the AVX2 and AVX-512 paths
// (device/cpu_isa.h).
//
// The Softmax kernel (softmax_op.cc) is written with Eigen's arrays, whose
// packet width Eigen fixes when it is compiled: SSE in the portable build,
// where a transformer's attention softmax ran at 1.5 ns per value (ONNX
// Runtime: 0.23). The vector paths get their own rows, 8 or 16 floats
// wide, with the same formula as the Eigen rows: m = the row's maximum (NaN
// if the row holds one), e_i = exp(x_i - m), softmax_i = e_i * (1 / sum e),
// log_softmax_i = (x_i - m) - log(sum e). exp is sigmoid_float.h's (a few
// ulps; exactly 0 for -inf and below about -104). The sum is taken in two
// vector accumulators then across lanes in a fixed order: each row comes out
// the same whatever the thread count. Rows holding NaN or +inf, or only
// -inf, come out all NaN, as the baseline path and TensorFlow give.
#ifndef WEFT_KERNELS_CPU_SOFTMAX_FLOAT_H_
#define WEFT_KERNELS_CPU_SOFTMAX_FLOAT_H_

#include <cstdint>

namespace weft {

// `rows` rows of `depth` > 0 floats: out = softmax(in) (log_softmax when
// `log`) on the active vector path, `out` may be `in`; returns false,
// writing nothing, on the baseline path.
bool SoftmaxFloatRowsOnVectorPath(const float* in, float* out, int64_t rows,
                                  int64_t depth, bool log);

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_SOFTMAX_FLOAT_H_
