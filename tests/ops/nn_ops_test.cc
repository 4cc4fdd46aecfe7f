// Registrations and shapes of ops/nn_ops.cc. The interfaces are
// TensorFlow's (nn_ops.cc); Conv2D, pooling and BiasAdd shapes have their
// edge cases in common_shape_fns_test.cc.
#include <vector>

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

TEST(NnOpsTest, LogSoftmax) {
  EXPECT_EQ(RegisteredSignature("LogSoftmax"),
            "(logits: T) -> (logsoftmax: T)");
  ShapeInferenceTestOp op("LogSoftmax");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  INFER_OK(op, "[2,10]", "in0");
  INFER_OK(op, "?", "in0");
  INFER_ERROR("input 0 has rank 0 but rank at least 1 was required", op, "[]");
}

TEST(NnOpsTest, FloatActivations) {
  EXPECT_EQ(RegisteredAttr("LeakyRelu", "alpha"), "float = 0.2");
  EXPECT_EQ(RegisteredAttr("LeakyRelu", "T"),
            "type in [half, bfloat16, float, double] = float");
  for (const char* name :
       {"LeakyRelu", "Elu", "Selu", "Softplus", "Softsign"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(RegisteredSignature(name), "(features: T) -> (activations: T)");
    ShapeInferenceTestOp op(name);
    op.SetAttr("T", AttrValue::Type(DT_HALF));
    INFER_OK(op, "[2,?,3]", "in0");
    INFER_OK(op, "?", "in0");
    op.SetAttr("T", AttrValue::Type(DT_INT32));
    INFER_ERROR("int32", op, "[2]");
  }
  // LeakyRelu's T defaults to float.
  INFER_OK(ShapeInferenceTestOp("LeakyRelu"), "[4]", "in0");
}

// ---- DepthwiseConv2dNative --------------------------------------------------

ShapeInferenceTestOp Depthwise(const char* padding,
                               std::vector<int64_t> strides = {1, 1, 1, 1}) {
  ShapeInferenceTestOp op("DepthwiseConv2dNative");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT))
      .SetAttr("strides", AttrValue::IntList(strides))
      .SetAttr("padding", AttrValue::String(padding));
  return op;
}

TEST(NnOpsTest, DepthwiseConv2dNative) {
  EXPECT_EQ(RegisteredSignature("DepthwiseConv2dNative"),
            "(input: T, filter: T) -> (output: T)");
  EXPECT_EQ(RegisteredAttr("DepthwiseConv2dNative", "dilations"),
            "list(int) = [1, 1, 1, 1]");
  // Output depth: input depth 3 times the multiplier 2. Checked against
  // TensorFlow: VALID stride 2 on 10 with a 3-tap window gives 4; dilation 2
  // makes the window 5 wide, giving 6.
  INFER_OK(Depthwise("SAME"), "[1,10,10,3];[3,3,3,2]", "[d0_0,10,10,6]");
  INFER_OK(Depthwise("VALID", {1, 2, 2, 1}), "[1,10,10,3];[3,3,3,2]",
           "[d0_0,4,4,6]");
  INFER_OK(
      Depthwise("VALID").SetAttr("dilations", AttrValue::IntList({1, 2, 2, 1})),
      "[1,10,10,3];[3,3,3,2]", "[d0_0,6,6,6]");
  // An unknown input depth is the filter's.
  INFER_OK(Depthwise("SAME"), "[?,10,10,?];[3,3,3,2]", "[d0_0,10,10,6]");
  // Multiplier 1 keeps the input depth's very dimension.
  INFER_OK(Depthwise("SAME"), "[1,10,10,3];[3,3,3,1]", "[d0_0,10,10,d0_3]");
  INFER_OK(Depthwise("SAME"), "[1,?,10,3];[3,3,3,1]", "[d0_0,?,10,d0_3]");
  INFER_OK(Depthwise("SAME"), "?;?", "[?,?,?,?]");
  ShapeInferenceTestOp nchw = Depthwise("VALID", {1, 1, 2, 2});
  nchw.SetAttr("data_format", AttrValue::String("NCHW"));
  INFER_OK(nchw, "[1,3,10,10];[3,3,3,2]", "[d0_0,6,4,4]");
  // EXPLICIT: rows 10 + 1 + 1 - 3 + 1, cols 10 + 2 + 2 - 3 + 1.
  ShapeInferenceTestOp padded = Depthwise("EXPLICIT");
  padded.SetAttr("explicit_paddings",
                 AttrValue::IntList({0, 0, 1, 1, 2, 2, 0, 0}));
  INFER_OK(padded, "[1,10,10,3];[3,3,3,2]", "[d0_0,10,12,6]");
}

TEST(NnOpsTest, DepthwiseConv2dNativeErrors) {
  INFER_ERROR(
      "the input depth of input 0 [1,10,10,4] must equal dimension 2 of the "
      "filter (input 1 [3,3,3,2]): dimensions must be equal, but are 4 "
      "(input 0 dim 3) and 3 (input 1 dim 2)",
      Depthwise("SAME"), "[1,10,10,4];[3,3,3,2]");
  INFER_ERROR("input 1 has rank 3 but rank 4 was required", Depthwise("SAME"),
              "[1,10,10,3];[3,3,3]");
  INFER_ERROR("striding over the batch or channel dimension is not supported",
              Depthwise("SAME", {1, 1, 1, 2}), "[1,10,10,3];[3,3,3,2]");
  INFER_ERROR("computed output size would be negative", Depthwise("VALID"),
              "[1,1,10,3];[3,3,3,2]");
  INFER_ERROR(
      "explicit_paddings",
      Depthwise("SAME").SetAttr("explicit_paddings",
                                AttrValue::IntList({0, 0, 1, 1, 1, 1, 0, 0})),
      "[1,10,10,3];[3,3,3,2]");
}

// ---- Conv2DBackpropInput ----------------------------------------------------

ShapeInferenceTestOp BackpropInput(const char* padding,
                                   std::vector<int64_t> strides) {
  ShapeInferenceTestOp op("Conv2DBackpropInput");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT))
      .SetAttr("strides", AttrValue::IntList(strides))
      .SetAttr("padding", AttrValue::String(padding));
  return op;
}

TEST(NnOpsTest, Conv2DBackpropInput) {
  EXPECT_EQ(RegisteredSignature("Conv2DBackpropInput"),
            "(input_sizes: int32, filter: T, out_backprop: T) -> (output: T)");
  // A stride-2 transposed convolution doubling 4x4 to 8x8 (Keras's
  // Conv2DTranspose with padding 'same'); checked against TensorFlow.
  ShapeInferenceTestOp op = BackpropInput("SAME", {1, 2, 2, 1});
  const Tensor sizes = Int32Tensor({1, 8, 8, 3});
  op.input_tensors = {&sizes};
  INFER_OK(op, "[4];[3,3,3,16];[1,4,4,16]", "[1,8,8,3]");
  INFER_OK(op, "[4];[3,3,3,16];[?,?,?,?]", "[1,8,8,3]");
  // Two spatial sizes: batch from out_backprop, depth from the filter.
  const Tensor spatial = Int32Tensor({8, 8});
  op.input_tensors = {&spatial};
  INFER_OK(op, "[2];[3,3,3,16];[?,4,4,16]", "[d2_0,8,8,d1_2]");
  // Unknown sizes: only batch is known.
  op.input_tensors = {};
  INFER_OK(op, "[4];[3,3,3,16];[2,4,4,16]", "[d2_0,?,?,?]");
  INFER_OK(op, "[?];[3,3,3,16];[2,4,4,16]", "[d2_0,?,?,?]");
  // VALID: (9 - 3 + 2) / 2 = 4 matches out_backprop.
  ShapeInferenceTestOp valid = BackpropInput("VALID", {1, 2, 2, 1});
  const Tensor nine = Int32Tensor({1, 9, 9, 3});
  valid.input_tensors = {&nine};
  INFER_OK(valid, "[4];[3,3,3,16];[1,4,4,16]", "[1,9,9,3]");
  // NCHW.
  ShapeInferenceTestOp nchw = BackpropInput("SAME", {1, 1, 2, 2});
  nchw.SetAttr("data_format", AttrValue::String("NCHW"));
  const Tensor nchw_sizes = Int32Tensor({1, 3, 8, 8});
  nchw.input_tensors = {&nchw_sizes};
  INFER_OK(nchw, "[4];[3,3,3,16];[1,16,4,4]", "[1,3,8,8]");
  // Grouped: input depth 6 is two groups of the filter's 3.
  const Tensor grouped = Int32Tensor({1, 8, 8, 6});
  op.input_tensors = {&grouped};
  INFER_OK(op, "[4];[3,3,3,16];[1,4,4,16]", "[1,8,8,6]");
}

TEST(NnOpsTest, Conv2DBackpropInputErrors) {
  ShapeInferenceTestOp valid = BackpropInput("VALID", {1, 2, 2, 1});
  const Tensor sizes = Int32Tensor({1, 8, 8, 3});
  valid.input_tensors = {&sizes};
  // (8 - 3 + 2) / 2 = 3, not 4: TensorFlow's kernel rejects this too.
  INFER_ERROR(
      "out_backprop (input 2) [1,4,4,16] has height 4 but convolving the "
      "height 8 of input_sizes with window 3, stride 2 and dilation 1 gives 3",
      valid, "[4];[3,3,3,16];[1,4,4,16]");
  ShapeInferenceTestOp op = BackpropInput("SAME", {1, 2, 2, 1});
  INFER_ERROR(
      "the depth of out_backprop (input 2 [1,4,4,8]) must equal the filter's "
      "output depth (input 1 [3,3,3,16] dimension 3)",
      op, "[4];[3,3,3,16];[1,4,4,8]");
  INFER_ERROR(
      "input_sizes (input 0) must hold 4 sizes (in data_format order) "
      "or 2 (height and width) but holds 3",
      op, "[3];[3,3,3,16];[1,4,4,16]");
  const Tensor wrong_batch = Int32Tensor({2, 8, 8, 3});
  op.input_tensors = {&wrong_batch};
  INFER_ERROR(
      "the batch size in input_sizes (input 0) must equal "
      "out_backprop's",
      op, "[4];[3,3,3,16];[1,4,4,16]");
  const Tensor bad_depth = Int32Tensor({1, 8, 8, 4});
  op.input_tensors = {&bad_depth};
  INFER_ERROR(
      "input depth 4 in input_sizes (input 0) is not a multiple of "
      "the filter's input depth 3",
      op, "[4];[3,3,3,16];[1,4,4,16]");
  const Tensor negative = Int32Tensor({1, -8, 8, 3});
  op.input_tensors = {&negative};
  INFER_ERROR("sizes must be >= 0", op, "[4];[3,3,3,16];[1,4,4,16]");
}

// ---- FusedBatchNormV3 -------------------------------------------------------

ShapeInferenceTestOp BatchNorm(bool is_training) {
  ShapeInferenceTestOp op("FusedBatchNormV3");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT))
      .SetAttr("U", AttrValue::Type(DT_FLOAT))
      .SetAttr("is_training", AttrValue::Bool(is_training));
  return op;
}

TEST(NnOpsTest, FusedBatchNormV3) {
  EXPECT_EQ(RegisteredSignature("FusedBatchNormV3"),
            "(x: T, scale: U, offset: U, mean: U, variance: U) -> (y: T, "
            "batch_mean: U, batch_variance: U, reserve_space_1: U, "
            "reserve_space_2: U, reserve_space_3: U)");
  EXPECT_EQ(RegisteredAttr("FusedBatchNormV3", "is_training"), "bool = true");
  // Inference: y like x; four per-channel vectors; reserve_space_3 is the
  // implementation's business (TensorFlow infers unknown too).
  INFER_OK(BatchNorm(false), "[2,5,5,3];[3];[3];[3];[3]",
           "in0;[d0_3];[d0_3];[d0_3];[d0_3];?");
  // The vectors tell an unknown channel count.
  INFER_OK(BatchNorm(false), "[2,5,5,?];[3];[?];[?];[?]",
           "[d0_0,d0_1,d0_2,d1_0];[d1_0];[d1_0];[d1_0];[d1_0];?");
  INFER_OK(BatchNorm(false), "?;?;?;?;?", "[?,?,?,?];[?];[?];[?];[?];?");
  ShapeInferenceTestOp nchw = BatchNorm(false);
  nchw.SetAttr("data_format", AttrValue::String("NCHW"));
  INFER_OK(nchw, "[2,3,5,5];[3];[3];[3];[3]",
           "in0;[d0_1];[d0_1];[d0_1];[d0_1];?");
  ShapeInferenceTestOp ndhwc = BatchNorm(false);
  ndhwc.SetAttr("data_format", AttrValue::String("NDHWC"));
  INFER_OK(ndhwc, "[2,4,5,5,3];[3];[3];[3];[3]",
           "in0;[d0_4];[d0_4];[d0_4];[d0_4];?");
  // Training computes its own statistics: mean and variance may be empty.
  INFER_OK(BatchNorm(true), "[2,5,5,3];[3];[3];[0];[0]",
           "in0;[d0_3];[d0_3];[d0_3];[d0_3];?");
}

TEST(NnOpsTest, FusedBatchNormV3Errors) {
  INFER_ERROR(
      "scale (input 1 [4]) must have one value per channel of x (input 0 "
      "[2,5,5,3], channel dimension 3)",
      BatchNorm(false), "[2,5,5,3];[4];[3];[3];[3]");
  INFER_ERROR("mean (input 3 [0])", BatchNorm(false),
              "[2,5,5,3];[3];[3];[0];[3]");
  INFER_ERROR("input 0 has rank 3 but rank 4 was required", BatchNorm(false),
              "[5,5,3];[3];[3];[3];[3]");
  INFER_ERROR("input 2 has rank 2 but rank 1 was required", BatchNorm(false),
              "[2,5,5,3];[3];[3,1];[3];[3]");
  // A running average (factor != 1) while training reads mean and variance.
  ShapeInferenceTestOp averaging = BatchNorm(true);
  averaging.SetAttr("exponential_avg_factor", AttrValue::Float(0.5f));
  INFER_ERROR("variance (input 4 [0])", averaging, "[2,5,5,3];[3];[3];[3];[0]");
  ShapeInferenceTestOp ndhwc = BatchNorm(false);
  ndhwc.SetAttr("data_format", AttrValue::String("NDHWC"));
  INFER_ERROR("input 0 has rank 4 but rank 5 was required", ndhwc,
              "[2,5,5,3];[3];[3];[3];[3]");
  INFER_ERROR("U", BatchNorm(false).SetAttr("U", AttrValue::Type(DT_HALF)),
              "[2,5,5,3];[3];[3];[3];[3]");
}

}  // namespace
}  // namespace shape_inference
}  // namespace weft
