// Shape functions of the inference ops of issue 13 (ops/array_ops.cc,
// ops/math_ops.cc, ops/nn_ops.cc). Their signatures and attrs are checked
// against TensorFlow's by tf_op_defs_test.cc.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace {

// A test op with its type attr T set.
ShapeInferenceTestOp Op(const std::string& name, DataType t = DT_FLOAT) {
  ShapeInferenceTestOp op(name);
  op.SetAttr("T", AttrValue::Type(t));
  return op;
}

TEST(InferenceOpsTest, MatrixBandPart) {
  ShapeInferenceTestOp op = Op("MatrixBandPart");
  INFER_OK(op, "[2,3,4];[];[]", "in0");
  INFER_OK(op, "?;[];[]", "?");
  INFER_ERROR("at least a matrix", op, "[4];[];[]");
  INFER_ERROR("num_lower (input 1) must be a scalar", op, "[2,2];[1];[]");
}

TEST(InferenceOpsTest, TopKV2) {
  ShapeInferenceTestOp op = Op("TopKV2");
  const Tensor k3 = Int32Scalar(3);
  op.input_tensors = {nullptr, &k3};
  INFER_OK(op, "[2,5];[]", "[d0_0,3];[d0_0,3]");
  INFER_OK(op, "[2,?];[]", "[d0_0,3];[d0_0,3]");
  INFER_OK(op, "?;[]", "?;?");
  INFER_ERROR("last dimension >= k", op, "[2,2];[]");
  INFER_ERROR("rank at least 1", op, "[];[]");
  op.input_tensors = {};
  INFER_OK(op, "[2,5];[]", "[d0_0,?];[d0_0,?]");
}

TEST(InferenceOpsTest, Scans) {
  for (const char* name : {"Cumsum", "Cumprod"}) {
    ShapeInferenceTestOp op = Op(name);
    INFER_OK(op, "[2,3];[]", "in0");
    INFER_ERROR("axis (input 1) must be a scalar", op, "[2,3];[1]");
  }
}

TEST(InferenceOpsTest, ReverseV2) {
  ShapeInferenceTestOp op = Op("ReverseV2");
  INFER_OK(op, "[2,3];[1]", "in0");
  const Tensor bad = Int32Tensor({2});
  op.input_tensors = {nullptr, &bad};
  INFER_ERROR("outside [-2, 2)", op, "[2,3];[1]");
  const Tensor dup = Int32Tensor({1, -1});
  op.input_tensors = {nullptr, &dup};
  INFER_ERROR("more than once", op, "[2,3];[2]");
  op.input_tensors = {};
  INFER_ERROR("rank up to 8", op, "[1,1,1,1,1,1,1,1,1];[1]");
}

TEST(InferenceOpsTest, RollAndInvertPermutation) {
  ShapeInferenceTestOp roll = Op("Roll");
  roll.SetAttr("Tshift", AttrValue::Type(DT_INT32))
      .SetAttr("Taxis", AttrValue::Type(DT_INT32));
  INFER_OK(roll, "[2,3];[];[]", "in0");
  INFER_OK(roll, "[2,3];[2];[2]", "in0");
  INFER_ERROR("shift (input 1)", roll, "[2,3];[1,1];[]");
  ShapeInferenceTestOp perm = Op("InvertPermutation", DT_INT32);
  INFER_OK(perm, "[5]", "in0");
  INFER_ERROR("must be a vector", perm, "[2,2]");
}

TEST(InferenceOpsTest, Where) {
  ShapeInferenceTestOp op = Op("Where", DT_BOOL);
  INFER_OK(op, "[2,3,4]", "[?,3]");
  INFER_OK(op, "?", "[?,?]");
}

TEST(InferenceOpsTest, EnsureShape) {
  ShapeInferenceTestOp op = Op("EnsureShape");
  op.SetAttr("shape", AttrValue::Shape(PartialTensorShape({-1, 3})));
  INFER_OK(op, "[2,?]", "[d0_0,3]");
  INFER_OK(op, "?", "[?,3]");
  INFER_ERROR("not compatible", op, "[2,4]");
  INFER_ERROR("not compatible", op, "[2]");
}

TEST(InferenceOpsTest, ShapeNAndBroadcastArgs) {
  ShapeInferenceTestOp shapes = Op("ShapeN");
  shapes.SetAttr("N", AttrValue::Int(3));
  INFER_OK(shapes, "[2,3];?;[]", "[2];[?];[0]");
  ShapeInferenceTestOp args = Op("BroadcastArgs", DT_INT32);
  INFER_OK(args, "[2];[4]", "[4]");
  INFER_OK(args, "[?];[4]", "[?]");
  INFER_ERROR("s0 (input 0) must be a vector", args, "[];[4]");
}

TEST(InferenceOpsTest, ElementWise) {
  for (const char* name : {"Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh",
                           "Cosh", "Sinh", "Tan", "Expm1", "IsInf", "Rint",
                           "Invert", "ClipByValue", "CheckNumerics"}) {
    SCOPED_TRACE(name);
    const std::string n = name;
    ShapeInferenceTestOp op = Op(name, n == "Invert" ? DT_INT32 : DT_FLOAT);
    if (n == "CheckNumerics") op.SetAttr("message", AttrValue::String("m"));
    const std::string inputs =
        std::string(name) == "ClipByValue" ? "[2,3];[];[]" : "[2,3]";
    INFER_OK(op, inputs, "in0");
  }
  for (const char* name : {"Atan2", "TruncateDiv", "BitwiseAnd", "BitwiseOr",
                           "BitwiseXor", "LeftShift", "RightShift"}) {
    SCOPED_TRACE(name);
    const std::string n = name;
    ShapeInferenceTestOp op =
        Op(name, n == "Atan2" || n == "TruncateDiv" ? DT_FLOAT : DT_INT32);
    INFER_OK(op, "[2,1,3];[4,1]", "[d0_0,d1_0,d0_2]");
    INFER_ERROR("", op, "[2,3];[4]");
  }
}

TEST(InferenceOpsTest, NonMaxSuppression) {
  for (const char* name : {"NonMaxSuppressionV2", "NonMaxSuppressionV3"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op = Op(name);
    op.SetAttr("T_threshold", AttrValue::Type(DT_FLOAT));
    const std::string scalars =
        std::string(name) == "NonMaxSuppressionV2" ? ";[];[]" : ";[];[];[]";
    INFER_OK(op, "[10,4];[10]" + scalars, "[?]");
    INFER_OK(op, "?;?" + scalars, "[?]");
    INFER_ERROR("boxes (input 0) must have 4 columns", op,
                "[10,3];[10]" + scalars);
    INFER_ERROR("one score per row", op, "[10,4];[9]" + scalars);
    INFER_ERROR("scores (input 1) must be a vector", op,
                "[10,4];[10,1]" + scalars);
    INFER_ERROR("input 2 must be a scalar", op,
                "[10,4];[10];[1]" + scalars.substr(3));
  }
  ShapeInferenceTestOp v1("NonMaxSuppression");
  v1.SetAttr("iou_threshold", AttrValue::Float(0.5f));
  INFER_OK(v1, "[10,4];[10];[]", "[?]");
  ShapeInferenceTestOp overlaps("NonMaxSuppressionWithOverlaps");
  INFER_OK(overlaps, "[10,10];[10];[];[];[]", "[?]");
  INFER_ERROR("overlaps (input 0) must be square", overlaps,
              "[10,9];[10];[];[];[]");
  // V4 and V5 pad to max_output_size when it is known.
  const Tensor five = Int32Scalar(5);
  ShapeInferenceTestOp v4 = Op("NonMaxSuppressionV4");
  v4.SetAttr("T_threshold", AttrValue::Type(DT_FLOAT));
  v4.SetAttr("pad_to_max_output_size", AttrValue::Bool(true));
  v4.input_tensors = {nullptr, nullptr, &five};
  INFER_OK(v4, "[10,4];[10];[];[];[]", "[5];[]");
  v4.input_tensors = {};
  INFER_OK(v4, "[10,4];[10];[];[];[]", "[?];[]");
  v4.SetAttr("pad_to_max_output_size", AttrValue::Bool(false));
  v4.input_tensors = {nullptr, nullptr, &five};
  INFER_OK(v4, "[10,4];[10];[];[];[]", "[?];[]");
  ShapeInferenceTestOp v5 = Op("NonMaxSuppressionV5");
  v5.SetAttr("pad_to_max_output_size", AttrValue::Bool(true));
  v5.input_tensors = {nullptr, nullptr, &five};
  INFER_OK(v5, "[10,4];[10];[];[];[];[]", "[5];[5];[]");
  INFER_ERROR("input 5 must be a scalar", v5, "[10,4];[10];[];[];[];[2]");
}

}  // namespace
}  // namespace shape_inference
}  // namespace weft
