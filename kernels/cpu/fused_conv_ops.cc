// _FusedConv2D and _FusedDepthwiseConv2dNative on the CPU, for float: the
// convolution of Conv2D / DepthwiseConv2dNative (conv_ops.cc,
// depthwise_conv_op.cc) with the bias and activation that followed it in the
// graph applied to each block of output while it is in cache (see
// fused_epilogue.h and the op definitions in ops/nn_fused_ops.cc).
//
// The convolution is computed as Conv2D's: output pixels are cut into chunks
// of im2col rows sized from the shapes alone (so results do not depend on
// the thread count), each chunk's patches are gathered into a buffer that
// stays in L2 and multiplied by the filter matrix; the epilogue then runs on
// the chunk's output rows (GemmSerial with gemm.h's GemmEpilogue, applied
// to each tile as it is finished). A 1x1 stride-1 unpadded filter needs no
// patches: the input is multiplied directly, by the parallel Gemm.
//
// The depthwise convolution is depthwise_conv.h's, shared with
// DepthwiseConv2dNative, which applies the epilogue to each output row while
// it is still in cache.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/depthwise_conv.h"
#include "kernels/cpu/fused_epilogue.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/image_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

struct ConvGeometry {
  int64_t batch = 0;
  int64_t in_depth = 0;
  int64_t filter_depth = 0;  // input channels per group
  int64_t out_depth = 0;
  int64_t groups = 1;
  WindowDim rows;
  WindowDim cols;

  int64_t patch_size() const {
    return rows.window * cols.window * filter_depth;
  }
  bool pointwise() const {
    return rows.window == 1 && cols.window == 1 && rows.stride == 1 &&
           cols.stride == 1 && rows.pad_before == 0 && cols.pad_before == 0 &&
           rows.output == rows.input && cols.output == cols.input;
  }
};

// Patch buffers of about 128 KiB (a core's L2 holds them and the output
// rows they produce), at least 16 rows so that the filter the GEMM packs per
// chunk is amortized.
constexpr int64_t kPatchElements = int64_t{1} << 15;
constexpr int64_t kMinChunkRows = 16;

// im2col rows [r0, r0 + rows) of group g: one row per output pixel, columns
// in the filter's (kh, kw, ci) order, zeros where the window leaves the
// input.
void Im2ColRows(const ConvGeometry& s, const float* in, int64_t r0,
                int64_t rows, int64_t g, float* patches) {
  const int64_t cin = s.filter_depth;
  const int64_t k = s.patch_size();
  const int64_t taps_per_row = s.cols.window * cin;
  const int64_t in_row = s.cols.input * s.in_depth;
  const int64_t image = s.rows.input * in_row;
  const bool contiguous = s.groups == 1 && s.cols.dilation == 1;
  for (int64_t r = r0; r < r0 + rows; ++r) {
    const int64_t ow = r % s.cols.output;
    const int64_t oh = (r / s.cols.output) % s.rows.output;
    const int64_t n = r / (s.cols.output * s.rows.output);
    float* dst = patches + (r - r0) * k;
    int64_t kh_lo, kh_hi, kw_lo, kw_hi;
    ValidTaps(s.rows, oh, &kh_lo, &kh_hi);
    ValidTaps(s.cols, ow, &kw_lo, &kw_hi);
    const int64_t ih0 = oh * s.rows.stride - s.rows.pad_before;
    const int64_t iw0 = ow * s.cols.stride - s.cols.pad_before;
    const float* img = in + n * image + g * cin;
    for (int64_t kh = 0; kh < s.rows.window; ++kh) {
      float* line = dst + kh * taps_per_row;
      if (kh < kh_lo || kh >= kh_hi || kw_lo >= kw_hi) {
        std::fill_n(line, taps_per_row, 0.0f);
        continue;
      }
      const float* src = img + (ih0 + kh * s.rows.dilation) * in_row;
      std::fill_n(line, kw_lo * cin, 0.0f);
      if (contiguous) {
        std::copy_n(src + (iw0 + kw_lo) * s.in_depth, (kw_hi - kw_lo) * cin,
                    line + kw_lo * cin);
      } else {
        for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
          std::copy_n(src + (iw0 + kw * s.cols.dilation) * s.in_depth, cin,
                      line + kw * cin);
        }
      }
      std::fill_n(line + kw_hi * cin, taps_per_row - kw_hi * cin, 0.0f);
    }
  }
}

void FusedConvNhwc(const OpKernelContext& ctx, const ConvGeometry& s,
                   const float* in, const float* filter,
                   const GemmEpilogue& epilogue, float* out) {
  const int64_t m = s.batch * s.rows.output * s.cols.output;
  const int64_t cin = s.filter_depth;
  const int64_t cout = s.out_depth / s.groups;
  if (s.pointwise() && s.groups == 1) {
    // The input is already the [m, in_depth] patch matrix: one product, the
    // epilogue applied by the GEMM to each tile it finishes.
    Gemm(ctx, m, cin, cout, GemmOperand<float>{in, s.in_depth},
         GemmOperand<float>{filter, s.out_depth}, out, s.out_depth, epilogue);
    return;
  }
  const int64_t k = s.patch_size();
  const int64_t chunk =
      std::min(m, std::max(kMinChunkRows, kPatchElements / k));
  const int64_t num_chunks = (m + chunk - 1) / chunk;
  ctx.ParallelFor(
      num_chunks, chunk * k * s.out_depth, [&](int64_t first, int64_t last) {
        std::vector<float> patches(chunk * k);
        for (int64_t c = first; c < last; ++c) {
          const int64_t r0 = c * chunk;
          const int64_t rows = std::min(chunk, m - r0);
          float* dst = out + r0 * s.out_depth;
          for (int64_t g = 0; g < s.groups; ++g) {
            Im2ColRows(s, in, r0, rows, g, patches.data());
            GemmEpilogue group_epilogue = epilogue;
            if (epilogue.bias != nullptr) group_epilogue.bias += g * cout;
            GemmSerial(rows, k, cout, GemmOperand<float>{patches.data(), k},
                       GemmOperand<float>{filter + g * cout, s.out_depth},
                       dst + g * cout, s.out_depth, group_epilogue);
          }
        }
      });
}

// The bias input (args[0]) checked against the output depth.
Status CheckBias(const OpKernelContext& ctx, int64_t channels) {
  const Tensor& bias = ctx.input(2);
  if (bias.dims() != 1 || bias.dim_size(0) != channels) {
    return errors::InvalidArgument("bias (input 2) has shape ",
                                   bias.shape().DebugString(), " but must be [",
                                   channels, "], one value per output channel");
  }
  return Status();
}

class FusedConv2DOp : public OpKernel {
 public:
  explicit FusedConv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadConvAttrs(ctx, &attrs_));
    OP_REQUIRES_OK(ctx, ReadFusedOps(ctx, &epilogue_, &has_bias_));
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
    ConvGeometry s;
    s.batch = input.dim_size(attrs_.index('N'));
    s.in_depth = input.dim_size(attrs_.index('C'));
    s.filter_depth = filter.dim_size(2);
    s.out_depth = filter.dim_size(3);
    OP_REQUIRES(
        ctx, s.filter_depth > 0 && s.in_depth % s.filter_depth == 0,
        errors::InvalidArgument(
            "input depth ", s.in_depth, " of input ",
            input.shape().DebugString(),
            " is not a multiple of the filter's input depth ", s.filter_depth));
    // No input channels: one group summing nothing, as Conv2D has it.
    s.groups = std::max<int64_t>(1, s.in_depth / s.filter_depth);
    OP_REQUIRES(ctx, s.out_depth % s.groups == 0,
                errors::InvalidArgument("output depth ", s.out_depth,
                                        " is not a multiple of the number of "
                                        "groups ",
                                        s.groups));
    if (has_bias_) OP_REQUIRES_OK(ctx, CheckBias(*ctx, s.out_depth));
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
    GemmEpilogue epilogue = epilogue_;
    epilogue.bias = has_bias_ ? ctx->input(2).data<float>() : nullptr;
    if (s.in_depth == 0) {
      // Empty sums are zeros; the epilogue still applies (NHWC and NCHW
      // alike once the layout is NHWC, so compute through WithNhwc).
      WithNhwc(ctx, attrs_.format, input, output,
               [&](const Tensor&, Tensor* out) {
                 std::fill_n(out->data<float>(), out->NumElements(), 0.0f);
                 ApplyEpilogueRows(epilogue, out->data<float>(),
                                   out->NumElements() / s.out_depth,
                                   s.out_depth, s.out_depth);
               });
      return;
    }
    WithNhwc(ctx, attrs_.format, input, output,
             [&](const Tensor& in, Tensor* out) {
               FusedConvNhwc(*ctx, s, in.data<float>(), filter.data<float>(),
                             epilogue, out->data<float>());
             });
  }

 private:
  WindowAttrs attrs_;
  GemmEpilogue epilogue_;
  bool has_bias_ = false;
};

class FusedDepthwiseConv2dNativeOp : public OpKernel {
 public:
  explicit FusedDepthwiseConv2dNativeOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadConvAttrs(ctx, &attrs_));
    OP_REQUIRES_OK(ctx, ReadFusedOps(ctx, &epilogue_, &has_bias_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    DepthwiseGeometry s;
    OP_REQUIRES_OK(ctx, ComputeDepthwiseGeometry(attrs_, input, filter, &s));
    if (has_bias_) OP_REQUIRES_OK(ctx, CheckBias(*ctx, s.out_depth()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0,
                            FormatShape(attrs_.format, s.batch, s.rows.output,
                                        s.cols.output, s.out_depth()),
                            &output));
    if (output->NumElements() == 0) return;
    GemmEpilogue epilogue = epilogue_;
    epilogue.bias = has_bias_ ? ctx->input(2).data<float>() : nullptr;
    WithNhwc(ctx, attrs_.format, input, output,
             [&](const Tensor& in, Tensor* out) {
               DepthwiseConvNhwc(*ctx, s, in.data<float>(),
                                 filter.data<float>(), &epilogue,
                                 out->data<float>());
             });
  }

 private:
  WindowAttrs attrs_;
  GemmEpilogue epilogue_;
  bool has_bias_ = false;
};

REGISTER_KERNEL_BUILDER(
    Name("_FusedConv2D").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FusedConv2DOp);
REGISTER_KERNEL_BUILDER(Name("_FusedDepthwiseConv2dNative")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T"),
                        FusedDepthwiseConv2dNativeOp);

}  // namespace
}  // namespace weft
