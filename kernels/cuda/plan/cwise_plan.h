// The constants of the CUDA element-wise kernels (kernels/cuda/cwise_body.h)
// for dtype T: the CPU kernels' own (kernels/common/activation_constants.h) in
// the float the device computes in. Header-only and free of CUDA, so that the
// OpKernel classes (kernels/cuda/cwise_ops.cc) and the host tests
// (tests/kernels/cuda_cwise_body_test.cc) make the same values.
#ifndef WEFT_KERNELS_CUDA_PLAN_CWISE_PLAN_H_
#define WEFT_KERNELS_CUDA_PLAN_CWISE_PLAN_H_

#include "core/types.h"
#include "kernels/common/activation_constants.h"
#include "kernels/cuda/cwise_body.h"

namespace weft {

// `alpha` is LeakyRelu's attr (unused by the other ops).
template <typename T>
gpu::UnaryParams MakeGpuUnaryParams(float alpha) {
  gpu::UnaryParams p;
  // Rounded to T, as the CPU kernel rounds it.
  p.alpha = static_cast<float>(static_cast<T>(alpha));
  p.neg_scale = static_cast<float>(SeluNegativeScale<T>());
  p.scale = static_cast<float>(SeluScale<T>());
  p.threshold = static_cast<float>(SoftplusThreshold<T>());
  return p;
}

}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_PLAN_CWISE_PLAN_H_
