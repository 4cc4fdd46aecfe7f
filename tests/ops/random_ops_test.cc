// Shape functions of the random ops (ops/random_ops.cc): the output shape
// is the shape tensor's value where known, and the seed, key, counter, alg
// and bound inputs are checked for rank. Their signatures and attrs are
// checked against TensorFlow's by tf_op_defs_test.cc.
#include <string>

#include "gtest/gtest.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace random_ops_test {

ShapeInferenceTestOp Op(const std::string& name) {
  ShapeInferenceTestOp op(name);
  op.SetAttr("dtype", AttrValue::Type(DT_FLOAT));
  return op;
}

TEST(RandomOpsTest, StatelessV2) {
  const Tensor shape = Int32Tensor({2, 3});
  ShapeInferenceTestOp op = Op("StatelessRandomUniformV2");
  op.input_tensors = {&shape};
  INFER_OK(op, "[2];[1];[2];[]", "[2,3]");
  INFER_OK(op, "[2];?;?;?", "[2,3]");
  op.input_tensors = {};
  INFER_OK(op, "[2];[1];[2];[]", "[?,?]");
  INFER_OK(op, "?;[1];[2];[]", "?");
  INFER_ERROR("key (input 1) must be a vector of 1", op, "[2];[2];[2];[]");
  INFER_ERROR("counter (input 2) must be a vector", op, "[2];[1];[];[]");
  INFER_ERROR("alg (input 3) must be a scalar", op, "[2];[1];[2];[1]");
  ShapeInferenceTestOp ints("StatelessRandomUniformIntV2");
  ints.SetAttr("dtype", AttrValue::Type(DT_INT64));
  ints.input_tensors = {&shape};
  INFER_OK(ints, "[2];[1];[2];[];[];[]", "[2,3]");
  INFER_ERROR("maxval (input 5) must be a scalar", ints,
              "[2];[1];[2];[];[];[1]");
}

TEST(RandomOpsTest, StatelessV1) {
  const Tensor shape = Int64Tensor({4});
  ShapeInferenceTestOp op = Op("StatelessTruncatedNormal");
  op.input_tensors = {&shape};
  INFER_OK(op, "[1];[2]", "[4]");
  INFER_ERROR("seed must be a vector of 2", op, "[1];[3]");
  INFER_ERROR("seed must be a vector of 2", op, "[1];[]");
  ShapeInferenceTestOp ints("StatelessRandomUniformInt");
  ints.SetAttr("dtype", AttrValue::Type(DT_INT32));
  ints.SetAttr("T", AttrValue::Type(DT_INT64));
  ints.input_tensors = {&shape};
  INFER_OK(ints, "[1];[2];[];[]", "[4]");
  INFER_ERROR("minval (input 2) must be a scalar", ints, "[1];[2];[2];[]");
}

TEST(RandomOpsTest, KeyCounterAlg) {
  ShapeInferenceTestOp kca("StatelessRandomGetKeyCounterAlg");
  INFER_OK(kca, "[2]", "[1];[2];[]");
  INFER_ERROR("seed must be a vector of 2", kca, "[3]");
  ShapeInferenceTestOp kc("StatelessRandomGetKeyCounter");
  INFER_OK(kc, "?", "[1];[2]");
  ShapeInferenceTestOp alg("StatelessRandomGetAlg");
  INFER_OK(alg, "", "[]");
}

TEST(RandomOpsTest, Stateful) {
  const Tensor shape = Int32Tensor({5, 1});
  ShapeInferenceTestOp op = Op("RandomStandardNormal");
  op.SetAttr("T", AttrValue::Type(DT_INT32));
  op.input_tensors = {&shape};
  INFER_OK(op, "[2]", "[5,1]");
  ShapeInferenceTestOp ints("RandomUniformInt");
  ints.SetAttr("Tout", AttrValue::Type(DT_INT32));
  ints.SetAttr("T", AttrValue::Type(DT_INT32));
  ints.input_tensors = {&shape};
  INFER_OK(ints, "[2];[];[]", "[5,1]");
  INFER_ERROR("minval (input 1) must be a scalar", ints, "[2];[1];[]");
}

TEST(RandomOpsTest, Multinomial) {
  ShapeInferenceTestOp op("Multinomial");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  const Tensor seven = Int32Scalar(7);
  op.input_tensors = {nullptr, &seven};
  INFER_OK(op, "[3,10];[]", "[d0_0,7]");
  op.input_tensors = {};
  INFER_OK(op, "[?,10];[]", "[d0_0,?]");
  INFER_ERROR("logits (input 0) must be a matrix", op, "[3];[]");
  INFER_ERROR("num_samples (input 1) must be a scalar", op, "[3,2];[2]");
}

}  // namespace random_ops_test
}  // namespace shape_inference
}  // namespace weft
