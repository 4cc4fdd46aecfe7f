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
// filter packed once when it is a constant (the optimizer fuses only such);
// _FusedExpandSeparableConv2D computes a 1x1 expansion of its input first,
// band by band too, and _FusedExpandDepthwiseConv2dNative the expansion and
// the depthwise convolution alone.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
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

// A constant 1x1 filter ([1, 1, C, K]) packed once at construction, or a
// fed one packed per run.
class OneByOneFilter {
 public:
  // `name` and `index` name the input in errors.
  OneByOneFilter(const char* name, int index) : name_(name), index_(index) {}

  // Packs the constant, when the input is one, after checking its shape.
  Status PackConstant(OpKernelConstruction* ctx) {
    const Tensor* f = ctx->constant_input(index_);
    if (f == nullptr) return Status();
    WEFT_RETURN_IF_ERROR(Check(*f, -1));
    packed_ = std::make_unique<GemmPackedRhs>(
        f->dim_size(2), f->dim_size(3),
        GemmOperand<float>{f->data<float>(), f->dim_size(3)});
    constant_ = *f;
    return Status();
  }

  // The filter `f` ([1, 1, depth, K], depth -1: any, never 0) packed:
  // the constant's packing when `f` is that constant, else *per_call.
  StatusOr<const GemmPackedRhs*> For(
      const Tensor& f, int64_t depth,
      std::unique_ptr<GemmPackedRhs>* per_call) const {
    WEFT_RETURN_IF_ERROR(Check(f, depth));
    if (packed_ != nullptr && ConstantInputMatches(f, constant_)) {
      return packed_.get();
    }
    *per_call = std::make_unique<GemmPackedRhs>(
        f.dim_size(2), f.dim_size(3),
        GemmOperand<float>{f.data<float>(), f.dim_size(3)});
    return per_call->get();
  }

 private:
  Status Check(const Tensor& f, int64_t depth) const {
    if (f.dtype() != DT_FLOAT || f.dims() != 4 || f.dim_size(0) != 1 ||
        f.dim_size(1) != 1 || f.dim_size(2) == 0 ||
        (depth >= 0 && f.dim_size(2) != depth)) {
      return errors::InvalidArgument(
          name_, " filter (input ", index_, ") has shape ",
          f.shape().DebugString(), " but must be a float [1, 1, ",
          depth >= 0 ? absl::StrCat(depth) : std::string("C"),
          ", K], C the depth of what it multiplies (not 0)");
    }
    return Status();
  }

  const char* name_;
  int index_;
  Tensor constant_;                        // what packed_ holds
  std::unique_ptr<GemmPackedRhs> packed_;  // null: packed per call
};

// _FusedSeparableConv2D; _FusedExpandSeparableConv2D, the same with a 1x1
// expansion first (input 1 its filter, then the others one later; its bias
// comes before the depthwise args); and _FusedExpandDepthwiseConv2dNative,
// the expansion and the depthwise convolution without the 1x1 product (its
// depthwise epilogue in the unprefixed attrs).
class FusedSeparableConv2DOp : public OpKernel {
 public:
  explicit FusedSeparableConv2DOp(OpKernelConstruction* ctx)
      : OpKernel(ctx),
        expand_(absl::StartsWith(ctx->def().op, "_FusedExpand")),
        pointwise_(ctx->def().op != "_FusedExpandDepthwiseConv2dNative"),
        expand_filter_("expansion", 1),
        pointwise_filter_("pointwise", expand_ ? 3 : 2) {
    // data_format is NHWC: the ops admit no other.
    OP_REQUIRES_OK(ctx, ReadConvAttrs(ctx, &attrs_));
    if (expand_) {
      OP_REQUIRES_OK(ctx, ReadFusedOps(ctx, &expand_epilogue_,
                                       &expand_has_bias_, nullptr, "expand_"));
      OP_REQUIRES_OK(ctx, expand_filter_.PackConstant(ctx));
    }
    OP_REQUIRES_OK(ctx,
                   ReadFusedOps(ctx, &depthwise_epilogue_, &depthwise_has_bias_,
                                nullptr, pointwise_ ? "depthwise_" : ""));
    if (pointwise_) {
      OP_REQUIRES_OK(ctx,
                     ReadFusedOps(ctx, &epilogue_, &has_bias_, &has_residual_));
      OP_REQUIRES_OK(ctx, pointwise_filter_.PackConstant(ctx));
    }
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const int e = expand_ ? 1 : 0;
    // The args follow the filters: the expansion's bias, the depthwise
    // one's, then the 1x1 convolution's (ReadFusedOps checked each num_*args
    // against its ops).
    const int expand_arg = 2 + e + (pointwise_ ? 1 : 0);
    const int depthwise_arg = expand_arg + (expand_has_bias_ ? 1 : 0);
    const int first_arg = depthwise_arg + (depthwise_has_bias_ ? 1 : 0);
    std::unique_ptr<GemmPackedRhs> expand_per_call;
    SeparableExpansion expansion;
    // The shape of what the depthwise convolution reads: the input's, or
    // its expansion's (the expansion filter's depth at the input's size).
    TensorShape x = input.shape();
    if (expand_) {
      OP_REQUIRES(ctx, input.dims() == 4,
                  errors::InvalidArgument("input (input 0) has shape ",
                                          input.shape().DebugString(),
                                          " but must be 4-D (NHWC)"));
      auto packed = expand_filter_.For(ctx->input(1), input.dim_size(3),
                                       &expand_per_call);
      OP_REQUIRES_OK(ctx, packed.status());
      expansion.filter = *packed;
      if (expand_has_bias_) {
        OP_REQUIRES_OK(ctx, CheckBias(*ctx, expansion.filter->n(), expand_arg));
      }
      expansion.epilogue = expand_epilogue_;
      expansion.epilogue.bias =
          expand_has_bias_ ? ctx->input(expand_arg).data<float>() : nullptr;
      auto expanded =
          TensorShape::Build({input.dim_size(0), input.dim_size(1),
                              input.dim_size(2), expansion.filter->n()});
      OP_REQUIRES_OK(ctx, expanded.status());
      x = *expanded;
    }
    DepthwiseGeometry s;
    OP_REQUIRES_OK(ctx, ComputeDepthwiseGeometry(
                            attrs_, x, ctx->input(1 + e).shape(), &s));
    if (depthwise_has_bias_) {
      OP_REQUIRES_OK(ctx, CheckBias(*ctx, s.out_depth(), depthwise_arg));
    }
    GemmEpilogue depthwise = depthwise_epilogue_;
    depthwise.bias =
        depthwise_has_bias_ ? ctx->input(depthwise_arg).data<float>() : nullptr;
    const float* depthwise_filter = ctx->input(1 + e).data<float>();
    Tensor* output = nullptr;
    if (!pointwise_) {
      OP_REQUIRES_OK(
          ctx, ctx->allocate_output(0,
                                    TensorShape({s.batch, s.rows.output,
                                                 s.cols.output, s.out_depth()}),
                                    &output));
      if (output->NumElements() == 0) return;
      ExpandDepthwiseConvNhwc(ContextParallelFor(*ctx),
                              ctx->device()->num_threads(), s,
                              input.data<float>(), expansion, depthwise_filter,
                              &depthwise, output->data<float>());
      return;
    }
    std::unique_ptr<GemmPackedRhs> per_call;
    auto pointwise =
        pointwise_filter_.For(ctx->input(2 + e), s.out_depth(), &per_call);
    OP_REQUIRES_OK(ctx, pointwise.status());
    const int64_t k = (*pointwise)->n();
    if (has_bias_) OP_REQUIRES_OK(ctx, CheckBias(*ctx, k, first_arg));
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
    SeparableConvNhwc(ContextParallelFor(*ctx), ctx->device()->num_threads(), s,
                      input.data<float>(), expand_ ? &expansion : nullptr,
                      depthwise_filter, &depthwise, **pointwise, epilogue,
                      output->data<float>());
  }

 private:
  const bool expand_;
  const bool pointwise_;
  WindowAttrs attrs_;
  GemmEpilogue expand_epilogue_;
  GemmEpilogue depthwise_epilogue_;
  GemmEpilogue epilogue_;
  bool expand_has_bias_ = false;
  bool depthwise_has_bias_ = false;
  bool has_bias_ = false;
  bool has_residual_ = false;
  OneByOneFilter expand_filter_;
  OneByOneFilter pointwise_filter_;
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
REGISTER_KERNEL_BUILDER(Name("_FusedExpandSeparableConv2D")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T"),
                        FusedSeparableConv2DOp);
REGISTER_KERNEL_BUILDER(Name("_FusedExpandDepthwiseConv2dNative")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T"),
                        FusedSeparableConv2DOp);

}  // namespace
}  // namespace weft
