// CUDA kernels of Softmax and LogSoftmax over the last dimension, float and
// half (computed in float, rounded once, as on the CPU). The device code is
// in reduce_ops_gpu.cu, its per-element steps in softmax_body.h; the shape
// check is the CPU kernel's (softmax_shape.h).
#include "core/tensor.h"
#include "kernels/common/softmax_shape.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/cuda/reduce_ops_gpu.h"
#include "kernels/cuda/softmax_body.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T, bool kLog>
class CudaSoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& logits = ctx->input(0);
    StatusOr<SoftmaxDims> dims = GetSoftmaxDims(logits.shape());
    OP_REQUIRES_OK(ctx, dims.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, logits.shape(), &out));
    if (logits.NumElements() == 0) return;
    const gpu::SoftmaxParams p =
        gpu::PlanSoftmax(dims->rows, dims->depth, kLog);
    CudaDevice* device = CurrentCudaDevice(ctx);
    OP_REQUIRES_OK(ctx, CudaCall(gpu::LaunchSoftmax(
                                     p, GpuElementType<T>(), logits.raw_data(),
                                     out->raw_data(), device->compute_stream()),
                                 "launching the softmax kernel"));
  }
};

#define WEFT_CUDA_SOFTMAX(T)                                         \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("Softmax").Device(DEVICE_CUDA).TypeConstraint<T>("T"),    \
      CudaSoftmaxOp<T, false>);                                      \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("LogSoftmax").Device(DEVICE_CUDA).TypeConstraint<T>("T"), \
      CudaSoftmaxOp<T, true>)

WEFT_CUDA_SOFTMAX(float);
WEFT_CUDA_SOFTMAX(half);

#undef WEFT_CUDA_SOFTMAX

}  // namespace
}  // namespace weft
