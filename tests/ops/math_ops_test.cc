// Registrations and shapes of ops/math_ops.cc. The interfaces are
// TensorFlow's (math_ops.cc); the shared shape functions have their edge
// cases in common_shape_fns_test.cc, so this checks each op is wired to the
// right one.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/dtype_traits.h"
#include "gtest/gtest.h"
#include "ops/op_registry.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace math_ops_test {

const OpDef& Op(const char* name) {
  StatusOr<const OpRegistrationData*> reg = OpRegistry::Global()->LookUp(name);
  EXPECT_TRUE(reg.ok()) << reg.status();
  static const OpDef kEmpty;
  return reg.ok() ? (*reg)->op_def : kEmpty;
}

ShapeInferenceTestOp Typed(const char* name, DataType t = DT_FLOAT) {
  ShapeInferenceTestOp op(name);
  op.SetAttr("T", AttrValue::Type(t));
  return op;
}

TEST(MathOpsTest, BinaryRegistrations) {
  for (const char* name :
       {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(RegisteredSignature(name), "(x: T, y: T) -> (z: T)");
  }
  EXPECT_TRUE(Op("AddV2").is_commutative);
  EXPECT_TRUE(Op("AddV2").is_aggregate);
  EXPECT_TRUE(Op("Mul").is_commutative);
  EXPECT_FALSE(Op("Add").is_commutative);
  EXPECT_FALSE(Op("Sub").is_commutative);
  EXPECT_EQ(RegisteredAttr("Maximum", "T"),
            "type in [bfloat16, half, float, double, int8, uint8, int16, "
            "uint16, int32, uint32, int64, uint64]");
}

TEST(MathOpsTest, BinaryOpsBroadcast) {
  for (const char* name :
       {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum"}) {
    SCOPED_TRACE(name);
    const ShapeInferenceTestOp op = Typed(name);
    INFER_OK(op, "[2,1];[3]", "[d0_0,d1_0]");
    INFER_OK(op, "[2,3];[]", "in0");
    INFER_OK(op, "?;[3]", "?");
    INFER_ERROR("cannot be broadcast together", op, "[2];[3]");
  }
}

TEST(MathOpsTest, BinaryTypeSets) {
  // Add takes strings (concatenation); AddV2 does not.
  INFER_OK(Typed("Add", DT_STRING), "[2];[2]", "in0");
  INFER_ERROR("string", Typed("AddV2", DT_STRING), "[2];[2]");
  INFER_ERROR("bool", Typed("Mul", DT_BOOL), "[2];[2]");
  INFER_ERROR("complex64", Typed("Maximum", DT_COMPLEX64), "[2];[2]");
}

TEST(MathOpsTest, UnaryOps) {
  for (const char* name : {"Neg", "Abs", "Exp", "Tanh", "Sigmoid", "Sqrt"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(RegisteredSignature(name), "(x: T) -> (y: T)");
    const ShapeInferenceTestOp op = Typed(name);
    INFER_OK(op, "[2,?]", "in0");
    INFER_OK(op, "?", "in0");
  }
  EXPECT_EQ(RegisteredAttr("Sqrt", "T"),
            "type in [bfloat16, half, float, double, complex64, complex128]");
  INFER_OK(Typed("Neg", DT_INT32), "[3]", "in0");
  INFER_ERROR("int32", Typed("Exp", DT_INT32), "[3]");
  INFER_ERROR("complex64", Typed("Abs", DT_COMPLEX64), "[3]");
}

TEST(MathOpsTest, Cast) {
  EXPECT_EQ(RegisteredSignature("Cast"), "(x: SrcT) -> (y: DstT)");
  EXPECT_EQ(RegisteredAttr("Cast", "Truncate"), "bool = false");
  ShapeInferenceTestOp op("Cast");
  op.SetAttr("SrcT", AttrValue::Type(DT_FLOAT))
      .SetAttr("DstT", AttrValue::Type(DT_INT32));
  INFER_OK(op, "[2,?,3]", "in0");
}

TEST(MathOpsTest, MatMulRegistrations) {
  EXPECT_EQ(RegisteredSignature("MatMul"), "(a: T, b: T) -> (product: T)");
  EXPECT_EQ(RegisteredAttr("MatMul", "transpose_a"), "bool = false");
  EXPECT_EQ(RegisteredAttr("MatMul", "transpose_b"), "bool = false");
  EXPECT_EQ(RegisteredSignature("BatchMatMulV2"),
            "(x: T, y: T) -> (output: T)");
  EXPECT_EQ(RegisteredAttr("BatchMatMulV2", "adj_x"), "bool = false");
  EXPECT_EQ(RegisteredAttr("BatchMatMulV2", "adj_y"), "bool = false");
  INFER_OK(Typed("MatMul"), "[2,3];[3,4]", "[d0_0,d1_1]");
  INFER_OK(Typed("BatchMatMulV2"), "[5,2,3];[3,4]", "[d0_0,d0_1,d1_1]");
}

TEST(MathOpsTest, Reductions) {
  const Tensor axes = Int32Tensor({0, -1});
  for (const char* name : {"Sum", "Mean", "Max", "Min", "Prod"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(RegisteredSignature(name),
              "(input: T, reduction_indices: Tidx) -> (output: T)");
    EXPECT_EQ(RegisteredAttr(name, "keep_dims"), "bool = false");
    EXPECT_EQ(RegisteredAttr(name, "Tidx"), "type in [int32, int64] = int32");
    ShapeInferenceTestOp op = Typed(name);
    op.input_tensors = {nullptr, &axes};
    INFER_OK(op, "[2,3,4];[2]", "[d0_1]");
    op.SetAttr("keep_dims", AttrValue::Bool(true));
    INFER_OK(op, "[2,3,4];[2]", "[1,d0_1,1]");
  }
  // Max and Min also take quantized types; Sum takes complex.
  const Tensor none = Int32Tensor({});
  ShapeInferenceTestOp max = Typed("Max", DT_QUINT8);
  max.input_tensors = {nullptr, &none};
  INFER_OK(max, "[2];[0]", "[d0_0]");
  ShapeInferenceTestOp sum = Typed("Sum", DT_COMPLEX64);
  sum.input_tensors = {nullptr, &none};
  INFER_OK(sum, "[2];[0]", "[d0_0]");
  INFER_ERROR("complex64", Typed("Min", DT_COMPLEX64), "[2];[0]");
}

// ---- more binary ops and AddN ----------------------------------------------

TEST(MathOpsTest, MoreBinaryOps) {
  for (const char* name : {"Div", "DivNoNan", "FloorDiv", "FloorMod", "Pow",
                           "SquaredDifference"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(RegisteredSignature(name), "(x: T, y: T) -> (z: T)");
    const ShapeInferenceTestOp op = Typed(name);
    INFER_OK(op, "[2,1];[3]", "[d0_0,d1_0]");
    INFER_OK(op, "[];[2,?]", "in1");
    INFER_OK(op, "?;[3]", "?");
    INFER_ERROR("cannot be broadcast together", op, "[2];[3]");
  }
  EXPECT_TRUE(Op("SquaredDifference").is_commutative);
  EXPECT_FALSE(Op("Div").is_commutative);
  EXPECT_FALSE(Op("Pow").is_commutative);
  // Integer division and modulo exist; DivNoNan and Pow are floating or
  // signed only.
  INFER_OK(Typed("FloorMod", DT_INT32), "[2];[2]", "in0");
  INFER_OK(Typed("FloorDiv", DT_UINT8), "[2];[2]", "in0");
  INFER_ERROR("int32", Typed("DivNoNan", DT_INT32), "[2];[2]");
  INFER_ERROR("uint8", Typed("Pow", DT_UINT8), "[2];[2]");
  INFER_ERROR("complex64", Typed("FloorMod", DT_COMPLEX64), "[2];[2]");
}

TEST(MathOpsTest, AddN) {
  EXPECT_EQ(RegisteredSignature("AddN"), "(inputs: N * T) -> (sum: T)");
  EXPECT_EQ(RegisteredAttr("AddN", "N"), "int >= 1");
  EXPECT_TRUE(Op("AddN").is_commutative);
  EXPECT_TRUE(Op("AddN").is_aggregate);
  ShapeInferenceTestOp op = Typed("AddN");
  op.SetAttr("N", AttrValue::Int(3));
  // All inputs merge into one shape.
  INFER_OK(op, "[2,?];[?,3];[2,3]", "[d0_0,d1_1]");
  INFER_OK(op, "?;[2];?", "in1");
  INFER_ERROR("all inputs to add must have one shape", op, "[2];[3];[2]");
  op.SetAttr("N", AttrValue::Int(1));
  INFER_OK(op, "[4]", "in0");
  // Variant (e.g. tensor lists) is allowed; bool is not.
  INFER_OK(Typed("AddN", DT_VARIANT).SetAttr("N", AttrValue::Int(2)), "[];[]",
           "in0");
  INFER_ERROR("bool", Typed("AddN", DT_BOOL).SetAttr("N", AttrValue::Int(2)),
              "[];[]");
}

TEST(MathOpsTest, MoreUnaryOps) {
  for (const char* name :
       {"Log", "Log1p", "Rsqrt", "Square", "Reciprocal", "Sign", "Floor",
        "Ceil", "Round", "Erf", "Sin", "Cos"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(RegisteredSignature(name), "(x: T) -> (y: T)");
    const ShapeInferenceTestOp op = Typed(name);
    INFER_OK(op, "[2,?]", "in0");
    INFER_OK(op, "?", "in0");
  }
  INFER_OK(Typed("Square", DT_UINT8), "[3]", "in0");
  INFER_OK(Typed("Round", DT_INT8), "[3]", "in0");
  INFER_OK(Typed("Sin", DT_COMPLEX128), "[3]", "in0");
  INFER_ERROR("int32", Typed("Floor", DT_INT32), "[3]");
  INFER_ERROR("complex64", Typed("Erf", DT_COMPLEX64), "[3]");
  INFER_ERROR("int32", Typed("Log", DT_INT32), "[3]");
}

// ---- comparison and selection -----------------------------------------------

TEST(MathOpsTest, Comparisons) {
  for (const char* name :
       {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(RegisteredSignature(name), "(x: T, y: T) -> (z: bool)");
    const ShapeInferenceTestOp op = Typed(name);
    INFER_OK(op, "[2,1];[3]", "[d0_0,d1_0]");
    INFER_OK(op, "[2];[]", "in0");
    INFER_ERROR("cannot be broadcast together", op, "[2];[3]");
  }
  EXPECT_TRUE(Op("Equal").is_commutative);
  EXPECT_TRUE(Op("NotEqual").is_commutative);
  EXPECT_FALSE(Op("Less").is_commutative);
  // Equality takes any type; order needs real numbers.
  INFER_OK(Typed("Equal", DT_STRING), "[2];[2]", "in0");
  INFER_ERROR("complex64", Typed("Less", DT_COMPLEX64), "[2];[2]");
}

TEST(MathOpsTest, EqualityWithIncompatibleShapesAllowed) {
  EXPECT_EQ(RegisteredAttr("Equal", "incompatible_shape_error"), "bool = true");
  ShapeInferenceTestOp op = Typed("Equal");
  op.SetAttr("incompatible_shape_error", AttrValue::Bool(false));
  // Shapes that do not broadcast compare unequal as a whole: a scalar (as
  // TensorFlow infers and computes).
  INFER_OK(op, "[2];[3]", "[]");
  INFER_OK(op, "[2,1];[3]", "[d0_0,d1_0]");
}

TEST(MathOpsTest, LogicalOps) {
  EXPECT_EQ(RegisteredSignature("LogicalAnd"),
            "(x: bool, y: bool) -> (z: bool)");
  EXPECT_EQ(RegisteredSignature("LogicalOr"),
            "(x: bool, y: bool) -> (z: bool)");
  EXPECT_EQ(RegisteredSignature("LogicalNot"), "(x: bool) -> (y: bool)");
  EXPECT_TRUE(Op("LogicalAnd").is_commutative);
  for (const char* name : {"LogicalAnd", "LogicalOr"}) {
    INFER_OK(ShapeInferenceTestOp(name), "[2,1];[3]", "[d0_0,d1_0]");
    INFER_ERROR("cannot be broadcast", ShapeInferenceTestOp(name), "[2];[3]");
  }
  INFER_OK(ShapeInferenceTestOp("LogicalNot"), "[2,?]", "in0");
}

TEST(MathOpsTest, NanAndFiniteChecks) {
  for (const char* name : {"IsNan", "IsFinite"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(RegisteredSignature(name), "(x: T) -> (y: bool)");
    INFER_OK(Typed(name), "[2,?]", "in0");
    INFER_OK(Typed(name, DT_HALF), "?", "in0");
    INFER_ERROR("int32", Typed(name, DT_INT32), "[2]");
  }
}

TEST(MathOpsTest, Select) {
  EXPECT_EQ(RegisteredSignature("Select"),
            "(condition: bool, t: T, e: T) -> (output: T)");
  const ShapeInferenceTestOp op = Typed("Select");
  // Same shape, scalar condition, or a vector condition over dimension 0.
  INFER_OK(op, "[2,3];[2,3];[2,3]", "in1");
  INFER_OK(op, "[];[2,3];[2,3]", "in1");
  INFER_OK(op, "[2];[2,3];[2,3]", "in1");
  INFER_OK(op, "[?];[2,3];[2,3]", "in1");
  INFER_OK(op, "?;[2,3];[2,3]", "in1");
  // t and e merge; the condition may tell what they do not.
  INFER_OK(op, "[?,?];[?,3];[2,?]", "[d2_0,d1_1]");
  INFER_OK(op, "[2,?];[?,3];[?,3]", "[d0_0,d1_1]");
  INFER_OK(op, "[3];[?];[?]", "in0");
  INFER_OK(op, "[3];?;?", "in1");

  INFER_ERROR("t (input 1) and e (input 2) must have one shape", op,
              "[2];[2,3];[2,4]");
  INFER_ERROR(
      "a vector condition (input 0) selects rows: its length must be "
      "dimension 0 of t and e [2,3]",
      op, "[3];[2,3];[2,3]");
  INFER_ERROR(
      "condition (input 0) must be a scalar, a vector over dimension 0, or "
      "the shape of t and e",
      op, "[2,4];[2,3];[2,3]");
  // A vector condition needs t and e to be at least vectors.
  INFER_ERROR("condition (input 0) must be a scalar", op, "[2];[];[]");
}

TEST(MathOpsTest, SelectV2) {
  EXPECT_EQ(RegisteredSignature("SelectV2"),
            "(condition: bool, t: T, e: T) -> (output: T)");
  const ShapeInferenceTestOp op = Typed("SelectV2");
  // All three broadcast (checked against TensorFlow: (2, 3)).
  INFER_OK(op, "[2,1];[1,3];[]", "[d0_0,d1_1]");
  INFER_OK(op, "[];[2,3];[2,3]", "in1");
  INFER_OK(op, "[3];[2,1];[1]", "[d1_0,d0_0]");
  INFER_OK(op, "?;[2];[2]", "?");
  INFER_ERROR("cannot be broadcast together", op, "[];[2];[3]");
  INFER_ERROR("condition (input 0) [4] does not broadcast with t and e", op,
              "[4];[2,3];[3]");
}

// ---- reductions -------------------------------------------------------------

TEST(MathOpsTest, AllAndAny) {
  const Tensor axes = Int32Tensor({1});
  for (const char* name : {"All", "Any"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(RegisteredSignature(name),
              "(input: bool, reduction_indices: Tidx) -> (output: bool)");
    EXPECT_EQ(RegisteredAttr(name, "keep_dims"), "bool = false");
    ShapeInferenceTestOp op(name);
    op.input_tensors = {nullptr, &axes};
    INFER_OK(op, "[2,3,4];[1]", "[d0_0,d0_2]");
    op.SetAttr("keep_dims", AttrValue::Bool(true));
    INFER_OK(op, "[2,3,4];[1]", "[d0_0,1,d0_2]");
    op.input_tensors = {};
    INFER_OK(op, "[2,3,4];[1]", "[?,?,?]");
  }
}

TEST(MathOpsTest, ArgMaxAndArgMin) {
  EXPECT_EQ(RegisteredSignature("ArgMax"),
            "(input: T, dimension: Tidx) -> (output: output_type)");
  EXPECT_EQ(RegisteredAttr("ArgMax", "output_type"),
            "type in [int16, uint16, int32, int64] = int64");
  EXPECT_EQ(RegisteredAttr("ArgMin", "output_type"),
            "type in [int32, int64] = int64");
  const Tensor one = Int32Scalar(1);
  const Tensor minus_one = Int32Scalar(-1);
  const Tensor three = Int32Scalar(3);
  for (const char* name : {"ArgMax", "ArgMin"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op = Typed(name);
    op.input_tensors = {nullptr, &one};
    INFER_OK(op, "[2,3,4];[]", "[d0_0,d0_2]");
    INFER_OK(op, "?;[]", "?");
    op.input_tensors = {nullptr, &minus_one};
    INFER_OK(op, "[2,?,4];[]", "[d0_0,d0_1]");
    // A vector (or scalar) reduces to a scalar.
    INFER_OK(op, "[5];[]", "[]");
    op.input_tensors = {};
    INFER_OK(op, "[2,3,4];[]", "[?,?]");
    op.input_tensors = {nullptr, &three};
    INFER_ERROR(
        "dimension (input 1) is 3 but must be in [-3, 3) for input 0 "
        "of rank 3",
        op, "[2,3,4];[]");
    op.input_tensors = {};
    INFER_ERROR("input 1 has rank 1 but rank 0 was required", op, "[2,3];[1]");
  }
  // ArgMax also takes bool input and int16 axes.
  ShapeInferenceTestOp op = Typed("ArgMax", DT_BOOL);
  const Tensor axis16 = [] {
    Tensor t(DT_INT16, TensorShape());
    t.data<int16_t>()[0] = 0;
    return t;
  }();
  op.SetAttr("Tidx", AttrValue::Type(DT_INT16));
  op.input_tensors = {nullptr, &axis16};
  INFER_OK(op, "[2,3];[]", "[d0_1]");
}

// ---- Range ------------------------------------------------------------------

template <typename T>
Tensor Scalar(T value) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape());
  t.data<T>()[0] = value;
  return t;
}

// Infers Range(start, limit, delta) with all three known.
template <typename T>
::testing::AssertionResult RangeIs(T start, T limit, T delta,
                                   const std::string& expected) {
  ShapeInferenceTestOp op("Range");
  op.SetAttr("Tidx", AttrValue::Type(DataTypeToEnum<T>::value));
  const Tensor s = Scalar(start);
  const Tensor l = Scalar(limit);
  const Tensor d = Scalar(delta);
  op.input_tensors = {&s, &l, &d};
  if (expected.rfind("error:", 0) == 0) {
    return InferError(expected.substr(6), op, "[];[];[]");
  }
  return InferOk(op, "[];[];[]", expected);
}

TEST(MathOpsTest, RangeLengths) {
  EXPECT_TRUE(RangeIs<int32_t>(0, 10, 3, "[4]"));   // 0 3 6 9
  EXPECT_TRUE(RangeIs<int32_t>(10, 0, -3, "[4]"));  // 10 7 4 1
  EXPECT_TRUE(RangeIs<int32_t>(0, 0, 1, "[0]"));
  EXPECT_TRUE(RangeIs<int32_t>(5, 5, -2, "[0]"));
  EXPECT_TRUE(RangeIs<int64_t>(-5, 5, 4, "[3]"));  // -5 -1 3
  EXPECT_TRUE(RangeIs<int8_t>(-128, 127, 1, "[255]"));
  EXPECT_TRUE(
      RangeIs<uint64_t>(0, uint64_t{1} << 40, uint64_t{1} << 38, "[4]"));
  EXPECT_TRUE(RangeIs<double>(0, 1, 0.25, "[4]"));
  // Floating lengths are ceil(|(limit - start) / delta|) in the type's own
  // precision, as TensorFlow computes them (its kernel gives these lengths):
  // in float, 2.2f / 0.2f rounds to 11 exactly, where the same values in
  // double give 11.000000238... and so 12.
  EXPECT_TRUE(RangeIs<float>(0.0f, 2.2f, 0.2f, "[11]"));
  // In half, 0.7 and 0.1 are 0.70019531 and 0.09997559: 7.0039... so 8 (7 in
  // float); bfloat16's 0.69921875 / 0.10009766 rounds to 7.
  EXPECT_TRUE(RangeIs<half>(half(0.0f), half(0.7f), half(0.1f), "[8]"));
  EXPECT_TRUE(
      RangeIs<bfloat16>(bfloat16(0.0f), bfloat16(0.7f), bfloat16(0.1f), "[7]"));
  EXPECT_TRUE(RangeIs<float>(1.0f, -1.0f, -0.5f, "[4]"));
}

TEST(MathOpsTest, RangeErrors) {
  EXPECT_TRUE(
      RangeIs<int32_t>(0, 10, 0, "error:delta (input 2) must not be 0"));
  EXPECT_TRUE(RangeIs<int32_t>(
      10, 0, 1, "error:start 10 > limit 0 but delta 1 is positive"));
  EXPECT_TRUE(RangeIs<float>(0.0f, 1.0f, -0.5f,
                             "error:start 0 < limit 1 but delta -0.5 is "
                             "negative"));
  EXPECT_TRUE(RangeIs<int64_t>(std::numeric_limits<int64_t>::min(),
                               std::numeric_limits<int64_t>::max(), 1,
                               "error:has more than 2^63 elements"));
  EXPECT_TRUE(RangeIs<float>(0.0f, std::numeric_limits<float>::infinity(), 1.0f,
                             "error:does not have a finite int64 length"));
  EXPECT_TRUE(RangeIs<double>(0.0, std::nan(""), 1.0,
                              "error:does not have a finite int64 length"));

  ShapeInferenceTestOp op("Range");
  INFER_OK(op, "[];[];[]", "[?]");
  INFER_ERROR("limit must be a scalar: input 1 has rank 1", op, "[];[2];[]");
  // A value of another type than Tidx is malformed.
  const Tensor s = Int64Scalar(0);
  op.input_tensors = {&s, &s, &s};
  INFER_ERROR(
      "start (input 0) must be a int32 scalar but its value is a "
      "int64 tensor",
      op, "[];[];[]");
  INFER_ERROR(
      "bool",
      ShapeInferenceTestOp("Range").SetAttr("Tidx", AttrValue::Type(DT_BOOL)),
      "[];[];[]");
}

// ---- Einsum -----------------------------------------------------------------

ShapeInferenceTestOp Einsum(const std::string& equation, int n) {
  ShapeInferenceTestOp op = Typed("Einsum");
  op.SetAttr("equation", AttrValue::String(equation))
      .SetAttr("N", AttrValue::Int(n));
  return op;
}

// Expected shapes checked against TensorFlow 2.21's shape inference.
TEST(MathOpsTest, EinsumKerasAttention) {
  // EinsumDense projections and MultiHeadAttention's score and combine
  // contractions: each output label takes its input's very dimension.
  INFER_OK(Einsum("abc,cd->abd", 2), "[?,5,8];[8,16]", "[d0_0,d0_1,d1_1]");
  INFER_OK(Einsum("abc,cde->abde", 2), "[?,5,8];[8,2,4]",
           "[d0_0,d0_1,d1_1,d1_2]");
  INFER_OK(Einsum("aecd,abcd->acbe", 2), "[2,7,4,8];[2,5,4,8]",
           "[d0_0,d0_2,d1_1,d0_1]");
  INFER_OK(Einsum("acbe,aecd->abcd", 2), "[2,4,5,7];[2,7,4,8]",
           "[d0_0,d0_2,d0_1,d1_3]");
  INFER_OK(Einsum("abcd,cde->abe", 2), "[2,5,4,8];[4,8,32]",
           "[d0_0,d0_1,d1_2]");
  INFER_OK(Einsum("ab,bc->ac", 2), "[2,3];[3,4]", "[d0_0,d1_1]");
  // A contracted label merges: one side may know its size.
  INFER_OK(Einsum("ab,bc->ac", 2), "[2,?];[3,4]", "[d0_0,d1_1]");
  INFER_OK(Einsum("ab,bc->ac", 2), "[?,?];[?,4]", "[d0_0,d1_1]");
}

TEST(MathOpsTest, EinsumBroadcastAndSingleInput) {
  // Ellipsis dimensions broadcast like NumPy's.
  INFER_OK(Einsum("...ij,...jk->...ik", 2), "[5,1,2,3];[7,3,4]",
           "[d0_0,d1_0,d0_2,d1_2]");
  INFER_OK(Einsum("a...c,cd->a...d", 2), "[2,3,4,5];[5,6]",
           "[d0_0,d0_1,d0_2,d1_1]");
  INFER_OK(Einsum("...ij,...jk->...ik", 2), "?;[3,4]", "?");
  INFER_OK(Einsum("ij,jk->ik", 2), "?;[3,4]", "[?,d1_1]");
  // An empty ellipsis.
  INFER_OK(Einsum("...ij->ij", 1), "[2,3]", "[d0_0,d0_1]");
  INFER_OK(Einsum("ij->ji", 1), "[2,3]", "[d0_1,d0_0]");
  INFER_OK(Einsum("ij->", 1), "[2,3]", "[]");
  INFER_OK(Einsum("ij->i", 1), "?", "[?]");
  INFER_OK(Einsum("a...->...", 1), "[2,3,4]", "[d0_1,d0_2]");
  // A repeated label (a diagonal) is one size.
  INFER_OK(Einsum("ii->i", 1), "[3,?]", "[d0_0]");
  INFER_OK(Einsum("ii->i", 1), "[?,3]", "[d0_1]");
}

TEST(MathOpsTest, EinsumErrors) {
  INFER_ERROR("einsum equation 'ij,jk' must contain exactly one '->'",
              Einsum("ij,jk", 2), "[2,3];[3,4]");
  INFER_ERROR("must contain exactly one '->'", Einsum("ij->j->i", 1), "[2,3]");
  INFER_ERROR("has 3 input subscripts; 1 or 2 are supported",
              Einsum("i,j,k->ijk", 3), "[2];[3];[4]");
  INFER_ERROR(
      "subscript '..ij' may hold one ellipsis (...) and no other "
      "periods",
      Einsum("..ij->ij", 1), "[2,3]");
  INFER_ERROR("subscript '.i.j.'", Einsum(".i.j.->ij", 1), "[2,3]");
  INFER_ERROR(
      "subscript 'ij' of einsum equation 'ij->ij': input 0 has rank 3 but "
      "rank 2 was required",
      Einsum("ij->ij", 1), "[2,3,4]");
  INFER_ERROR("input 0 has rank 1 but rank at least 2 was required",
              Einsum("...ij->...ij", 1), "[3]");
  INFER_ERROR(
      "label 'j' of einsum equation 'ij,jk->ik' has two sizes: dimensions "
      "must be equal, but are 3 (input 0 dim 1) and 4 (input 1 dim 0)",
      Einsum("ij,jk->ik", 2), "[2,3];[4,5]");
  INFER_ERROR(
      "einsum equation 'ij->k' has output label 'k' that no input "
      "subscript has",
      Einsum("ij->k", 1), "[2,3]");
  INFER_ERROR(
      "einsum equation '...ij->ij' has no ellipsis in its output but the "
      "inputs' ellipsis stands for dimensions [5]",
      Einsum("...ij->ij", 1), "[5,2,3]");
  INFER_ERROR(
      "the ellipsis dimensions of einsum equation "
      "'...ij,...jk->...ik' do not broadcast",
      Einsum("...ij,...jk->...ik", 2), "[2,3,4];[5,4,6]");
  INFER_ERROR(
      "einsum equation 'ij,jk->ik' has 2 input subscripts but the "
      "node has 1 inputs",
      Einsum("ij,jk->ik", 1), "[2,3]");
}

}  // namespace math_ops_test
}  // namespace shape_inference
}  // namespace weft
