// The constants of the CUDA element-wise kernels (kernels/cuda/cwise_body.h)
// for dtype T, rounded to T as the CPU kernels round them
// (kernels/cpu/cwise_unary_ops_activation.cc). Header-only and free of CUDA,
// so that the OpKernel classes (kernels/cuda/cwise_ops.cc) and the host
// tests (tests/kernels/cuda_cwise_body_test.cc) make the same values.
#ifndef WEFT_KERNELS_CWISE_GPU_PARAMS_H_
#define WEFT_KERNELS_CWISE_GPU_PARAMS_H_

#include <Eigen/Core>

#include "core/types.h"
#include "kernels/cuda/cwise_body.h"

namespace weft {

// `alpha` is LeakyRelu's attr (unused by the other ops).
template <typename T>
gpu::UnaryParams MakeGpuUnaryParams(float alpha) {
  gpu::UnaryParams p;
  auto rounded = [](double v) { return static_cast<float>(static_cast<T>(v)); };
  p.alpha = rounded(alpha);
  // TensorFlow's Selu constants: scale * alpha and scale (Klambauer et al.).
  p.neg_scale = rounded(1.7580993408473768599402175208123);
  p.scale = rounded(1.0507009873554804934193349852946);
  // log(epsilon) + 2 in T's own arithmetic, as the CPU kernel (TensorFlow)
  // computes it; -7.0078125 for half, -13.942385 for float.
  p.threshold = static_cast<float>(
      T(Eigen::numext::log(Eigen::NumTraits<T>::epsilon())) + T(2));
  return p;
}

}  // namespace weft

#endif  // WEFT_KERNELS_CWISE_GPU_PARAMS_H_
