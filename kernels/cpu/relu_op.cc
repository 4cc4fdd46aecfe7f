// Relu and Relu6 on the CPU: max(x, 0) and min(max(x, 0), 6). A NaN input
// gives NaN and -0 stays -0, as in TensorFlow. The output takes over the
// input's buffer when nothing else holds it.
#include <cstdint>

#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Written as selects rather than max/min: x < 0 is false for NaN and for
// -0, so both pass through unchanged as in TensorFlow, and compilers
// vectorize the loop as a compare and blend.
template <typename T>
struct Relu {
  static void Apply(const T* in, T* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const T x = in[i];
      out[i] = x < T(0) ? T(0) : x;
    }
  }
};

template <typename T>
struct Relu6 {
  static void Apply(const T* in, T* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const T x = in[i];
      out[i] = x < T(0) ? T(0) : (x > T(6) ? T(6) : x);
    }
  }
};

template <typename T, typename Activation>
class ActivationOp : public OpKernel {
 public:
  explicit ActivationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& features = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, features.shape(), &out));
    const T* in = features.data<T>();
    T* o = out->data<T>();
    ctx->ParallelFor(features.NumElements(), 4,
                     [&](int64_t begin, int64_t end) {
                       Activation::Apply(in + begin, o + begin, end - begin);
                     });
  }
};

#define WEFT_REGISTER_ACTIVATION(op, activation, T)                           \
  REGISTER_KERNEL_BUILDER(Name(op).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          ActivationOp<T, activation<T>>)

#define WEFT_REGISTER_ACTIVATION_TYPES(op, activation) \
  WEFT_REGISTER_ACTIVATION(op, activation, half);      \
  WEFT_REGISTER_ACTIVATION(op, activation, bfloat16);  \
  WEFT_REGISTER_ACTIVATION(op, activation, float);     \
  WEFT_REGISTER_ACTIVATION(op, activation, double);    \
  WEFT_REGISTER_ACTIVATION(op, activation, int32_t);   \
  WEFT_REGISTER_ACTIVATION(op, activation, int64_t)

WEFT_REGISTER_ACTIVATION_TYPES("Relu", Relu);
WEFT_REGISTER_ACTIVATION_TYPES("Relu6", Relu6);

#undef WEFT_REGISTER_ACTIVATION_TYPES
#undef WEFT_REGISTER_ACTIVATION

}  // namespace
}  // namespace weft
