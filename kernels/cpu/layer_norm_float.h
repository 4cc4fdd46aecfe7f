// Layer normalization rows of floats, the _LayerNorm kernel's loop
// (layer_norm_op.cc; the rewrite that makes it: executor/optimizer/
// layer_norm_rule.h). Each row of D values:
//
//   mean = sum(x) / D,   var = sum((x - mean)^2) / D,
//   s_c  = rsqrt(var + epsilon) * gamma_c,
//   y_c  = x_c * s_c + ((-mean) * s_c + beta_c)
//
// the operations of the Keras nodes it replaces, each rounded as they
// round it, except the two sums, taken in vector accumulators (8 or 16
// wide on the AVX2 and AVX-512 paths, plain loops on the baseline path) and
// then across lanes in a fixed order, and the reciprocal square root, one
// division of 1 by sqrt: results agree with the nodes' within their
// rounding, and each row comes out the same at every thread count. A row
// holding NaN or inf comes out all NaN, as the nodes give.
#ifndef WEFT_KERNELS_CPU_LAYER_NORM_FLOAT_H_
#define WEFT_KERNELS_CPU_LAYER_NORM_FLOAT_H_

#include <cstdint>

namespace weft {

// `rows` rows of `depth` > 0 floats at `in` into `out` (may be `in`), with
// gamma and beta of `depth` floats.
void LayerNormFloatRows(const float* in, float* out, int64_t rows,
                        int64_t depth, const float* gamma, const float* beta,
                        float epsilon);

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_LAYER_NORM_FLOAT_H_
