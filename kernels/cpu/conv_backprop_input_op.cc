// Conv2DBackpropInput on the CPU: the gradient of Conv2D with respect to its
// input, which is also the transposed convolution that Conv2DTranspose
// layers compute:
//   output[n, ih, iw, ci] = sum over (oh, ow, kh, kw, co) with
//     ih = oh * sh - pad_top + kh * dh and iw = ow * sw - pad_left + kw * dw
//   of out_backprop[n, oh, ow, co] * filter[kh, kw, ci, co]
// (within ci's group for grouped filters). input_sizes gives the output's
// shape: 4 sizes in data_format order, or 2 (height, width) with the batch
// taken from out_backprop and the depth from the filter.
//
// How, per group: one GEMM, out_backprop [N * OH * OW, out_depth] times the
// filter seen as [rows * cols * in_depth, out_depth] transposed, gives every
// output pixel's contribution to every tap ("columns"); then each input
// pixel gathers the contributions of the taps that reach it, in tap order.
// The gather writes each input pixel once, so it parallelizes over input
// rows without races, and like the banded GEMM its work split depends on
// the shapes alone: results are the same at every thread count. Images are
// processed in batches whose column buffer stays below kColumnElements.
//
// Beyond TensorFlow's CPU kernel (NHWC, no dilation, no groups), NCHW,
// dilations and grouped filters are computed here too, as TensorFlow's GPU
// kernel does. half and bfloat16 accumulate in float; int32 wraps modulo
// 2^32 like TensorFlow's int32 kernel.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/context_parallel_for.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/image_layout.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T>
struct BackpropTypes {
  using Storage = T;
  using Acc = AccumulateType<T>;
};
template <>
struct BackpropTypes<int32_t> {
  using Storage = uint32_t;
  using Acc = uint32_t;
};

// At most this many column elements (64 MiB of float) are held at once,
// unless one image alone needs more.
constexpr int64_t kColumnElements = int64_t{1} << 24;

struct BackpropShape {
  int64_t batch = 0;
  int64_t in_depth = 0;      // of the result (the forward input)
  int64_t filter_depth = 0;  // input channels per group
  int64_t out_depth = 0;     // of out_backprop
  int64_t groups = 1;
  WindowDim rows;  // input = result height, output = out_backprop height
  WindowDim cols;

  int64_t taps() const { return rows.window * cols.window * filter_depth; }
  int64_t out_pixels() const { return rows.output * cols.output; }
};

// Rows [first, last) of result rows (n - n0, ih) for the images starting at
// n0: sums the columns of group g into `out` (NHWC, all images), writing
// every element of the group's channels.
template <typename A>
void GatherColumns(const BackpropShape& s, const A* columns, int64_t n0,
                   int64_t g, int64_t first, int64_t last, A* out) {
  const int64_t cin = s.filter_depth;
  const int64_t k = s.taps();
  for (int64_t r = first; r < last; ++r) {
    const int64_t n = r / s.rows.input;
    const int64_t ih = r % s.rows.input;
    const A* image_cols = columns + n * s.out_pixels() * k;
    A* out_row = out +
                 ((n0 + n) * s.rows.input + ih) * s.cols.input * s.in_depth +
                 g * cin;
    for (int64_t iw = 0; iw < s.cols.input; ++iw) {
      A* dst = out_row + iw * s.in_depth;
      std::fill_n(dst, cin, A(0));
      for (int64_t kh = 0; kh < s.rows.window; ++kh) {
        // oh * stride = ih + pad - kh * dilation
        const int64_t y = ih + s.rows.pad_before - kh * s.rows.dilation;
        if (y < 0 || y % s.rows.stride != 0) continue;
        const int64_t oh = y / s.rows.stride;
        if (oh >= s.rows.output) continue;
        for (int64_t kw = 0; kw < s.cols.window; ++kw) {
          const int64_t x = iw + s.cols.pad_before - kw * s.cols.dilation;
          if (x < 0 || x % s.cols.stride != 0) continue;
          const int64_t ow = x / s.cols.stride;
          if (ow >= s.cols.output) continue;
          const A* src = image_cols + (oh * s.cols.output + ow) * k +
                         (kh * s.cols.window + kw) * cin;
          for (int64_t c = 0; c < cin; ++c) dst[c] += src[c];
        }
      }
    }
  }
}

// How many images' columns are computed at once.
int64_t ImagesPerBatch(const BackpropShape& s) {
  const int64_t per_image = std::max<int64_t>(1, s.out_pixels() * s.taps());
  return std::max<int64_t>(1, std::min(s.batch, kColumnElements / per_image));
}

// The NHWC result `out` from NHWC out_backprop `dy` and `filter`, all in A,
// with `columns` holding ImagesPerBatch(s) images' columns.
template <typename A>
void BackpropNhwc(const OpKernelContext& ctx, const BackpropShape& s,
                  const A* dy, const A* filter, A* columns, A* out) {
  const int64_t k = s.taps();
  const int64_t cout = s.out_depth / s.groups;
  const int64_t images = ImagesPerBatch(s);
  const int64_t row_cost =
      s.cols.input * s.rows.window * s.cols.window * s.filter_depth;
  for (int64_t n0 = 0; n0 < s.batch; n0 += images) {
    const int64_t count = std::min(images, s.batch - n0);
    for (int64_t g = 0; g < s.groups; ++g) {
      Gemm<A>(ContextParallelFor(ctx), count * s.out_pixels(), cout, k,
              GemmOperand<A>{dy + n0 * s.out_pixels() * s.out_depth + g * cout,
                             s.out_depth},
              GemmOperand<A>{filter + g * cout, s.out_depth,
                             /*transposed=*/true},
              columns, k);
      ctx.ParallelFor(count * s.rows.input, row_cost,
                      [&](int64_t first, int64_t last) {
                        GatherColumns(s, columns, n0, g, first, last, out);
                      });
    }
  }
}

template <typename T>
class Conv2DBackpropInputOp : public OpKernel {
 public:
  using S = typename BackpropTypes<T>::Storage;
  using A = typename BackpropTypes<T>::Acc;

  explicit Conv2DBackpropInputOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadConvAttrs(ctx, &attrs_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& sizes = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    OP_REQUIRES(ctx, filter.dims() == 4,
                errors::InvalidArgument(
                    "filter must be 4-dimensional [rows, cols, in_depth, "
                    "out_depth] but has shape ",
                    filter.shape().DebugString()));
    OP_REQUIRES(ctx, dy.dims() == 4,
                errors::InvalidArgument("out_backprop must be 4-dimensional "
                                        "but has shape ",
                                        dy.shape().DebugString()));
    OP_REQUIRES(ctx, sizes.dims() == 1,
                errors::InvalidArgument("input_sizes must be a vector but has "
                                        "shape ",
                                        sizes.shape().DebugString()));
    const int32_t* sz = sizes.data<int32_t>();
    const int n_idx = attrs_.index('N'), h_idx = attrs_.index('H'),
              w_idx = attrs_.index('W'), c_idx = attrs_.index('C');
    BackpropShape s;
    int64_t height = 0, width = 0;
    if (sizes.NumElements() == 4) {
      s.batch = sz[n_idx];
      height = sz[h_idx];
      width = sz[w_idx];
      s.in_depth = sz[c_idx];
    } else if (sizes.NumElements() == 2) {
      s.batch = dy.dim_size(n_idx);
      height = sz[0];
      width = sz[1];
      s.in_depth = filter.dim_size(2);
    } else {
      ctx->SetStatus(errors::InvalidArgument(
          "input_sizes must hold 4 sizes (in data_format order) or 2 (height "
          "and width) but holds ",
          sizes.NumElements()));
      return;
    }
    OP_REQUIRES(ctx,
                s.batch >= 0 && height >= 0 && width >= 0 && s.in_depth >= 0,
                errors::InvalidArgument("input_sizes ", sizes.SummarizeValue(4),
                                        " holds a negative size"));
    OP_REQUIRES(
        ctx, s.batch == dy.dim_size(n_idx),
        errors::InvalidArgument("the batch size ", s.batch,
                                " in input_sizes differs from out_backprop's ",
                                dy.shape().DebugString()));
    s.filter_depth = filter.dim_size(2);
    s.out_depth = filter.dim_size(3);
    OP_REQUIRES(ctx, s.filter_depth > 0,
                errors::InvalidArgument("filter ", filter.shape().DebugString(),
                                        " has input depth 0"));
    OP_REQUIRES(
        ctx, s.in_depth % s.filter_depth == 0,
        errors::InvalidArgument(
            "input depth ", s.in_depth,
            " in input_sizes is not a multiple of the filter's input "
            "depth ",
            s.filter_depth, " (filter ", filter.shape().DebugString(), ")"));
    // No input channels: an empty result, counted as one group.
    s.groups = std::max<int64_t>(1, s.in_depth / s.filter_depth);
    OP_REQUIRES(ctx, s.out_depth % s.groups == 0,
                errors::InvalidArgument(
                    "output depth ", s.out_depth, " of filter ",
                    filter.shape().DebugString(),
                    " is not a multiple of the number of groups ", s.groups));
    OP_REQUIRES(ctx, dy.dim_size(c_idx) == s.out_depth,
                errors::InvalidArgument(
                    "the depth of out_backprop ", dy.shape().DebugString(),
                    " must equal the filter's output depth (dimension 3 of ",
                    filter.shape().DebugString(), ")"));
    StatusOr<WindowDim> rows =
        ComputeWindowDim(attrs_, 'H', height, filter.dim_size(0));
    OP_REQUIRES_OK(ctx, rows.status());
    StatusOr<WindowDim> cols =
        ComputeWindowDim(attrs_, 'W', width, filter.dim_size(1));
    OP_REQUIRES_OK(ctx, cols.status());
    s.rows = *rows;
    s.cols = *cols;
    OP_REQUIRES(ctx,
                s.rows.output == dy.dim_size(h_idx) &&
                    s.cols.output == dy.dim_size(w_idx),
                errors::InvalidArgument(
                    "out_backprop ", dy.shape().DebugString(),
                    " does not have the spatial size [", s.rows.output, ", ",
                    s.cols.output, "] that convolving input_sizes ",
                    sizes.SummarizeValue(4), " with filter ",
                    filter.shape().DebugString(), " gives"));

    Tensor* output = nullptr;
    OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, FormatShape(attrs_.format, s.batch, height, width, s.in_depth),
            &output));
    if (output->NumElements() == 0) return;

    // Operands and result in the accumulation type.
    auto as_acc = [&](const Tensor& t, Tensor* tmp) -> const A* {
      if constexpr (std::is_same_v<S, A>) {
        return reinterpret_cast<const A*>(t.data<T>());
      } else {
        Status st =
            ctx->allocate_temp(DataTypeToEnum<A>::value, t.shape(), tmp);
        if (!st.ok()) {
          ctx->SetStatus(st);
          return nullptr;
        }
        ConvertElements(t.data<T>(), tmp->data<A>(), t.NumElements());
        return tmp->data<A>();
      }
    };
    Tensor filter_tmp;
    const A* f = as_acc(filter, &filter_tmp);
    if (f == nullptr) return;
    WithNhwc(
        ctx, attrs_.format, dy, output,
        [&](const Tensor& dy_nhwc, Tensor* out) {
          Tensor dy_tmp;
          const A* g = as_acc(dy_nhwc, &dy_tmp);
          if (g == nullptr) return;
          if (dy_nhwc.NumElements() == 0 || s.out_depth == 0) {
            // No contributions: the gradient is zero.
            std::fill_n(out->data<T>(), out->NumElements(), T(0));
            return;
          }
          Tensor columns;
          OP_REQUIRES_OK(
              ctx, ctx->allocate_temp(DataTypeToEnum<A>::value,
                                      TensorShape({ImagesPerBatch(s),
                                                   s.out_pixels(), s.taps()}),
                                      &columns));
          if constexpr (std::is_same_v<S, A>) {
            BackpropNhwc<A>(*ctx, s, g, f, columns.data<A>(),
                            reinterpret_cast<A*>(out->data<T>()));
          } else {
            Tensor result;
            OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<A>::value,
                                                   out->shape(), &result));
            BackpropNhwc<A>(*ctx, s, g, f, columns.data<A>(), result.data<A>());
            ConvertElements(result.data<A>(), out->data<T>(),
                            out->NumElements());
          }
        });
  }

 private:
  WindowAttrs attrs_;
};

#define WEFT_REGISTER_BACKPROP_INPUT(T)                                      \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("Conv2DBackpropInput").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      Conv2DBackpropInputOp<T>)

WEFT_REGISTER_BACKPROP_INPUT(float);
WEFT_REGISTER_BACKPROP_INPUT(double);
WEFT_REGISTER_BACKPROP_INPUT(half);
WEFT_REGISTER_BACKPROP_INPUT(bfloat16);
WEFT_REGISTER_BACKPROP_INPUT(int32_t);

#undef WEFT_REGISTER_BACKPROP_INPUT

}  // namespace
}  // namespace weft
