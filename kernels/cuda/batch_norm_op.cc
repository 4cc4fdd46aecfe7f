// FusedBatchNormV3 on CUDA, x float or half with float statistics, NHWC /
// NCHW (and NDHWC / NCDHW), with the CPU kernel's outputs
// (fused_batch_norm_op.cc), arithmetic (batch_norm_body.h) and attrs,
// shapes and errors (batch_norm_shape.h, through nn_plan.h).
//
// Inference (is_training = false): one thread per element of y; batch_mean
// and batch_variance copy mean and variance, reserve_space_1/2 are zeros,
// reserve_space_3 is a scalar 0.
//
// Training: one block per channel sums the channel in double, twice (the
// mean, then the squared deviations from it), as the CPU does, and writes
// the batch statistics (reserve_space_1/2) and the running estimates with
// exponential_avg_factor; then y is normalized with the batch's. The sums
// are combined in a fixed tree, so results do not vary from run to run.
//
// An empty x gives NaN batch_mean and batch_variance (and NaN saved
// statistics in training), as in TensorFlow.
#include <cmath>
#include <limits>

#include "core/tensor.h"
#include "kernels/common/batch_norm_shape.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/cuda/nn_ops_gpu.h"
#include "kernels/cuda/plan/nn_plan.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T>
class CudaFusedBatchNormV3Op : public OpKernel {
 public:
  explicit CudaFusedBatchNormV3Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadBatchNormAttrs(ctx, &attrs_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const TensorShape* stats[4];
    for (int i = 0; i < 4; ++i) stats[i] = &ctx->input(i + 1).shape();
    gpu::BatchNormParams params;
    OP_REQUIRES_OK(ctx, PlanBatchNorm(attrs_, x.shape(), stats, &params));
    const bool is_training = attrs_.is_training;
    const int64_t c = params.channels;
    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    // batch_mean, batch_variance, reserve_space_1/2 (saved mean and
    // variance), reserve_space_3.
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
    OP_REQUIRES_OK(ctx, CudaCall(cudaMemsetAsync(outs[4]->raw_data(), 0,
                                                 outs[4]->TotalBytes(), stream),
                                 "cudaMemsetAsync"));
    if (x.NumElements() == 0) {
      // As TensorFlow: no values, so no statistics; in inference the saved
      // ones are zeros.
      const float nan = std::numeric_limits<float>::quiet_NaN();
      for (int i = 0; i < 4; ++i) {
        OP_REQUIRES_OK(ctx,
                       CudaCall(gpu::LaunchFillFloat(
                                    outs[i]->data<float>(), c,
                                    i < 2 || is_training ? nan : 0.0f, stream),
                                "launching the fill kernel"));
      }
      return;
    }
    if (is_training) {
      Tensor factor;
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_temp(DT_FLOAT, TensorShape({c}), &factor));
      OP_REQUIRES_OK(
          ctx,
          CudaCall(gpu::LaunchBatchNormTraining(
                       GpuElementType<T>(), params, x.raw_data(), scale, offset,
                       mean, variance, y->raw_data(), outs[0]->data<float>(),
                       outs[1]->data<float>(), outs[2]->data<float>(),
                       outs[3]->data<float>(), factor.data<float>(), stream),
                   "launching the batch norm training kernels"));
      return;
    }
    // Inference: batch_mean and batch_variance are the given ones,
    // reserve_space_1/2 zeros.
    for (int i = 0; i < 2; ++i) {
      OP_REQUIRES_OK(
          ctx,
          CudaCall(cudaMemcpyAsync(outs[i]->raw_data(),
                                   i == 0 ? mean : variance, c * sizeof(float),
                                   cudaMemcpyDeviceToDevice, stream),
                   "cudaMemcpyAsync"));
    }
    for (int i = 2; i < 4; ++i) {
      OP_REQUIRES_OK(ctx,
                     CudaCall(cudaMemsetAsync(outs[i]->raw_data(), 0,
                                              outs[i]->TotalBytes(), stream),
                              "cudaMemsetAsync"));
    }
    OP_REQUIRES_OK(
        ctx, CudaCall(gpu::LaunchBatchNormInference(
                          GpuElementType<T>(), params, x.raw_data(), scale,
                          offset, mean, variance, y->raw_data(), stream),
                      "launching the batch norm kernel"));
  }

 private:
  BatchNormAttrs attrs_;
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
