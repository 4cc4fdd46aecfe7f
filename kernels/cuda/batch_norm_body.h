// Per-element body of the CUDA FusedBatchNormV3 inference kernel. Compiled
// by nvcc into nn_ops_gpu.cu and by the host compiler into
// cuda_nn_body_test.cc, which compares it with the CPU kernel over every
// element. Plain C++: nothing of CUDA, weft, absl or Eigen.
#ifndef WEFT_KERNELS_CUDA_BATCH_NORM_BODY_H_
#define WEFT_KERNELS_CUDA_BATCH_NORM_BODY_H_

#include <cmath>
#include <cstdint>

#include "kernels/cuda/host_device.h"

namespace weft::gpu {

// x viewed as [outer, channels, inner]: channels last has inner = 1,
// channels first has inner = the spatial size.
struct BatchNormParams {
  int64_t channels = 0;
  int64_t inner = 1;
  float epsilon = 0.0f;
  int64_t size = 0;  // elements of x
};

// y[i] in float: (x - mean[c]) * (rsqrt(variance[c] + epsilon) * scale[c])
// + offset[c], in the CPU kernel's order of operations, with rsqrt as
// 1 / sqrt (both correctly rounded in IEEE float on either side). The
// per-channel factor is recomputed per element: the statistics live in
// device memory, and a sqrt per element costs less than another launch.
template <typename T>
WEFT_HOST_DEVICE float BatchNormOutput(const BatchNormParams& p, const T* x,
                                       const float* scale, const float* offset,
                                       const float* mean, const float* variance,
                                       int64_t i) {
  const int64_t c = (i / p.inner) % p.channels;
  const float factor = (1.0f / sqrtf(variance[c] + p.epsilon)) * scale[c];
  return (static_cast<float>(x[i]) - mean[c]) * factor + offset[c];
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_BATCH_NORM_BODY_H_
