// Shape functions of the NN and image ops of issue 13 (ops/older_forms_ops.cc,
// ops/nn_window_ops.cc, ops/space_depth_ops.cc, ops/image_crop_resize_ops.cc).
// Their signatures and attrs are checked against TensorFlow's by
// tf_op_defs_test.cc.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
// Named so that its helpers stay distinct from other test files' in a
// unity build.
namespace nn_image_shape_test {
namespace {

ShapeInferenceTestOp Op(const std::string& name, DataType t = DT_FLOAT) {
  ShapeInferenceTestOp op(name);
  op.SetAttr("T", AttrValue::Type(t));
  return op;
}

AttrValue Ints(std::vector<int64_t> v) {
  AttrValue a;
  a.kind = AttrValue::Kind::kList;
  a.list->i = std::move(v);
  return a;
}

TEST(NnImageOpsTest, FusedBatchNorm) {
  for (const char* name : {"FusedBatchNorm", "FusedBatchNormV2"}) {
    ShapeInferenceTestOp op = Op(name);
    if (std::string(name) == "FusedBatchNormV2") {
      op.SetAttr("U", AttrValue::Type(DT_FLOAT));
    }
    op.SetAttr("is_training", AttrValue::Bool(false));
    INFER_OK(op, "[2,3,4,5];[5];[5];[5];[5]",
             "in0;[d0_3];[d0_3];[d0_3];[d0_3]");
    INFER_OK(op, "[2,3,4,?];[5];[5];[5];[5]",
             "[d0_0,d0_1,d0_2,d1_0];[d1_0];[d1_0];[d1_0];[d1_0]");
    INFER_ERROR("one value per channel", op, "[2,3,4,5];[5];[5];[5];[4]");
    INFER_ERROR("rank", op, "[2,3,5];[5];[5];[5];[5]");
    op.SetAttr("data_format", AttrValue::String("NCHW"));
    INFER_OK(op, "[2,5,3,4];[5];[5];[5];[5]",
             "in0;[d0_1];[d0_1];[d0_1];[d0_1]");
  }
}

TEST(NnImageOpsTest, MaxPoolV2) {
  ShapeInferenceTestOp op = Op("MaxPoolV2");
  op.SetAttr("padding", AttrValue::String("VALID"));
  INFER_OK(op, "[2,9,8,3];[4];[4]", "[?,?,?,?]");
  const Tensor ksize = Int32Tensor({1, 3, 2, 1});
  const Tensor strides = Int32Tensor({1, 2, 2, 1});
  op.input_tensors = {nullptr, &ksize, &strides};
  INFER_OK(op, "[2,9,8,3];[4];[4]", "[d0_0,4,4,d0_3]");
  INFER_OK(op, "[2,?,8,3];[4];[4]", "[d0_0,?,4,d0_3]");
  INFER_ERROR("must have 4 values", op, "[2,9,8,3];[3];[4]");
  const Tensor depth = Int32Tensor({1, 1, 1, 3});
  op.input_tensors = {nullptr, &depth, &depth};
  INFER_OK(op, "[2,9,8,6];[4];[4]", "[d0_0,d0_1,d0_2,2]");
  INFER_ERROR("must divide the depth", op, "[2,9,8,5];[4];[4]");
}

TEST(NnImageOpsTest, Conv3D) {
  ShapeInferenceTestOp op = Op("Conv3D");
  op.SetAttr("strides", Ints({1, 1, 2, 2, 1}));
  op.SetAttr("padding", AttrValue::String("SAME"));
  INFER_OK(op, "[2,4,5,6,3];[2,2,2,3,7]", "[d0_0,4,3,3,d1_4]");
  INFER_OK(op, "[2,4,5,6,3];[2,?,2,3,7]", "[d0_0,4,?,3,d1_4]");
  INFER_ERROR("multiple of the filter's input depth", op,
              "[2,4,5,6,3];[2,2,2,2,7]");
  op.SetAttr("padding", AttrValue::String("VALID"));
  op.SetAttr("data_format", AttrValue::String("NCDHW"));
  op.SetAttr("strides", Ints({1, 1, 1, 1, 1}));
  INFER_OK(op, "[2,3,4,5,6];[2,2,2,3,7]", "[d0_0,d1_4,3,4,5]");
  op.SetAttr("strides", Ints({1, 2, 1, 1, 1}));
  INFER_ERROR("batch or channel", op, "[2,3,4,5,6];[2,2,2,3,7]");
}

TEST(NnImageOpsTest, Conv3DBackpropInputV2) {
  ShapeInferenceTestOp op = Op("Conv3DBackpropInputV2");
  op.SetAttr("Tshape", AttrValue::Type(DT_INT32));
  op.SetAttr("strides", Ints({1, 1, 1, 1, 1}));
  op.SetAttr("padding", AttrValue::String("SAME"));
  INFER_OK(op, "[5];[2,2,2,3,4];[1,4,4,4,4]", "[?,?,?,?,?]");
  const Tensor sizes = Int32Tensor({1, 4, 5, 6, 3});
  op.input_tensors = {&sizes};
  INFER_OK(op, "[5];[2,2,2,3,4];[1,4,5,6,4]", "[1,4,5,6,3]");
  INFER_ERROR("must have 5 values", op, "[4];[2,2,2,3,4];[1,4,5,6,4]");
  INFER_ERROR("filter (input 1)", op, "[5];[2,2,3,4];[1,4,5,6,4]");
}

TEST(NnImageOpsTest, Pool3D) {
  for (const char* name : {"MaxPool3D", "AvgPool3D"}) {
    ShapeInferenceTestOp op = Op(name);
    op.SetAttr("ksize", Ints({1, 2, 2, 2, 1}));
    op.SetAttr("strides", Ints({1, 2, 2, 2, 1}));
    op.SetAttr("padding", AttrValue::String("VALID"));
    INFER_OK(op, "[2,4,5,6,3]", "[d0_0,2,2,3,d0_4]");
    INFER_OK(op, "?", "[?,?,?,?,?]");
    op.SetAttr("ksize", Ints({1, 2, 2, 2}));
    INFER_ERROR("length >= 5", op, "[2,4,5,6,3]");
  }
}

TEST(NnImageOpsTest, MaxPoolWithArgmax) {
  ShapeInferenceTestOp op = Op("MaxPoolWithArgmax");
  op.SetAttr("ksize", Ints({1, 2, 2, 1}));
  op.SetAttr("strides", Ints({1, 2, 2, 1}));
  op.SetAttr("padding", AttrValue::String("SAME"));
  INFER_OK(op, "[2,5,6,3]", "[d0_0,3,3,d0_3];[d0_0,3,3,d0_3]");
}

TEST(NnImageOpsTest, ExtractImagePatches) {
  ShapeInferenceTestOp op = Op("ExtractImagePatches");
  op.SetAttr("ksizes", Ints({1, 2, 3, 1}));
  op.SetAttr("strides", Ints({1, 1, 2, 1}));
  op.SetAttr("rates", Ints({1, 2, 1, 1}));
  op.SetAttr("padding", AttrValue::String("VALID"));
  INFER_OK(op, "[2,6,7,3]", "[d0_0,4,3,18]");
  INFER_OK(op, "[2,6,7,?]", "[d0_0,4,3,?]");
  op.SetAttr("ksizes", Ints({2, 2, 3, 1}));
  INFER_ERROR("batch or channel", op, "[2,6,7,3]");
  op.SetAttr("ksizes", Ints({1, int64_t{1} << 40, int64_t{1} << 40, 1}));
  op.SetAttr("padding", AttrValue::String("SAME"));
  INFER_ERROR("too many elements", op, "[2,6,7,3]");
}

TEST(NnImageOpsTest, SpaceToBatchND) {
  ShapeInferenceTestOp op("SpaceToBatchND");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  op.SetAttr("Tblock_shape", AttrValue::Type(DT_INT32));
  op.SetAttr("Tpaddings", AttrValue::Type(DT_INT32));
  INFER_OK(op, "[2,4,6,3];[2];[2,2]", "[?,?,?,d0_3]");
  INFER_OK(op, "[2,4,6,3];[?];[?,2]", "[?,?,?,?]");
  const Tensor block = Int32Tensor({2, 3});
  Tensor pads(DT_INT32, TensorShape({2, 2}));
  const int32_t v[4] = {1, 1, 0, 3};
  for (int i = 0; i < 4; ++i) pads.data<int32_t>()[i] = v[i];
  op.input_tensors = {nullptr, &block, &pads};
  INFER_OK(op, "[2,4,6,3];[2];[2,2]", "[12,3,3,d0_3]");
  INFER_ERROR("not divisible by block_shape[1] = 3", op, "[2,4,5,3];[2];[2,2]");
  INFER_ERROR("rank at least 3", op, "[2];[2];[2,2]");
  INFER_ERROR("one row per value", op, "[2,4,6,3];[2];[3,2]");
}

TEST(NnImageOpsTest, BatchToSpaceND) {
  ShapeInferenceTestOp op("BatchToSpaceND");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  op.SetAttr("Tblock_shape", AttrValue::Type(DT_INT32));
  op.SetAttr("Tcrops", AttrValue::Type(DT_INT32));
  const Tensor block = Int32Tensor({2, 3});
  Tensor crops(DT_INT32, TensorShape({2, 2}));
  const int32_t v[4] = {1, 1, 0, 2};
  for (int i = 0; i < 4; ++i) crops.data<int32_t>()[i] = v[i];
  op.input_tensors = {nullptr, &block, &crops};
  INFER_OK(op, "[12,3,3,5];[2];[2,2]", "[2,4,7,d0_3]");
  INFER_ERROR("divisible by the product of block_shape", op,
              "[10,3,3,5];[2];[2,2]");
  INFER_ERROR("larger than its size", op, "[12,1,0,5];[2];[2,2]");
}

TEST(NnImageOpsTest, SpaceToDepthAndBack) {
  ShapeInferenceTestOp s2d = Op("SpaceToDepth");
  s2d.SetAttr("block_size", AttrValue::Int(2));
  INFER_OK(s2d, "[2,4,6,3]", "[d0_0,2,3,12]");
  INFER_OK(s2d, "[2,?,6,3]", "[d0_0,?,3,12]");
  INFER_ERROR("divisible by block_size 2", s2d, "[2,5,6,3]");
  s2d.SetAttr("data_format", AttrValue::String("NCHW"));
  INFER_OK(s2d, "[2,3,4,6]", "[d0_0,12,2,3]");
  ShapeInferenceTestOp d2s = Op("DepthToSpace");
  d2s.SetAttr("block_size", AttrValue::Int(2));
  INFER_OK(d2s, "[2,4,6,12]", "[d0_0,8,12,3]");
  INFER_ERROR("block_size * block_size = 4", d2s, "[2,4,6,6]");
  d2s.SetAttr("block_size", AttrValue::Int(int64_t{1} << 40));
  INFER_ERROR("block_size", d2s, "[2,4,6,6]");
}

TEST(NnImageOpsTest, ResizeBicubicAndArea) {
  for (const char* name : {"ResizeBicubic", "ResizeArea"}) {
    ShapeInferenceTestOp op = Op(name);
    INFER_OK(op, "[2,5,7,3];[2]", "[d0_0,?,?,d0_3]");
    const Tensor size = Int32Tensor({8, 4});
    op.input_tensors = {nullptr, &size};
    INFER_OK(op, "[2,5,7,3];[2]", "[d0_0,8,4,d0_3]");
    INFER_ERROR("[height, width]", op, "[2,5,7,3];[3]");
    const Tensor bad = Int32Tensor({0, 4});
    op.input_tensors = {nullptr, &bad};
    INFER_ERROR("positive", op, "[2,5,7,3];[2]");
  }
}

TEST(NnImageOpsTest, CropAndResize) {
  ShapeInferenceTestOp op = Op("CropAndResize");
  INFER_OK(op, "[2,5,7,3];[6,4];[6];[2]", "[d1_0,?,?,d0_3]");
  INFER_OK(op, "[2,5,7,3];[?,4];[6];[2]", "[d2_0,?,?,d0_3]");
  const Tensor size = Int32Tensor({3, 4});
  op.input_tensors = {nullptr, nullptr, nullptr, &size};
  INFER_OK(op, "[2,5,7,3];[6,4];[6];[2]", "[d1_0,3,4,d0_3]");
  INFER_ERROR("one value per box", op, "[2,5,7,3];[6,4];[5];[2]");
  INFER_ERROR("[num_boxes, 4]", op, "[2,5,7,3];[6,3];[6];[2]");
}

TEST(NnImageOpsTest, CombinedNonMaxSuppression) {
  ShapeInferenceTestOp op("CombinedNonMaxSuppression");
  INFER_OK(op, "[2,10,1,4];[2,10,5];[];[];[];[]",
           "[d0_0,?,4];[d0_0,?];[d0_0,?];[d0_0]");
  const Tensor per_class = Int32Scalar(3);
  const Tensor total = Int32Scalar(20);
  op.input_tensors = {nullptr, nullptr, &per_class, &total};
  INFER_OK(op, "[2,10,1,4];[2,10,5];[];[];[];[]",
           "[d0_0,20,4];[d0_0,20];[d0_0,20];[d0_0]");
  op.SetAttr("pad_per_class", AttrValue::Bool(true));
  INFER_OK(op, "[2,10,5,4];[2,10,5];[];[];[];[]",
           "[d0_0,15,4];[d0_0,15];[d0_0,15];[d0_0]");
  INFER_ERROR("must be 1 or the number of classes", op,
              "[2,10,3,4];[2,10,5];[];[];[];[]");
  INFER_ERROR("same number of boxes", op, "[2,9,1,4];[2,10,5];[];[];[];[]");
  INFER_ERROR("must be a scalar", op, "[2,10,1,4];[2,10,5];[1];[];[];[]");
}

}  // namespace
}  // namespace nn_image_shape_test
}  // namespace shape_inference
}  // namespace weft
