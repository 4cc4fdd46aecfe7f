// Slice and StridedSlice on CUDA. begin, size, end and strides are
// HostMemory, as in TensorFlow's GPU kernels, and resolved on the host by
// the rules the CPU kernels share (kernels/common/slice_shape.h, through
// PlanGpuSlice and PlanGpuStridedSlice); the device
// runs one strided copy (slice_ops_gpu.cu). A slice that keeps all of the
// input in order shares its buffer, as on the CPU.
#include "core/tensor.h"
#include "kernels/common/slice_shape.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/cuda/plan/movement_plan.h"
#include "kernels/cuda/slice_ops_gpu.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

void EmitGpuSlice(OpKernelContext* ctx, const Tensor& input,
                  const GpuSlicePlan& plan) {
  if (plan.forward_input) {
    StatusOr<Tensor> out = input.Reshaped(plan.shape);
    OP_REQUIRES_OK(ctx, out.status());
    ctx->set_output(0, *std::move(out));
    return;
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.shape, &out));
  if (plan.shape.num_elements() == 0) return;
  CudaDevice* device = CurrentCudaDevice(ctx);
  OP_REQUIRES_OK(
      ctx,
      CudaCall(gpu::LaunchStridedCopy(
                   static_cast<int>(DataTypeSize(input.dtype())),
                   input.raw_data(), out->raw_data(), plan.shape.num_elements(),
                   plan.copy, device->compute_stream()),
               "launching the slice kernel"));
}

class CudaSliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    StatusOr<GpuSlicePlan> plan =
        PlanGpuSlice(ctx->input(0), ctx->input(1), ctx->input(2));
    OP_REQUIRES_OK(ctx, plan.status());
    EmitGpuSlice(ctx, ctx->input(0), *plan);
  }
};

class CudaStridedSliceOp : public OpKernel {
 public:
  explicit CudaStridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadStridedSliceMasks(ctx, &masks_));
  }

  void Compute(OpKernelContext* ctx) const override {
    StatusOr<GpuSlicePlan> plan = PlanGpuStridedSlice(
        ctx->input(0), ctx->input(1), ctx->input(2), ctx->input(3), masks_);
    OP_REQUIRES_OK(ctx, plan.status());
    EmitGpuSlice(ctx, ctx->input(0), *plan);
  }

 private:
  StridedSliceMasks masks_;
};

REGISTER_KERNEL_BUILDER(Name("Slice")
                            .Device(DEVICE_CUDA)
                            .TypeConstraint("T", CudaMovementTypes())
                            .HostMemory("begin")
                            .HostMemory("size"),
                        CudaSliceOp);
REGISTER_KERNEL_BUILDER(Name("StridedSlice")
                            .Device(DEVICE_CUDA)
                            .TypeConstraint("T", CudaMovementTypes())
                            .HostMemory("begin")
                            .HostMemory("end")
                            .HostMemory("strides"),
                        CudaStridedSliceOp);

}  // namespace
}  // namespace weft
