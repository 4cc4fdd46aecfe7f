// LRN (local response normalization) on the CPU, for float and half (the
// dtypes of TensorFlow's CPU kernel): over the last dimension of a 4-D
// input,
//   sqr_sum[..., d] = sum of input[..., k]^2 for |k - d| <= depth_radius
//   output = input * (bias + alpha * sqr_sum)^-beta
// computed in float per pixel: the squares summed in channel order, then
// the power as TensorFlow evaluates it: 1 / t for beta = 1, 1 / sqrt(t) for
// beta = 0.5, exp(-beta * log t) otherwise. Pixels are the units of
// ctx->ParallelFor.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/image_layout.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T>
class LrnOp : public OpKernel {
 public:
  explicit LrnOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t radius = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("depth_radius", &radius));
    OP_REQUIRES(ctx,
                radius >= 0 && radius <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument("attr 'depth_radius' is ", radius,
                                        " but must be in [0, 2^31 - 1]"));
    radius_ = radius;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("bias", &bias_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("beta", &beta_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.dims() == 4,
                errors::InvalidArgument("input 0 must be 4-D but has shape ",
                                        input.shape().DebugString()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    if (output->NumElements() == 0) return;
    const int64_t depth = input.dim_size(3);
    const int64_t pixels = input.NumElements() / depth;
    const T* x = input.data<T>();
    T* y = output->data<T>();
    const int64_t r = radius_;
    ctx->ParallelFor(pixels, depth * (std::min<int64_t>(2 * r + 1, depth) + 8),
                     [&](int64_t first, int64_t last) {
                       std::vector<float> v(depth), sq(depth), out(depth);
                       for (int64_t p = first; p < last; ++p) {
                         ConvertElements(x + p * depth, v.data(), depth);
                         for (int64_t d = 0; d < depth; ++d)
                           sq[d] = v[d] * v[d];
                         for (int64_t d = 0; d < depth; ++d) {
                           const int64_t lo = std::max<int64_t>(0, d - r);
                           const int64_t hi =
                               std::min<int64_t>(depth, d + r + 1);
                           float sum = 0;
                           for (int64_t k = lo; k < hi; ++k) sum += sq[k];
                           const float t = sum * alpha_ + bias_;
                           float scale;
                           if (beta_ == 1.0f) {
                             scale = 1.0f / t;
                           } else if (beta_ == 0.5f) {
                             scale = 1.0f / std::sqrt(t);
                           } else {
                             scale = std::exp(std::log(t) * -beta_);
                           }
                           out[d] = v[d] * scale;
                         }
                         ConvertElements(out.data(), y + p * depth, depth);
                       }
                     });
  }

 private:
  int64_t radius_ = 5;
  float bias_ = 1;
  float alpha_ = 1;
  float beta_ = 0.5f;
};

REGISTER_KERNEL_BUILDER(
    Name("LRN").Device(DEVICE_CPU).TypeConstraint<float>("T"), LrnOp<float>);
REGISTER_KERNEL_BUILDER(
    Name("LRN").Device(DEVICE_CPU).TypeConstraint<half>("T"), LrnOp<half>);

}  // namespace
}  // namespace weft
