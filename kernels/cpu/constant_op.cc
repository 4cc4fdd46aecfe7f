// Const and Placeholder on the CPU.
//
// Const holds its attr tensor for the kernel's lifetime and outputs it
// without copying: every run shares the one buffer. Since the kernel keeps a
// reference, no consumer ever takes the buffer over (input forwarding needs
// a buffer nobody else holds), so the constant cannot be overwritten.
//
// Placeholder has nothing to compute: the session feeds its output. Its
// kernel exists so that a graph with a placeholder the caller forgot to feed
// fails with an error naming the placeholder instead of a missing kernel.
#include <string>

#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class ConstantOp : public OpKernel {
 public:
  explicit ConstantOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType dtype = DT_INVALID;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &value_));
    OP_REQUIRES(ctx, value_.IsInitialized(),
                errors::InvalidArgument("attr 'value' holds no tensor data"));
    OP_REQUIRES(ctx, value_.dtype() == dtype,
                errors::InvalidArgument(
                    "attr 'value' holds a ", DataTypeName(value_.dtype()),
                    " tensor but attr 'dtype' is ", DataTypeName(dtype)));
  }

  void Compute(OpKernelContext* ctx) const override {
    ctx->set_output(0, value_);
  }

  bool IsExpensive() const override { return false; }

 private:
  Tensor value_;
};

REGISTER_KERNEL_BUILDER(Name("Const").Device(DEVICE_CPU), ConstantOp);

class PlaceholderOp : public OpKernel {
 public:
  explicit PlaceholderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    PartialTensorShape shape;
    if (ctx->GetAttr("shape", &shape).ok() && !shape.unknown_rank()) {
      shape_ = shape.DebugString();
    }
  }

  void Compute(OpKernelContext* ctx) const override {
    ctx->SetStatus(errors::InvalidArgument(
        "placeholder was not fed: a value of dtype ",
        DataTypeName(output_type(0)),
        shape_.empty() ? std::string() : " and shape " + shape_,
        " must be fed for it"));
  }

  bool IsExpensive() const override { return false; }

 private:
  std::string shape_;
};

REGISTER_KERNEL_BUILDER(Name("Placeholder").Device(DEVICE_CPU), PlaceholderOp);
// PlaceholderV2, the older form (TensorFlow graphs before version 23).
REGISTER_KERNEL_BUILDER(Name("PlaceholderV2").Device(DEVICE_CPU),
                        PlaceholderOp);

}  // namespace
}  // namespace weft
