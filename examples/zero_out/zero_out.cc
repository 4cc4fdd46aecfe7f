// ZeroOut, the op of TensorFlow's "create an op" guide: keeps the first
// element of a tensor and sets every other element to 0.
#include <cstdint>

#include "weft/plugin.hpp"

namespace {

using namespace weft::plugin;  // NOLINT: reads like in-tree weft code

REGISTER_OP("ZeroOut")
    .Input("to_zero: T")
    .Output("zeroed: T")
    .Attr("T: {int32, float}")
    .Doc("Keeps the first element of `to_zero` and zeroes the rest.")
    .SetShapeFn(UnchangedShape);

template <typename T>
class ZeroOutOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const Tensor input = ctx->input(0);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    const T* in = input.data<T>();
    T* out = output->data<T>();
    const int64_t n = input.NumElements();
    for (int64_t i = 1; i < n; ++i) out[i] = T(0);
    if (n > 0) out[0] = in[0];
  }
};

REGISTER_KERNEL_BUILDER(
    Name("ZeroOut").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
    ZeroOutOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    Name("ZeroOut").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    ZeroOutOp<float>);

}  // namespace
