// MaxPool and AvgPool on CUDA, float and half: one thread per output
// element walking its window (pool_body.h), NHWC and NCHW read in place,
// with the CPU kernels' semantics (pooling_ops.cc): MaxPool starts from the
// lowest finite value and skips NaNs, pools over depth alone when asked;
// AvgPool divides by the count of in-bounds elements. Attrs, shapes and
// errors are the CPU kernels' (pool_shape.h, through nn_plan.h).
#include <limits>
#include <string>

#include "core/tensor.h"
#include "kernels/common/pool_shape.h"
#include "kernels/common/window_shape.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/cuda/nn_ops_gpu.h"
#include "kernels/cuda/plan/nn_plan.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T, bool kMax>
class CudaPoolOp : public OpKernel {
 public:
  explicit CudaPoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    OP_REQUIRES(ctx, format != "NCHW_VECT_C",
                errors::InvalidArgument(
                    "data_format NCHW_VECT_C is only for qint8, which has no "
                    "CUDA kernel; use NHWC or NCHW"));
    OP_REQUIRES_OK(ctx, ReadPoolAttrs(ctx, kMax, &attrs_, &depth_window_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    gpu::PoolParams params;
    TensorShape out_shape;
    OP_REQUIRES_OK(
        ctx, PlanPool(attrs_, kMax, depth_window_,
                      static_cast<float>(std::numeric_limits<T>::lowest()),
                      input.shape(), &params, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (output->NumElements() == 0) return;
    CudaDevice* device = CurrentCudaDevice(ctx);
    OP_REQUIRES_OK(
        ctx,
        CudaCall(gpu::LaunchPool(GpuElementType<T>(), params, input.raw_data(),
                                 output->raw_data(), device->compute_stream()),
                 "launching the pooling kernel"));
  }

 private:
  WindowAttrs attrs_;
  int64_t depth_window_ = 1;
};

#define WEFT_CUDA_POOL(T)                                         \
  REGISTER_KERNEL_BUILDER(                                        \
      Name("MaxPool").Device(DEVICE_CUDA).TypeConstraint<T>("T"), \
      CudaPoolOp<T, true>);                                       \
  REGISTER_KERNEL_BUILDER(                                        \
      Name("AvgPool").Device(DEVICE_CUDA).TypeConstraint<T>("T"), \
      CudaPoolOp<T, false>)

WEFT_CUDA_POOL(float);
WEFT_CUDA_POOL(half);

#undef WEFT_CUDA_POOL

}  // namespace
}  // namespace weft
