// GatherV2 on CUDA: params and indices in device memory, axis HostMemory
// (as in TensorFlow's GPU kernel), batch_dims as the CPU kernel takes it.
//
// Out-of-range indices: the CPU kernel reports them, but here the indices
// are in device memory and checking them would cost a device-to-host copy
// and a wait on every run. Like TensorFlow's GPU kernel, an index outside
// [0, params.shape[axis]) yields zeros in its output rows instead, and the
// kernel never reads outside params (gather_body.h).
#include "core/tensor.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/cuda/plan/movement_plan.h"
#include "kernels/cuda/slice_ops_gpu.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class CudaGatherV2Op : public OpKernel {
 public:
  explicit CudaGatherV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    StatusOr<GpuGatherPlan> plan =
        PlanGpuGather(params, indices, ctx->input(2), batch_dims_);
    OP_REQUIRES_OK(ctx, plan.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan->shape, &out));
    if (plan->shape.num_elements() == 0) return;
    CudaDevice* device = CurrentCudaDevice(ctx);
    OP_REQUIRES_OK(ctx,
                   CudaCall(gpu::LaunchGather(
                                static_cast<int>(DataTypeSize(params.dtype())),
                                indices.dtype() == DT_INT64, params.raw_data(),
                                indices.raw_data(), out->raw_data(),
                                plan->shape.num_elements(), plan->gather,
                                device->compute_stream()),
                            "launching the gather kernel"));
  }

 private:
  int64_t batch_dims_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("GatherV2")
                            .Device(DEVICE_CUDA)
                            .TypeConstraint("Tparams", CudaMovementTypes())
                            .TypeConstraint("Tindices", {DT_INT32, DT_INT64})
                            .HostMemory("axis"),
                        CudaGatherV2Op);

}  // namespace
}  // namespace weft
