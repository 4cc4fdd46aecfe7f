// Cast on CUDA between float, half, int32, int64 and bool, every pair, with
// the CPU kernel's results bit for bit (see kernels/cuda/cast_body.h for the
// conversions, Truncate included). A cast to the same dtype passes the
// input through.
#include <vector>

#include "core/tensor.h"
#include "kernels/cuda/array_ops_gpu.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

gpu::CastType ToCastType(DataType dt) {
  switch (dt) {
    case DT_BOOL:
      return gpu::CastType::kBool;
    case DT_INT32:
      return gpu::CastType::kInt32;
    case DT_INT64:
      return gpu::CastType::kInt64;
    case DT_HALF:
      return gpu::CastType::kHalf;
    default:
      return gpu::CastType::kFloat;
  }
}

class CudaCastOp : public OpKernel {
 public:
  explicit CudaCastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType src, dst;
    bool truncate = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Truncate", &truncate));
    identity_ = src == dst;
    src_ = ToCastType(src);
    params_.dst = ToCastType(dst);
    // The CPU kernel honours Truncate only where the destination has fewer
    // mantissa bits than a floating source; among these dtypes that is
    // float -> half.
    params_.truncate = truncate && src == DT_FLOAT && dst == DT_HALF;
  }

  bool IsExpensive() const override { return !identity_; }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    if (identity_) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    if (x.NumElements() == 0) return;
    CudaDevice* device = CurrentCudaDevice(ctx);
    OP_REQUIRES_OK(ctx, CudaCall(gpu::LaunchCast(src_, params_, x.raw_data(),
                                                 y->raw_data(), x.NumElements(),
                                                 device->compute_stream()),
                                 "launching the Cast kernel"));
  }

 private:
  bool identity_ = false;
  gpu::CastType src_ = gpu::CastType::kFloat;
  gpu::CastParams params_;
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
