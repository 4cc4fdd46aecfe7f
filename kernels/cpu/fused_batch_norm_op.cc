// FusedBatchNormV3, and its older forms FusedBatchNorm (float only) and
// FusedBatchNormV2 (no reserve_space_3 output), on the CPU: per channel c,
//   y = (x - mean[c]) * (rsqrt(variance[c] + epsilon) * scale[c]) + offset[c]
// computed in float (half and bfloat16 x are widened and y rounded once),
// for x of rank 4 (NHWC, NCHW) or 5 (NDHWC, NCDHW).
//
// Inference (is_training = false) uses the given mean and variance; the
// outputs are as TensorFlow's CPU kernel gives them: batch_mean and
// batch_variance copy mean and variance, reserve_space_3 is a scalar 0, and
// reserve_space_1/2, which TensorFlow leaves unwritten in inference, are
// zeros here.
//
// Training uses the batch's own statistics over every dimension but the
// channel: mean and biased variance (also returned in reserve_space_1/2),
// and returns the running estimates: with exponential_avg_factor f,
//   batch_mean     = (1 - f) * mean + f * batch mean
//   batch_variance = (1 - f) * variance + f * n / (n - 1) * batch variance
// (n values per channel; f = 1 needs no mean and variance inputs). The
// statistics are summed in double over blocks fixed by the shape and
// combined in order, so they do not depend on the thread count. An empty x
// gives NaN batch_mean and batch_variance, as in TensorFlow.
//
// Attrs, shapes and errors are shared with the CUDA kernel
// (kernels/common/batch_norm_shape.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "core/tensor.h"
#include "kernels/common/batch_norm_shape.h"
#include "kernels/cpu/image_layout.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

using FloatArray = Eigen::Array<float, Eigen::Dynamic, 1>;
using FloatMap = Eigen::Map<FloatArray>;
using ConstFloatMap = Eigen::Map<const FloatArray>;

// Elements per unit of parallel work and per statistics block.
constexpr int64_t kBlockElements = int64_t{1} << 14;

// y = (x - mean[c]) * factor[c] + offset[c] in float, TensorFlow's order of
// operations, with factor = rsqrt(variance + epsilon) * scale.
template <typename T>
void Normalize(const OpKernelContext& ctx, const BatchNormLayout& l, const T* x,
               const float* mean, const float* factor, const float* offset,
               T* y) {
  const int64_t c = l.channels;
  if (l.channels_last) {
    const int64_t rows_per_block = std::max<int64_t>(1, kBlockElements / c);
    const int64_t blocks = (l.outer + rows_per_block - 1) / rows_per_block;
    ctx.ParallelFor(
        blocks, rows_per_block * c * 4, [&](int64_t first, int64_t last) {
          FloatArray row(c);
          ConstFloatMap m(mean, c), f(factor, c), o(offset, c);
          for (int64_t b = first; b < last; ++b) {
            const int64_t r1 = std::min(l.outer, (b + 1) * rows_per_block);
            for (int64_t r = b * rows_per_block; r < r1; ++r) {
              ConvertElements(x + r * c, row.data(), c);
              row = (row - m) * f + o;
              ConvertElements(row.data(), y + r * c, c);
            }
          }
        });
    return;
  }
  ctx.ParallelFor(l.outer * c, l.inner * 4, [&](int64_t first, int64_t last) {
    FloatArray plane(l.inner);
    for (int64_t p = first; p < last; ++p) {
      const int64_t ch = p % c;
      ConvertElements(x + p * l.inner, plane.data(), l.inner);
      plane = (plane - mean[ch]) * factor[ch] + offset[ch];
      ConvertElements(plane.data(), y + p * l.inner, l.inner);
    }
  });
}

// Per channel: the sum of (x - center[c])^2, or of x when `center` is null,
// in double, over blocks fixed by the shape and combined in block order.
template <typename T>
std::vector<double> ChannelSums(const OpKernelContext& ctx,
                                const BatchNormLayout& l, const T* x,
                                const double* center) {
  const int64_t c = l.channels;
  auto term = [center](double v, int64_t ch) {
    if (center == nullptr) return v;
    const double d = v - center[ch];
    return d * d;
  };
  std::vector<double> total(c, 0.0);
  if (l.channels_last) {
    const int64_t rows_per_block = std::max<int64_t>(1, kBlockElements / c);
    const int64_t blocks = (l.outer + rows_per_block - 1) / rows_per_block;
    std::vector<double> partial(blocks * c, 0.0);
    ctx.ParallelFor(
        blocks, rows_per_block * c * 2, [&](int64_t first, int64_t last) {
          for (int64_t b = first; b < last; ++b) {
            double* sum = partial.data() + b * c;
            const int64_t r1 = std::min(l.outer, (b + 1) * rows_per_block);
            for (int64_t r = b * rows_per_block; r < r1; ++r) {
              const T* row = x + r * c;
              for (int64_t ch = 0; ch < c; ++ch) {
                sum[ch] +=
                    term(static_cast<double>(static_cast<float>(row[ch])), ch);
              }
            }
          }
        });
    for (int64_t b = 0; b < blocks; ++b) {
      for (int64_t ch = 0; ch < c; ++ch) total[ch] += partial[b * c + ch];
    }
    return total;
  }
  std::vector<double> partial(l.outer * c, 0.0);
  ctx.ParallelFor(l.outer * c, l.inner * 2, [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p) {
      const int64_t ch = p % c;
      const T* plane = x + p * l.inner;
      double sum = 0;
      for (int64_t i = 0; i < l.inner; ++i) {
        sum += term(static_cast<double>(static_cast<float>(plane[i])), ch);
      }
      partial[p] = sum;
    }
  });
  for (int64_t p = 0; p < l.outer * c; ++p) total[p % c] += partial[p];
  return total;
}

template <typename T>
class FusedBatchNormV3Op : public OpKernel {
 public:
  explicit FusedBatchNormV3Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadBatchNormAttrs(ctx, &attrs_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const TensorShape* stat_shapes[4];
    for (int i = 0; i < 4; ++i) stat_shapes[i] = &ctx->input(i + 1).shape();
    StatusOr<BatchNormLayout> layout =
        GetBatchNormLayout(attrs_, x.shape(), stat_shapes);
    OP_REQUIRES_OK(ctx, layout.status());
    const BatchNormLayout& l = *layout;
    // Whether the mean and variance inputs are read.
    const bool uses_estimates = BatchNormUsesEstimates(attrs_);
    const bool is_training = attrs_.is_training;

    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    Tensor* stats[4];
    for (int i = 0; i < 4; ++i) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i + 1, TensorShape({l.channels}),
                                               &stats[i]));
    }
    // FusedBatchNorm and FusedBatchNormV2 have no reserve_space_3.
    if (ctx->num_outputs() > 5) {
      Tensor* reserve3 = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(5, TensorShape({}), &reserve3));
      reserve3->data<float>()[0] = 0.0f;
    }
    float* batch_mean = stats[0]->data<float>();
    float* batch_var = stats[1]->data<float>();
    float* saved_mean = stats[2]->data<float>();
    float* saved_var = stats[3]->data<float>();
    const float* scale = ctx->input(1).data<float>();
    const float* offset = ctx->input(2).data<float>();
    const float* mean_in =
        uses_estimates ? ctx->input(3).data<float>() : nullptr;
    const float* var_in =
        uses_estimates ? ctx->input(4).data<float>() : nullptr;
    const int64_t c = l.channels;
    const float eps = attrs_.epsilon;

    if (x.NumElements() == 0) {
      const float nan = std::numeric_limits<float>::quiet_NaN();
      std::fill_n(batch_mean, c, nan);
      std::fill_n(batch_var, c, nan);
      std::fill_n(saved_mean, c, is_training ? nan : 0.0f);
      std::fill_n(saved_var, c, is_training ? nan : 0.0f);
      return;
    }

    std::vector<float> factor(c);
    if (!is_training) {
      for (int64_t ch = 0; ch < c; ++ch) {
        factor[ch] = (1.0f / std::sqrt(var_in[ch] + eps)) * scale[ch];
      }
      Normalize(*ctx, l, x.data<T>(), mean_in, factor.data(), offset,
                y->data<T>());
      std::copy_n(mean_in, c, batch_mean);
      std::copy_n(var_in, c, batch_var);
      std::fill_n(saved_mean, c, 0.0f);
      std::fill_n(saved_var, c, 0.0f);
      return;
    }

    const int64_t n = x.NumElements() / c;
    std::vector<double> mean = ChannelSums(*ctx, l, x.data<T>(), nullptr);
    for (double& m : mean) m /= static_cast<double>(n);
    std::vector<double> var = ChannelSums(*ctx, l, x.data<T>(), mean.data());
    for (double& v : var) v /= static_cast<double>(n);
    std::vector<float> mean_f(c);
    const double adjust = static_cast<double>(n) /
                          static_cast<double>(std::max<int64_t>(n - 1, 1));
    const double f = attrs_.exponential_avg_factor;
    for (int64_t ch = 0; ch < c; ++ch) {
      mean_f[ch] = static_cast<float>(mean[ch]);
      const float var_f = static_cast<float>(var[ch]);
      factor[ch] = (1.0f / std::sqrt(var_f + eps)) * scale[ch];
      saved_mean[ch] = mean_f[ch];
      saved_var[ch] = var_f;
      if (f == 1.0) {
        batch_mean[ch] = mean_f[ch];
        batch_var[ch] = static_cast<float>(var[ch] * adjust);
      } else {
        batch_mean[ch] =
            static_cast<float>((1 - f) * mean_in[ch] + f * mean[ch]);
        batch_var[ch] =
            static_cast<float>((1 - f) * var_in[ch] + f * adjust * var[ch]);
      }
    }
    Normalize(*ctx, l, x.data<T>(), mean_f.data(), factor.data(), offset,
              y->data<T>());
  }

 private:
  BatchNormAttrs attrs_;
};

#define WEFT_REGISTER_FUSED_BATCH_NORM(T)                  \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormV3")         \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          FusedBatchNormV3Op<T>);          \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormV2")         \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          FusedBatchNormV3Op<T>)

WEFT_REGISTER_FUSED_BATCH_NORM(float);
WEFT_REGISTER_FUSED_BATCH_NORM(half);
WEFT_REGISTER_FUSED_BATCH_NORM(bfloat16);

#undef WEFT_REGISTER_FUSED_BATCH_NORM

REGISTER_KERNEL_BUILDER(
    Name("FusedBatchNorm").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FusedBatchNormV3Op<float>);

}  // namespace
}  // namespace weft
