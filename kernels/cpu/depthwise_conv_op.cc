// DepthwiseConv2dNative on the CPU: each input channel c is convolved with
// its own `multiplier` filters,
//   output[n, oh, ow, c * M + m] = sum over taps (kh, kw) of
//     input[n, oh * sh - pad_top + kh * dh, ow * sw - pad_left + kw * dw, c]
//       * filter[kh, kw, c, m]
// for a filter [rows, cols, C, M], positions outside the input giving zero.
//
// float, the dtype that matters for speed, is computed by depthwise_conv.h's
// register-blocked kernel, shared with _FusedDepthwiseConv2dNative. The
// other dtypes take a generic path: an output pixel's C * M values are one
// vector, and each in-bounds tap adds the input pixel (each channel
// repeated M times) times the tap's C * M filter values to it, in tap order
// (kh, then kw), which is the summation order of the float kernel too.
// Output rows (n, oh) are independent units for ctx->ParallelFor, so
// results do not depend on the thread count.
//
// Beyond TensorFlow's CPU kernel, which has NHWC and unit dilations only,
// NCHW (through layout changes) and dilations are computed here too, as
// TensorFlow's GPU kernel does. half and bfloat16 accumulate in float and
// round once.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "core/tensor.h"
#include "kernels/cpu/context_parallel_for.h"
#include "kernels/cpu/depthwise_conv.h"
#include "kernels/cpu/image_layout.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// Output rows (n, oh) [first, last) of the NHWC depthwise convolution, for
// dtypes other than float. `filter` is in the accumulation type A.
template <typename T, typename A>
void DepthwiseRows(const DepthwiseGeometry& s, const T* in, const A* filter,
                   T* out, int64_t first, int64_t last) {
  const int64_t c = s.depth;
  const int64_t cm = s.depth * s.multiplier;
  const int64_t in_row = s.cols.input * c;
  // The pixel's accumulator and, unless it can be read in place, the input
  // pixel widened to A and repeated to C * M values.
  std::vector<A> acc(cm);
  std::vector<A> expanded;
  const bool in_place = std::is_same_v<T, A> && s.multiplier == 1;
  if (!in_place) expanded.resize(cm);
  for (int64_t r = first; r < last; ++r) {
    const int64_t n = r / s.rows.output;
    const int64_t oh = r % s.rows.output;
    const T* image = in + n * s.rows.input * in_row;
    int64_t kh_lo, kh_hi;
    ValidTaps(s.rows, oh, &kh_lo, &kh_hi);
    const int64_t ih0 = oh * s.rows.stride - s.rows.pad_before;
    T* out_row = out + r * s.cols.output * cm;
    for (int64_t ow = 0; ow < s.cols.output; ++ow) {
      int64_t kw_lo, kw_hi;
      ValidTaps(s.cols, ow, &kw_lo, &kw_hi);
      const int64_t iw0 = ow * s.cols.stride - s.cols.pad_before;
      ArrayMap<A> sum(acc.data(), cm);
      sum.setZero();
      for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
        const T* in_line = image + (ih0 + kh * s.rows.dilation) * in_row;
        for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
          const T* pixel = in_line + (iw0 + kw * s.cols.dilation) * c;
          const A* taps = filter + (kh * s.cols.window + kw) * cm;
          const A* x;
          if (in_place) {
            x = reinterpret_cast<const A*>(pixel);
          } else {
            for (int64_t ch = 0; ch < c; ++ch) {
              std::fill_n(expanded.data() + ch * s.multiplier, s.multiplier,
                          static_cast<A>(pixel[ch]));
            }
            x = expanded.data();
          }
          sum += ConstArrayMap<A>(x, cm) * ConstArrayMap<A>(taps, cm);
        }
      }
      ConvertElements(acc.data(), out_row + ow * cm, cm);
    }
  }
}

template <typename T>
class DepthwiseConv2dNativeOp : public OpKernel {
 public:
  using A = AccumulateType<T>;

  explicit DepthwiseConv2dNativeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadConvAttrs(ctx, &attrs_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    DepthwiseGeometry s;
    OP_REQUIRES_OK(ctx, ComputeDepthwiseGeometry(attrs_, input, filter, &s));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0,
                            FormatShape(attrs_.format, s.batch, s.rows.output,
                                        s.cols.output, s.out_depth()),
                            &output));
    if (output->NumElements() == 0) return;

    if constexpr (std::is_same_v<T, float>) {
      WithNhwc(ctx, attrs_.format, input, output,
               [&](const Tensor& in, Tensor* out) {
                 DepthwiseConvNhwc(ContextParallelFor(*ctx), s,
                                   in.data<float>(), filter.data<float>(),
                                   nullptr, out->data<float>());
               });
    } else {
      ComputeGeneric(ctx, s, input, filter, output);
    }
  }

 private:
  void ComputeGeneric(OpKernelContext* ctx, const DepthwiseGeometry& s,
                      const Tensor& input, const Tensor& filter,
                      Tensor* output) const {
    Tensor filter_acc;
    const A* f = nullptr;
    if constexpr (std::is_same_v<T, A>) {
      f = filter.data<T>();
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<A>::value,
                                             filter.shape(), &filter_acc));
      ConvertElements(filter.data<T>(), filter_acc.data<A>(),
                      filter.NumElements());
      f = filter_acc.data<A>();
    }
    const int64_t row_cost =
        s.cols.output * s.rows.window * s.cols.window * s.out_depth();
    WithNhwc(ctx, attrs_.format, input, output,
             [&](const Tensor& in, Tensor* out) {
               const T* x = in.data<T>();
               T* y = out->data<T>();
               ctx->ParallelFor(s.batch * s.rows.output, row_cost,
                                [&](int64_t first, int64_t last) {
                                  DepthwiseRows<T, A>(s, x, f, y, first, last);
                                });
             });
  }

  WindowAttrs attrs_;
};

#define WEFT_REGISTER_DEPTHWISE(T)                                             \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("DepthwiseConv2dNative").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      DepthwiseConv2dNativeOp<T>)

WEFT_REGISTER_DEPTHWISE(float);
WEFT_REGISTER_DEPTHWISE(double);
WEFT_REGISTER_DEPTHWISE(half);
WEFT_REGISTER_DEPTHWISE(bfloat16);

#undef WEFT_REGISTER_DEPTHWISE

}  // namespace
}  // namespace weft
