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
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/context_parallel_for.h"
#include "kernels/cpu/conv2d.h"
#include "kernels/cpu/depthwise_conv.h"
#include "kernels/cpu/fused_epilogue.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/image_layout.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

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

REGISTER_KERNEL_BUILDER(
    Name("_FusedConv2D").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FusedConv2DOp);
REGISTER_KERNEL_BUILDER(Name("_FusedDepthwiseConv2dNative")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T"),
                        FusedDepthwiseConv2dNativeOp);

}  // namespace
}  // namespace weft
