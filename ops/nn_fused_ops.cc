// Internal fused ops that the session's graph optimizer
// (executor/graph_optimizer.h) makes out of a Conv2D, DepthwiseConv2dNative or
// MatMul and the per-channel bias and activation nodes after it. Names and
// attrs follow TensorFlow's grappler remapper (_FusedConv2D, _FusedMatMul,
// _FusedDepthwiseConv2dNative) so that traces and tools read the same; graph
// files do not contain them (the leading underscore marks them internal).
//
//   fused_ops  what follows the product, in order: an optional "BiasAdd"
//              (then `args` holds the bias, one value per output channel),
//              for _FusedConv2D and _FusedMatMul an optional "Add" (then
//              the last of `args` is a residual of the output's shape,
//              added after the bias: the AddV2 of a residual connection),
//              and an optional activation: "Relu", "Relu6", "Elu" or
//              "LeakyRelu" (with `leakyrelu_alpha`).
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
    .SetShapeFn(shape_inference::MatMulShape);

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

}  // namespace weft
