// _FusedConv2D and _FusedDepthwiseConv2dNative on the CPU, for float: the
// convolution of Conv2D / DepthwiseConv2dNative (conv_ops.cc,
// depthwise_conv_op.cc) with the bias and activation that followed it in the
// graph applied to each block of output while it is in cache (see
// fused_epilogue.h and the op definitions in ops/nn_fused_ops.cc).
//
// _FusedConv2D is Conv2D's convolution (conv2d.h, shared with conv_ops.cc)
// with the epilogue handed to the GEMM, which applies it to each tile as it
// finishes it, and a constant filter packed once as Conv2D packs it. Its
// epilogue may add a residual (fused_ops "Add": a tensor of the output's
// shape, the last input) before the activation.
//
// The depthwise convolution is depthwise_conv.h's, shared with
// DepthwiseConv2dNative, which applies the epilogue to each output row while
// it is still in cache.
//
// _FusedSeparableConv2D is both, a depthwise convolution and the 1x1
// convolution of its output, band by band (separable_conv.h), with the 1x1
// filter packed once when it is a constant (the optimizer fuses only such).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "kernels/cpu/context_parallel_for.h"
#include "kernels/cpu/conv2d.h"
#include "kernels/cpu/depthwise_conv.h"
#include "kernels/cpu/fused_epilogue.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/image_layout.h"
#include "kernels/cpu/separable_conv.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// A bias input (by default args[0], input 2) checked against the depth of
// the values it is added to.
Status CheckBias(const OpKernelContext& ctx, int64_t channels, int index = 2) {
  const Tensor& bias = ctx.input(index);
  if (bias.dims() != 1 || bias.dim_size(0) != channels) {
    return errors::InvalidArgument("bias (input ", index, ") has shape ",
                                   bias.shape().DebugString(), " but must be [",
                                   channels, "], one value per output channel");
  }
  return Status();
}

class FusedConv2DOp : public OpKernel {
 public:
  explicit FusedConv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadConvAttrs(ctx, &attrs_));
    OP_REQUIRES_OK(ctx,
                   ReadFusedOps(ctx, &epilogue_, &has_bias_, &has_residual_));
    OP_REQUIRES(ctx, !has_residual_ || attrs_.format == TensorFormat::kNHWC,
                errors::Unimplemented(
                    "fused_ops with Add (a residual) need data_format NHWC"));
    // As Conv2D: a constant filter is packed once, for ungrouped
    // convolutions.
    if (const Tensor* f = ctx->constant_input(1)) {
      packed_ = Conv2DPackedFilter::Make(*f, 1, &attrs_);
    }
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Conv2DGeometry s;
    OP_REQUIRES_OK(ctx, MakeConv2DGeometry(attrs_, input, filter, &s));
    if (has_bias_) OP_REQUIRES_OK(ctx, CheckBias(*ctx, s.out_depth));

    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0,
                            FormatShape(attrs_.format, s.batch, s.rows.output,
                                        s.cols.output, s.out_depth),
                            &output));
    GemmEpilogue epilogue = epilogue_;
    if (has_residual_) {
      OP_REQUIRES_OK(ctx, SetResidual(*ctx, has_bias_, output->shape(),
                                      s.out_depth, &epilogue));
    }
    if (output->NumElements() == 0) return;
    epilogue.bias = has_bias_ ? ctx->input(2).data<float>() : nullptr;
    // An input without channels gives epilogue(0) (Conv2DNhwc).
    WithNhwc(ctx, attrs_.format, input, output,
             [&](const Tensor& in, Tensor* out) {
               Conv2DNhwc(ContextParallelFor(*ctx), s, in.data<float>(),
                          filter.data<float>(), epilogue, out->data<float>(),
                          packed_ ? packed_->For(filter, s) : nullptr);
             });
  }

 private:
  WindowAttrs attrs_;
  GemmEpilogue epilogue_;
  bool has_bias_ = false;
  bool has_residual_ = false;
  std::unique_ptr<Conv2DPackedFilter> packed_;  // null: packed per call
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
               DepthwiseConvNhwc(ContextParallelFor(*ctx), s, in.data<float>(),
                                 filter.data<float>(), &epilogue,
                                 out->data<float>());
             });
  }

 private:
  WindowAttrs attrs_;
  GemmEpilogue epilogue_;
  bool has_bias_ = false;
};

class FusedSeparableConv2DOp : public OpKernel {
 public:
  explicit FusedSeparableConv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    // data_format is NHWC: the op admits no other.
    OP_REQUIRES_OK(ctx, ReadConvAttrs(ctx, &attrs_));
    OP_REQUIRES_OK(ctx,
                   ReadFusedOps(ctx, &depthwise_epilogue_, &depthwise_has_bias_,
                                nullptr, "depthwise_"));
    OP_REQUIRES_OK(ctx,
                   ReadFusedOps(ctx, &epilogue_, &has_bias_, &has_residual_));
    if (const Tensor* f = ctx->constant_input(2)) {
      OP_REQUIRES_OK(ctx, CheckPointwise(*f, -1));
      packed_ = std::make_unique<GemmPackedRhs>(
          f->dim_size(2), f->dim_size(3),
          GemmOperand<float>{f->data<float>(), f->dim_size(3)});
      packed_filter_ = *f;
    }
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    DepthwiseGeometry s;
    OP_REQUIRES_OK(ctx,
                   ComputeDepthwiseGeometry(attrs_, input, ctx->input(1), &s));
    const Tensor& pointwise = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckPointwise(pointwise, s.out_depth()));
    const int64_t k = pointwise.dim_size(3);
    // The pointwise args follow the depthwise bias, its only arg
    // (ReadFusedOps checked num_depthwise_args against it).
    const int first_arg = depthwise_has_bias_ ? 4 : 3;
    if (depthwise_has_bias_) {
      OP_REQUIRES_OK(ctx, CheckBias(*ctx, s.out_depth(), 3));
    }
    if (has_bias_) OP_REQUIRES_OK(ctx, CheckBias(*ctx, k, first_arg));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({s.batch, s.rows.output, s.cols.output, k}),
                 &output));
    GemmEpilogue epilogue = epilogue_;
    if (has_residual_) {
      OP_REQUIRES_OK(ctx, SetResidual(*ctx, has_bias_, output->shape(), k,
                                      &epilogue, first_arg));
    }
    if (output->NumElements() == 0) return;
    epilogue.bias = has_bias_ ? ctx->input(first_arg).data<float>() : nullptr;
    GemmEpilogue depthwise = depthwise_epilogue_;
    depthwise.bias =
        depthwise_has_bias_ ? ctx->input(3).data<float>() : nullptr;
    // A filter that is not the constant packed at construction (a fed one)
    // is packed for this run.
    std::unique_ptr<GemmPackedRhs> per_call;
    const GemmPackedRhs* packed = packed_.get();
    if (packed == nullptr || !ConstantInputMatches(pointwise, packed_filter_)) {
      per_call = std::make_unique<GemmPackedRhs>(
          s.out_depth(), k, GemmOperand<float>{pointwise.data<float>(), k});
      packed = per_call.get();
    }
    SeparableConvNhwc(ContextParallelFor(*ctx), s, input.data<float>(),
                      ctx->input(1).data<float>(), &depthwise, *packed,
                      epilogue, output->data<float>());
  }

 private:
  // The pointwise filter (input 2): [1, 1, depth, K], depth the depthwise
  // output's (-1: any) and not 0 (as Conv2D's filter must have input
  // channels).
  static Status CheckPointwise(const Tensor& f, int64_t depth) {
    if (f.dtype() != DT_FLOAT || f.dims() != 4 || f.dim_size(0) != 1 ||
        f.dim_size(1) != 1 || f.dim_size(2) == 0 ||
        (depth >= 0 && f.dim_size(2) != depth)) {
      return errors::InvalidArgument(
          "pointwise filter (input 2) has shape ", f.shape().DebugString(),
          " but must be a float [1, 1, ",
          depth >= 0 ? absl::StrCat(depth) : std::string("C * M"),
          ", K], C * M the depthwise output's depth (not 0)");
    }
    return Status();
  }

  WindowAttrs attrs_;
  GemmEpilogue depthwise_epilogue_;
  GemmEpilogue epilogue_;
  bool depthwise_has_bias_ = false;
  bool has_bias_ = false;
  bool has_residual_ = false;
  Tensor packed_filter_;                   // what packed_ holds
  std::unique_ptr<GemmPackedRhs> packed_;  // null: packed per call
};

REGISTER_KERNEL_BUILDER(
    Name("_FusedConv2D").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FusedConv2DOp);
REGISTER_KERNEL_BUILDER(Name("_FusedDepthwiseConv2dNative")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T"),
                        FusedDepthwiseConv2dNativeOp);
REGISTER_KERNEL_BUILDER(
    Name("_FusedSeparableConv2D").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FusedSeparableConv2DOp);

}  // namespace
}  // namespace weft
