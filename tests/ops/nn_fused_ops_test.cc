// Registrations and shapes of the internal fused ops (ops/nn_fused_ops.cc)
// that the graph optimizer makes: each takes its base op's inputs plus
// `num_args` bias inputs, and has its base op's output shape.
#include <vector>

#include "gtest/gtest.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace {

TEST(NnFusedOpsTest, Registrations) {
  EXPECT_EQ(RegisteredSignature("_FusedConv2D"),
            "(input: T, filter: T, args: num_args * T) -> (output: T)");
  EXPECT_EQ(RegisteredSignature("_FusedDepthwiseConv2dNative"),
            "(input: T, filter: T, args: num_args * T) -> (output: T)");
  EXPECT_EQ(RegisteredSignature("_FusedMatMul"),
            "(a: T, b: T, args: num_args * T) -> (product: T)");
  for (const char* op :
       {"_FusedConv2D", "_FusedDepthwiseConv2dNative", "_FusedMatMul"}) {
    EXPECT_EQ(RegisteredAttr(op, "T"), "type in [float]") << op;
    EXPECT_EQ(RegisteredAttr(op, "num_args"), "int >= 0") << op;
    EXPECT_EQ(RegisteredAttr(op, "fused_ops"), "list(string) = []") << op;
    EXPECT_EQ(RegisteredAttr(op, "leakyrelu_alpha"), "float = 0.2") << op;
  }
}

TEST(NnFusedOpsTest, ConvShapeIsConv2DShape) {
  ShapeInferenceTestOp op("_FusedConv2D");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT))
      .SetAttr("num_args", AttrValue::Int(1))
      .SetAttr("strides", AttrValue::IntList({1, 2, 2, 1}))
      .SetAttr("padding", AttrValue::String("SAME"))
      .SetAttr("fused_ops", AttrValue::StringList({"BiasAdd", "Relu"}));
  INFER_OK(op, "[?,224,224,3];[7,7,3,64];[64]", "[d0_0,112,112,d1_3]");
  op.SetAttr("padding", AttrValue::String("VALID"));
  INFER_OK(op, "[1,9,9,3];[3,3,3,8];[8]", "[d0_0,4,4,d1_3]");
  INFER_ERROR("", op, "[1,9,9];[3,3,3,8];[8]");
}

TEST(NnFusedOpsTest, DepthwiseShapeIsDepthwiseShape) {
  ShapeInferenceTestOp op("_FusedDepthwiseConv2dNative");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT))
      .SetAttr("num_args", AttrValue::Int(1))
      .SetAttr("strides", AttrValue::IntList({1, 1, 1, 1}))
      .SetAttr("padding", AttrValue::String("SAME"))
      .SetAttr("fused_ops", AttrValue::StringList({"BiasAdd", "Relu6"}));
  // Output depth is in depth times the multiplier.
  INFER_OK(op, "[2,8,8,4];[3,3,4,2];[8]", "[d0_0,8,8,8]");
}

TEST(NnFusedOpsTest, MatMulShapeIsMatMulShape) {
  ShapeInferenceTestOp op("_FusedMatMul");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT))
      .SetAttr("num_args", AttrValue::Int(1))
      .SetAttr("fused_ops", AttrValue::StringList({"BiasAdd"}));
  INFER_OK(op, "[?,32];[32,10];[10]", "[d0_0,d1_1]");
  op.SetAttr("transpose_b", AttrValue::Bool(true));
  INFER_OK(op, "[4,32];[10,32];[10]", "[d0_0,d1_0]");
  INFER_ERROR("", op, "[4,32];[10,31];[10]");
}

}  // namespace
}  // namespace shape_inference
}  // namespace weft
