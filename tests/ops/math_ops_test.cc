// Registrations and shapes of ops/math_ops.cc. The interfaces are
// TensorFlow's (math_ops.cc); the shared shape functions have their edge
// cases in common_shape_fns_test.cc, so this checks each op is wired to the
// right one.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/op_registry.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace {

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

}  // namespace
}  // namespace shape_inference
}  // namespace weft
