// Launchers of the NN CUDA kernels (nn_ops_gpu.cu): direct convolutions,
// pooling, batch norm. Plain C++ with POD arguments (the params
// structs of the *_body.h headers, planned on the host by nn_plan.h);
// the OpKernel classes are in conv_ops.cc, pooling_ops.cc and
// batch_norm_op.cc.
//
// Every launcher enqueues on `stream` and returns the launch error, not the
// kernel's outcome; an empty output enqueues nothing. half values are IEEE
// binary16 bits; math is done in float and rounded once per output.
#ifndef WEFT_KERNELS_CUDA_NN_OPS_GPU_H_
#define WEFT_KERNELS_CUDA_NN_OPS_GPU_H_

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/cuda/batch_norm_body.h"
#include "kernels/cuda/conv_body.h"
#include "kernels/cuda/cwise_ops_gpu.h"
#include "kernels/cuda/pool_body.h"

namespace weft::gpu {

// out = Conv2D (depthwise = false) or DepthwiseConv2dNative (true) of `in`
// with `filter`, one thread per output element (no cuDNN, no tiling).
cudaError_t LaunchConv(bool depthwise, ElementType type, const ConvParams& p,
                       const void* in, const void* filter, void* out,
                       cudaStream_t stream);

// out = MaxPool or AvgPool of `in`, one thread per output element.
cudaError_t LaunchPool(ElementType type, const PoolParams& p, const void* in,
                       void* out, cudaStream_t stream);

// y = the inference-mode batch norm of x (type T) with float per-channel
// scale, offset, mean and variance. x and y may be the same buffer.
cudaError_t LaunchBatchNormInference(ElementType type, const BatchNormParams& p,
                                     const void* x, const float* scale,
                                     const float* offset, const float* mean,
                                     const float* variance, void* y,
                                     cudaStream_t stream);

// FusedBatchNormV3 in training: per channel, the batch mean and variance
// of x (one block per channel, double sums) into saved_mean and
// saved_variance, the running estimates (from mean_in and variance_in
// unless p.exponential_avg_factor is 1) into batch_mean and batch_variance,
// then y normalized with the batch's statistics. `factor` is scratch of
// p.channels floats. x must not be empty; x and y may be the same buffer.
cudaError_t LaunchBatchNormTraining(ElementType type, const BatchNormParams& p,
                                    const void* x, const float* scale,
                                    const float* offset, const float* mean_in,
                                    const float* variance_in, void* y,
                                    float* batch_mean, float* batch_variance,
                                    float* saved_mean, float* saved_variance,
                                    float* factor, cudaStream_t stream);

// p[i] = value for i < n.
cudaError_t LaunchFillFloat(float* p, int64_t n, float value,
                            cudaStream_t stream);

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_NN_OPS_GPU_H_
