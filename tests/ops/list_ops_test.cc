// Shape functions of the TensorList ops (ops/list_ops.cc). Their signatures
// are checked against TensorFlow's by tf_op_defs_test.cc.
#include "gtest/gtest.h"
#include "ops/attr_value.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace {

ShapeInferenceTestOp ListOp(const char* name) {
  ShapeInferenceTestOp op(name);
  if (std::string(name) != "TensorListLength" &&
      std::string(name) != "TensorListResize" &&
      std::string(name) != "TensorListElementShape") {
    op.SetAttr("element_dtype", AttrValue::Type(DT_FLOAT));
  }
  return op;
}

TEST(ListOpsTest, NewListsAreScalars) {
  for (const char* name : {"EmptyTensorList", "TensorListReserve"}) {
    ShapeInferenceTestOp op = ListOp(name);
    op.SetAttr("shape_type", AttrValue::Type(DT_INT32));
    INFER_OK(op, "[2];[]", "[]");
    INFER_OK(op, "[];[]", "[]");
    INFER_ERROR("rank 0", op, "[2];[3]");
  }
}

TEST(ListOpsTest, FromTensorChecksTheElementShape) {
  ShapeInferenceTestOp op = ListOp("TensorListFromTensor");
  op.SetAttr("shape_type", AttrValue::Type(DT_INT32));
  INFER_OK(op, "[5,2,3];[2]", "[]");
  INFER_ERROR("rank", op, "[];[2]");
  const Tensor shape = Int32Tensor({2, 4});
  op.input_tensors = {nullptr, &shape};
  INFER_ERROR("", op, "[5,2,3];[2]");
  const Tensor unknown = Int32Scalar(-1);
  op.input_tensors = {nullptr, &unknown};
  INFER_OK(op, "[5,2,3];[]", "[]");
}

TEST(ListOpsTest, GetItemReadsTheElementShapeInput) {
  ShapeInferenceTestOp op = ListOp("TensorListGetItem");
  INFER_OK(op, "[];[];[2]", "[?,?]");
  INFER_OK(op, "[];[];[]", "?");
  INFER_OK(op, "?;?;?", "?");
  const Tensor shape = Int32Tensor({-1, 4});
  op.input_tensors = {nullptr, nullptr, &shape};
  INFER_OK(op, "[];[];[2]", "[?,4]");
  const Tensor unknown = Int32Scalar(-1);
  op.input_tensors = {nullptr, nullptr, &unknown};
  INFER_OK(op, "[];[];[]", "?");
  const Tensor bad = Int32Scalar(3);
  op.input_tensors = {nullptr, nullptr, &bad};
  INFER_ERROR("must be -1", op, "[];[];[]");
  INFER_ERROR("rank 0", op, "[2];[];[2]");
}

TEST(ListOpsTest, StackAndGatherPrependTheCount) {
  ShapeInferenceTestOp stack = ListOp("TensorListStack");
  const Tensor shape = Int32Tensor({3, -1});
  stack.input_tensors = {nullptr, &shape};
  INFER_OK(stack, "[];[2]", "[?,3,?]");
  stack.SetAttr("num_elements", AttrValue::Int(7));
  INFER_OK(stack, "[];[2]", "[7,3,?]");
  stack.input_tensors = {};
  INFER_OK(stack, "[];[]", "?");

  ShapeInferenceTestOp gather = ListOp("TensorListGather");
  gather.input_tensors = {nullptr, nullptr, &shape};
  INFER_OK(gather, "[];[5];[2]", "[d1_0,3,?]");
  INFER_ERROR("rank 1", gather, "[];[];[2]");
}

TEST(ListOpsTest, ListResultsAreScalars) {
  INFER_OK(ListOp("TensorListSetItem"), "[];[];[2,3]", "[]");
  INFER_OK(ListOp("TensorListPushBack"), "[];[2,3]", "[]");
  INFER_OK(ListOp("TensorListResize"), "[];[]", "[]");
  INFER_OK(ListOp("TensorListLength"), "[]", "[]");
  ShapeInferenceTestOp element_shape = ListOp("TensorListElementShape");
  element_shape.SetAttr("shape_type", AttrValue::Type(DT_INT64));
  INFER_OK(element_shape, "[]", "?");
  ShapeInferenceTestOp split = ListOp("TensorListSplit");
  split.SetAttr("shape_type", AttrValue::Type(DT_INT32));
  INFER_OK(split, "[6,2];[2];[3]", "[]");
  ShapeInferenceTestOp scatter = ListOp("TensorListScatterV2");
  scatter.SetAttr("shape_type", AttrValue::Type(DT_INT32));
  INFER_OK(scatter, "[3,2];[3];[1];[]", "[]");
  INFER_OK(ListOp("TensorListScatterIntoExistingList"), "[];[3,2];[3]", "[]");
}

TEST(ListOpsTest, PopBackAndConcat) {
  ShapeInferenceTestOp pop = ListOp("TensorListPopBack");
  const Tensor shape = Int32Tensor({-1, 4});
  pop.input_tensors = {nullptr, &shape};
  INFER_OK(pop, "[];[2]", "[];[?,4]");

  ShapeInferenceTestOp concat = ListOp("TensorListConcatV2");
  concat.SetAttr("shape_type", AttrValue::Type(DT_INT32));
  concat.input_tensors = {nullptr, &shape};
  INFER_OK(concat, "[];[2];[0]", "[?,4];[?]");
  concat.input_tensors = {};
  INFER_OK(concat, "[];[];[0]", "?;[?]");
}

}  // namespace
}  // namespace shape_inference
}  // namespace weft
