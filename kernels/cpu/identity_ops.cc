// The pass-through ops on the CPU: Identity, IdentityN, StopGradient,
// PreventGradient, PlaceholderWithDefault (its default input, when the
// session does not feed it) and Snapshot. All dtypes; none copies except
// Snapshot, and all are cheap enough to run inline.
#include <algorithm>
#include <cstring>
#include <string>

#include "core/tensor.h"
#include "kernels/common/alias_output.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Output i is input i, sharing its buffer.
class PassThroughOp : public OpKernel {
 public:
  explicit PassThroughOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      ctx->set_output(i, ctx->input(i));
    }
  }

  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Identity").Device(DEVICE_CPU), PassThroughOp);
REGISTER_KERNEL_BUILDER(Name("IdentityN").Device(DEVICE_CPU), PassThroughOp);
REGISTER_KERNEL_BUILDER(Name("StopGradient").Device(DEVICE_CPU), PassThroughOp);
REGISTER_KERNEL_BUILDER(Name("PreventGradient").Device(DEVICE_CPU),
                        PassThroughOp);
REGISTER_KERNEL_BUILDER(Name("PlaceholderWithDefault").Device(DEVICE_CPU),
                        PassThroughOp);

// A value that later in-place writes to the input cannot change: the
// input's buffer when it can be taken over, else a copy of its elements
// (kernels/common/alias_output.h, shared with the CUDA kernel).
class SnapshotOp : public OpKernel {
 public:
  explicit SnapshotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    Tensor* out = SnapshotOutputToFill(ctx);
    if (out == nullptr) return;
    const Tensor& input = ctx->input(0);
    if (input.dtype() == DT_STRING) {
      const std::string* from = input.data<std::string>();
      std::copy(from, from + input.NumElements(), out->data<std::string>());
    } else {
      std::memcpy(out->raw_data(), input.raw_data(), input.TotalBytes());
    }
  }

  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Snapshot").Device(DEVICE_CPU), SnapshotOp);

}  // namespace
}  // namespace weft
