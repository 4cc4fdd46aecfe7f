// The shared shape functions, exercised through the registered ops that use
// them. Expected window sizes come from TensorFlow's formulas:
//   VALID: ceil((in - (k-1)*d) / s) = (in - e + s) / s, e = (k-1)*d + 1
//   SAME:  ceil(in / s)
//   EXPLICIT: (in + before + after - e + s) / s
#include "ops/common_shape_fns.h"

#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace {

using ::testing::HasSubstr;

// ---- GetWindowedOutputSize --------------------------------------------------

struct WindowCase {
  int64_t in, k, d, s;
  Padding padding;
  int64_t before, after;  // explicit paddings in, computed paddings out
  int64_t out;
};

TEST(GetWindowedOutputSizeTest, MatchesTensorFlowFormulas) {
  const std::vector<WindowCase> cases = {
      // VALID: (in - e + s) / s.
      {10, 3, 1, 1, Padding::kValid, 0, 0, 8},
      {10, 3, 1, 2, Padding::kValid, 0, 0, 4},  // ceil(8/2)
      {10, 3, 2, 1, Padding::kValid, 0, 0, 6},  // e = 5
      {7, 3, 2, 3, Padding::kValid, 0, 0, 1},   // e = 5, ceil(3/3)
      {4, 5, 1, 2, Padding::kValid, 0, 0, 0},   // (4-5+2)/2 = 0
      {5, 5, 1, 1, Padding::kValid, 0, 0, 1},
      // SAME: ceil(in / s); padding max(0, (out-1)*s + e - in), extra after.
      {10, 3, 1, 1, Padding::kSame, 1, 1, 10},
      {10, 3, 1, 2, Padding::kSame, 0, 1, 5},  // needed 4*2+3-10 = 1
      {10, 4, 2, 3, Padding::kSame, 3, 3, 4},  // e = 7, needed 9+7-10 = 6
      {5, 1, 1, 2, Padding::kSame, 0, 0, 3},
      {0, 3, 1, 2, Padding::kSame, 0, 1, 0},  // needed -2+3-0 = 1
      // EXPLICIT: (in + before + after - e + s) / s.
      {5, 3, 1, 1, Padding::kExplicit, 1, 1, 5},
      {5, 3, 1, 2, Padding::kExplicit, 2, 0, 3},
      {5, 3, 2, 1, Padding::kExplicit, 0, 3, 4},  // e = 5: 5+3-5+1
  };
  for (const WindowCase& t : cases) {
    SCOPED_TRACE(::testing::Message()
                 << "in=" << t.in << " k=" << t.k << " d=" << t.d
                 << " s=" << t.s << " padding=" << static_cast<int>(t.padding));
    StatusOr<WindowedOutputSize> r =
        GetWindowedOutputSize(t.in, t.k, t.d, t.s, t.padding,
                              t.padding == Padding::kExplicit ? t.before : 0,
                              t.padding == Padding::kExplicit ? t.after : 0);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->size, t.out);
    EXPECT_EQ(r->pad_before, t.before);
    EXPECT_EQ(r->pad_after, t.after);
  }
}

TEST(GetWindowedOutputSizeTest, Errors) {
  EXPECT_EQ(
      GetWindowedOutputSize(2, 5, 1, 1, Padding::kValid).status().message(),
      "computed output size would be negative: -2 [input size: 2, "
      "effective window size: 5, stride: 1]");
  EXPECT_THAT(
      GetWindowedOutputSize(5, 3, 1, 0, Padding::kSame).status().message(),
      HasSubstr("stride must be >= 1 but is 0"));
  EXPECT_THAT(
      GetWindowedOutputSize(5, 3, 0, 1, Padding::kValid).status().message(),
      HasSubstr("dilation rate must be >= 1 but is 0"));
  EXPECT_THAT(
      GetWindowedOutputSize(5, 0, 1, 1, Padding::kValid).status().message(),
      HasSubstr("window size must be >= 1 but is 0"));
  EXPECT_THAT(GetWindowedOutputSize(5, 3, 1, 1, Padding::kExplicit, -1, 0)
                  .status()
                  .message(),
              HasSubstr("explicit paddings must be >= 0"));
  EXPECT_THAT(GetWindowedOutputSize(5, int64_t{1} << 40, int64_t{1} << 40, 1,
                                    Padding::kValid)
                  .status()
                  .message(),
              HasSubstr("overflows int64"));
  EXPECT_FALSE(GetWindowedOutputSize(std::numeric_limits<int64_t>::max(), 1, 1,
                                     2, Padding::kValid)
                   .ok());
}

TEST(PaddingAndFormatTest, Parse) {
  EXPECT_EQ(*ParsePadding("VALID"), Padding::kValid);
  EXPECT_EQ(*ParsePadding("SAME"), Padding::kSame);
  EXPECT_EQ(*ParsePadding("EXPLICIT"), Padding::kExplicit);
  EXPECT_THAT(ParsePadding("same").status().message(),
              HasSubstr("unknown padding 'same'"));
  EXPECT_EQ(*ParseTensorFormat("NHWC"), TensorFormat::kNHWC);
  EXPECT_EQ(*ParseTensorFormat("NCHW"), TensorFormat::kNCHW);
  EXPECT_FALSE(ParseTensorFormat("NCHW_VECT_C").ok());
  EXPECT_EQ(FormatDimIndex(TensorFormat::kNHWC, 'C'), 3);
  EXPECT_EQ(FormatDimIndex(TensorFormat::kNCHW, 'C'), 1);
  EXPECT_EQ(FormatDimIndex(TensorFormat::kNCHW, 'W'), 3);
}

// ---- broadcasting (through AddV2) -------------------------------------------

ShapeInferenceTestOp Binary(const char* name = "AddV2") {
  ShapeInferenceTestOp op(name);
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  return op;
}

TEST(BroadcastBinaryOpShapeTest, KnownShapes) {
  const ShapeInferenceTestOp op = Binary();
  INFER_OK(op, "[2,3];[2,3]", "in0");
  INFER_OK(op, "[2,3];[3]", "in0");
  INFER_OK(op, "[3];[2,3]", "in1");
  INFER_OK(op, "[2,3];[]", "in0");
  INFER_OK(op, "[];[2,3]", "in1");
  INFER_OK(op, "[1,3];[2,1]", "[d1_0,d0_1]");
  INFER_OK(op, "[2,1,3];[4,1]", "[d0_0,d1_0,d0_2]");
  INFER_OK(op, "[0];[1]", "in0");
  INFER_OK(op, "[1];[1]", "in0");
}

TEST(BroadcastBinaryOpShapeTest, UnknownDimsAndRanks) {
  const ShapeInferenceTestOp op = Binary();
  // An unknown against a size > 1 is taken to be that size.
  INFER_OK(op, "[?,3];[2,1]", "[d1_0,d0_1]");
  INFER_OK(op, "[5];[?]", "in0");
  // An unknown against 1 stays the very unknown dimension.
  INFER_OK(op, "[?];[1]", "in0");
  INFER_OK(op, "[1];[?]", "in1");
  INFER_OK(op, "[?,3];[1,3]", "in0");
  // Two different unknowns: either may be 1, so the result is unknown.
  INFER_OK(op, "[?];[?]", "[?]");
  INFER_OK(op, "[?,2];[?,2]", "[?,d0_1]");
  INFER_OK(op, "?;[2]", "?");
  INFER_OK(op, "[2];?", "?");
  INFER_OK(op, "[];?", "in1");
  INFER_OK(op, "?;?", "?");
}

TEST(BroadcastBinaryOpShapeTest, IncompatibleShapes) {
  const ShapeInferenceTestOp op = Binary();
  INFER_ERROR(
      "node 'test_node' (AddV2): input 0 [2,3] and input 1 [4] cannot be "
      "broadcast together: sizes 3 and 4 at their dimensions 1 and 0 differ "
      "and neither is 1; input shapes: [2,3], [4]",
      op, "[2,3];[4]");
  INFER_ERROR("sizes 2 and 5 at their dimensions 0 and 0", op,
              "[2,3,4];[5,1,4]");
  INFER_ERROR("sizes 0 and 5", op, "[0];[5]");
}

// ---- MatMul -----------------------------------------------------------------

TEST(MatMulShapeTest, Shapes) {
  ShapeInferenceTestOp op("MatMul");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  INFER_OK(op, "[2,3];[3,4]", "[d0_0,d1_1]");
  INFER_OK(op, "[2,?];[?,4]", "[d0_0,d1_1]");
  INFER_OK(op, "[?,3];[3,?]", "[d0_0,d1_1]");
  INFER_OK(op, "?;?", "[?,?]");
  INFER_OK(op, "?;[3,4]", "[?,d1_1]");
  INFER_ERROR(
      "node 'test_node' (MatMul): inner dimensions of input 0 [2,3] and input "
      "1 [4,5] differ: 3 vs 4; input shapes: [2,3], [4,5]",
      op, "[2,3];[4,5]");
  INFER_ERROR("input 0 has rank 1 but rank 2 was required", op, "[2];[3,4]");
  INFER_ERROR("input 1 has rank 3 but rank 2 was required", op,
              "[2,3];[3,4,5]");

  op.SetAttr("transpose_a", AttrValue::Bool(true));
  INFER_OK(op, "[3,2];[3,4]", "[d0_1,d1_1]");
  INFER_ERROR("differ: 2 vs 3 (transpose_a=true, transpose_b=false)", op,
              "[2,3];[3,4]");
  op.SetAttr("transpose_b", AttrValue::Bool(true));
  INFER_OK(op, "[3,2];[4,3]", "[d0_1,d1_0]");
  op.SetAttr("transpose_a", AttrValue::Bool(false));
  INFER_OK(op, "[2,3];[4,3]", "[d0_0,d1_0]");
}

TEST(BatchMatMulV2ShapeTest, Shapes) {
  ShapeInferenceTestOp op("BatchMatMulV2");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  INFER_OK(op, "[2,3,4];[2,4,5]", "[d0_0,d0_1,d1_2]");
  INFER_OK(op, "[3,4];[4,5]", "[d0_0,d1_1]");
  INFER_OK(op, "[3,4];[5,4,6]", "[d1_0,d0_0,d1_2]");
  INFER_OK(op, "[1,3,4];[7,4,5]", "[d1_0,d0_1,d1_2]");
  INFER_OK(op, "[6,1,3,4];[7,4,5]", "[d0_0,d1_0,d0_2,d1_2]");
  INFER_OK(op, "[?,3,4];[?,4,5]", "[?,d0_1,d1_2]");
  INFER_OK(op, "?;[2,4,5]", "?");
  INFER_ERROR(
      "inner dimensions of input 0 [2,3,4] and input 1 [2,5,6] "
      "differ: 4 vs 5",
      op, "[2,3,4];[2,5,6]");
  INFER_ERROR(
      "batch dimensions of input 0 [2,3,4] and input 1 [3,4,5] do not "
      "broadcast",
      op, "[2,3,4];[3,4,5]");
  INFER_ERROR("input 0 has rank 1 but rank at least 2 was required", op,
              "[3];[3,4]");

  op.SetAttr("adj_x", AttrValue::Bool(true));
  INFER_OK(op, "[2,4,3];[2,4,5]", "[d0_0,d0_2,d1_2]");
  op.SetAttr("adj_x", AttrValue::Bool(false))
      .SetAttr("adj_y", AttrValue::Bool(true));
  INFER_OK(op, "[2,3,4];[2,5,4]", "[d0_0,d0_1,d1_1]");
  INFER_ERROR("(adj_x=false, adj_y=true)", op, "[2,3,4];[2,4,5]");
}

// ---- reductions (through Sum) -----------------------------------------------

TEST(ReductionShapeTest, ConstantAxes) {
  ShapeInferenceTestOp op("Sum");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  const Tensor axis1 = Int32Tensor({1});
  const Tensor axis_neg1 = Int32Tensor({-1});
  const Tensor both = Int32Tensor({0, 1});
  const Tensor dup = Int32Tensor({2, -1});  // the same axis twice
  const Tensor none = Int32Tensor({});
  const Tensor scalar0 = Int32Scalar(0);
  op.input_tensors = {nullptr, &axis1};
  INFER_OK(op, "[2,3];[1]", "[d0_0]");
  INFER_OK(op, "[?,?];[1]", "[d0_0]");
  op.input_tensors = {nullptr, &axis_neg1};
  INFER_OK(op, "[2,3];[1]", "[d0_0]");
  op.input_tensors = {nullptr, &both};
  INFER_OK(op, "[2,3];[2]", "[]");
  op.input_tensors = {nullptr, &dup};
  INFER_OK(op, "[2,3,4];[2]", "[d0_0,d0_1]");
  op.input_tensors = {nullptr, &none};
  INFER_OK(op, "[2,3];[0]", "[d0_0,d0_1]");
  op.input_tensors = {nullptr, &scalar0};
  INFER_OK(op, "[2,3];[]", "[d0_1]");
  // The input's rank is needed to place the axes.
  INFER_OK(op, "?;[]", "?");

  op.SetAttr("keep_dims", AttrValue::Bool(true));
  op.input_tensors = {nullptr, &axis1};
  INFER_OK(op, "[2,3];[1]", "[d0_0,1]");
  op.input_tensors = {nullptr, &both};
  INFER_OK(op, "[2,3];[2]", "[1,1]");
  op.input_tensors = {nullptr, &none};
  INFER_OK(op, "[2,3];[0]", "[d0_0,d0_1]");
}

TEST(ReductionShapeTest, UnknownAxes) {
  ShapeInferenceTestOp op("Sum");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  INFER_OK(op, "[2,3];[1]", "?");
  INFER_OK(op, "?;[1]", "?");
  op.SetAttr("keep_dims", AttrValue::Bool(true));
  INFER_OK(op, "[2,3];[1]", "[?,?]");
  INFER_OK(op, "?;[?]", "?");
}

TEST(ReductionShapeTest, Int64AxesAndErrors) {
  ShapeInferenceTestOp op("Sum");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT))
      .SetAttr("Tidx", AttrValue::Type(DT_INT64));
  const Tensor axis = Int64Tensor({-2});
  op.input_tensors = {nullptr, &axis};
  INFER_OK(op, "[2,3,4];[1]", "[d0_0,d0_2]");

  const Tensor too_big = Int64Tensor({2});
  const Tensor too_small = Int64Tensor({-3});
  op.input_tensors = {nullptr, &too_big};
  INFER_ERROR(
      "reduction axis 2 is out of range for input 0 [2,3] of rank 2; "
      "axes must be in [-2, 2)",
      op, "[2,3];[1]");
  op.input_tensors = {nullptr, &too_small};
  INFER_ERROR("reduction axis -3 is out of range", op, "[2,3];[1]");
  const Tensor zero = Int64Tensor({0});
  op.input_tensors = {nullptr, &zero};
  INFER_ERROR("axes must be in [0, 0)", op, "[];[1]");
  op.input_tensors = {};
  INFER_ERROR("input 1 has rank 2 but rank at most 1 was required", op,
              "[2,3];[1,1]");
}

// ---- Reshape ----------------------------------------------------------------

ShapeInferenceTestOp ReshapeOp() {
  ShapeInferenceTestOp op("Reshape");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  return op;
}

TEST(ReshapeShapeTest, ConstantTarget) {
  ShapeInferenceTestOp op = ReshapeOp();
  const Tensor t32 = Int32Tensor({3, 2});
  const Tensor flat = Int32Tensor({-1});
  const Tensor infer_last = Int32Tensor({3, -1});
  const Tensor infer_first = Int32Tensor({-1, 2});
  op.input_tensors = {nullptr, &t32};
  INFER_OK(op, "[2,3];[2]", "[3,2]");
  INFER_OK(op, "?;[2]", "[3,2]");
  INFER_OK(op, "[?,?];[2]", "[3,2]");
  INFER_OK(op, "[?,3];[2]", "[3,2]");  // 6 is a multiple of 3
  op.input_tensors = {nullptr, &flat};
  INFER_OK(op, "[2,3];[1]", "[6]");
  INFER_OK(op, "[];[1]", "[1]");
  op.input_tensors = {nullptr, &infer_last};
  INFER_OK(op, "[2,3];[2]", "[3,2]");
  INFER_OK(op, "?;[2]", "[3,?]");
  INFER_OK(op, "[?,2];[2]", "[3,?]");
  // One unknown on each side with equal known products: the same size.
  op.input_tensors = {nullptr, &infer_first};
  INFER_OK(op, "[2,?];[2]", "[d0_1,2]");
  INFER_OK(op, "[?,?];[2]", "[?,2]");

  Tensor t64 = Int64Tensor({-1, 4});
  op.SetAttr("Tshape", AttrValue::Type(DT_INT64));
  op.input_tensors = {nullptr, &t64};
  INFER_OK(op, "[2,2,2];[2]", "[2,4]");
}

TEST(ReshapeShapeTest, ZeroSizedShapes) {
  ShapeInferenceTestOp op = ReshapeOp();
  const Tensor zero_rest = Int32Tensor({0, -1});
  const Tensor five_rest = Int32Tensor({5, -1});
  const Tensor five_six = Int32Tensor({5, 6});
  op.input_tensors = {nullptr, &zero_rest};
  INFER_OK(op, "[0,3];[2]", "[0,?]");
  INFER_ERROR(
      "cannot reshape input 0 [2,3] with 6 elements to shape [0,?] "
      "with 0 elements",
      op, "[2,3];[2]");
  op.input_tensors = {nullptr, &five_rest};
  INFER_OK(op, "[2,0];[2]", "[5,0]");
  op.input_tensors = {nullptr, &five_six};
  INFER_ERROR(
      "cannot reshape input 0 [?,0] with 0 elements to shape [5,6] "
      "with 30 elements",
      op, "[?,0];[2]");
}

TEST(ReshapeShapeTest, UnknownTarget) {
  ShapeInferenceTestOp op = ReshapeOp();
  INFER_OK(op, "[2,3];[3]", "[?,?,?]");
  INFER_OK(op, "[2,3];[?]", "?");
  INFER_OK(op, "[2,3];?", "?");
  // A partially known target, as a Shape op would provide.
  op.input_tensors_as_shapes = {PartialTensorShape(), {-1, 5}};
  INFER_OK(op, "[2,5];[2]", "[2,5]");
  INFER_OK(op, "[10,?];[2]", "[?,5]");
  INFER_OK(op, "[?,5];[2]", "[d0_0,5]");
}

TEST(ReshapeShapeTest, Errors) {
  ShapeInferenceTestOp op = ReshapeOp();
  const Tensor bad_count = Int32Tensor({4, 2});
  const Tensor not_multiple = Int32Tensor({4, -1});
  const Tensor two_wildcards = Int32Tensor({-1, 2, -1});
  const Tensor negative = Int32Tensor({-2, 3});
  op.input_tensors = {nullptr, &bad_count};
  INFER_ERROR(
      "node 'test_node' (Reshape): cannot reshape input 0 [2,3] with 6 "
      "elements to shape [4,2] with 8 elements; input shapes: [2,3], [2]; "
      "input 1 = [4 2]",
      op, "[2,3];[2]");
  INFER_ERROR(
      "cannot reshape input 0 [?,3] to shape [4,2] with 8 elements: 8 "
      "is not a multiple of the input's known sizes' product 3",
      op, "[?,3];[2]");
  op.input_tensors = {nullptr, &not_multiple};
  INFER_ERROR(
      "cannot reshape input 0 [2,3] with 6 elements to shape [4,?]: 6 "
      "is not a multiple of the known sizes' product 4",
      op, "[2,3];[2]");
  op.input_tensors = {nullptr, &two_wildcards};
  INFER_ERROR("has -1 at indices 0 and 2; at most one size can be inferred", op,
              "[2,3];[3]");
  op.input_tensors = {nullptr, &negative};
  INFER_ERROR("size -2 at index 0", op, "[2,3];[2]");
  op.input_tensors = {};
  INFER_ERROR("input 1 has rank 0 but rank 1 was required", op, "[2,3];[]");
}

// ---- Conv2D -----------------------------------------------------------------

ShapeInferenceTestOp Conv(std::vector<int64_t> strides, const char* padding) {
  ShapeInferenceTestOp op("Conv2D");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT))
      .SetAttr("strides", AttrValue::IntList(std::move(strides)))
      .SetAttr("padding", AttrValue::String(padding));
  return op;
}

TEST(Conv2DShapeTest, NHWC) {
  ShapeInferenceTestOp op = Conv({1, 1, 1, 1}, "VALID");
  INFER_OK(op, "[1,5,5,3];[3,3,3,8]", "[d0_0,3,3,d1_3]");
  op = Conv({1, 2, 2, 1}, "VALID");
  INFER_OK(op, "[1,5,5,3];[3,3,3,8]", "[d0_0,2,2,d1_3]");  // ceil(3/2)
  op = Conv({1, 2, 2, 1}, "SAME");
  INFER_OK(op, "[1,5,5,3];[3,3,3,8]", "[d0_0,3,3,d1_3]");  // ceil(5/2)
  // Non-square input, filter and strides.
  op = Conv({1, 3, 2, 1}, "VALID");
  INFER_OK(op, "[2,7,9,3];[2,4,3,16]",
           "[d0_0,2,3,d1_3]");  // ceil(6/3), ceil(6/2)
  op = Conv({1, 3, 2, 1}, "SAME");
  INFER_OK(op, "[2,7,9,3];[2,4,3,16]",
           "[d0_0,3,5,d1_3]");  // ceil(7/3), ceil(9/2)
  // Zero input channels: zero groups, which TensorFlow runs (all zeros)
  // and which must not divide by zero here.
  op = Conv({1, 1, 1, 1}, "VALID");
  INFER_OK(op, "[1,5,5,0];[3,3,2,8]", "[d0_0,3,3,d1_3]");
}

TEST(Conv2DShapeTest, Dilations) {
  ShapeInferenceTestOp op = Conv({1, 1, 1, 1}, "VALID");
  op.SetAttr("dilations", AttrValue::IntList({1, 2, 2, 1}));
  INFER_OK(op, "[1,5,5,3];[3,3,3,8]", "[d0_0,1,1,d1_3]");  // e = 5
  op = Conv({1, 2, 2, 1}, "VALID");
  op.SetAttr("dilations", AttrValue::IntList({1, 2, 3, 1}));
  // H: e = 5, ceil(6/2) = 3; W: e = 7, ceil(4/2) = 2.
  INFER_OK(op, "[1,10,10,1];[3,3,1,1]", "[d0_0,3,2,d1_3]");
  op = Conv({1, 2, 2, 1}, "SAME");
  op.SetAttr("dilations", AttrValue::IntList({1, 2, 3, 1}));
  INFER_OK(op, "[1,10,10,1];[3,3,1,1]", "[d0_0,5,5,d1_3]");
}

TEST(Conv2DShapeTest, ExplicitPadding) {
  ShapeInferenceTestOp op = Conv({1, 1, 1, 1}, "EXPLICIT");
  op.SetAttr("explicit_paddings", AttrValue::IntList({0, 0, 1, 1, 2, 2, 0, 0}));
  // H: 5+2-3+1 = 5; W: 5+4-3+1 = 7.
  INFER_OK(op, "[1,5,5,3];[3,3,3,8]", "[d0_0,5,7,d1_3]");
  op = Conv({1, 2, 2, 1}, "EXPLICIT");
  op.SetAttr("explicit_paddings", AttrValue::IntList({0, 0, 1, 0, 0, 3, 0, 0}));
  // H: (5+1-3+2)/2 = 2; W: (5+3-3+2)/2 = 3.
  INFER_OK(op, "[1,5,5,3];[3,3,3,8]", "[d0_0,2,3,d1_3]");
}

TEST(Conv2DShapeTest, NCHW) {
  ShapeInferenceTestOp op = Conv({1, 1, 2, 2}, "VALID");
  op.SetAttr("data_format", AttrValue::String("NCHW"));
  INFER_OK(op, "[1,3,5,5];[3,3,3,8]", "[d0_0,d1_3,2,2]");
  op = Conv({1, 1, 2, 2}, "SAME");
  op.SetAttr("data_format", AttrValue::String("NCHW"));
  INFER_OK(op, "[1,3,5,7];[3,3,3,8]", "[d0_0,d1_3,3,4]");
  op = Conv({1, 1, 1, 1}, "EXPLICIT");
  op.SetAttr("data_format", AttrValue::String("NCHW"))
      .SetAttr("explicit_paddings",
               AttrValue::IntList({0, 0, 0, 0, 1, 1, 2, 2}));
  INFER_OK(op, "[1,3,5,5];[3,3,3,8]", "[d0_0,d1_3,5,7]");
  op.SetAttr("explicit_paddings", AttrValue::IntList({0, 0, 1, 1, 0, 0, 0, 0}));
  INFER_ERROR("channel dimension (1 in NCHW) cannot be padded", op,
              "[1,3,5,5];[3,3,3,8]");
}

TEST(Conv2DShapeTest, UnknownDimensions) {
  ShapeInferenceTestOp op = Conv({1, 1, 1, 1}, "VALID");
  INFER_OK(op, "[?,?,5,3];[3,3,3,8]", "[d0_0,?,3,d1_3]");
  INFER_OK(op, "[1,5,5,3];[?,3,3,8]", "[d0_0,?,3,d1_3]");
  INFER_OK(op, "[1,5,5,?];[3,3,3,?]", "[d0_0,3,3,d1_3]");
  INFER_OK(op, "?;?", "[?,?,?,?]");
  INFER_OK(op, "?;[3,3,3,8]", "[?,?,?,d1_3]");
}

TEST(Conv2DShapeTest, GroupedConvolution) {
  ShapeInferenceTestOp op = Conv({1, 1, 1, 1}, "VALID");
  INFER_OK(op, "[1,5,5,6];[3,3,3,8]", "[d0_0,3,3,d1_3]");  // 2 groups
  INFER_ERROR(
      "input depth 6 of input 0 [1,5,5,6] is not a multiple of the "
      "filter's input depth 4",
      op, "[1,5,5,6];[3,3,4,8]");
  INFER_ERROR(
      "output depth 9 of the filter (input 1 [3,3,3,9]) is not a "
      "multiple of the number of groups 2",
      op, "[1,5,5,6];[3,3,3,9]");
  INFER_ERROR("has input depth 0", op, "[1,5,5,6];[3,3,0,9]");
}

TEST(Conv2DShapeTest, Errors) {
  ShapeInferenceTestOp op = Conv({1, 1, 1, 1}, "VALID");
  INFER_ERROR("computed output size would be negative: -1", op,
              "[1,2,2,1];[4,4,1,1]");
  INFER_ERROR(
      "output height for input 0 [1,2,2,1] (height 2, window 4, "
      "stride 1)",
      op, "[1,2,2,1];[4,4,1,1]");
  INFER_ERROR("input 0 has rank 3 but rank 4 was required", op,
              "[5,5,3];[3,3,3,8]");
  INFER_ERROR("input 1 has rank 3 but rank 4 was required", op,
              "[1,5,5,3];[3,3,3]");
  op.SetAttr("explicit_paddings", AttrValue::IntList({0, 0, 1, 1, 1, 1, 0, 0}));
  INFER_ERROR(
      "attr 'explicit_paddings' is [0, 0, 1, 1, 1, 1, 0, 0] but must "
      "be empty unless padding is EXPLICIT (it is VALID)",
      op, "[1,5,5,3];[3,3,3,8]");

  op = Conv({1, 1, 1}, "VALID");
  INFER_ERROR("attr 'strides' is [1, 1, 1] but must have 4 values", op,
              "[1,5,5,3];[3,3,3,8]");
  op = Conv({2, 1, 1, 1}, "VALID");
  INFER_ERROR("striding over the batch or channel dimension is not supported",
              op, "[1,5,5,3];[3,3,3,8]");
  op = Conv({1, 0, 1, 1}, "VALID");
  INFER_ERROR("its values must be >= 1", op, "[1,5,5,3];[3,3,3,8]");
  op = Conv({1, 1, 1, 1}, "VALID");
  op.SetAttr("dilations", AttrValue::IntList({1, 1, 1, 2}));
  INFER_ERROR("dilating the batch or channel dimension is not supported", op,
              "[1,5,5,3];[3,3,3,8]");

  op = Conv({1, 1, 1, 1}, "EXPLICIT");
  op.SetAttr("explicit_paddings", AttrValue::IntList({0, 0, 1, 1}));
  INFER_ERROR("padding EXPLICIT needs 8 values", op, "[1,5,5,3];[3,3,3,8]");
  op.SetAttr("explicit_paddings", AttrValue::IntList({1, 0, 1, 1, 1, 1, 0, 0}));
  INFER_ERROR("batch dimension (0 in NHWC) cannot be padded", op,
              "[1,5,5,3];[3,3,3,8]");
  op.SetAttr("explicit_paddings",
             AttrValue::IntList({0, 0, -1, 1, 1, 1, 0, 0}));
  INFER_ERROR("paddings must be >= 0", op, "[1,5,5,3];[3,3,3,8]");
}

// ---- pooling ----------------------------------------------------------------

ShapeInferenceTestOp Pool(const char* name, std::vector<int64_t> ksize,
                          std::vector<int64_t> strides, const char* padding) {
  ShapeInferenceTestOp op(name);
  op.SetAttr("T", AttrValue::Type(DT_FLOAT))
      .SetAttr("ksize", AttrValue::IntList(std::move(ksize)))
      .SetAttr("strides", AttrValue::IntList(std::move(strides)))
      .SetAttr("padding", AttrValue::String(padding));
  return op;
}

TEST(PoolShapeTest, MaxPool) {
  ShapeInferenceTestOp op =
      Pool("MaxPool", {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  INFER_OK(op, "[1,4,4,3]", "[d0_0,2,2,d0_3]");
  op = Pool("MaxPool", {1, 3, 3, 1}, {1, 2, 2, 1}, "VALID");
  INFER_OK(op, "[1,5,6,3]", "[d0_0,2,2,d0_3]");  // ceil(3/2), ceil(4/2)
  op = Pool("MaxPool", {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
  INFER_OK(op, "[1,5,6,3]", "[d0_0,3,3,d0_3]");  // ceil(5/2), ceil(6/2)
  INFER_OK(op, "[?,?,6,?]", "[d0_0,?,3,d0_3]");
  INFER_OK(op, "?", "[?,?,?,?]");

  op = Pool("MaxPool", {1, 3, 3, 1}, {1, 1, 1, 1}, "EXPLICIT");
  op.SetAttr("explicit_paddings", AttrValue::IntList({0, 0, 1, 1, 2, 0, 0, 0}));
  INFER_OK(op, "[1,4,4,3]", "[d0_0,4,4,d0_3]");  // 4+2-3+1, 4+2-3+1

  op = Pool("MaxPool", {1, 1, 2, 2}, {1, 1, 2, 2}, "VALID");
  op.SetAttr("data_format", AttrValue::String("NCHW"));
  INFER_OK(op, "[1,3,4,5]", "[d0_0,d0_1,2,2]");

  // Pooling over depth.
  op = Pool("MaxPool", {1, 1, 1, 3}, {1, 1, 1, 3}, "VALID");
  INFER_OK(op, "[1,4,4,6]", "[d0_0,4,4,2]");
}

TEST(PoolShapeTest, AvgPool) {
  ShapeInferenceTestOp op =
      Pool("AvgPool", {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  INFER_OK(op, "[1,4,5,3]", "[d0_0,2,2,d0_3]");
  op = Pool("AvgPool", {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  INFER_OK(op, "[1,4,5,3]", "[d0_0,2,3,d0_3]");
  op = Pool("AvgPool", {1, 1, 3, 3}, {1, 1, 1, 2}, "SAME");
  op.SetAttr("data_format", AttrValue::String("NCHW"));
  INFER_OK(op, "[2,3,5,5]", "[d0_0,d0_1,5,3]");
  op = Pool("AvgPool", {1, 1, 1, 2}, {1, 1, 1, 2}, "VALID");
  INFER_ERROR("AvgPool does not pool over the channel dimension", op,
              "[1,4,4,6]");
  // AvgPool has no EXPLICIT padding.
  op = Pool("AvgPool", {1, 2, 2, 1}, {1, 2, 2, 1}, "EXPLICIT");
  INFER_ERROR("EXPLICIT", op, "[1,4,4,3]");
}

TEST(PoolShapeTest, Errors) {
  ShapeInferenceTestOp op =
      Pool("MaxPool", {2, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  INFER_ERROR("pooling over the batch dimension is not supported", op,
              "[2,4,4,3]");
  op = Pool("MaxPool", {1, 0, 2, 1}, {1, 2, 2, 1}, "VALID");
  INFER_ERROR("attr 'ksize' is [1, 0, 2, 1] but its values must be >= 1", op,
              "[1,4,4,3]");
  op = Pool("MaxPool", {1, 2, 2, 1, 1}, {1, 2, 2, 1}, "VALID");
  INFER_ERROR("attr 'ksize' is [1, 2, 2, 1, 1] but must have 4 values", op,
              "[1,4,4,3]");
  // A window one larger than the input gives (4 - 5 + 1) = 0 outputs; two
  // larger gives a negative size.
  op = Pool("MaxPool", {1, 5, 5, 1}, {1, 1, 1, 1}, "VALID");
  INFER_OK(op, "[1,4,4,3]", "[d0_0,0,0,d0_3]");
  op = Pool("MaxPool", {1, 6, 6, 1}, {1, 1, 1, 1}, "VALID");
  INFER_ERROR("computed output size would be negative: -1", op, "[1,4,4,3]");
  op = Pool("MaxPool", {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  op.SetAttr("data_format", AttrValue::String("NCHW_VECT_C"));
  INFER_ERROR("data_format 'NCHW_VECT_C' is not supported", op, "[1,4,4,3]");
  op = Pool("MaxPool", {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  INFER_ERROR("input 0 has rank 3 but rank 4 was required", op, "[4,4,3]");
}

// ---- BiasAdd ----------------------------------------------------------------

TEST(BiasAddShapeTest, Shapes) {
  ShapeInferenceTestOp op("BiasAdd");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  INFER_OK(op, "[2,3];[3]", "in0");
  INFER_OK(op, "[2,3];[?]", "in0");
  INFER_OK(op, "[2,?];[3]", "[d0_0,d1_0]");
  INFER_OK(op, "[4,5,6,3];[3]", "in0");
  INFER_OK(op, "?;[3]", "?");
  INFER_ERROR(
      "bias (input 1) [4] has 4 elements but the channel dimension 1 "
      "of input 0 [2,3] is 3",
      op, "[2,3];[4]");
  INFER_ERROR("input 0 has rank 1 but rank at least 2 was required", op,
              "[3];[3]");
  INFER_ERROR("input 1 has rank 2 but rank 1 was required", op, "[2,3];[3,1]");

  op.SetAttr("data_format", AttrValue::String("NCHW"));
  INFER_OK(op, "[2,3,4,5];[3]", "in0");
  INFER_OK(op, "[2,?,4,5];[3]", "[d0_0,d1_0,d0_2,d0_3]");
  INFER_ERROR("the channel dimension 1 of input 0 [2,3,4,5] is 3", op,
              "[2,3,4,5];[5]");
  INFER_ERROR("input 0 has rank 2 but rank at least 3 was required", op,
              "[2,3];[3]");
}

// ---- PlanStridedSlice
// --------------------------------------------------------- The plan kernels
// walk. Expected values follow TensorFlow's ValidateStridedSliceOp: begin/end
// canonical in [-1, size], end exclusive.

TEST(PlanStridedSliceTest, ForwardAndBackwardRanges) {
  const std::vector<int64_t> b = {1};
  const std::vector<int64_t> e = {7};
  const std::vector<int64_t> s = {2};
  StatusOr<StridedSlicePlan> plan = PlanStridedSlice({10}, 1, &b, &e, &s, {});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->begin, std::vector<int64_t>{1});
  EXPECT_EQ(plan->end, std::vector<int64_t>{7});
  EXPECT_EQ(plan->strides, std::vector<int64_t>{2});
  EXPECT_EQ(plan->processing_shape, std::vector<int64_t>{3});  // 1, 3, 5
  EXPECT_EQ(plan->final_shape, std::vector<int64_t>{3});
  EXPECT_EQ(plan->final_source, std::vector<int>{0});
  EXPECT_EQ(plan->takes_whole, std::vector<bool>{false});

  // x[::-1]: from the last index down past the first (end -1).
  const std::vector<int64_t> zero = {0};
  const std::vector<int64_t> minus_one = {-1};
  StridedSliceMasks masks;
  masks.begin = masks.end = 1;
  plan = PlanStridedSlice({5}, 1, &zero, &zero, &minus_one, masks);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->begin, std::vector<int64_t>{4});
  EXPECT_EQ(plan->end, std::vector<int64_t>{-1});
  EXPECT_EQ(plan->processing_shape, std::vector<int64_t>{5});
  EXPECT_EQ(plan->takes_whole, std::vector<bool>{false});

  // Out-of-range bounds clamp: x[-100:100] is all of x.
  const std::vector<int64_t> low = {-100};
  const std::vector<int64_t> high = {100};
  const std::vector<int64_t> one = {1};
  plan = PlanStridedSlice({8}, 1, &low, &high, &one, {});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->begin, std::vector<int64_t>{0});
  EXPECT_EQ(plan->end, std::vector<int64_t>{8});
  EXPECT_EQ(plan->takes_whole, std::vector<bool>{true});
}

TEST(PlanStridedSliceTest, ShrinkNewAxisAndEllipsis) {
  // x[-1, tf.newaxis] on [5,3]: shrink input dim 0 to index 4, a new axis,
  // then the implicit ellipsis keeps dim 1.
  const std::vector<int64_t> b = {-1, 0};
  const std::vector<int64_t> e = {0, 0};
  const std::vector<int64_t> s = {1, 1};
  StridedSliceMasks masks;
  masks.shrink_axis = 1;
  masks.new_axis = 2;
  StatusOr<StridedSlicePlan> plan =
      PlanStridedSlice({5, 3}, 2, &b, &e, &s, masks);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->begin, (std::vector<int64_t>{4, 0}));
  EXPECT_EQ(plan->end, (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(plan->processing_shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(plan->final_shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(plan->final_source, (std::vector<int>{-1, 1}));
  EXPECT_EQ(plan->takes_whole, (std::vector<bool>{false, true}));
}

TEST(PlanStridedSliceTest, PartlyKnown) {
  // Unknown sizes and bounds: shrunk dimensions are still 1, full ranges
  // with stride 1 still whole.
  const std::vector<int64_t> s = {1, 1, 2};
  StridedSliceMasks masks;
  masks.shrink_axis = 1;
  masks.begin = masks.end = 6;
  StatusOr<StridedSlicePlan> plan =
      PlanStridedSlice({-1, -1, 7}, 3, nullptr, nullptr, &s, masks);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->processing_shape, (std::vector<int64_t>{1, -1, 4}));
  EXPECT_EQ(plan->final_shape, (std::vector<int64_t>{-1, 4}));
  EXPECT_EQ(plan->final_source, (std::vector<int>{1, 2}));
  EXPECT_EQ(plan->takes_whole, (std::vector<bool>{false, true, false}));
}

TEST(PlanStridedSliceTest, Errors) {
  const std::vector<int64_t> one = {1};
  const std::vector<int64_t> two = {1, 1};
  EXPECT_THAT(
      PlanStridedSlice({5}, 1, &one, &two, &one, {}).status().message(),
      HasSubstr("begin, end and strides must have the same length, but end "
                "has 2 values and the slice has 1 terms"));
  const std::vector<int64_t> five = {5};
  const std::vector<int64_t> six = {6};
  StridedSliceMasks shrink;
  shrink.shrink_axis = 1;
  EXPECT_THAT(
      PlanStridedSlice({5}, 1, &five, &six, &one, shrink).status().message(),
      HasSubstr("takes index 5 of input dimension 0 of size 5, out "
                "of bounds"));
  // With the size unknown the index cannot be checked here.
  EXPECT_TRUE(PlanStridedSlice({-1}, 1, &five, &six, &one, shrink).ok());
  EXPECT_THAT(PlanStridedSlice({5}, 32, nullptr, nullptr, nullptr, {})
                  .status()
                  .message(),
              HasSubstr("the slice has 32 terms"));
}

// ---- ParseEinsumEquation ----------------------------------------------------

TEST(ParseEinsumEquationTest, Subscripts) {
  StatusOr<EinsumEquation> eq = ParseEinsumEquation("ab,bc->ac");
  ASSERT_TRUE(eq.ok()) << eq.status();
  EXPECT_EQ(eq->inputs, (std::vector<std::string>{"ab", "bc"}));
  EXPECT_EQ(eq->output, "ac");
  eq = ParseEinsumEquation("...ij->...ji");
  ASSERT_TRUE(eq.ok()) << eq.status();
  EXPECT_EQ(eq->inputs, std::vector<std::string>{"...ij"});
  EXPECT_EQ(eq->output, "...ji");
  // A scalar in, a scalar out.
  eq = ParseEinsumEquation("->");
  ASSERT_TRUE(eq.ok()) << eq.status();
  EXPECT_EQ(eq->inputs, std::vector<std::string>{""});
  EXPECT_EQ(eq->output, "");
}

TEST(ParseEinsumEquationTest, Errors) {
  EXPECT_THAT(ParseEinsumEquation("ab,bc").status().message(),
              HasSubstr("must contain exactly one '->'"));
  EXPECT_THAT(ParseEinsumEquation("a->b->c").status().message(),
              HasSubstr("must contain exactly one '->'"));
  EXPECT_THAT(ParseEinsumEquation("a,b,c->abc").status().message(),
              HasSubstr("has 3 input subscripts; 1 or 2 are supported"));
  EXPECT_THAT(ParseEinsumEquation("a....->a").status().message(),
              HasSubstr("subscript 'a....' may hold one ellipsis"));
  EXPECT_THAT(ParseEinsumEquation("a->a.").status().message(),
              HasSubstr("subscript 'a.' may hold one ellipsis"));
}

}  // namespace
}  // namespace shape_inference
}  // namespace weft
