// Conv2D on the CPU: output[n, oh, ow, co] = sum over taps (kh, kw) and the
// input channels ci of co's group of
//   input[n, oh * sh - pad_top + kh * dh, ow * sw - pad_left + kw * dw, ci]
//     * filter[kh, kw, ci - group start, co]
// with positions outside the input contributing zero. Filters are
// [rows, cols, in_depth / groups, out_depth]; groups = input depth / filter
// in depth (grouped convolution, as TensorFlow's CPU kernel has it).
//
// How: the output pixels (all images together, N * OH * OW of them) are cut
// into chunks of rows of the im2col matrix. Each chunk gathers its patches
// (one row of rows * cols * in_depth values per output pixel, zeros for
// padding) into a buffer small enough to stay in cache, and multiplies it by
// the filter, seen as a [rows * cols * in_depth, out_depth] matrix, with
// gemm.h's GEMM straight into the output rows (a float filter is packed for
// it once per call, shared by the chunks). Chunks are independent and
// run through ctx->ParallelFor; their size depends on the shapes alone, so
// results are bit-identical at every thread count. A 1x1 filter with unit
// strides and no padding needs no patches: the input already is the
// [N * H * W, in_depth] matrix and the whole layer is one banded GEMM.
//
// NCHW is computed in NHWC between two layout changes (image_util.h).
// half and bfloat16 are gathered into float patches, multiplied with float
// accumulation and rounded once; int32 multiplies and sums modulo 2^32, as
// TensorFlow's int32 kernel wraps.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/image_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// The storage type a kernel computes on and the type it accumulates in:
// int32 is computed as uint32 (wrapping, see gemm.h).
template <typename T>
struct ConvTypes {
  using Storage = T;
  using Acc = AccumulateType<T>;
};
template <>
struct ConvTypes<int32_t> {
  using Storage = uint32_t;
  using Acc = uint32_t;
};

struct ConvShape {
  int64_t batch = 0;
  int64_t in_depth = 0;
  int64_t filter_depth = 0;  // input channels per group
  int64_t out_depth = 0;
  int64_t groups = 1;
  WindowDim rows;
  WindowDim cols;

  int64_t out_depth_per_group() const { return out_depth / groups; }
  // Columns of one group's patch matrix.
  int64_t patch_size() const {
    return rows.window * cols.window * filter_depth;
  }
};

// A chunk's patch buffer holds about this many elements (256 KiB of float):
// enough rows per chunk that the GEMM streams the (packed) filter for many
// rows at a time; small enough to stay in a core's L2.
constexpr int64_t kPatchElements = int64_t{1} << 16;
constexpr int64_t kMinChunkRows = 16;

// Rows [r0, r0 + rows) of group g's im2col matrix: one row per output pixel
// (r = (n * OH + oh) * OW + ow), columns ordered (kh, kw, ci) like the
// filter's rows.
template <typename S, typename A>
void GatherPatches(const ConvShape& s, const S* in, int64_t r0, int64_t rows,
                   int64_t g, A* patches) {
  const int64_t cin = s.filter_depth;
  const int64_t k = s.patch_size();
  const int64_t row_taps = s.cols.window * cin;
  const int64_t in_row = s.cols.input * s.in_depth;
  const int64_t image = s.rows.input * in_row;
  // Without groups and dilation, a filter row's taps read one contiguous run
  // of the input row.
  const bool contiguous = s.groups == 1 && s.cols.dilation == 1;
  int64_t ow = r0 % s.cols.output;
  int64_t oh = (r0 / s.cols.output) % s.rows.output;
  int64_t n = r0 / (s.cols.output * s.rows.output);
  for (int64_t r = 0; r < rows; ++r) {
    A* dst = patches + r * k;
    int64_t kh_lo, kh_hi, kw_lo, kw_hi;
    ValidTaps(s.rows, oh, &kh_lo, &kh_hi);
    ValidTaps(s.cols, ow, &kw_lo, &kw_hi);
    const int64_t ih0 = oh * s.rows.stride - s.rows.pad_before;
    const int64_t iw0 = ow * s.cols.stride - s.cols.pad_before;
    const S* img = in + n * image + g * cin;
    for (int64_t kh = 0; kh < s.rows.window; ++kh) {
      A* drow = dst + kh * row_taps;
      if (kh < kh_lo || kh >= kh_hi || kw_lo >= kw_hi) {
        std::fill_n(drow, row_taps, A(0));
        continue;
      }
      const S* src = img + (ih0 + kh * s.rows.dilation) * in_row;
      std::fill_n(drow, kw_lo * cin, A(0));
      if (contiguous) {
        ConvertElements(src + (iw0 + kw_lo) * s.in_depth, drow + kw_lo * cin,
                        (kw_hi - kw_lo) * cin);
      } else {
        for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
          ConvertElements(src + (iw0 + kw * s.cols.dilation) * s.in_depth,
                          drow + kw * cin, cin);
        }
      }
      std::fill_n(drow + kw_hi * cin, row_taps - kw_hi * cin, A(0));
    }
    if (++ow == s.cols.output) {
      ow = 0;
      if (++oh == s.rows.output) {
        oh = 0;
        ++n;
      }
    }
  }
}

// The convolution of NHWC `in` with `filter` (already in the accumulation
// type) into NHWC `out`.
template <typename S, typename A>
void ConvNhwc(const OpKernelContext& ctx, const ConvShape& s, const S* in,
              const A* filter, S* out) {
  const int64_t m = s.batch * s.rows.output * s.cols.output;
  const int64_t cout = s.out_depth_per_group();
  const int64_t cin = s.filter_depth;
  if constexpr (std::is_same_v<S, A>) {
    const bool pointwise = s.rows.window == 1 && s.cols.window == 1 &&
                           s.rows.stride == 1 && s.cols.stride == 1 &&
                           s.rows.pad_before == 0 && s.cols.pad_before == 0 &&
                           s.rows.output == s.rows.input &&
                           s.cols.output == s.cols.input;
    if (pointwise) {
      for (int64_t g = 0; g < s.groups; ++g) {
        Gemm<A>(ctx, m, cin, cout, GemmOperand<A>{in + g * cin, s.in_depth},
                GemmOperand<A>{filter + g * cout, s.out_depth}, out + g * cout,
                s.out_depth);
      }
      return;
    }
  }
  const int64_t k = s.patch_size();
  const int64_t chunk =
      std::min(m, std::max(kMinChunkRows, kPatchElements / k));
  const int64_t num_chunks = (m + chunk - 1) / chunk;
  // float filters are packed for the GEMM once, not once per chunk.
  std::vector<std::unique_ptr<GemmPackedRhs>> packed_filter;
  if constexpr (std::is_same_v<A, float>) {
    for (int64_t g = 0; g < s.groups; ++g) {
      packed_filter.push_back(std::make_unique<GemmPackedRhs>(
          k, cout, GemmOperand<A>{filter + g * cout, s.out_depth}, &ctx));
    }
  }
  ctx.ParallelFor(
      num_chunks, chunk * k * s.out_depth, [&](int64_t first, int64_t last) {
        std::vector<A> patches(chunk * k);
        std::vector<A> result;
        if constexpr (!std::is_same_v<S, A>) result.resize(chunk * s.out_depth);
        for (int64_t c = first; c < last; ++c) {
          const int64_t r0 = c * chunk;
          const int64_t rows = std::min(chunk, m - r0);
          A* dst;
          if constexpr (std::is_same_v<S, A>) {
            dst = out + r0 * s.out_depth;
          } else {
            dst = result.data();
          }
          for (int64_t g = 0; g < s.groups; ++g) {
            GatherPatches(s, in, r0, rows, g, patches.data());
            if constexpr (std::is_same_v<A, float>) {
              GemmSerial(rows, GemmOperand<A>{patches.data(), k},
                         *packed_filter[g], dst + g * cout, s.out_depth);
            } else {
              GemmSerial<A>(rows, k, cout, GemmOperand<A>{patches.data(), k},
                            GemmOperand<A>{filter + g * cout, s.out_depth},
                            dst + g * cout, s.out_depth);
            }
          }
          if constexpr (!std::is_same_v<S, A>) {
            ConvertElements(result.data(), out + r0 * s.out_depth,
                            rows * s.out_depth);
          }
        }
      });
}

template <typename T>
class Conv2DOp : public OpKernel {
 public:
  using S = typename ConvTypes<T>::Storage;
  using A = typename ConvTypes<T>::Acc;

  explicit Conv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadConvAttrs(ctx, &attrs_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    OP_REQUIRES(ctx, input.dims() == 4,
                errors::InvalidArgument("input must be 4-dimensional but has "
                                        "shape ",
                                        input.shape().DebugString()));
    OP_REQUIRES(ctx, filter.dims() == 4,
                errors::InvalidArgument(
                    "filter must be 4-dimensional [rows, cols, in_depth, "
                    "out_depth] but has shape ",
                    filter.shape().DebugString()));
    ConvShape s;
    s.batch = input.dim_size(attrs_.index('N'));
    s.in_depth = input.dim_size(attrs_.index('C'));
    s.filter_depth = filter.dim_size(2);
    s.out_depth = filter.dim_size(3);
    OP_REQUIRES(ctx, s.filter_depth > 0,
                errors::InvalidArgument("filter ", filter.shape().DebugString(),
                                        " has input depth 0"));
    OP_REQUIRES(
        ctx, s.in_depth % s.filter_depth == 0,
        errors::InvalidArgument(
            "input depth ", s.in_depth, " of input ",
            input.shape().DebugString(),
            " is not a multiple of the filter's input depth ", s.filter_depth,
            " (filter ", filter.shape().DebugString(), ")"));
    // An input without channels sums nothing (zeros, as in TensorFlow); it
    // counts as one group.
    s.groups = std::max<int64_t>(1, s.in_depth / s.filter_depth);
    OP_REQUIRES(
        ctx, s.out_depth % s.groups == 0,
        errors::InvalidArgument("output depth ", s.out_depth, " of filter ",
                                filter.shape().DebugString(),
                                " is not a multiple of the number of groups ",
                                s.groups, " (input depth ", s.in_depth,
                                " / filter input depth ", s.filter_depth, ")"));
    StatusOr<WindowDim> rows = ComputeWindowDim(
        attrs_, 'H', input.dim_size(attrs_.index('H')), filter.dim_size(0));
    OP_REQUIRES_OK(ctx, rows.status());
    StatusOr<WindowDim> cols = ComputeWindowDim(
        attrs_, 'W', input.dim_size(attrs_.index('W')), filter.dim_size(1));
    OP_REQUIRES_OK(ctx, cols.status());
    s.rows = *rows;
    s.cols = *cols;

    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0,
                            FormatShape(attrs_.format, s.batch, s.rows.output,
                                        s.cols.output, s.out_depth),
                            &output));
    if (output->NumElements() == 0) return;
    if (s.in_depth == 0) {
      std::fill_n(output->data<T>(), output->NumElements(), T(0));
      return;
    }

    // The filter in the accumulation type: converted once for half and
    // bfloat16, viewed in place otherwise.
    Tensor filter_acc;
    const A* f = nullptr;
    if constexpr (std::is_same_v<S, A>) {
      f = reinterpret_cast<const A*>(filter.data<T>());
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<A>::value,
                                             filter.shape(), &filter_acc));
      ConvertElements(filter.data<T>(), filter_acc.data<A>(),
                      filter.NumElements());
      f = filter_acc.data<A>();
    }
    WithNhwc(ctx, attrs_.format, input, output,
             [&](const Tensor& in, Tensor* out) {
               ConvNhwc<S, A>(*ctx, s, reinterpret_cast<const S*>(in.data<T>()),
                              f, reinterpret_cast<S*>(out->data<T>()));
             });
  }

 private:
  WindowAttrs attrs_;
};

#define WEFT_REGISTER_CONV2D(T) \
  REGISTER_KERNEL_BUILDER(      \
      Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<T>("T"), Conv2DOp<T>)

WEFT_REGISTER_CONV2D(float);
WEFT_REGISTER_CONV2D(double);
WEFT_REGISTER_CONV2D(half);
WEFT_REGISTER_CONV2D(bfloat16);
WEFT_REGISTER_CONV2D(int32_t);

#undef WEFT_REGISTER_CONV2D

}  // namespace
}  // namespace weft
