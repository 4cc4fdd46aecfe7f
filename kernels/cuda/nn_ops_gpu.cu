// NN CUDA kernels: grid-stride loops around the per-element bodies of
// conv_body.h, pool_body.h and batch_norm_body.h, which the host tests
// check against the CPU kernels. One kernel per element type and body;
// the pooling kind and the layout are runtime values (uniform across the
// grid, so the branches cost nothing measurable), to keep nvcc's time small.
#include <cuda_fp16.h>

#include <algorithm>

#include "kernels/cuda/grid_stride.cuh"
#include "kernels/cuda/nn_ops_gpu.h"

namespace weft::gpu {
namespace {

#define WEFT_GRID_STRIDE_LOOP(i, n) \
  for (int64_t i = GridStrideBegin(); i < (n); i += GridStrideStep())

template <typename T>
__global__ void ConvKernel(ConvParams p, const T* in, const T* filter, T* out,
                           int64_t n) {
  WEFT_GRID_STRIDE_LOOP(i, n) {
    StoreFloat(out, i, Conv2DOutput(p, in, filter, i));
  }
}

template <typename T>
__global__ void DepthwiseConvKernel(ConvParams p, const T* in, const T* filter,
                                    T* out, int64_t n) {
  WEFT_GRID_STRIDE_LOOP(i, n) {
    StoreFloat(out, i, DepthwiseConvOutput(p, in, filter, i));
  }
}

template <typename T>
__global__ void PoolKernel(PoolParams p, const T* in, T* out, int64_t n) {
  WEFT_GRID_STRIDE_LOOP(i, n) { StoreFloat(out, i, PoolOutput(p, in, i)); }
}

template <typename T>
__global__ void BatchNormKernel(BatchNormParams p, const T* x,
                                const float* scale, const float* offset,
                                const float* mean, const float* variance,
                                T* y) {
  WEFT_GRID_STRIDE_LOOP(i, p.size) {
    StoreFloat(y, i, BatchNormOutput(p, x, scale, offset, mean, variance, i));
  }
}

template <typename T>
__global__ void BatchNormTrainKernel(BatchNormParams p, const T* x,
                                     const float* mean, const float* factor,
                                     const float* offset, T* y) {
  WEFT_GRID_STRIDE_LOOP(i, p.size) {
    StoreFloat(y, i, BatchNormTrainOutput(p, x, mean, factor, offset, i));
  }
}

// One block of kBatchNormStatsThreads threads per channel (looping when
// there are more channels than blocks): strided partial sums, a tree in
// shared memory, and thread 0 writes the channel's outputs. Two passes over
// the channel, as the CPU makes: the mean, then the squared deviations.
template <typename T>
__global__ void __launch_bounds__(kBatchNormStatsThreads)
    BatchNormStatsKernel(BatchNormParams p, const T* x, const float* scale,
                         const float* mean_in, const float* variance_in,
                         float* batch_mean, float* batch_variance,
                         float* saved_mean, float* saved_variance,
                         float* factor) {
  __shared__ double partial[kBatchNormStatsThreads];
  const int t = threadIdx.x;
  for (int64_t c = blockIdx.x; c < p.channels; c += gridDim.x) {
    double sums[2];
    for (int pass = 0; pass < 2; ++pass) {
      const double center = pass == 0 ? 0.0 : BatchNormMean(p, sums[0]);
      partial[t] = BatchNormThreadSum(p, x, c, t, pass == 1, center);
      __syncthreads();
      for (int s = kBatchNormStatsThreads / 2; s > 0; s >>= 1) {
        BatchNormTreeStep(partial, t, s);
        __syncthreads();
      }
      sums[pass] = partial[0];
      // Everyone has read the total before the next pass overwrites it.
      __syncthreads();
    }
    if (t == 0) {
      const bool estimates = p.exponential_avg_factor != 1.0f;
      const BatchNormChannelOut o = BatchNormChannel(
          p, sums[0], sums[1], scale[c], estimates ? mean_in[c] : 0.0f,
          estimates ? variance_in[c] : 0.0f);
      batch_mean[c] = o.batch_mean;
      batch_variance[c] = o.batch_variance;
      saved_mean[c] = o.saved_mean;
      saved_variance[c] = o.saved_variance;
      factor[c] = o.factor;
    }
  }
}

__global__ void FillFloatKernel(float* p, int64_t n, float value) {
  WEFT_GRID_STRIDE_LOOP(i, n) { p[i] = value; }
}

#undef WEFT_GRID_STRIDE_LOOP

template <typename T>
void Conv(bool depthwise, const ConvParams& p, const void* in,
          const void* filter, void* out, cudaStream_t stream) {
  const int64_t n = p.output_size();
  const T* x = static_cast<const T*>(in);
  const T* f = static_cast<const T*>(filter);
  T* y = static_cast<T*>(out);
  if (depthwise) {
    DepthwiseConvKernel<<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
        p, x, f, y, n);
  } else {
    ConvKernel<<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(p, x, f,
                                                                       y, n);
  }
}

}  // namespace

cudaError_t LaunchConv(bool depthwise, ElementType type, const ConvParams& p,
                       const void* in, const void* filter, void* out,
                       cudaStream_t stream) {
  if (p.output_size() <= 0) return cudaSuccess;
  if (type == ElementType::kHalf) {
    Conv<__half>(depthwise, p, in, filter, out, stream);
  } else {
    Conv<float>(depthwise, p, in, filter, out, stream);
  }
  return cudaGetLastError();
}

cudaError_t LaunchPool(ElementType type, const PoolParams& p, const void* in,
                       void* out, cudaStream_t stream) {
  const int64_t n = p.output_size();
  if (n <= 0) return cudaSuccess;
  if (type == ElementType::kHalf) {
    PoolKernel<<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
        p, static_cast<const __half*>(in), static_cast<__half*>(out), n);
  } else {
    PoolKernel<<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
        p, static_cast<const float*>(in), static_cast<float*>(out), n);
  }
  return cudaGetLastError();
}

cudaError_t LaunchBatchNormInference(ElementType type, const BatchNormParams& p,
                                     const void* x, const float* scale,
                                     const float* offset, const float* mean,
                                     const float* variance, void* y,
                                     cudaStream_t stream) {
  if (p.size <= 0) return cudaSuccess;
  if (type == ElementType::kHalf) {
    BatchNormKernel<<<GridStrideBlocks(p.size), kGridStrideThreads, 0,
                      stream>>>(p, static_cast<const __half*>(x), scale, offset,
                                mean, variance, static_cast<__half*>(y));
  } else {
    BatchNormKernel<<<GridStrideBlocks(p.size), kGridStrideThreads, 0,
                      stream>>>(p, static_cast<const float*>(x), scale, offset,
                                mean, variance, static_cast<float*>(y));
  }
  return cudaGetLastError();
}

cudaError_t LaunchBatchNormTraining(ElementType type, const BatchNormParams& p,
                                    const void* x, const float* scale,
                                    const float* offset, const float* mean_in,
                                    const float* variance_in, void* y,
                                    float* batch_mean, float* batch_variance,
                                    float* saved_mean, float* saved_variance,
                                    float* factor, cudaStream_t stream) {
  if (p.size <= 0 || p.channels <= 0) return cudaSuccess;
  const unsigned int blocks =
      static_cast<unsigned int>(std::min<int64_t>(p.channels, 65535 * 8));
  // saved_mean is the batch mean rounded to float, the mean y is
  // normalized with.
  if (type == ElementType::kHalf) {
    const __half* xh = static_cast<const __half*>(x);
    BatchNormStatsKernel<<<blocks, kBatchNormStatsThreads, 0, stream>>>(
        p, xh, scale, mean_in, variance_in, batch_mean, batch_variance,
        saved_mean, saved_variance, factor);
    BatchNormTrainKernel<<<GridStrideBlocks(p.size), kGridStrideThreads, 0,
                           stream>>>(p, xh, saved_mean, factor, offset,
                                     static_cast<__half*>(y));
  } else {
    const float* xf = static_cast<const float*>(x);
    BatchNormStatsKernel<<<blocks, kBatchNormStatsThreads, 0, stream>>>(
        p, xf, scale, mean_in, variance_in, batch_mean, batch_variance,
        saved_mean, saved_variance, factor);
    BatchNormTrainKernel<<<GridStrideBlocks(p.size), kGridStrideThreads, 0,
                           stream>>>(p, xf, saved_mean, factor, offset,
                                     static_cast<float*>(y));
  }
  return cudaGetLastError();
}

cudaError_t LaunchFillFloat(float* p, int64_t n, float value,
                            cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  FillFloatKernel<<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
      p, n, value);
  return cudaGetLastError();
}

}  // namespace weft::gpu
