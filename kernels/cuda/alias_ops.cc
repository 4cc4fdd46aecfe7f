// CUDA kernels that move no data: Identity, StopGradient, Snapshot,
// Reshape, ExpandDims and Squeeze (the output is the input's device buffer,
// under a new shape where the op gives one), and Shape, Size and Rank,
// which read only the input's metadata and write their small output to host
// memory. The shape rules and outputs are the CPU kernels', shared with
// them (kernels/common/reshape_shape.h, shape_size_rank.h, alias_output.h).
//
// The pass-through ops are registered for float, half, int64 and bool.
// int32 is left to the CPU kernels, as TensorFlow keeps int32 tensors of
// these ops in host memory: such a node is placed on the CPU.
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/alias_output.h"
#include "kernels/common/reshape_shape.h"
#include "kernels/common/shape_size_rank.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class CudaPassThroughOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    ctx->set_output(0, ctx->input(0));
  }

  bool IsExpensive() const override { return false; }
};

// The elements, when the input's buffer cannot be taken over, are copied on
// the compute stream.
class CudaSnapshotOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    Tensor* out = SnapshotOutputToFill(ctx);
    if (out == nullptr) return;
    const Tensor& input = ctx->input(0);
    CudaDevice* device = CurrentCudaDevice(ctx);
    OP_REQUIRES_OK(
        ctx, CudaCall(cudaMemcpyAsync(
                          out->raw_data(), input.raw_data(), input.TotalBytes(),
                          cudaMemcpyDeviceToDevice, device->compute_stream()),
                      "copying the Snapshot"));
  }

  bool IsExpensive() const override { return false; }
};

class CudaReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    ForwardInputWithShape(
        ctx, 0, GetReshapeShape(ctx->input(0).shape(), ctx->input(1)));
  }

  bool IsExpensive() const override { return false; }
};

class CudaExpandDimsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    ForwardInputWithShape(
        ctx, 0, GetExpandDimsShape(ctx->input(0).shape(), ctx->input(1)));
  }

  bool IsExpensive() const override { return false; }
};

class CudaSqueezeOp : public OpKernel {
 public:
  explicit CudaSqueezeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
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

// Output 0 is in host memory (see the registrations).
class CudaShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) const override { WriteShapeOutput(ctx); }
  bool IsExpensive() const override { return false; }
};

class CudaSizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) const override { WriteSizeOutput(ctx); }
  bool IsExpensive() const override { return false; }
};

class CudaRankOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) const override { WriteRankOutput(ctx); }
  bool IsExpensive() const override { return false; }
};

std::vector<DataType> AliasTypes() {
  return {DT_FLOAT, DT_HALF, DT_INT64, DT_BOOL};
}

REGISTER_KERNEL_BUILDER(
    Name("Identity").Device(DEVICE_CUDA).TypeConstraint("T", AliasTypes()),
    CudaPassThroughOp);
REGISTER_KERNEL_BUILDER(
    Name("StopGradient").Device(DEVICE_CUDA).TypeConstraint("T", AliasTypes()),
    CudaPassThroughOp);
REGISTER_KERNEL_BUILDER(
    Name("Snapshot").Device(DEVICE_CUDA).TypeConstraint("T", AliasTypes()),
    CudaSnapshotOp);
REGISTER_KERNEL_BUILDER(Name("Reshape")
                            .Device(DEVICE_CUDA)
                            .TypeConstraint("T", AliasTypes())
                            .HostMemory("shape"),
                        CudaReshapeOp);
REGISTER_KERNEL_BUILDER(Name("ExpandDims")
                            .Device(DEVICE_CUDA)
                            .TypeConstraint("T", AliasTypes())
                            .HostMemory("dim"),
                        CudaExpandDimsOp);
REGISTER_KERNEL_BUILDER(
    Name("Squeeze").Device(DEVICE_CUDA).TypeConstraint("T", AliasTypes()),
    CudaSqueezeOp);

REGISTER_KERNEL_BUILDER(Name("Shape").Device(DEVICE_CUDA).HostMemory("output"),
                        CudaShapeOp);
REGISTER_KERNEL_BUILDER(Name("Size").Device(DEVICE_CUDA).HostMemory("output"),
                        CudaSizeOp);
REGISTER_KERNEL_BUILDER(Name("Rank").Device(DEVICE_CUDA).HostMemory("output"),
                        CudaRankOp);

}  // namespace
}  // namespace weft
