// FusedBatchNormV3 on CUDA in inference mode (is_training = false), x float
// or half with float statistics, NHWC / NCHW (and NDHWC / NCDHW): one
// thread per element of y (batch_norm_body.h). The other outputs are as the
// CPU kernel (fused_batch_norm_op.cc) gives them in inference: batch_mean
// and batch_variance copy mean and variance, reserve_space_1/2 are zeros,
// reserve_space_3 is a scalar 0; an empty x gives NaN batch_mean and
// batch_variance. Training (batch statistics, a reduction) is not
// implemented on CUDA and is refused when the kernel is created.
#include <cmath>
#include <limits>
#include <string>

#include "core/tensor.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/cuda/nn_ops_gpu.h"
#include "kernels/kernel_registry.h"
#include "kernels/nn_gpu_plan.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T>
class CudaFusedBatchNormV3Op : public OpKernel {
 public:
  explicit CudaFusedBatchNormV3Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
    bool is_training = true;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("is_training", &is_training));
    OP_REQUIRES(
        ctx, !is_training,
        errors::Unimplemented(
            "FusedBatchNormV3 node '", ctx->name(),
            "' has is_training=true; the CUDA kernel computes inference "
            "only (is_training=false). Run the node on the CPU, or freeze "
            "the graph for inference"));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format_));
    OP_REQUIRES(ctx,
                format_ == "NHWC" || format_ == "NDHWC" || format_ == "NCHW" ||
                    format_ == "NCDHW",
                errors::InvalidArgument(
                    "data_format '", format_,
                    "' is not supported; expected NHWC, NCHW, NDHWC or NCDHW"));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const TensorShape* stats[4];
    for (int i = 0; i < 4; ++i) stats[i] = &ctx->input(i + 1).shape();
    gpu::BatchNormParams params;
    OP_REQUIRES_OK(ctx, PlanBatchNormInference(format_, x.shape(), stats,
                                               epsilon_, &params));
    const int64_t c = params.channels;
    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    Tensor* outs[5];
    for (int i = 0; i < 4; ++i) {
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(i + 1, TensorShape({c}), &outs[i]));
    }
    OP_REQUIRES_OK(ctx, ctx->allocate_output(5, TensorShape({}), &outs[4]));
    CudaDevice* device = CurrentCudaDevice(ctx);
    cudaStream_t stream = device->compute_stream();
    const float* scale = ctx->input(1).data<float>();
    const float* offset = ctx->input(2).data<float>();
    const float* mean = ctx->input(3).data<float>();
    const float* variance = ctx->input(4).data<float>();
    // reserve_space_1/2 and 3 are zeros.
    for (int i = 2; i < 5; ++i) {
      if (outs[i]->TotalBytes() == 0) continue;
      OP_REQUIRES_OK(ctx,
                     CudaCall(cudaMemsetAsync(outs[i]->raw_data(), 0,
                                              outs[i]->TotalBytes(), stream),
                              "cudaMemsetAsync"));
    }
    if (x.NumElements() == 0) {
      // As TensorFlow: no values, so no statistics.
      const float nan = std::numeric_limits<float>::quiet_NaN();
      for (int i = 0; i < 2; ++i) {
        OP_REQUIRES_OK(
            ctx, CudaCall(gpu::LaunchFillFloat(outs[i]->data<float>(), c, nan,
                                               stream),
                          "launching the fill kernel"));
      }
      return;
    }
    for (int i = 0; i < 2; ++i) {
      OP_REQUIRES_OK(
          ctx,
          CudaCall(cudaMemcpyAsync(outs[i]->raw_data(),
                                   i == 0 ? mean : variance, c * sizeof(float),
                                   cudaMemcpyDeviceToDevice, stream),
                   "cudaMemcpyAsync"));
    }
    OP_REQUIRES_OK(
        ctx, CudaCall(gpu::LaunchBatchNormInference(
                          GpuElementType<T>(), params, x.raw_data(), scale,
                          offset, mean, variance, y->raw_data(), stream),
                      "launching the batch norm kernel"));
  }

 private:
  float epsilon_ = 1e-4f;
  std::string format_;
};

#define WEFT_CUDA_FUSED_BATCH_NORM(T)                      \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormV3")         \
                              .Device(DEVICE_CUDA)         \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          CudaFusedBatchNormV3Op<T>)

WEFT_CUDA_FUSED_BATCH_NORM(float);
WEFT_CUDA_FUSED_BATCH_NORM(half);

#undef WEFT_CUDA_FUSED_BATCH_NORM

}  // namespace
}  // namespace weft
