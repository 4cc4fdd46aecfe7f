// Math ops: element-wise unary and binary arithmetic, matrix products,
// reductions and casts. Names, arguments, attrs and defaults follow
// TensorFlow's math_ops.cc so graph files validate unchanged.
#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {

// ---- element-wise binary (NumPy broadcasting) -------------------------------

REGISTER_OP("Add")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, uint8, int8, int16, int32, "
        "int64, complex64, complex128, string}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShape);

REGISTER_OP("AddV2")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, "
        "int8, int16, int32, int64, complex64, complex128}")
    .SetIsAggregate()
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShape);

REGISTER_OP("Sub")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, "
        "int32, int64, complex64, complex128, uint32, uint64}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShape);

REGISTER_OP("Mul")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, "
        "int32, uint32, uint64, int64, complex64, complex128}")
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShape);

REGISTER_OP("RealDiv")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, "
        "int32, uint32, uint64, int64, complex64, complex128}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShape);

REGISTER_OP("Maximum")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, "
        "int32, uint32, int64, uint64}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShape);

REGISTER_OP("Minimum")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, "
        "int32, uint32, int64, uint64}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShape);

// ---- element-wise unary -----------------------------------------------------

REGISTER_OP("Neg")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, int16, int32, int64, "
        "complex64, complex128}")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("Abs")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double, int8, int16, int32, int64}")
    .SetShapeFn(shape_inference::UnchangedShape);

// TensorFlow's UNARY_COMPLEX family.
#define WEFT_UNARY_COMPLEX_OP(name)                                      \
  REGISTER_OP(name)                                                      \
      .Input("x: T")                                                     \
      .Output("y: T")                                                    \
      .Attr("T: {bfloat16, half, float, double, complex64, complex128}") \
      .SetShapeFn(shape_inference::UnchangedShape)

WEFT_UNARY_COMPLEX_OP("Exp");
WEFT_UNARY_COMPLEX_OP("Tanh");
WEFT_UNARY_COMPLEX_OP("Sigmoid");
WEFT_UNARY_COMPLEX_OP("Sqrt");

#undef WEFT_UNARY_COMPLEX_OP

REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: type")
    .Attr("DstT: type")
    .Attr("Truncate: bool = false")
    .SetShapeFn(shape_inference::UnchangedShape);

// ---- matrix products --------------------------------------------------------

REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr(
        "T: {bfloat16, half, float, double, int32, int64, uint8, uint16, "
        "uint32, uint64, complex64, complex128}")
    // Recent TensorFlow marks matmuls that compute gradients; inference
    // ignores them, but graphs written by TF 2.15+ carry them.
    .Attr("grad_a: bool = false")
    .Attr("grad_b: bool = false")
    .SetShapeFn(shape_inference::MatMulShape);

REGISTER_OP("BatchMatMulV2")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr(
        "T: {bfloat16, half, float, double, int16, int32, int64, uint8, "
        "uint16, uint32, uint64, complex64, complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false")
    .SetShapeFn(shape_inference::BatchMatMulV2Shape);

// ---- reductions -------------------------------------------------------------

#define WEFT_REDUCTION_OP(name, types)         \
  REGISTER_OP(name)                            \
      .Input("input: T")                       \
      .Input("reduction_indices: Tidx")        \
      .Output("output: T")                     \
      .Attr("keep_dims: bool = false")         \
      .Attr("T: " types)                       \
      .Attr("Tidx: {int32, int64} = DT_INT32") \
      .SetShapeFn(shape_inference::ReductionShape)

WEFT_REDUCTION_OP("Sum", "numbertype");
WEFT_REDUCTION_OP("Mean", "numbertype");
WEFT_REDUCTION_OP("Prod", "numbertype");
// TensorFlow's {realnumbertype, quantizedtype}, spelled out.
#define WEFT_REAL_OR_QUANTIZED                                           \
  "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, " \
  "half, uint32, uint64, qint8, quint8, qint32, qint16, quint16}"
WEFT_REDUCTION_OP("Max", WEFT_REAL_OR_QUANTIZED);
WEFT_REDUCTION_OP("Min", WEFT_REAL_OR_QUANTIZED);
#undef WEFT_REAL_OR_QUANTIZED

#undef WEFT_REDUCTION_OP

}  // namespace weft
