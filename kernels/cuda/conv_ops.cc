// Conv2D and DepthwiseConv2dNative on CUDA, float and half: a direct
// kernel, one thread per output element summing its window in float
// (conv_body.h), NHWC and NCHW read in place, strides, dilations and
// VALID / SAME / EXPLICIT padding. Correctness first: neither cuDNN nor a
// tiled kernel is used yet. Attrs, shapes and errors are the CPU kernels'
// (window_shape.h's ReadConvAttrs, conv_shape.h, through
// nn_plan.h).
#include "core/tensor.h"
#include "kernels/common/conv_shape.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/cuda/nn_ops_gpu.h"
#include "kernels/cuda/plan/nn_plan.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T, bool kDepthwise>
class CudaConvOp : public OpKernel {
 public:
  explicit CudaConvOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadConvAttrs(ctx, &attrs_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    gpu::ConvParams params;
    TensorShape out_shape;
    if (kDepthwise) {
      OP_REQUIRES_OK(
          ctx, PlanDepthwiseConv(attrs_, input, filter, &params, &out_shape));
    } else {
      OP_REQUIRES_OK(ctx,
                     PlanConv2D(attrs_, input, filter, &params, &out_shape));
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (output->NumElements() == 0) return;
    CudaDevice* device = CurrentCudaDevice(ctx);
    OP_REQUIRES_OK(
        ctx,
        CudaCall(gpu::LaunchConv(kDepthwise, GpuElementType<T>(), params,
                                 input.raw_data(), filter.raw_data(),
                                 output->raw_data(), device->compute_stream()),
                 kDepthwise ? "launching the depthwise convolution kernel"
                            : "launching the convolution kernel"));
  }

 private:
  WindowAttrs attrs_;
};

#define WEFT_CUDA_CONV(T)                                        \
  REGISTER_KERNEL_BUILDER(                                       \
      Name("Conv2D").Device(DEVICE_CUDA).TypeConstraint<T>("T"), \
      CudaConvOp<T, false>);                                     \
  REGISTER_KERNEL_BUILDER(Name("DepthwiseConv2dNative")          \
                              .Device(DEVICE_CUDA)               \
                              .TypeConstraint<T>("T"),           \
                          CudaConvOp<T, true>)

WEFT_CUDA_CONV(float);
WEFT_CUDA_CONV(half);

#undef WEFT_CUDA_CONV

}  // namespace
}  // namespace weft
