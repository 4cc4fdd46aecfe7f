// Registrations and shapes of ops/nn_ops.cc. The interfaces are
// TensorFlow's (nn_ops.cc); Conv2D, pooling and BiasAdd shapes have their
// edge cases in common_shape_fns_test.cc.
#include "gtest/gtest.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace {

TEST(NnOpsTest, Activations) {
  EXPECT_EQ(RegisteredSignature("Relu"), "(features: T) -> (activations: T)");
  EXPECT_EQ(RegisteredSignature("Relu6"), "(features: T) -> (activations: T)");
  for (const char* name : {"Relu", "Relu6"}) {
    ShapeInferenceTestOp op(name);
    op.SetAttr("T", AttrValue::Type(DT_FLOAT));
    INFER_OK(op, "[2,?,3]", "in0");
    INFER_OK(op, "?", "in0");
  }
  // Relu takes qint8 on top of the real types; Relu6 does not.
  ShapeInferenceTestOp relu("Relu");
  relu.SetAttr("T", AttrValue::Type(DT_QINT8));
  INFER_OK(relu, "[4]", "in0");
  ShapeInferenceTestOp relu6("Relu6");
  relu6.SetAttr("T", AttrValue::Type(DT_QINT8));
  INFER_ERROR("qint8", relu6, "[4]");
  relu.SetAttr("T", AttrValue::Type(DT_COMPLEX64));
  INFER_ERROR("complex64", relu, "[4]");
}

TEST(NnOpsTest, Softmax) {
  EXPECT_EQ(RegisteredSignature("Softmax"), "(logits: T) -> (softmax: T)");
  EXPECT_EQ(RegisteredAttr("Softmax", "T"),
            "type in [half, bfloat16, float, double]");
  ShapeInferenceTestOp op("Softmax");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  INFER_OK(op, "[2,10]", "in0");
  INFER_OK(op, "[10]", "in0");
  INFER_OK(op, "?", "in0");
  INFER_ERROR("input 0 has rank 0 but rank at least 1 was required", op, "[]");
}

TEST(NnOpsTest, BiasAddRegistration) {
  EXPECT_EQ(RegisteredSignature("BiasAdd"),
            "(value: T, bias: T) -> (output: T)");
  EXPECT_EQ(RegisteredAttr("BiasAdd", "data_format"),
            "string in [\"NHWC\", \"NCHW\"] = \"NHWC\"");
  ShapeInferenceTestOp op("BiasAdd");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  INFER_OK(op, "[8,4];[4]", "in0");
}

TEST(NnOpsTest, Conv2DRegistration) {
  EXPECT_EQ(RegisteredSignature("Conv2D"),
            "(input: T, filter: T) -> (output: T)");
  EXPECT_EQ(RegisteredAttr("Conv2D", "T"),
            "type in [half, bfloat16, float, double, int32]");
  EXPECT_EQ(RegisteredAttr("Conv2D", "strides"), "list(int)");
  EXPECT_EQ(RegisteredAttr("Conv2D", "use_cudnn_on_gpu"), "bool = true");
  EXPECT_EQ(RegisteredAttr("Conv2D", "padding"),
            "string in [\"SAME\", \"VALID\", \"EXPLICIT\"]");
  EXPECT_EQ(RegisteredAttr("Conv2D", "explicit_paddings"), "list(int) = []");
  EXPECT_EQ(RegisteredAttr("Conv2D", "data_format"),
            "string in [\"NHWC\", \"NCHW\"] = \"NHWC\"");
  EXPECT_EQ(RegisteredAttr("Conv2D", "dilations"), "list(int) = [1, 1, 1, 1]");

  // A typical first layer: 224x224 RGB, 7x7 filters, stride 2, SAME.
  ShapeInferenceTestOp op("Conv2D");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT))
      .SetAttr("strides", AttrValue::IntList({1, 2, 2, 1}))
      .SetAttr("padding", AttrValue::String("SAME"));
  INFER_OK(op, "[?,224,224,3];[7,7,3,64]", "[d0_0,112,112,d1_3]");
  op.SetAttr("padding", AttrValue::String("FULL"));
  INFER_ERROR("padding", op, "[?,224,224,3];[7,7,3,64]");
}

TEST(NnOpsTest, PoolRegistrations) {
  EXPECT_EQ(RegisteredSignature("MaxPool"), "(input: T) -> (output: T)");
  EXPECT_EQ(RegisteredAttr("MaxPool", "T"),
            "type in [half, bfloat16, float, double, int32, int64, uint8, "
            "int16, int8, uint16, qint8] = float");
  EXPECT_EQ(RegisteredAttr("MaxPool", "ksize"), "list(int) >= 4");
  EXPECT_EQ(RegisteredAttr("MaxPool", "strides"), "list(int) >= 4");
  EXPECT_EQ(RegisteredAttr("MaxPool", "padding"),
            "string in [\"SAME\", \"VALID\", \"EXPLICIT\"]");
  EXPECT_EQ(RegisteredAttr("MaxPool", "explicit_paddings"), "list(int) = []");
  EXPECT_EQ(RegisteredAttr("MaxPool", "data_format"),
            "string in [\"NHWC\", \"NCHW\", \"NCHW_VECT_C\"] = \"NHWC\"");

  EXPECT_EQ(RegisteredSignature("AvgPool"), "(value: T) -> (output: T)");
  EXPECT_EQ(RegisteredAttr("AvgPool", "padding"),
            "string in [\"SAME\", \"VALID\"]");
  EXPECT_EQ(RegisteredAttr("AvgPool", "explicit_paddings"), "<no attr>");
  EXPECT_EQ(RegisteredAttr("AvgPool", "T"),
            "type in [half, bfloat16, float, double]");

  // MaxPool's T defaults to float.
  ShapeInferenceTestOp op("MaxPool");
  op.SetAttr("ksize", AttrValue::IntList({1, 3, 3, 1}))
      .SetAttr("strides", AttrValue::IntList({1, 2, 2, 1}))
      .SetAttr("padding", AttrValue::String("VALID"));
  INFER_OK(op, "[8,112,112,64]", "[d0_0,55,55,d0_3]");  // (112-3+2)/2
}

}  // namespace
}  // namespace shape_inference
}  // namespace weft
