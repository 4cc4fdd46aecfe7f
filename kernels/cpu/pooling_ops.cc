// MaxPool and AvgPool on the CPU, with TensorFlow's semantics:
//
//  - MaxPool starts every output at the dtype's lowest finite value and
//    takes x over it when out < x, visiting the window in row-major order,
//    exactly as TensorFlow's SpatialMaxPool does. So NaN inputs are skipped
//    (a window of NaNs gives the lowest value), and a window of -inf gives
//    the lowest finite value, as in TensorFlow. Padded positions take no
//    part; EXPLICIT paddings must be smaller than the window, as TensorFlow
//    requires. A window over depth only (ksize 1 along height and width)
//    pools groups of channels instead: it needs depth stride = depth window
//    dividing the depth and no EXPLICIT padding, keeps the spatial size (the
//    spatial strides are ignored, as in TensorFlow) and starts each group
//    from its first value, as TensorFlow's reduction does. A depth stride
//    with a depth window of 1 is ignored, as in TensorFlow.
//  - AvgPool sums the window's in-bounds elements in row-major order and
//    divides by their count, so padding does not dilute border outputs.
//    half and bfloat16 sum in float and round once. A depth stride is
//    ignored, as in TensorFlow (the depth window must be 1).
//
// MaxPoolV2 is MaxPool with ksize and strides given as int32 input vectors
// (inputs 1 and 2) instead of attrs, read and checked on every run.
//
// Output rows (n, oh) are independent units for ctx->ParallelFor; each
// element's arithmetic is fixed, so results do not depend on the thread
// count, nor on the CPU path (the float row loops are compiled per
// instruction set, device/cpu_isa.h, and differ only in vector width).
// NCHW is computed in NHWC between two layout changes. Attrs, shapes and errors
// are shared with the CUDA kernels (kernels/common/pool_shape.h).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/tensor.h"
#include "device/cpu_isa.h"
#include "kernels/common/pool_shape.h"
#include "kernels/cpu/image_layout.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// The comparison type of MaxPool: float for half and bfloat16 (exact, and
// returns one of the inputs), the type itself otherwise.
template <typename T>
using MaxType = AccumulateType<T>;

// The row loops (pooling_rows.inc): per instruction set for float, whose
// channel loops vectorize 4, 8 or 16 wide; the baseline for every type.
namespace baseline {
constexpr int kMaxFloats = 4;
#include "kernels/cpu/pooling_rows.inc"
}  // namespace baseline

namespace avx2 {
WEFT_ISA_AVX2_BEGIN
constexpr int kMaxFloats = 8;
#include "kernels/cpu/pooling_rows.inc"
WEFT_ISA_END
}  // namespace avx2

namespace avx512 {
WEFT_ISA_AVX512_BEGIN
constexpr int kMaxFloats = 16;
#include "kernels/cpu/pooling_rows.inc"
WEFT_ISA_END
}  // namespace avx512

// Output rows [first, last) of the NHWC spatial max pool, on the active path.
template <typename T>
void MaxPoolRows(const PoolShape& s, const T* in, T* out, int64_t first,
                 int64_t last) {
  if constexpr (std::is_same_v<T, float>) {
    switch (ActiveCpuIsa()) {
      case CpuIsa::kAvx512:
        return avx512::MaxPoolRows(s, in, out, first, last);
      case CpuIsa::kAvx2:
        return avx2::MaxPoolRows(s, in, out, first, last);
      case CpuIsa::kBaseline:
        break;
    }
  }
  baseline::MaxPoolRows(s, in, out, first, last);
}

// Output rows [first, last) of the NHWC average pool, on the active path.
template <typename T>
void AvgPoolRows(const PoolShape& s, const T* in, T* out, int64_t first,
                 int64_t last) {
  if constexpr (std::is_same_v<T, float>) {
    switch (ActiveCpuIsa()) {
      case CpuIsa::kAvx512:
        return avx512::AvgPoolRows(s, in, out, first, last);
      case CpuIsa::kAvx2:
        return avx2::AvgPoolRows(s, in, out, first, last);
      case CpuIsa::kBaseline:
        break;
    }
  }
  baseline::AvgPoolRows(s, in, out, first, last);
}

// Pixels [first, last) of the NHWC max pool over groups of `window` (>= 2)
// channels. Like TensorFlow's reduction, each group starts from its first
// value, so a leading NaN is kept while later ones are skipped.
template <typename T>
void DepthMaxPoolPixels(const T* in, T* out, int64_t depth, int64_t window,
                        int64_t first, int64_t last) {
  using M = MaxType<T>;
  const int64_t out_depth = depth / window;
  for (int64_t p = first; p < last; ++p) {
    const T* x = in + p * depth;
    T* y = out + p * out_depth;
    for (int64_t d = 0; d < out_depth; ++d) {
      M a = static_cast<M>(x[d * window]);
      for (int64_t i = 1; i < window; ++i) {
        const M v = static_cast<M>(x[d * window + i]);
        a = a < v ? v : a;
      }
      y[d] = static_cast<T>(a);
    }
  }
}

// The part MaxPool and AvgPool share: output shape, then `rows` (MaxPoolRows
// or AvgPoolRows) over output rows of the NHWC view, split through `ctx`.
template <typename T, typename RowsFn>
void PoolWindows(OpKernelContext* ctx, const WindowAttrs& attrs,
                 const Tensor& input, RowsFn rows) {
  StatusOr<PoolShape> shape = GetPoolShape(attrs, 1, input.shape());
  OP_REQUIRES_OK(ctx, shape.status());
  const PoolShape& s = *shape;
  Tensor* output = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, s.OutputShape(attrs), &output));
  if (output->NumElements() == 0) return;
  const int64_t row_cost =
      s.cols.output * s.rows.window * s.cols.window * s.depth;
  WithNhwc(
      ctx, attrs.format, input, output, [&](const Tensor& in, Tensor* out) {
        const T* x = in.data<T>();
        T* y = out->data<T>();
        ctx->ParallelFor(
            s.batch * s.rows.output, row_cost,
            [&](int64_t first, int64_t last) { rows(s, x, y, first, last); });
      });
}

template <typename T>
class MaxPoolOp : public OpKernel {
 public:
  explicit MaxPoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    OP_REQUIRES(ctx, format != "NCHW_VECT_C",
                errors::InvalidArgument(
                    "data_format NCHW_VECT_C is only for qint8, which has no "
                    "CPU kernel; use NHWC or NCHW"));
    // MaxPoolV2 takes ksize and strides as inputs.
    windows_from_inputs_ = !ctx->HasAttr("ksize");
    if (windows_from_inputs_) {
      OP_REQUIRES_OK(ctx, ReadFormatAndPadding(ctx, &attrs_));
      return;
    }
    OP_REQUIRES_OK(ctx, ReadPoolAttrs(ctx, true, &attrs_, &depth_window_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    if (windows_from_inputs_) {
      WindowAttrs attrs = attrs_;
      int64_t depth_window = 1;
      OP_REQUIRES_OK(
          ctx, ReadWindowInput(ctx->input(1), "ksize (input 1)", &attrs.ksize));
      OP_REQUIRES_OK(ctx, ReadWindowInput(ctx->input(2), "strides (input 2)",
                                          &attrs.strides));
      OP_REQUIRES_OK(ctx, CheckPoolAttrs(true, attrs, &depth_window));
      Pool(ctx, input, attrs, depth_window);
      return;
    }
    Pool(ctx, input, attrs_, depth_window_);
  }

 private:
  // A 4-value int32 vector of values >= 1, as ReadWindowList wants of the
  // attrs.
  static Status ReadWindowInput(const Tensor& t, const char* name,
                                std::vector<int64_t>* values) {
    if (t.dtype() != DT_INT32 || t.dims() != 1 || t.NumElements() != 4) {
      return errors::InvalidArgument(
          name,
          " must be an int32 vector of 4 values, one per dimension of "
          "the input, but has shape ",
          t.shape().DebugString());
    }
    const int32_t* v = t.data<int32_t>();
    values->assign(v, v + 4);
    for (int64_t x : *values) {
      if (x < 1) {
        return errors::InvalidArgument(name, " is ", WindowListString(*values),
                                       " but its values must be >= 1");
      }
    }
    return Status();
  }

  static void Pool(OpKernelContext* ctx, const Tensor& input,
                   const WindowAttrs& attrs, int64_t depth_window) {
    if (depth_window != 1) {
      ComputeDepthwise(ctx, input, attrs, depth_window);
      return;
    }
    PoolWindows<T>(ctx, attrs, input, MaxPoolRows<T>);
  }

  static void ComputeDepthwise(OpKernelContext* ctx, const Tensor& input,
                               const WindowAttrs& attrs, int64_t depth_window) {
    StatusOr<PoolShape> shape =
        GetPoolShape(attrs, depth_window, input.shape());
    OP_REQUIRES_OK(ctx, shape.status());
    const int64_t depth = shape->depth;
    const int64_t pixels =
        shape->batch * shape->rows.output * shape->cols.output;
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, shape->OutputShape(attrs), &output));
    if (output->NumElements() == 0) return;
    WithNhwc(
        ctx, attrs.format, input, output, [&](const Tensor& in, Tensor* out) {
          const T* x = in.data<T>();
          T* y = out->data<T>();
          ctx->ParallelFor(pixels, depth, [&](int64_t first, int64_t last) {
            DepthMaxPoolPixels<T>(x, y, depth, depth_window, first, last);
          });
        });
  }

  WindowAttrs attrs_;
  int64_t depth_window_ = 1;
  bool windows_from_inputs_ = false;
};

template <typename T>
class AvgPoolOp : public OpKernel {
 public:
  explicit AvgPoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t depth_window = 1;  // always 1: checked by ReadPoolAttrs
    OP_REQUIRES_OK(ctx, ReadPoolAttrs(ctx, false, &attrs_, &depth_window));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    PoolWindows<T>(ctx, attrs_, input, AvgPoolRows<T>);
  }

 private:
  WindowAttrs attrs_;
};

#define WEFT_REGISTER_MAXPOOL(T)                                   \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("MaxPool").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
      MaxPoolOp<T>);                                               \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("MaxPoolV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      MaxPoolOp<T>)

WEFT_REGISTER_MAXPOOL(float);
WEFT_REGISTER_MAXPOOL(double);
WEFT_REGISTER_MAXPOOL(half);
WEFT_REGISTER_MAXPOOL(bfloat16);
WEFT_REGISTER_MAXPOOL(int32_t);
WEFT_REGISTER_MAXPOOL(int64_t);
WEFT_REGISTER_MAXPOOL(uint8_t);
WEFT_REGISTER_MAXPOOL(int8_t);
WEFT_REGISTER_MAXPOOL(int16_t);
WEFT_REGISTER_MAXPOOL(uint16_t);

#undef WEFT_REGISTER_MAXPOOL

#define WEFT_REGISTER_AVGPOOL(T) \
  REGISTER_KERNEL_BUILDER(       \
      Name("AvgPool").Device(DEVICE_CPU).TypeConstraint<T>("T"), AvgPoolOp<T>)

WEFT_REGISTER_AVGPOOL(float);
WEFT_REGISTER_AVGPOOL(double);
WEFT_REGISTER_AVGPOOL(half);
WEFT_REGISTER_AVGPOOL(bfloat16);

#undef WEFT_REGISTER_AVGPOOL

}  // namespace
}  // namespace weft
