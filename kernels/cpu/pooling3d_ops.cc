// MaxPool3D and AvgPool3D on the CPU, NDHWC, for float and bfloat16 (the
// dtypes of TensorFlow's CPU kernels):
//  - MaxPool3D starts each output at -inf and takes x over it when x is
//    larger, so NaN inputs are skipped; a SAME window that reaches into the
//    padding also sees the lowest finite value there, as TensorFlow's
//    padded patches do.
//  - AvgPool3D sums the window's in-bounds elements (in float) and divides
//    by their count, so padding does not dilute border outputs.
// Output rows (n, d, h) are split over the arena; each element's arithmetic
// is fixed, so results do not depend on the thread count.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/image_layout.h"
#include "kernels/cpu/window3d.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T, bool kMax>
class Pool3DOp : public OpKernel {
 public:
  explicit Pool3DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadWindow3DAttrs(ctx, /*pool=*/true, &attrs_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const int64_t window[3] = {attrs_.ksize[1], attrs_.ksize[2],
                               attrs_.ksize[3]};
    WindowDim dims[3];
    OP_REQUIRES_OK(ctx, ComputeWindows3D(attrs_, input.shape(), window, dims));
    const int64_t batch = input.dim_size(0);
    const int64_t c = input.dim_size(4);
    Tensor* output = nullptr;
    StatusOr<TensorShape> out_shape = TensorShape::Build(
        {batch, dims[0].output, dims[1].output, dims[2].output, c});
    OP_REQUIRES_OK(ctx, out_shape.status());
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &output));
    if (output->NumElements() == 0) return;
    // A SAME window may be far larger than the input; its size only decides
    // whether it reaches into the padding.
    int64_t window_size = 0;
    OP_REQUIRES(
        ctx,
        !__builtin_mul_overflow(window[0], window[1], &window_size) &&
            !__builtin_mul_overflow(window_size, window[2], &window_size),
        errors::InvalidArgument("attr 'ksize' ", WindowListString(attrs_.ksize),
                                " has too many elements"));
    const T* x = input.data<T>();
    T* y = output->data<T>();
    const int64_t w_stride = c;
    const int64_t h_stride = dims[2].input * w_stride;
    const int64_t d_stride = dims[1].input * h_stride;
    const int64_t n_stride = dims[0].input * d_stride;
    const int64_t rows = batch * dims[0].output * dims[1].output;
    // The taps actually visited are bounded by the input's size.
    const int64_t row_cost = dims[2].output *
                             std::min(dims[0].input, window[0]) *
                             std::min(dims[1].input, window[1]) *
                             std::min(dims[2].input, window[2]) * c;
    const float lowest = std::numeric_limits<float>::lowest();
    const float neg_inf = -std::numeric_limits<float>::infinity();
    ctx->ParallelFor(rows, row_cost, [&](int64_t first, int64_t last) {
      std::vector<float> acc(c);
      std::vector<float> xs(c);
      for (int64_t r = first; r < last; ++r) {
        const int64_t oh = r % dims[1].output;
        const int64_t od = (r / dims[1].output) % dims[0].output;
        const int64_t n = r / (dims[1].output * dims[0].output);
        int64_t d_lo, d_hi, h_lo, h_hi;
        ValidTaps(dims[0], od, &d_lo, &d_hi);
        ValidTaps(dims[1], oh, &h_lo, &h_hi);
        const int64_t id0 = od * dims[0].stride - dims[0].pad_before;
        const int64_t ih0 = oh * dims[1].stride - dims[1].pad_before;
        for (int64_t ow = 0; ow < dims[2].output; ++ow) {
          int64_t w_lo, w_hi;
          ValidTaps(dims[2], ow, &w_lo, &w_hi);
          const int64_t iw0 = ow * dims[2].stride - dims[2].pad_before;
          const int64_t count = (d_hi - d_lo) * (h_hi - h_lo) * (w_hi - w_lo);
          const bool padded = count < window_size;
          std::fill(acc.begin(), acc.end(),
                    kMax ? (padded ? lowest : neg_inf) : 0.0f);
          float* a = acc.data();
          for (int64_t kd = d_lo; kd < d_hi; ++kd) {
            for (int64_t kh = h_lo; kh < h_hi; ++kh) {
              for (int64_t kw = w_lo; kw < w_hi; ++kw) {
                ConvertElements(x + n * n_stride + (id0 + kd) * d_stride +
                                    (ih0 + kh) * h_stride +
                                    (iw0 + kw) * w_stride,
                                xs.data(), c);
                const float* v = xs.data();
                if (kMax) {
                  for (int64_t ch = 0; ch < c; ++ch) {
                    a[ch] = v[ch] > a[ch] ? v[ch] : a[ch];
                  }
                } else {
                  for (int64_t ch = 0; ch < c; ++ch) a[ch] += v[ch];
                }
              }
            }
          }
          if (!kMax) {
            // Every window holds at least one input element (SAME padding
            // is smaller than the window).
            const float denom = static_cast<float>(count);
            for (int64_t ch = 0; ch < c; ++ch) a[ch] /= denom;
          }
          ConvertElements(a, y + (r * dims[2].output + ow) * c, c);
        }
      }
    });
  }

 private:
  Window3DAttrs attrs_;
};

#define WEFT_REGISTER_POOL3D(T)                                    \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("MaxPool3D").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      Pool3DOp<T, true>);                                          \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("AvgPool3D").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      Pool3DOp<T, false>)

WEFT_REGISTER_POOL3D(float);
WEFT_REGISTER_POOL3D(bfloat16);

#undef WEFT_REGISTER_POOL3D

}  // namespace
}  // namespace weft
