// Shape functions of ops/image_adjust_ops.cc: the Adjust ops and fake
// quantization keep their input's shape; CTCGreedyDecoder's batch comes
// from inputs or sequence_length, its sparse result is of unknown size.
#include "gtest/gtest.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace {

TEST(ImageAdjustOpsTest, Adjust) {
  ShapeInferenceTestOp op("AdjustHue");
  INFER_OK(op, "[2,4,5,3];[]", "in0");
  INFER_OK(op, "?;[]", "?");
  INFER_ERROR("images (input 0) must be at least 3-D", op, "[4,3];[]");
  INFER_ERROR("delta (input 1) must be a scalar", op, "[4,4,3];[1]");
}

TEST(ImageAdjustOpsTest, FakeQuant) {
  ShapeInferenceTestOp args("FakeQuantWithMinMaxArgs");
  INFER_OK(args, "[2,?]", "in0");
  ShapeInferenceTestOp vars("FakeQuantWithMinMaxVars");
  INFER_OK(vars, "[2,3];[];[]", "in0");
  INFER_ERROR("max (input 2) must be a scalar", vars, "[2,3];[];[1]");
}

TEST(ImageAdjustOpsTest, CtcGreedyDecoder) {
  ShapeInferenceTestOp op("CTCGreedyDecoder");
  INFER_OK(op, "[10,4,7];[4]", "[?,2];[?];[2];[d0_1,1]");
  INFER_OK(op, "[10,?,7];[4]", "[?,2];[?];[2];[d1_0,1]");
  INFER_ERROR("one length per batch entry", op, "[10,4,7];[3]");
  INFER_ERROR("inputs (input 0) must be 3-D", op, "[10,4];[4]");
}

}  // namespace
}  // namespace shape_inference
}  // namespace weft
