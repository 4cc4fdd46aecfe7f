// Shape functions of the TensorArray ops (ops/tensor_array_ops.cc) and of
// Assert and Bitcast (ops/assert_bitcast_ops.cc). Their signatures are
// checked against TensorFlow's by tf_op_defs_test.cc.
#include <string>

#include "gtest/gtest.h"
#include "ops/attr_value.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace tensor_array_ops_test {

// The op with its type attr ("dtype" or "T", when it has one) float.
ShapeInferenceTestOp Op(const std::string& name) {
  ShapeInferenceTestOp op(name);
  if (name == "TensorArrayV3" || name == "TensorArrayReadV3" ||
      name == "TensorArrayGatherV3" || name == "TensorArrayConcatV3") {
    op.SetAttr("dtype", AttrValue::Type(DT_FLOAT));
  } else if (name == "TensorArrayWriteV3" || name == "TensorArrayScatterV3" ||
             name == "TensorArraySplitV3") {
    op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  }
  return op;
}

TEST(TensorArrayOpsTest, CreateGivesAHandleOfTwoAndAScalarFlow) {
  ShapeInferenceTestOp op = Op("TensorArrayV3");
  INFER_OK(op, "[]", "[2];[]");
  INFER_OK(op, "?", "[2];[]");
  INFER_ERROR("rank 0", op, "[1]");
}

TEST(TensorArrayOpsTest, HandlesAreVectorsOfTwo) {
  ShapeInferenceTestOp op = Op("TensorArraySizeV3");
  INFER_OK(op, "[2];[]", "[]");
  INFER_OK(op, "?;?", "[]");
  INFER_ERROR("rank 1", op, "[];[]");
  INFER_ERROR("2", op, "[3];[]");
  INFER_ERROR("rank 1", Op("TensorArrayCloseV3"), "[2,2]");
}

TEST(TensorArrayOpsTest, ReadAndWrite) {
  ShapeInferenceTestOp read = Op("TensorArrayReadV3");
  INFER_OK(read, "[2];[];[]", "?");
  INFER_ERROR("rank 0", read, "[2];[1];[]");
  ShapeInferenceTestOp write = Op("TensorArrayWriteV3");
  INFER_OK(write, "[2];[];[3,4];[]", "[]");
  INFER_ERROR("rank 0", write, "[2];[];[3];[1]");
}

TEST(TensorArrayOpsTest, GatherAppendsTheElementShapeAttr) {
  ShapeInferenceTestOp op = Op("TensorArrayGatherV3");
  op.SetAttr("element_shape", AttrValue::Shape(PartialTensorShape()));
  INFER_OK(op, "[2];[5];[]", "?");
  op.SetAttr("element_shape", AttrValue::Shape(PartialTensorShape({-1, 4})));
  INFER_OK(op, "[2];[5];[]", "[d1_0,?,4]");
  INFER_OK(op, "[2];?;[]", "[?,?,4]");
  INFER_ERROR("rank 1", op, "[2];[];[]");
}

TEST(TensorArrayOpsTest, ScatterNeedsOneRowPerIndex) {
  ShapeInferenceTestOp op = Op("TensorArrayScatterV3");
  INFER_OK(op, "[2];[3];[3,4];[]", "[]");
  INFER_OK(op, "[2];[?];[3,4];[]", "[]");
  INFER_ERROR("", op, "[2];[2];[3,4];[]");
  INFER_ERROR("rank", op, "[2];[3];[];[]");
}

TEST(TensorArrayOpsTest, ConcatAndSplit) {
  ShapeInferenceTestOp concat = Op("TensorArrayConcatV3");
  INFER_OK(concat, "[2];[]", "?;[?]");
  ShapeInferenceTestOp split = Op("TensorArraySplitV3");
  INFER_OK(split, "[2];[6,2];[3];[]", "[]");
  INFER_ERROR("rank 1", split, "[2];[6,2];[];[]");
}

TEST(TensorArrayOpsTest, BitcastShapes) {
  ShapeInferenceTestOp op("Bitcast");
  op.SetAttr("T", AttrValue::Type(DT_INT32));
  op.SetAttr("type", AttrValue::Type(DT_FLOAT));
  INFER_OK(op, "[2,3]", "in0");
  INFER_OK(op, "?", "?");
  op.SetAttr("type", AttrValue::Type(DT_UINT8));
  INFER_OK(op, "[2,3]", "[d0_0,d0_1,4]");
  op.SetAttr("T", AttrValue::Type(DT_UINT8));
  op.SetAttr("type", AttrValue::Type(DT_INT64));
  INFER_OK(op, "[2,8]", "[d0_0]");
  INFER_OK(op, "[2,?]", "[d0_0]");
  INFER_ERROR("does not match 8", op, "[2,4]");
  INFER_ERROR("rank", op, "[]");
}

TEST(TensorArrayOpsTest, AssertAndControlTriggerHaveNoOutputs) {
  ShapeInferenceTestOp op("Assert");
  op.SetAttr("T", AttrValue::TypeList({DT_FLOAT}));
  INFER_OK(op, "[];[3]", "");
  INFER_OK(ShapeInferenceTestOp("ControlTrigger"), "", "");
}

}  // namespace tensor_array_ops_test
}  // namespace shape_inference
}  // namespace weft
