// Fill, ZerosLike and OnesLike on CUDA: one fill kernel per element size
// (slice_ops_gpu.cu) writing a bit pattern the host prepared. Fill's dims
// and value are HostMemory, so the value is read on the host and passed by
// value instead of being read from device memory by every thread.
#include "core/tensor.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/cuda/plan/movement_plan.h"
#include "kernels/cuda/slice_ops_gpu.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

void FillOutput(OpKernelContext* ctx, const Tensor& out, uint64_t bits) {
  if (out.NumElements() == 0) return;
  CudaDevice* device = CurrentCudaDevice(ctx);
  OP_REQUIRES_OK(
      ctx, CudaCall(gpu::LaunchFill(static_cast<int>(DataTypeSize(out.dtype())),
                                    bits, out.raw_data(), out.NumElements(),
                                    device->compute_stream()),
                    "launching the fill kernel"));
}

class CudaFillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    StatusOr<GpuFillPlan> plan = PlanGpuFill(ctx->input(0), ctx->input(1));
    OP_REQUIRES_OK(ctx, plan.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan->shape, &out));
    FillOutput(ctx, *out, plan->value_bits);
  }
};

// ZerosLike (bits 0) and OnesLike (the bits of one in T, found once).
class CudaFillLikeOp : public OpKernel {
 public:
  explicit CudaFillLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->def().op == "OnesLike") {
      StatusOr<uint64_t> one = OneBits(ctx->input_type(0));
      OP_REQUIRES_OK(ctx, one.status());
      bits_ = *one;
    }
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &out));
    FillOutput(ctx, *out, bits_);
  }

 private:
  uint64_t bits_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("Fill")
                            .Device(DEVICE_CUDA)
                            .TypeConstraint("T", CudaMovementTypes())
                            .HostMemory("dims")
                            .HostMemory("value"),
                        CudaFillOp);
REGISTER_KERNEL_BUILDER(Name("ZerosLike")
                            .Device(DEVICE_CUDA)
                            .TypeConstraint("T", CudaMovementTypes()),
                        CudaFillLikeOp);
REGISTER_KERNEL_BUILDER(Name("OnesLike")
                            .Device(DEVICE_CUDA)
                            .TypeConstraint("T", CudaMovementTypes()),
                        CudaFillLikeOp);

}  // namespace
}  // namespace weft
