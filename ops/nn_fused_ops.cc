// Internal fused ops that the session's graph optimizer
// (executor/graph_optimizer.h) makes out of a Conv2D, DepthwiseConv2dNative or
// MatMul and the per-channel bias and activation nodes after it (and of a
// depthwise and a 1x1 convolution: _FusedSeparableConv2D, below). Names and
// attrs follow TensorFlow's grappler remapper (_FusedConv2D, _FusedMatMul,
// _FusedDepthwiseConv2dNative) so that traces and tools read the same; graph
// files do not contain them (the leading underscore marks them internal).
//
//   fused_ops  what follows the product, in order: an optional "BiasAdd"
//              (then `args` holds the bias, one value per output channel),
//              for _FusedConv2D and _FusedMatMul an optional "Add" (then
//              the last of `args` is a residual of the output's shape,
//              added after the bias: the AddV2 of a residual connection),
//              and an optional activation: "Relu", "Relu6", "Elu",
//              "LeakyRelu" (with `leakyrelu_alpha`), "Swish", x *
//              sigmoid(swish_beta * x) (the _Swish op below, same bits), or
//              "HardSwish", x * (Relu6(x + 3) / 6) (Keras' hard_silu).
//
// Only float is registered: the optimizer fuses float32 graphs only. The
// output shape is the base op's; the shape functions delegate to it, the
// extra `args` inputs do not change it.
#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {

REGISTER_OP("_FusedConv2D")
    .Input("input: T")
    .Input("filter: T")
    .Input("args: num_args * T")
    .Output("output: T")
    .Attr("T: {float}")
    .Attr("num_args: int >= 0")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2")
    .Attr("swish_beta: float = 1.0")
    .SetShapeFn(shape_inference::Conv2DShape);

REGISTER_OP("_FusedDepthwiseConv2dNative")
    .Input("input: T")
    .Input("filter: T")
    .Input("args: num_args * T")
    .Output("output: T")
    .Attr("T: {float}")
    .Attr("num_args: int >= 0")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2")
    .Attr("swish_beta: float = 1.0")
    .SetShapeFn(shape_inference::DepthwiseConv2DNativeShape);

REGISTER_OP("_FusedMatMul")
    .Input("a: T")
    .Input("b: T")
    .Input("args: num_args * T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {float}")
    .Attr("num_args: int >= 0")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2")
    .Attr("swish_beta: float = 1.0")
    .SetShapeFn(shape_inference::MatMulShape);

// A depthwise convolution and the 1x1 convolution that reads its output (a
// separable convolution: Xception's and MobileNet's SeparableConv2D /
// depthwise-then-pointwise blocks, MobileNetV2's and EfficientNet's
// projections), each with its own epilogue, computed band of rows by band of
// rows so that the depthwise output never leaves the cache: the optimizer's
// fusion of a _FusedDepthwiseConv2dNative (or DepthwiseConv2dNative) whose
// value goes only to a _FusedConv2D (or Conv2D) with a constant [1, 1, C * M,
// K] filter at unit strides. The window attrs are the depthwise
// convolution's; `depthwise_fused_ops` (with `num_depthwise_args`,
// `depthwise_leakyrelu_alpha`, `depthwise_swish_beta`) are its epilogue as
// `fused_ops` above without "Add"; `fused_ops`, `num_args`, `leakyrelu_alpha`
// and `swish_beta` are the 1x1 convolution's, "Add" included. NHWC only. No
// TensorFlow counterpart.
namespace {

// The output of a separable convolution whose depthwise convolution reads
// `x` (`x_name` in errors), its filters at inputs `depthwise` and
// `depthwise` + 1: [N, OH, OW, K] for the pointwise filter [1, 1, C * M,
// K].
Status SeparableShape(shape_inference::InferenceContext* c,
                      shape_inference::ShapeHandle x, const char* x_name,
                      int depthwise) {
  shape_inference::ShapeHandle out;
  WEFT_RETURN_IF_ERROR(
      shape_inference::DepthwiseConv2DShapeOf(c, x, x_name, depthwise, &out));
  const int index = depthwise + 1;
  shape_inference::ShapeHandle pointwise;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(index), 4, &pointwise));
  shape_inference::DimensionHandle unused;
  for (int d : {0, 1}) {
    WEFT_RETURN_IF_ERROR_CTX(c->WithValue(c->Dim(pointwise, d), 1, &unused),
                             "the pointwise filter (input ", index, " ",
                             c->DebugString(pointwise), ") must be 1x1");
  }
  WEFT_RETURN_IF_ERROR_CTX(
      c->Merge(c->Dim(out, 3), c->Dim(pointwise, 2), &unused),
      "dimension 2 of the pointwise filter (input ", index, " ",
      c->DebugString(pointwise), ") must equal the depthwise output's depth ",
      c->DebugString(out));
  c->set_output(0, c->MakeShape({c->Dim(out, 0), c->Dim(out, 1), c->Dim(out, 2),
                                 c->Dim(pointwise, 3)}));
  return Status();
}

// The value of the 1x1 expansion (filter: input 1) of input 0: [N, H, W,
// C] for the filter [1, 1, Cx, C].
Status ExpandedShape(shape_inference::InferenceContext* c,
                     shape_inference::ShapeHandle* expanded) {
  shape_inference::ShapeHandle input;
  shape_inference::ShapeHandle filter;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &filter));
  shape_inference::DimensionHandle unused;
  for (int d : {0, 1}) {
    WEFT_RETURN_IF_ERROR_CTX(c->WithValue(c->Dim(filter, d), 1, &unused),
                             "the expansion filter (input 1 ",
                             c->DebugString(filter), ") must be 1x1");
  }
  WEFT_RETURN_IF_ERROR_CTX(
      c->Merge(c->Dim(input, 3), c->Dim(filter, 2), &unused),
      "dimension 2 of the expansion filter (input 1 ", c->DebugString(filter),
      ") must equal the depth of input 0 ", c->DebugString(input));
  *expanded = c->MakeShape({c->Dim(input, 0), c->Dim(input, 1),
                            c->Dim(input, 2), c->Dim(filter, 3)});
  return Status();
}

}  // namespace

REGISTER_OP("_FusedSeparableConv2D")
    .Input("input: T")
    .Input("depthwise_filter: T")
    .Input("pointwise_filter: T")
    .Input("depthwise_args: num_depthwise_args * T")
    .Input("args: num_args * T")
    .Output("output: T")
    .Attr("T: {float}")
    .Attr("num_depthwise_args: int >= 0")
    .Attr("num_args: int >= 0")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("depthwise_fused_ops: list(string) = []")
    .Attr("depthwise_leakyrelu_alpha: float = 0.2")
    .Attr("depthwise_swish_beta: float = 1.0")
    .Attr("fused_ops: list(string) = []")
    .Attr("leakyrelu_alpha: float = 0.2")
    .Attr("swish_beta: float = 1.0")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      return SeparableShape(c, c->input(0), "input 0", 1);
    });

// _FusedSeparableConv2D after a 1x1 convolution at unit strides (an
// inverted residual's expansion: MobileNetV2's and EfficientNet's blocks)
// whose value went only to the depthwise convolution: the optimizer's
// fusion of the three, which computes the expansion band of rows by band of
// rows too, so that the expanded tensor (the block's widest) never leaves
// the cache. `expand_filter` is its constant [1, 1, Cx, C] filter and
// `expand_fused_ops` (with `num_expand_args`, `expand_leakyrelu_alpha`,
// `expand_swish_beta`) its epilogue as `fused_ops` above without "Add";
// the rest as _FusedSeparableConv2D's, one input later. No TensorFlow
// counterpart.
REGISTER_OP("_FusedExpandSeparableConv2D")
    .Input("input: T")
    .Input("expand_filter: T")
    .Input("depthwise_filter: T")
    .Input("pointwise_filter: T")
    .Input("expand_args: num_expand_args * T")
    .Input("depthwise_args: num_depthwise_args * T")
    .Input("args: num_args * T")
    .Output("output: T")
    .Attr("T: {float}")
    .Attr("num_expand_args: int >= 0")
    .Attr("num_depthwise_args: int >= 0")
    .Attr("num_args: int >= 0")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("expand_fused_ops: list(string) = []")
    .Attr("expand_leakyrelu_alpha: float = 0.2")
    .Attr("expand_swish_beta: float = 1.0")
    .Attr("depthwise_fused_ops: list(string) = []")
    .Attr("depthwise_leakyrelu_alpha: float = 0.2")
    .Attr("depthwise_swish_beta: float = 1.0")
    .Attr("fused_ops: list(string) = []")
    .Attr("leakyrelu_alpha: float = 0.2")
    .Attr("swish_beta: float = 1.0")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      shape_inference::ShapeHandle expanded;
      WEFT_RETURN_IF_ERROR(ExpandedShape(c, &expanded));
      return SeparableShape(c, expanded, "the expansion", 2);
    });

// _FusedDepthwiseConv2dNative after a 1x1 expansion at unit strides whose
// value went only to it, when the depthwise value goes elsewhere than one
// 1x1 convolution (EfficientNet's squeeze-and-excitation reads it): the
// optimizer's fusion of the two, the expansion computed band of rows by
// band of rows as in _FusedExpandSeparableConv2D. `expand_filter` and the
// `expand_` attrs are that op's; the window attrs, `fused_ops`, `num_args`,
// `leakyrelu_alpha` and `swish_beta` the depthwise convolution's (as
// _FusedDepthwiseConv2dNative's). No TensorFlow counterpart.
REGISTER_OP("_FusedExpandDepthwiseConv2dNative")
    .Input("input: T")
    .Input("expand_filter: T")
    .Input("filter: T")
    .Input("expand_args: num_expand_args * T")
    .Input("args: num_args * T")
    .Output("output: T")
    .Attr("T: {float}")
    .Attr("num_expand_args: int >= 0")
    .Attr("num_args: int >= 0")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("expand_fused_ops: list(string) = []")
    .Attr("expand_leakyrelu_alpha: float = 0.2")
    .Attr("expand_swish_beta: float = 1.0")
    .Attr("fused_ops: list(string) = []")
    .Attr("leakyrelu_alpha: float = 0.2")
    .Attr("swish_beta: float = 1.0")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      shape_inference::ShapeHandle expanded;
      shape_inference::ShapeHandle out;
      WEFT_RETURN_IF_ERROR(ExpandedShape(c, &expanded));
      WEFT_RETURN_IF_ERROR(shape_inference::DepthwiseConv2DShapeOf(
          c, expanded, "the expansion", 2, &out));
      c->set_output(0, out);
      return Status();
    });

// x * Sigmoid(beta * x) (Keras' swish, SiLU) in one pass: the optimizer's
// rewrite of a Sigmoid, of x or of a constant beta times x, whose value goes
// only to a Mul by x. TensorFlow's oneDNN build has the same fusion
// (_MklSwish).
REGISTER_OP("_Swish")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float}")
    .Attr("beta: float = 1.0")
    .SetShapeFn(shape_inference::UnchangedShape);

// GELU, x * Phi(x) with Phi the standard normal distribution function
// (`approximate`: the tanh form x (1 + tanh(sqrt(2 / pi) (x + 0.044715
// x^3))) / 2), in one pass: the optimizer's rewrite of the nodes
// tf.nn.gelu and Keras write for it (executor/optimizer/gelu_rule.h).
REGISTER_OP("_Gelu")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float}")
    .Attr("approximate: bool = false")
    .SetShapeFn(shape_inference::UnchangedShape);

// Layer normalization over the last axis, y = (x - mean) * rsqrt(var +
// epsilon) * gamma + beta per row, written as Keras' nodes write it: the
// optimizer's rewrite of those nodes (executor/optimizer/layer_norm_rule.h).
// gamma and beta hold one value per element of x's last dimension.
REGISTER_OP("_LayerNorm")
    .Input("x: T")
    .Input("gamma: T")
    .Input("beta: T")
    .Output("y: T")
    .Attr("T: {float}")
    .Attr("epsilon: float")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      shape_inference::ShapeHandle x = c->input(0);
      WEFT_RETURN_IF_ERROR(c->WithRankAtLeast(x, 1, &x));
      shape_inference::ShapeHandle gamma, beta;
      WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &gamma));
      WEFT_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &beta));
      shape_inference::DimensionHandle d = c->Dim(x, -1);
      WEFT_RETURN_IF_ERROR(c->Merge(d, c->Dim(gamma, 0), &d));
      WEFT_RETURN_IF_ERROR(c->Merge(d, c->Dim(beta, 0), &d));
      c->set_output(0, x);
      return Status();
    });

}  // namespace weft
