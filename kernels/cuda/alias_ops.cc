// CUDA kernels that move no data: Identity, StopGradient, Snapshot,
// Reshape, ExpandDims and Squeeze (the output is the input's device buffer,
// under a new shape where the op gives one), and Shape, Size and Rank,
// which read only the input's metadata and write their small output to host
// memory. The shape rules are the CPU kernels' (kernels/array_plan.h).
//
// The pass-through ops are registered for float, half, int64 and bool.
// int32 is left to the CPU kernels, as TensorFlow keeps int32 tensors of
// these ops in host memory: such a node is placed on the CPU.
#include <cstdint>
#include <limits>
#include <vector>

#include "core/tensor.h"
#include "kernels/array_plan.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Output 0 is input 0 viewed with `shape`.
void ShareWithShape(OpKernelContext* ctx, const StatusOr<TensorShape>& shape) {
  OP_REQUIRES_OK(ctx, shape.status());
  StatusOr<Tensor> out = ctx->input(0).Reshaped(*shape);
  OP_REQUIRES_OK(ctx, out.status());
  ctx->set_output(0, *std::move(out));
}

class CudaPassThroughOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    ctx->set_output(0, ctx->input(0));
  }

  bool IsExpensive() const override { return false; }
};

// As on the CPU: the input's buffer is taken over when nothing else holds
// it; otherwise the elements are copied on the compute stream, so later
// in-place writes to the input cannot change the snapshot.
class CudaSnapshotOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, input.shape(), &out));
    if (out->SharesBufferWith(input) || input.NumElements() == 0) return;
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
    ShareWithShape(ctx, PlanReshape(ctx->input(0).shape(), ctx->input(1)));
  }

  bool IsExpensive() const override { return false; }
};

class CudaExpandDimsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    ShareWithShape(ctx, PlanExpandDims(ctx->input(0).shape(), ctx->input(1)));
  }

  bool IsExpensive() const override { return false; }
};

class CudaSqueezeOp : public OpKernel {
 public:
  explicit CudaSqueezeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("squeeze_dims", &squeeze_dims_));
  }

  void Compute(OpKernelContext* ctx) const override {
    ShareWithShape(ctx, PlanSqueeze(ctx->input(0).shape(), squeeze_dims_));
  }

  bool IsExpensive() const override { return false; }

 private:
  std::vector<int64_t> squeeze_dims_;
};

// Writes `values` to output 0 (host memory; a vector of `n`, or a scalar
// when `scalar`) in the output's dtype; an int32 output refuses values that
// do not fit. The CPU kernels' WriteIndexOutput (kernels/cpu/shape_ops.cc,
// private there), repeated.
void WriteIndexOutput(OpKernelContext* ctx, const int64_t* values, int64_t n,
                      bool scalar, const char* what) {
  const bool is32 = ctx->expected_output_dtype(0) == DT_INT32;
  for (int64_t i = 0; i < n && is32; ++i) {
    OP_REQUIRES(ctx, values[i] <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument(
                    what, " ", values[i],
                    " does not fit the int32 output; use out_type int64"));
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(
                          0, scalar ? TensorShape() : TensorShape({n}), &out));
  for (int64_t i = 0; i < n; ++i) {
    if (is32) {
      out->data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    } else {
      out->data<int64_t>()[i] = values[i];
    }
  }
}

class CudaShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const TensorShape& shape = ctx->input(0).shape();
    WriteIndexOutput(ctx, shape.dim_sizes().data(), shape.dims(),
                     /*scalar=*/false, "a dimension of input 0 is");
  }

  bool IsExpensive() const override { return false; }
};

class CudaSizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const int64_t size = ctx->input(0).NumElements();
    WriteIndexOutput(ctx, &size, 1, /*scalar=*/true,
                     "the element count of input 0 is");
  }

  bool IsExpensive() const override { return false; }
};

class CudaRankOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const int64_t rank = ctx->input(0).dims();
    WriteIndexOutput(ctx, &rank, 1, /*scalar=*/true, "the rank is");
  }

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
