// Bodies of the CUDA FusedBatchNormV3 kernels: the per-element
// normalization, and in training the per-channel statistics (one block per
// channel: each thread's strided partial sum, a shared-memory tree over the
// block, the channel's outputs from the totals). Compiled by nvcc into
// nn_ops_gpu.cu and by the host compiler into cuda_nn_body_test.cc, which
// runs them (the tree too, in the block's order) and compares with the CPU
// kernel. Plain C++: nothing of CUDA, weft, absl or Eigen.
//
// Products are rounded before they are added (no multiply-add contraction
// on the device either), so the arithmetic is the CPU kernel's operation
// for operation; only the order of the statistics' double sums differs.
#ifndef WEFT_KERNELS_CUDA_BATCH_NORM_BODY_H_
#define WEFT_KERNELS_CUDA_BATCH_NORM_BODY_H_

#include <cmath>
#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/cuda/nn_math_body.h"

namespace weft::gpu {

// x viewed as [outer, channels, inner]: channels last has inner = 1,
// channels first has inner = the spatial size.
struct BatchNormParams {
  int64_t channels = 0;
  int64_t inner = 1;
  int64_t outer = 0;
  float epsilon = 0.0f;
  int64_t size = 0;  // elements of x
  // Training: the weight of the batch statistics in the running estimates
  // (1: the batch's alone, and mean and variance are not read).
  float exponential_avg_factor = 1.0f;
};

// Threads of a statistics block (one block per channel); a power of 2 for
// the tree.
inline constexpr int kBatchNormStatsThreads = 256;

// (x - mean) * factor + offset in the CPU kernel's order of operations.
WEFT_HOST_DEVICE float BatchNormApply(float x, float mean, float factor,
                                      float offset) {
  return MulRn(x - mean, factor) + offset;
}

// rsqrt(variance + epsilon) * scale as the CPU computes it: 1 / sqrt, both
// correctly rounded in IEEE float on either side.
WEFT_HOST_DEVICE float BatchNormFactor(float variance, float epsilon,
                                       float scale) {
  return MulRn(1.0f / sqrtf(variance + epsilon), scale);
}

// Inference, y[i] in float with the given statistics. The per-channel
// factor is recomputed per element: the statistics live in device memory,
// and a sqrt per element costs less than another launch.
template <typename T>
WEFT_HOST_DEVICE float BatchNormOutput(const BatchNormParams& p, const T* x,
                                       const float* scale, const float* offset,
                                       const float* mean, const float* variance,
                                       int64_t i) {
  const int64_t c = (i / p.inner) % p.channels;
  return BatchNormApply(static_cast<float>(x[i]), mean[c],
                        BatchNormFactor(variance[c], p.epsilon, scale[c]),
                        offset[c]);
}

// Training, y[i] in float with the batch's mean and factor per channel.
template <typename T>
WEFT_HOST_DEVICE float BatchNormTrainOutput(const BatchNormParams& p,
                                            const T* x, const float* mean,
                                            const float* factor,
                                            const float* offset, int64_t i) {
  const int64_t c = (i / p.inner) % p.channels;
  return BatchNormApply(static_cast<float>(x[i]), mean[c], factor[c],
                        offset[c]);
}

// Thread `t` of channel `c`'s block: the double sum of its values
// (`centered`: of (value - center)^2), values j = t, t + threads, ... of
// the channel in [outer, inner] order. Values are widened as the CPU
// widens them: to float, then to double.
template <typename T>
WEFT_HOST_DEVICE double BatchNormThreadSum(const BatchNormParams& p, const T* x,
                                           int64_t c, int t, bool centered,
                                           double center) {
  const int64_t per_channel = p.outer * p.inner;
  const int64_t plane = p.channels * p.inner;
  double sum = 0.0;
  for (int64_t j = t; j < per_channel; j += kBatchNormStatsThreads) {
    const int64_t at = (j / p.inner) * plane + c * p.inner + j % p.inner;
    const double v = static_cast<double>(static_cast<float>(x[at]));
    if (centered) {
      const double d = v - center;
      sum += MulRn(d, d);
    } else {
      sum += v;
    }
  }
  return sum;
}

// One step of the block's tree over kBatchNormStatsThreads partials: for
// s = threads / 2, threads / 4, ..., 1, each thread t < s does
// partial[t] += partial[t + s] (reads above s, writes below: the order of
// threads within a step does not matter).
WEFT_HOST_DEVICE void BatchNormTreeStep(double* partial, int t, int s) {
  if (t < s) partial[t] += partial[t + s];
}

// The outputs of one channel from its sums, as the CPU computes them in
// training: `sum` of the values and `squares` of their squared deviations
// from the mean, over n = outer * inner values (n > 0). `mean_in` and
// `variance_in` are read only when exponential_avg_factor != 1.
struct BatchNormChannelOut {
  float batch_mean, batch_variance;  // outputs 1, 2: running estimates
  float saved_mean, saved_variance;  // outputs 3, 4: the batch's
  float factor;                      // for y
};

WEFT_HOST_DEVICE double BatchNormMean(const BatchNormParams& p, double sum) {
  return sum / static_cast<double>(p.outer * p.inner);
}

WEFT_HOST_DEVICE BatchNormChannelOut
BatchNormChannel(const BatchNormParams& p, double sum, double squares,
                 float scale, float mean_in, float variance_in) {
  const int64_t n = p.outer * p.inner;
  const double mean = sum / static_cast<double>(n);
  const double var = squares / static_cast<double>(n);
  const double adjust =
      static_cast<double>(n) / static_cast<double>(n - 1 > 1 ? n - 1 : 1);
  const double f = p.exponential_avg_factor;
  BatchNormChannelOut o;
  o.saved_mean = static_cast<float>(mean);
  o.saved_variance = static_cast<float>(var);
  o.factor = BatchNormFactor(o.saved_variance, p.epsilon, scale);
  if (f == 1.0) {
    o.batch_mean = o.saved_mean;
    o.batch_variance = static_cast<float>(MulRn(var, adjust));
  } else {
    o.batch_mean = static_cast<float>(
        MulRn(1 - f, static_cast<double>(mean_in)) + MulRn(f, mean));
    o.batch_variance =
        static_cast<float>(MulRn(1 - f, static_cast<double>(variance_in)) +
                           MulRn(MulRn(f, adjust), var));
  }
  return o;
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_BATCH_NORM_BODY_H_
