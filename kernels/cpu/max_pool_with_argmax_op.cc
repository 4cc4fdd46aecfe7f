// MaxPoolWithArgmax on the CPU, NHWC: the max pool and, for each output,
// the flattened index of the input element it came from,
//   ((b * height + h) * width + w) * channels + c   (include_batch_in_index)
//   (h * width + w) * channels + c                  (otherwise).
// Like TensorFlow's CPU kernel, each window is visited in row-major order:
// its first element is taken, then any strictly larger one, so ties keep
// the first index, a leading NaN is kept and later NaNs are skipped.
// Comparisons are in float for half and bfloat16 (exact). Output rows
// (b, h) are the units of ctx->ParallelFor.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/pool_shape.h"
#include "kernels/cpu/image_layout.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T>
class MaxPoolWithArgmaxOp : public OpKernel {
 public:
  explicit MaxPoolWithArgmaxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string padding;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    StatusOr<Padding> parsed = ParsePadding(padding);
    OP_REQUIRES_OK(ctx, parsed.status());
    attrs_.padding = *parsed;
    OP_REQUIRES_OK(ctx, ReadWindowList(ctx, "ksize", &attrs_.ksize));
    OP_REQUIRES_OK(ctx, ReadWindowList(ctx, "strides", &attrs_.strides));
    OP_REQUIRES(ctx, attrs_.ksize[0] == 1 && attrs_.strides[0] == 1,
                errors::Unimplemented(
                    "Pooling is not yet supported on the batch dimension: "
                    "ksize ",
                    WindowListString(attrs_.ksize), ", strides ",
                    WindowListString(attrs_.strides)));
    OP_REQUIRES(
        ctx, attrs_.ksize[3] == 1 && attrs_.strides[3] == 1,
        errors::Unimplemented("MaxPoolWithArgmax does not pool over the depth "
                              "dimension: ksize ",
                              WindowListString(attrs_.ksize), ", strides ",
                              WindowListString(attrs_.strides)));
    OP_REQUIRES_OK(
        ctx, ctx->GetAttr("include_batch_in_index", &include_batch_in_index_));
  }

  void Compute(OpKernelContext* ctx) const override {
    using M = AccumulateType<T>;
    const Tensor& input = ctx->input(0);
    StatusOr<PoolShape> shape = GetPoolShape(attrs_, 1, input.shape());
    OP_REQUIRES_OK(ctx, shape.status());
    const PoolShape& s = *shape;
    const TensorShape out_shape = s.OutputShape(attrs_);
    Tensor* output = nullptr;
    Tensor* argmax = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, out_shape, &argmax));
    if (output->NumElements() == 0) return;
    const bool index64 = argmax->dtype() == DT_INT64;
    int64_t* arg64 = index64 ? argmax->data<int64_t>() : nullptr;
    int32_t* arg32 = index64 ? nullptr : argmax->data<int32_t>();
    const T* x = input.data<T>();
    T* y = output->data<T>();
    const int64_t c = s.depth;
    const int64_t in_row = s.cols.input * c;
    const bool with_batch = include_batch_in_index_;
    // The taps actually visited are bounded by the input's size.
    const int64_t row_cost = s.cols.output *
                             std::min(s.rows.window, s.rows.input) *
                             std::min(s.cols.window, s.cols.input) * c;
    ctx->ParallelFor(
        s.batch * s.rows.output, row_cost, [&](int64_t first, int64_t last) {
          std::vector<M> best(c);
          std::vector<int64_t> where(c);
          for (int64_t r = first; r < last; ++r) {
            const int64_t b = r / s.rows.output;
            const int64_t oh = r % s.rows.output;
            const int64_t image = b * s.rows.input * in_row;
            const int64_t base = with_batch ? image : 0;
            int64_t kh_lo, kh_hi;
            ValidTaps(s.rows, oh, &kh_lo, &kh_hi);
            const int64_t ih0 = oh * s.rows.stride - s.rows.pad_before;
            for (int64_t ow = 0; ow < s.cols.output; ++ow) {
              int64_t kw_lo, kw_hi;
              ValidTaps(s.cols, ow, &kw_lo, &kw_hi);
              const int64_t iw0 = ow * s.cols.stride - s.cols.pad_before;
              bool seen = false;
              for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
                for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
                  const int64_t at = (ih0 + kh) * in_row + (iw0 + kw) * c;
                  const T* px = x + image + at;
                  for (int64_t ch = 0; ch < c; ++ch) {
                    const M v = static_cast<M>(px[ch]);
                    if (!seen || best[ch] < v) {
                      best[ch] = v;
                      where[ch] = base + at + ch;
                    }
                  }
                  seen = true;
                }
              }
              const int64_t o = (r * s.cols.output + ow) * c;
              ConvertElements(best.data(), y + o, c);
              for (int64_t ch = 0; ch < c; ++ch) {
                if (index64) {
                  arg64[o + ch] = where[ch];
                } else {
                  arg32[o + ch] = static_cast<int32_t>(where[ch]);
                }
              }
            }
          }
        });
  }

 private:
  WindowAttrs attrs_;
  bool include_batch_in_index_ = false;
};

#define WEFT_REGISTER_MAX_POOL_WITH_ARGMAX(T)               \
  REGISTER_KERNEL_BUILDER(                                  \
      Name("MaxPoolWithArgmax")                             \
          .Device(DEVICE_CPU)                               \
          .TypeConstraint<T>("T")                           \
          .TypeConstraint("Targmax", {DT_INT32, DT_INT64}), \
      MaxPoolWithArgmaxOp<T>)

WEFT_REGISTER_MAX_POOL_WITH_ARGMAX(half);
WEFT_REGISTER_MAX_POOL_WITH_ARGMAX(bfloat16);
WEFT_REGISTER_MAX_POOL_WITH_ARGMAX(float);
WEFT_REGISTER_MAX_POOL_WITH_ARGMAX(double);
WEFT_REGISTER_MAX_POOL_WITH_ARGMAX(int8_t);
WEFT_REGISTER_MAX_POOL_WITH_ARGMAX(int16_t);
WEFT_REGISTER_MAX_POOL_WITH_ARGMAX(int32_t);
WEFT_REGISTER_MAX_POOL_WITH_ARGMAX(int64_t);
WEFT_REGISTER_MAX_POOL_WITH_ARGMAX(uint8_t);
WEFT_REGISTER_MAX_POOL_WITH_ARGMAX(uint16_t);
WEFT_REGISTER_MAX_POOL_WITH_ARGMAX(uint32_t);
WEFT_REGISTER_MAX_POOL_WITH_ARGMAX(uint64_t);

#undef WEFT_REGISTER_MAX_POOL_WITH_ARGMAX

}  // namespace
}  // namespace weft
