// The constants of TensorFlow's element-wise activations for dtype T,
// rounded to T as TensorFlow's kernel for T sees them, shared by the
// kernels on every device (kernels/cpu/cwise_unary_ops_activation.cc, and
// through kernels/cuda/plan/cwise_plan.h the CUDA kernels) so that both
// compute with the same values. Header-only: templates on T.
#ifndef WEFT_KERNELS_COMMON_ACTIVATION_CONSTANTS_H_
#define WEFT_KERNELS_COMMON_ACTIVATION_CONSTANTS_H_

#include <Eigen/Core>

namespace weft {

// Selu's scale and scale * alpha (Klambauer et al.), as TensorFlow's
// static_cast<T> of its constants.
template <typename T>
T SeluScale() {
  return static_cast<T>(1.0507009873554804934193349852946);
}
template <typename T>
T SeluNegativeScale() {
  return static_cast<T>(1.7580993408473768599402175208123);
}

// Softplus's threshold: log(epsilon) + 2 in T's own arithmetic, as
// TensorFlow computes it. Eigen's epsilon for half is 2^-13 (not 2^-10), so
// half's threshold is -7.0078125; bfloat16's is -2.84375, float's
// -13.942385, double's -34.043653.
template <typename T>
T SoftplusThreshold() {
  return T(Eigen::numext::log(Eigen::NumTraits<T>::epsilon())) + T(2);
}

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_ACTIVATION_CONSTANTS_H_
