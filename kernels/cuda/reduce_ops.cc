// CUDA kernels of Sum, Mean, Prod, Max and Min, float and half. The axes
// (reduction_indices, int32 or int64, negative counting from the end) stay
// in host memory and are checked and planned here as the CPU kernels do
// (StartReduction, reduction_shape.h: size-1 dimensions dropped, neighbours
// of the same kind merged); PlanGpuReduction turns the plan into kernel
// passes, and the device code is in reduce_ops_gpu.cu. Partial results are
// float for both dtypes and the output is rounded once, as on the CPU; an
// empty reduction gives the CPU's identities (NaN for Mean).
#include <vector>

#include "core/tensor.h"
#include "kernels/common/reduction_shape.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/cuda/plan/reduce_plan.h"
#include "kernels/cuda/reduce_ops_gpu.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <gpu::ReduceOp kOp, typename T>
class CudaReductionOp : public OpKernel {
 public:
  explicit CudaReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) const override {
    ReductionPlan plan;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, StartReduction(ctx, keep_dims_, &plan, &out));
    if (out == nullptr) return;
    const Tensor& in = ctx->input(0);
    const std::vector<GpuReducePass> passes =
        PlanGpuReduction(plan, in.NumElements(), out->NumElements(), kOp);
    if (passes.empty()) return;
    CudaDevice* device = CurrentCudaDevice(ctx);
    const void* src = in.raw_data();
    gpu::ElementType src_type = GpuElementType<T>();
    // Temporaries are freed in stream order, after the passes reading them.
    Tensor held;
    for (const GpuReducePass& pass : passes) {
      Tensor next;
      void* dst = out->raw_data();
      gpu::ElementType dst_type = GpuElementType<T>();
      if (!pass.params.finish) {
        OP_REQUIRES_OK(
            ctx,
            ctx->allocate_temp(
                DT_FLOAT, TensorShape({pass.params.num_outputs()}), &next));
        dst = next.raw_data();
        dst_type = gpu::ElementType::kFloat;
      }
      OP_REQUIRES_OK(
          ctx, CudaCall(gpu::LaunchReduce(pass.params, src_type, src, dst_type,
                                          dst, device->compute_stream()),
                        "launching the reduction kernel"));
      src = dst;
      src_type = dst_type;
      held = std::move(next);
    }
  }

 private:
  bool keep_dims_ = false;
};

#define WEFT_CUDA_REDUCTION(name, op, T)                        \
  REGISTER_KERNEL_BUILDER(Name(name)                            \
                              .Device(DEVICE_CUDA)              \
                              .TypeConstraint<T>("T")           \
                              .HostMemory("reduction_indices"), \
                          CudaReductionOp<gpu::ReduceOp::op, T>)
#define WEFT_CUDA_REDUCTIONS(T)          \
  WEFT_CUDA_REDUCTION("Sum", kSum, T);   \
  WEFT_CUDA_REDUCTION("Mean", kMean, T); \
  WEFT_CUDA_REDUCTION("Prod", kProd, T); \
  WEFT_CUDA_REDUCTION("Max", kMax, T);   \
  WEFT_CUDA_REDUCTION("Min", kMin, T)

WEFT_CUDA_REDUCTIONS(float);
WEFT_CUDA_REDUCTIONS(half);

#undef WEFT_CUDA_REDUCTIONS
#undef WEFT_CUDA_REDUCTION

}  // namespace
}  // namespace weft
