// Reshape, ExpandDims and Squeeze on the CPU: the output is the input's
// buffer under a new shape, never a copy, for every dtype (TensorFlow
// registers these without a type constraint). The shapes follow the
// contracts in kernels/common/reshape_shape.h, which the CUDA kernels share.
// They only compute a shape, so they run inline.
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/alias_output.h"
#include "kernels/common/reshape_shape.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class ReshapeOp : public OpKernel {
 public:
  explicit ReshapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    ForwardInputWithShape(
        ctx, 0, GetReshapeShape(ctx->input(0).shape(), ctx->input(1)));
  }

  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Reshape").Device(DEVICE_CPU), ReshapeOp);

class ExpandDimsOp : public OpKernel {
 public:
  explicit ExpandDimsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    ForwardInputWithShape(
        ctx, 0, GetExpandDimsShape(ctx->input(0).shape(), ctx->input(1)));
  }

  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("ExpandDims").Device(DEVICE_CPU), ExpandDimsOp);

class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("squeeze_dims", &squeeze_dims_));
  }

  void Compute(OpKernelContext* ctx) const override {
    ForwardInputWithShape(
        ctx, 0, GetSqueezeShape(ctx->input(0).shape(), squeeze_dims_));
  }

  bool IsExpensive() const override { return false; }

 private:
  std::vector<int64_t> squeeze_dims_;
};

REGISTER_KERNEL_BUILDER(Name("Squeeze").Device(DEVICE_CPU), SqueezeOp);

}  // namespace
}  // namespace weft
