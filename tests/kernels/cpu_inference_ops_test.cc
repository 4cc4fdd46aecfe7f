// Errors and edge cases of the inference kernels of issue 13 that the
// TensorFlow goldens (cpu_inference_golden_test.cc) cannot hold: each bad
// input is a Status naming the node and the problem, never a crash, worded
// as TensorFlow words it where it has a message. Plus sizes too large for
// the golden file (TopKV2 over long rows, Cumsum over a long axis against a
// sum computed the same way).
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::OpRunner;

// The op's error message for these inputs (empty when it succeeded).
std::string ErrorOf(const std::string& op, std::vector<Tensor> inputs,
                    AttrMap attrs = {}) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner(op, std::move(attrs)).Run(std::move(inputs));
  return out.ok() ? std::string() : std::string(out.status().message());
}

TEST(CpuInferenceOpsTest, CheckNumericsNamesTheMessage) {
  AttrMap attrs = {{"message", AttrValue::String("logits are bad")}};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::string e =
      ErrorOf("CheckNumerics", {AsTensor<float>({1, nan}, {2})}, attrs);
  EXPECT_NE(e.find("logits are bad : Tensor had NaN values"), std::string::npos)
      << e;
  EXPECT_NE(e.find("CheckNumerics"), std::string::npos) << e;
  e = ErrorOf("CheckNumerics", {AsTensor<float>({1, -inf}, {2})}, attrs);
  EXPECT_NE(e.find("Tensor had Inf values"), std::string::npos) << e;
  e = ErrorOf("CheckNumerics", {AsTensor<double>({inf, nan}, {2})}, attrs);
  EXPECT_NE(e.find("Tensor had Inf and NaN values"), std::string::npos) << e;
  e = ErrorOf("CheckNumerics", {AsTensor<half>({half(1.0f), half(inf)}, {2})},
              attrs);
  EXPECT_NE(e.find("Tensor had Inf values"), std::string::npos) << e;
  EXPECT_EQ(ErrorOf("CheckNumerics", {AsTensor<float>({1, 2}, {2})}, attrs),
            "");
}

TEST(CpuInferenceOpsTest, EnsureShapeMismatch) {
  AttrMap attrs = {{"shape", AttrValue::Shape(PartialTensorShape({3}))}};
  const std::string e =
      ErrorOf("EnsureShape", {AsTensor<float>({1, 2}, {2})}, attrs);
  EXPECT_NE(e.find("Shape of tensor input [2] is not compatible with "
                   "expected shape [3]"),
            std::string::npos)
      << e;
}

TEST(CpuInferenceOpsTest, TopKErrors) {
  const Tensor x = AsTensor<float>({1, 2, 3, 4}, {2, 2});
  EXPECT_NE(ErrorOf("TopKV2", {x, AsScalar<int32_t>(3)})
                .find("input must have at least k columns. Had 2, needed 3"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf("TopKV2", {x, AsScalar<int32_t>(-1)}).find("Need k >= 0, got -1"),
      std::string::npos);
  EXPECT_NE(ErrorOf("TopKV2", {AsScalar<float>(1), AsScalar<int32_t>(0)})
                .find("input must be >= 1-D"),
            std::string::npos);
  EXPECT_NE(ErrorOf("TopKV2", {x, AsTensor<int32_t>({1}, {1})}).find("k"),
            std::string::npos);
  // Rows longer than int16 can index.
  std::vector<float> long_row(40000, 1.0f);
  EXPECT_NE(ErrorOf("TopKV2",
                    {AsTensor<float>(long_row, {40000}), AsScalar<int32_t>(1)},
                    {{"index_type", AttrValue::Type(DT_INT16)}})
                .find("index_type"),
            std::string::npos);
}

// Long rows: k = n sorts with ties in index order, k < n takes the largest;
// checked against a sort done here.
TEST(CpuInferenceOpsTest, TopKLongRows) {
  const int64_t n = 100000;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7919) % 1000);
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return v[a] > v[b]; });
  for (int64_t k : {n, int64_t{1000}, int64_t{1}}) {
    SCOPED_TRACE(k);
    StatusOr<std::vector<Tensor>> out =
        OpRunner("TopKV2", {}, /*threads=*/2)
            .Run({AsTensor<float>(v, {n}), AsScalar<int32_t>(k)});
    ASSERT_TRUE(out.ok()) << out.status();
    const float* values = (*out)[0].data<float>();
    const int32_t* indices = (*out)[1].data<int32_t>();
    for (int64_t i = 0; i < k; ++i) {
      ASSERT_EQ(indices[i], order[i]) << i;
      ASSERT_EQ(values[i], v[order[i]]) << i;
    }
  }
}

TEST(CpuInferenceOpsTest, TopKNaNRanksFirst) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  StatusOr<std::vector<Tensor>> out = OpRunner("TopKV2").Run(
      {AsTensor<float>({1, nan, 2, nan, 3}, {5}), AsScalar<int32_t>(5)});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual((*out)[1], AsTensor<int32_t>({1, 3, 4, 2, 0}, {5}));
}

TEST(CpuInferenceOpsTest, ScanErrors) {
  const Tensor x = AsTensor<float>({1, 2}, {2});
  EXPECT_NE(ErrorOf("Cumsum", {x, AsScalar<int32_t>(1)})
                .find("Expected scan axis in the range [-1, 1), but got 1"),
            std::string::npos);
  EXPECT_NE(ErrorOf("Cumprod", {x, AsScalar<int32_t>(-2)}).find("but got -2"),
            std::string::npos);
  EXPECT_NE(ErrorOf("Cumsum", {x, AsTensor<int32_t>({0}, {1})})
                .find("must be a scalar"),
            std::string::npos);
}

// A long axis on 2 threads: each line summed in order in float.
TEST(CpuInferenceOpsTest, CumsumLongAxis) {
  const int64_t n = 1 << 20;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 13) * 0.37f;
  StatusOr<std::vector<Tensor>> out =
      OpRunner("Cumsum", {{"reverse", AttrValue::Bool(true)}}, /*threads=*/2)
          .Run({AsTensor<float>(v, {n / 2, 2}), AsScalar<int64_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  const float* o = (*out)[0].data<float>();
  for (int64_t col = 0; col < 2; ++col) {
    float acc = 0;
    for (int64_t r = n / 2 - 1; r >= 0; --r) {
      acc += v[r * 2 + col];
      ASSERT_EQ(o[r * 2 + col], acc) << r;
    }
  }
}

TEST(CpuInferenceOpsTest, ReverseAndRollErrors) {
  const Tensor x = AsTensor<float>({1, 2, 3, 4}, {2, 2});
  EXPECT_NE(ErrorOf("ReverseV2", {x, AsTensor<int32_t>({2}, {1})})
                .find("outside [-2, 2)"),
            std::string::npos);
  EXPECT_NE(ErrorOf("ReverseV2", {x, AsTensor<int32_t>({0, -2}, {2})})
                .find("more than once"),
            std::string::npos);
  EXPECT_NE(ErrorOf("Roll", {x, AsScalar<int32_t>(1), AsScalar<int32_t>(-3)})
                .find("outside [-2, 2)"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf("Roll", {x, AsTensor<int32_t>({1, 1}, {2}), AsScalar<int32_t>(0)})
          .find("same size"),
      std::string::npos);
  EXPECT_NE(ErrorOf("Roll", {AsScalar<float>(1), AsScalar<int32_t>(1),
                             AsScalar<int32_t>(0)})
                .find("rank at least 1"),
            std::string::npos);
}

TEST(CpuInferenceOpsTest, InvertPermutationErrors) {
  EXPECT_NE(ErrorOf("InvertPermutation", {AsTensor<int32_t>({0, 0, 1}, {3})})
                .find("0 is duplicated in the input"),
            std::string::npos);
  EXPECT_NE(ErrorOf("InvertPermutation", {AsTensor<int64_t>({0, 3, 1}, {3})})
                .find("x[1] = 3 is not in [0, 3)"),
            std::string::npos);
  EXPECT_NE(ErrorOf("InvertPermutation", {AsTensor<int32_t>({-1}, {1})})
                .find("not a permutation"),
            std::string::npos);
  EXPECT_NE(ErrorOf("InvertPermutation", {AsTensor<int32_t>({0}, {1, 1})})
                .find("must be a vector"),
            std::string::npos);
}

TEST(CpuInferenceOpsTest, MiscErrors) {
  EXPECT_NE(
      ErrorOf("MatrixBandPart", {AsTensor<float>({1, 2}, {2}),
                                 AsScalar<int64_t>(0), AsScalar<int64_t>(0)})
          .find("at least a matrix"),
      std::string::npos);
  EXPECT_NE(
      ErrorOf("MatrixBandPart", {AsTensor<float>({1, 2, 3, 4}, {2, 2}),
                                 AsScalar<int64_t>(3), AsScalar<int64_t>(0)})
          .find("num_lower must be negative or less or equal to number "
                "of rows (2) got: 3"),
      std::string::npos);
  EXPECT_NE(ErrorOf("BroadcastArgs", {AsTensor<int32_t>({2, 3}, {2}),
                                      AsTensor<int32_t>({4}, {1})})
                .find("Incompatible shapes: [2,3] vs. [4]"),
            std::string::npos);
  EXPECT_NE(ErrorOf("Where", {AsScalar<bool>(true)}).find("rank at least 1"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf("ClipByValue", {AsTensor<float>({1, 5, 3, 2}, {2, 2}),
                              AsTensor<float>({0, 1}, {2}), AsScalar<float>(4)})
          .find("clip_value_min and clip_value_max must be either of "
                "the same shape as input, or a scalar"),
      std::string::npos);
  EXPECT_NE(ErrorOf("TruncateDiv", {AsTensor<int32_t>({1, 2}, {2}),
                                    AsTensor<int32_t>({1, 0}, {2})})
                .find("division by zero"),
            std::string::npos);
}

// Non-max suppression's bad inputs, worded as TensorFlow's, and a soft-NMS
// selection worked by hand.
TEST(CpuInferenceOpsTest, NonMaxSuppressionErrors) {
  const Tensor boxes = AsTensor<float>({0, 0, 1, 1, 0, 0, 1, 2}, {2, 4});
  const Tensor scores = AsTensor<float>({0.9f, 0.8f}, {2});
  auto v3 = [&](const Tensor& b, const Tensor& s, const Tensor& max_out,
                float iou) {
    return ErrorOf("NonMaxSuppressionV3",
                   {b, s, max_out, AsScalar<float>(iou), AsScalar<float>(0)});
  };
  EXPECT_EQ(v3(boxes, scores, AsScalar<int32_t>(2), 0.5f), "");
  EXPECT_NE(v3(AsTensor<float>({0, 0, 1, 0, 0, 1}, {2, 3}), scores,
               AsScalar<int32_t>(2), 0.5f)
                .find("boxes must have 4 columns"),
            std::string::npos);
  EXPECT_NE(
      v3(boxes, AsTensor<float>({1, 2, 3}, {3}), AsScalar<int32_t>(2), 0.5f)
          .find("scores has incompatible shape"),
      std::string::npos);
  EXPECT_NE(v3(boxes, scores, AsTensor<int32_t>({2}, {1}), 0.5f)
                .find("max_output_size must be 0-D, got shape [1]"),
            std::string::npos);
  EXPECT_NE(v3(boxes, scores, AsScalar<int32_t>(-1), 0.5f)
                .find("output size must be non-negative"),
            std::string::npos);
  EXPECT_NE(v3(boxes, scores, AsScalar<int32_t>(2), 1.5f)
                .find("iou_threshold must be in [0, 1]"),
            std::string::npos);
  const std::string e = v3(boxes, scores, AsScalar<int32_t>(2), -0.1f);
  EXPECT_NE(e.find("iou_threshold must be in [0, 1]"), std::string::npos) << e;
  EXPECT_NE(e.find("NonMaxSuppressionV3"), std::string::npos) << e;
  EXPECT_NE(ErrorOf("NonMaxSuppressionV5",
                    {boxes, scores, AsScalar<int32_t>(2), AsScalar<float>(0.5f),
                     AsScalar<float>(0), AsScalar<float>(-1)})
                .find("soft_nms_sigma must be >= 0"),
            std::string::npos);
}

// Boxes 0 and 1 overlap with IoU 1/2: soft NMS with sigma 0.5 keeps box 0
// and decays box 1 to 0.8 exp(-0.5 / 0.5 * 0.25) = 0.8 exp(-0.25).
TEST(CpuInferenceOpsTest, SoftNonMaxSuppressionDecays) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner("NonMaxSuppressionV5", {})
          .Run({AsTensor<float>({0, 0, 1, 2, 0, 0, 1, 1}, {2, 4}),
                AsTensor<float>({0.9f, 0.8f}, {2}), AsScalar<int32_t>(3),
                AsScalar<float>(0.5f), AsScalar<float>(0),
                AsScalar<float>(0.5f)});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  ASSERT_EQ((*out)[0].NumElements(), 2);
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 0);
  EXPECT_EQ((*out)[0].data<int32_t>()[1], 1);
  EXPECT_FLOAT_EQ((*out)[1].data<float>()[0], 0.9f);
  EXPECT_FLOAT_EQ((*out)[1].data<float>()[1], 0.8f * std::exp(-0.25f));
  EXPECT_EQ((*out)[2].data<int32_t>()[0], 2);
}

}  // namespace
}  // namespace weft
