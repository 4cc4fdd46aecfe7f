// Math ops: element-wise unary and binary arithmetic, matrix products,
// reductions and casts. Names, arguments, attrs and defaults follow
// TensorFlow's math_ops.cc so graph files validate unchanged.
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype_traits.h"
#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// Equal and NotEqual: broadcasting, except that with
// incompatible_shape_error=false shapes that do not broadcast are allowed and
// give a scalar (false for Equal, true for NotEqual).
Status EqualityShape(InferenceContext* c) {
  bool incompatible_shape_error = true;
  WEFT_RETURN_IF_ERROR(
      c->GetAttr("incompatible_shape_error", &incompatible_shape_error));
  ShapeHandle out;
  const Status s = shape_inference::BroadcastBinaryOpOutputShape(
      c, c->input(0), c->input(1), &out);
  if (!s.ok()) {
    if (incompatible_shape_error) return s;
    out = c->Scalar();
  }
  c->set_output(0, out);
  return Status();
}

// All inputs have one shape.
Status AddNShape(InferenceContext* c) {
  ShapeHandle merged = c->input(0);
  for (int i = 1; i < c->num_inputs(); ++i) {
    WEFT_RETURN_IF_ERROR_CTX(c->Merge(merged, c->input(i), &merged),
                             "all inputs to add must have one shape");
  }
  c->set_output(0, merged);
  return Status();
}

// Select: t and e have one shape; condition is a scalar, that same shape,
// or (when t is at least a vector) a vector over t's first dimension.
Status SelectShape(InferenceContext* c) {
  ShapeHandle data;
  WEFT_RETURN_IF_ERROR_CTX(c->Merge(c->input(1), c->input(2), &data),
                           "t (input 1) and e (input 2) must have one shape");
  const ShapeHandle cond = c->input(0);
  if (!c->RankKnown(cond) || !c->RankKnown(data) || c->Rank(cond) == 0) {
    c->set_output(0, data);
    return Status();
  }
  if (c->Rank(cond) == 1 && c->Rank(data) > 1) {
    DimensionHandle unused;
    WEFT_RETURN_IF_ERROR_CTX(
        c->Merge(c->Dim(cond, 0), c->Dim(data, 0), &unused),
        "a vector condition (input 0) selects rows: its length must be "
        "dimension 0 of t and e ",
        c->DebugString(data));
    c->set_output(0, data);
    return Status();
  }
  WEFT_RETURN_IF_ERROR_CTX(
      c->Merge(data, cond, &data),
      "condition (input 0) must be a scalar, a vector over dimension 0, or "
      "the shape of t and e");
  c->set_output(0, data);
  return Status();
}

// SelectV2: condition, t and e broadcast together.
Status SelectV2Shape(InferenceContext* c) {
  ShapeHandle values;
  WEFT_RETURN_IF_ERROR(shape_inference::BroadcastBinaryOpOutputShape(
      c, c->input(1), c->input(2), &values));
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR_CTX(shape_inference::BroadcastBinaryOpOutputShape(
                               c, c->input(0), values, &out),
                           "condition (input 0) ", c->DebugString(c->input(0)),
                           " does not broadcast with t and e");
  c->set_output(0, out);
  return Status();
}

// ArgMax/ArgMin: input without the dimension given by input 1 (a scalar,
// negative counting from the end). A scalar or vector input gives a scalar.
Status ArgOpShape(InferenceContext* c) {
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  const ShapeHandle input = c->input(0);
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  const int64_t rank = c->Rank(input);
  if (rank <= 1) {
    c->set_output(0, c->Scalar());
    return Status();
  }
  bool known = false;
  std::vector<int64_t> value;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(1, 0, &known, &value));
  if (!known) {
    c->set_output(0, c->UnknownShapeOfRank(rank - 1));
    return Status();
  }
  int64_t axis = value[0];
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument("dimension (input 1) is ", axis,
                                   " but must be in [", -rank, ", ", rank,
                                   ") for input 0 of rank ", rank);
  }
  if (axis < 0) axis += rank;
  std::vector<DimensionHandle> dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis) dims.push_back(c->Dim(input, d));
  }
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

// The length of Range(start, limit, delta), computed as TensorFlow does:
// ceil(|limit - start| / |delta|) for integers (exactly, here in 128 bits),
// ceil(|(limit - start) / delta|) in T's own precision for floating types.
template <typename T>
Status RangeLength(const Tensor& start_t, const Tensor& limit_t,
                   const Tensor& delta_t, int64_t* length) {
  const T start = start_t.data<T>()[0];
  const T limit = limit_t.data<T>()[0];
  const T delta = delta_t.data<T>()[0];
  const T zero = T(0);
  auto str = [](T v) {
    if constexpr (std::is_integral_v<T>) {
      return absl::StrCat(v);
    } else {
      return absl::StrCat(static_cast<double>(v));
    }
  };
  if (delta == zero) {
    return errors::InvalidArgument("delta (input 2) must not be 0");
  }
  if (start > limit && delta > zero) {
    return errors::InvalidArgument("start ", str(start), " > limit ",
                                   str(limit), " but delta ", str(delta),
                                   " is positive");
  }
  if (start < limit && delta < zero) {
    return errors::InvalidArgument("start ", str(start), " < limit ",
                                   str(limit), " but delta ", str(delta),
                                   " is negative");
  }
  double size = 0;
  if constexpr (std::is_integral_v<T>) {
    const __int128 distance = static_cast<__int128>(limit) - start;
    const __int128 step = static_cast<__int128>(delta);
    const __int128 d = distance < 0 ? -distance : distance;
    const __int128 s = step < 0 ? -step : step;
    const __int128 n = (d + s - 1) / s;
    if (n > std::numeric_limits<int64_t>::max()) {
      return errors::InvalidArgument("the range from ", str(start), " to ",
                                     str(limit), " by ", str(delta),
                                     " has more than 2^63 elements");
    }
    *length = static_cast<int64_t>(n);
    return Status();
  } else {
    const T quotient = (limit - start) / delta;
    size = std::ceil(std::abs(static_cast<double>(quotient)));
  }
  if (!std::isfinite(size) || size > 9.2e18) {
    return errors::InvalidArgument("the range from ", str(start), " to ",
                                   str(limit), " by ", str(delta),
                                   " does not have a finite int64 length");
  }
  *length = static_cast<int64_t>(size);
  return Status();
}

// A vector of the range's length: exact when start, limit and delta are all
// known.
Status RangeShape(InferenceContext* c) {
  static constexpr const char* kNames[] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; ++i) {
    ShapeHandle unused;
    WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(i), 0, &unused), kNames[i],
                             " must be a scalar");
  }
  DataType dtype = DT_INVALID;
  WEFT_RETURN_IF_ERROR(c->GetAttr("Tidx", &dtype));
  const Tensor* t[3];
  for (int i = 0; i < 3; ++i) {
    t[i] = c->input_tensor(i);
    if (t[i] == nullptr || t[i]->memory_space() != MemorySpace::kHost) {
      c->set_output(0, c->Vector(shape_inference::kUnknownDim));
      return Status();
    }
    if (t[i]->dtype() != dtype || t[i]->NumElements() != 1) {
      return errors::InvalidArgument(
          kNames[i], " (input ", i, ") must be a ", DataTypeName(dtype),
          " scalar but its value is a ", DataTypeName(t[i]->dtype()),
          " tensor of shape ", t[i]->shape().DebugString());
    }
  }
  int64_t length = 0;
  Status status;
  switch (dtype) {
#define WEFT_RANGE_CASE(T)                                 \
  case DataTypeToEnum<T>::value:                           \
    status = RangeLength<T>(*t[0], *t[1], *t[2], &length); \
    break;
    WEFT_RANGE_CASE(float)
    WEFT_RANGE_CASE(double)
    WEFT_RANGE_CASE(half)
    WEFT_RANGE_CASE(bfloat16)
    WEFT_RANGE_CASE(int8_t)
    WEFT_RANGE_CASE(int16_t)
    WEFT_RANGE_CASE(int32_t)
    WEFT_RANGE_CASE(int64_t)
    WEFT_RANGE_CASE(uint16_t)
    WEFT_RANGE_CASE(uint32_t)
    WEFT_RANGE_CASE(uint64_t)
#undef WEFT_RANGE_CASE
    default:
      return errors::InvalidArgument("Range does not support ",
                                     DataTypeName(dtype));
  }
  WEFT_RETURN_IF_ERROR(status);
  c->set_output(0, c->Vector(length));
  return Status();
}

}  // namespace

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

// TensorFlow's BINARY_MORE family.
#define WEFT_BINARY_MORE_OP(name)                                           \
  REGISTER_OP(name)                                                         \
      .Input("x: T")                                                        \
      .Input("y: T")                                                        \
      .Output("z: T")                                                       \
      .Attr(                                                                \
          "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, " \
          "int32, uint32, uint64, int64, complex64, complex128}")           \
      .SetShapeFn(shape_inference::BroadcastBinaryOpShape)

WEFT_BINARY_MORE_OP("Div");
WEFT_BINARY_MORE_OP("FloorDiv");
WEFT_BINARY_MORE_OP("TruncateDiv");

#undef WEFT_BINARY_MORE_OP

REGISTER_OP("DivNoNan")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {half, float, bfloat16, double, complex64, complex128}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShape);

REGISTER_OP("FloorMod")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
        "bfloat16, half, float, double}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShape);

REGISTER_OP("Pow")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, float, half, double, int8, int16, int32, int64, "
        "complex64, complex128}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShape);

REGISTER_OP("SquaredDifference")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, int32, int64, complex64, "
        "complex128}")
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShape);

REGISTER_OP("AddN")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr("T: {numbertype, variant}")
    .SetIsCommutative()
    .SetIsAggregate()
    .SetShapeFn(AddNShape);

// ---- comparison and selection -----------------------------------------------

#define WEFT_EQUALITY_OP(name)                       \
  REGISTER_OP(name)                                  \
      .Input("x: T")                                 \
      .Input("y: T")                                 \
      .Output("z: bool")                             \
      .SetIsCommutative()                            \
      .Attr("T: type")                               \
      .Attr("incompatible_shape_error: bool = true") \
      .SetShapeFn(EqualityShape)

WEFT_EQUALITY_OP("Equal");
WEFT_EQUALITY_OP("NotEqual");

#undef WEFT_EQUALITY_OP

#define WEFT_COMPARISON_OP(name) \
  REGISTER_OP(name)              \
      .Input("x: T")             \
      .Input("y: T")             \
      .Output("z: bool")         \
      .Attr("T: realnumbertype") \
      .SetShapeFn(shape_inference::BroadcastBinaryOpShape)

WEFT_COMPARISON_OP("Less");
WEFT_COMPARISON_OP("LessEqual");
WEFT_COMPARISON_OP("Greater");
WEFT_COMPARISON_OP("GreaterEqual");

#undef WEFT_COMPARISON_OP

REGISTER_OP("LogicalAnd")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShape);

REGISTER_OP("LogicalOr")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShape);

REGISTER_OP("LogicalNot")
    .Input("x: bool")
    .Output("y: bool")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("Select")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectShape);

REGISTER_OP("SelectV2")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectV2Shape);

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
WEFT_UNARY_COMPLEX_OP("Rsqrt");
WEFT_UNARY_COMPLEX_OP("Log");
WEFT_UNARY_COMPLEX_OP("Log1p");
WEFT_UNARY_COMPLEX_OP("Sin");
WEFT_UNARY_COMPLEX_OP("Cos");

#undef WEFT_UNARY_COMPLEX_OP

// TensorFlow's UNARY family: signed numbers.
#define WEFT_UNARY_OP(name)                                                \
  REGISTER_OP(name)                                                        \
      .Input("x: T")                                                       \
      .Output("y: T")                                                      \
      .Attr(                                                               \
          "T: {bfloat16, half, float, double, int8, int16, int32, int64, " \
          "complex64, complex128}")                                        \
      .SetShapeFn(shape_inference::UnchangedShape)

WEFT_UNARY_OP("Reciprocal");
WEFT_UNARY_OP("Sign");
WEFT_UNARY_OP("Round");

#undef WEFT_UNARY_OP

// TensorFlow's UNARY_REAL family.
#define WEFT_UNARY_REAL_OP(name)                  \
  REGISTER_OP(name)                               \
      .Input("x: T")                              \
      .Output("y: T")                             \
      .Attr("T: {bfloat16, half, float, double}") \
      .SetShapeFn(shape_inference::UnchangedShape)

WEFT_UNARY_REAL_OP("Floor");
WEFT_UNARY_REAL_OP("Ceil");
WEFT_UNARY_REAL_OP("Erf");
// Keras 3 writes its exact GELU as 0.5 * x * erfc(-x / sqrt(2)).
WEFT_UNARY_REAL_OP("Erfc");

#undef WEFT_UNARY_REAL_OP

REGISTER_OP("Square")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, "
        "uint16, uint32, uint64, complex64, complex128}")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("IsNan")
    .Input("x: T")
    .Output("y: bool")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("IsFinite")
    .Input("x: T")
    .Output("y: bool")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(shape_inference::UnchangedShape);

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

#define WEFT_BOOL_REDUCTION_OP(name)           \
  REGISTER_OP(name)                            \
      .Input("input: bool")                    \
      .Input("reduction_indices: Tidx")        \
      .Output("output: bool")                  \
      .Attr("keep_dims: bool = false")         \
      .Attr("Tidx: {int32, int64} = DT_INT32") \
      .SetShapeFn(shape_inference::ReductionShape)

WEFT_BOOL_REDUCTION_OP("All");
WEFT_BOOL_REDUCTION_OP("Any");

#undef WEFT_BOOL_REDUCTION_OP

// TensorFlow's {realnumbertype, quantizedtype, bool}, spelled out.
#define WEFT_ARG_OP_TYPES                                                   \
  "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, " \
  "half, uint32, uint64, qint8, quint8, qint32, qint16, quint16, bool}"

REGISTER_OP("ArgMax")
    .Input("input: T")
    .Input("dimension: Tidx")
    .Output("output: output_type")
    .Attr(WEFT_ARG_OP_TYPES)
    .Attr("Tidx: {int16, int32, int64} = DT_INT32")
    .Attr("output_type: {int16, uint16, int32, int64} = DT_INT64")
    .SetShapeFn(ArgOpShape);

REGISTER_OP("ArgMin")
    .Input("input: T")
    .Input("dimension: Tidx")
    .Output("output: output_type")
    .Attr(WEFT_ARG_OP_TYPES)
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("output_type: {int32, int64} = DT_INT64")
    .SetShapeFn(ArgOpShape);

#undef WEFT_ARG_OP_TYPES

// ---- sequences and contractions ---------------------------------------------

REGISTER_OP("Range")
    .Input("start: Tidx")
    .Input("limit: Tidx")
    .Input("delta: Tidx")
    .Output("output: Tidx")
    .Attr(
        "Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, "
        "uint16, uint32, uint64} = DT_INT32")
    .SetShapeFn(RangeShape);

REGISTER_OP("Einsum")
    .Input("inputs: N * T")
    .Output("output: T")
    .Attr("equation: string")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .SetShapeFn(shape_inference::EinsumShape);

// ---- the inference op set of issue 13: more math ----------------------------

namespace {

// Cumsum, Cumprod: the output is x's shape; axis is a scalar.
Status ScanShape(InferenceContext* c) {
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 0, &unused),
                           "axis (input 1) must be a scalar");
  c->set_output(0, c->input(0));
  return Status();
}

}  // namespace

#define WEFT_SCAN_OP(name)                     \
  REGISTER_OP(name)                            \
      .Input("x: T")                           \
      .Input("axis: Tidx")                     \
      .Attr("exclusive: bool = false")         \
      .Attr("reverse: bool = false")           \
      .Output("out: T")                        \
      .Attr("T: numbertype")                   \
      .Attr("Tidx: {int32, int64} = DT_INT32") \
      .SetShapeFn(ScanShape)

WEFT_SCAN_OP("Cumsum");
WEFT_SCAN_OP("Cumprod");

#undef WEFT_SCAN_OP

// clip_value_min and clip_value_max are scalars or t's shape; the kernel
// checks which.
REGISTER_OP("ClipByValue")
    .Input("t: T")
    .Input("clip_value_min: T")
    .Input("clip_value_max: T")
    .Output("output: T")
    .Attr("T: numbertype")
    .SetShapeFn(shape_inference::UnchangedShape);

// TensorFlow's UNARY_COMPLEX family, continued.
#define WEFT_UNARY_COMPLEX_OP(name)                                      \
  REGISTER_OP(name)                                                      \
      .Input("x: T")                                                     \
      .Output("y: T")                                                    \
      .Attr("T: {bfloat16, half, float, double, complex64, complex128}") \
      .SetShapeFn(shape_inference::UnchangedShape)

WEFT_UNARY_COMPLEX_OP("Acos");
WEFT_UNARY_COMPLEX_OP("Acosh");
WEFT_UNARY_COMPLEX_OP("Asin");
WEFT_UNARY_COMPLEX_OP("Asinh");
WEFT_UNARY_COMPLEX_OP("Atan");
WEFT_UNARY_COMPLEX_OP("Atanh");
WEFT_UNARY_COMPLEX_OP("Cosh");
WEFT_UNARY_COMPLEX_OP("Sinh");
WEFT_UNARY_COMPLEX_OP("Tan");
WEFT_UNARY_COMPLEX_OP("Expm1");

#undef WEFT_UNARY_COMPLEX_OP

REGISTER_OP("Rint")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("IsInf")
    .Input("x: T")
    .Output("y: bool")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("Atan2")
    .Input("y: T")
    .Input("x: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShape);

// ---- bitwise ----------------------------------------------------------------

REGISTER_OP("Invert")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64}")
    .SetShapeFn(shape_inference::UnchangedShape);

#define WEFT_BITWISE_OP(name)                                                \
  REGISTER_OP(name)                                                          \
      .Input("x: T")                                                         \
      .Input("y: T")                                                         \
      .Output("z: T")                                                        \
      .Attr("T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64}") \
      .SetShapeFn(shape_inference::BroadcastBinaryOpShape)

WEFT_BITWISE_OP("BitwiseAnd").SetIsCommutative();
WEFT_BITWISE_OP("BitwiseOr").SetIsCommutative();
WEFT_BITWISE_OP("BitwiseXor").SetIsCommutative();
WEFT_BITWISE_OP("LeftShift");
WEFT_BITWISE_OP("RightShift");

#undef WEFT_BITWISE_OP

}  // namespace weft
