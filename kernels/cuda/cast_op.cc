// Cast on CUDA between float, half, int32, int64 and bool, every pair, with
// the CPU kernel's results bit for bit (see kernels/cuda/cast_body.h for the
// conversions, Truncate included). The attrs and the pass-through of a cast
// to the same dtype are the CPU kernel's (kernels/common/cast_op_base.h); the
// launch is planned by PlanCast (kernels/cuda/plan/array_plan.h).
#include <vector>

#include "core/tensor.h"
#include "kernels/common/cast_op_base.h"
#include "kernels/cuda/array_ops_gpu.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/cuda/plan/array_plan.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class CudaCastOp : public CastOpBase {
 public:
  explicit CudaCastOp(OpKernelConstruction* ctx)
      : CastOpBase(ctx), plan_(PlanCast(src(), dst(), truncate())) {}

 private:
  void Convert(OpKernelContext* ctx, const Tensor& x,
               Tensor* y) const override {
    if (x.NumElements() == 0) return;
    CudaDevice* device = CurrentCudaDevice(ctx);
    OP_REQUIRES_OK(
        ctx, CudaCall(gpu::LaunchCast(plan_.src, plan_.params, x.raw_data(),
                                      y->raw_data(), x.NumElements(),
                                      device->compute_stream()),
                      "launching the Cast kernel"));
  }

  const CastPlan plan_;
};

std::vector<DataType> CudaCastTypes() {
  return {DT_BOOL, DT_INT32, DT_INT64, DT_HALF, DT_FLOAT};
}

REGISTER_KERNEL_BUILDER(Name("Cast")
                            .Device(DEVICE_CUDA)
                            .TypeConstraint("SrcT", CudaCastTypes())
                            .TypeConstraint("DstT", CudaCastTypes()),
                        CudaCastOp);

}  // namespace
}  // namespace weft
