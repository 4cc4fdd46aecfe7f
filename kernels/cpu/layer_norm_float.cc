// The layer normalization rows of floats; see layer_norm_float.h.
#include "kernels/cpu/layer_norm_float.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

#include "device/cpu_isa.h"

namespace weft {
namespace {

#define WEFT_FLOAT_BODY "kernels/cpu/layer_norm_float.inc"
#include "kernels/cpu/float_paths.inc"

// The baseline path: the same operations one value at a time, the sums in
// row order.
void BaselineRows(const float* in, float* out, int64_t rows, int64_t depth,
                  const float* gamma, const float* beta, float epsilon) {
  const float d = static_cast<float>(depth);
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = in + r * depth;
    float* y = out + r * depth;
    float sum = 0;
    for (int64_t i = 0; i < depth; ++i) sum += x[i];
    const float mean = sum / d;
    float sq = 0;
    for (int64_t i = 0; i < depth; ++i) sq += (x[i] - mean) * (x[i] - mean);
    const float rs = 1.0f / std::sqrt(sq / d + epsilon);
    for (int64_t i = 0; i < depth; ++i) {
      const float s = rs * gamma[i];
      y[i] = x[i] * s + (-mean * s + beta[i]);
    }
  }
}

}  // namespace

void LayerNormFloatRows(const float* in, float* out, int64_t rows,
                        int64_t depth, const float* gamma, const float* beta,
                        float epsilon) {
  if (!RunOnVectorPath(
          [&] {
            avx512::LayerNormRowsRun(in, out, rows, depth, gamma, beta,
                                     epsilon);
          },
          [&] {
            avx2::LayerNormRowsRun(in, out, rows, depth, gamma, beta, epsilon);
          })) {
    BaselineRows(in, out, rows, depth, gamma, beta, epsilon);
  }
}

}  // namespace weft
