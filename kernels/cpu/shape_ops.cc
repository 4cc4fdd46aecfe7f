// Shape, Size and Rank on the CPU: the input's metadata as a small int32 or
// int64 tensor (out_type), written by kernels/common/shape_size_rank.h, which
// the CUDA kernels share. Any input dtype (TensorFlow registers them without a
// type constraint); the input's values are never read, so they run inline.
#include "kernels/common/shape_size_rank.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class ShapeOp : public OpKernel {
 public:
  explicit ShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) const override { WriteShapeOutput(ctx); }
  bool IsExpensive() const override { return false; }
};

class SizeOp : public OpKernel {
 public:
  explicit SizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) const override { WriteSizeOutput(ctx); }
  bool IsExpensive() const override { return false; }
};

class RankOp : public OpKernel {
 public:
  explicit RankOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) const override { WriteRankOutput(ctx); }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Shape").Device(DEVICE_CPU), ShapeOp);
REGISTER_KERNEL_BUILDER(Name("Size").Device(DEVICE_CPU), SizeOp);
REGISTER_KERNEL_BUILDER(Name("Rank").Device(DEVICE_CPU), RankOp);

}  // namespace
}  // namespace weft
