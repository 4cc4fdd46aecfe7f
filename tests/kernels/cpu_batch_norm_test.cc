// FusedBatchNormV3 against references computed here in double from the
// definition, y = (x - mean) / sqrt(variance + epsilon) * scale + offset,
// per channel, for every layout and T dtype, in inference and training.
//
// Tolerance for y, with d = x - mean and f = scale / sqrt(variance +
// epsilon): weft rounds (in float) the factor (an add, a square root, a
// division and a product: 4 u_c relative), d (u_c), d * f and the sum
// (u_c each), then the result to T (u_T), so |y - exact| <=
// 8 u_c |d f| + 2 (u_c + u_T) |exact|. In training the statistics are
// accumulated in double and rounded to float once (u_c each).
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_batch_norm_test {

using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::Inputs;
using test::OpRunner;
using test::ToDoubles;

struct Case {
  std::string format = "NHWC";
  std::vector<int64_t> shape = {2, 3, 4, 5};
  bool training = false;
  float epsilon = 0.001f;
  float factor = 1.0f;

  bool channels_last() const { return format.back() == 'C'; }
  int64_t channels() const { return channels_last() ? shape.back() : shape[1]; }
  int64_t ChannelOf(int64_t i) const {
    if (channels_last()) return i % channels();
    int64_t inner = 1;
    for (size_t d = 2; d < shape.size(); ++d) inner *= shape[d];
    return (i / inner) % channels();
  }
  AttrMap Attrs() const {
    AttrMap a;
    a["data_format"] = AttrValue::String(format);
    a["is_training"] = AttrValue::Bool(training);
    a["epsilon"] = AttrValue::Float(epsilon);
    a["exponential_avg_factor"] = AttrValue::Float(factor);
    return a;
  }
};

std::vector<double> Uniform(int64_t n, double lo, double hi,
                            std::mt19937* rng) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = dist(*rng);
  return v;
}

// Inputs rounded to their dtypes, so the reference sees what the kernel
// sees.
struct Operands {
  Tensor x, scale, offset, mean, variance;
};

Operands MakeOperands(const Case& c, DataType dt, std::mt19937* rng) {
  const TensorShape shape = *TensorShape::Build(c.shape);
  const int64_t ch = c.channels();
  Operands o;
  o.x = AsTensorOfType(dt, Uniform(shape.num_elements(), -3, 3, rng), shape);
  o.scale =
      AsTensorOfType(DT_FLOAT, Uniform(ch, 0.5, 2, rng), TensorShape({ch}));
  o.offset =
      AsTensorOfType(DT_FLOAT, Uniform(ch, -1, 1, rng), TensorShape({ch}));
  o.mean = AsTensorOfType(DT_FLOAT, Uniform(ch, -1, 1, rng), TensorShape({ch}));
  o.variance =
      AsTensorOfType(DT_FLOAT, Uniform(ch, 0.1, 3, rng), TensorShape({ch}));
  return o;
}

StatusOr<std::vector<Tensor>> RunBatchNorm(const Case& c, const Operands& o,
                                           int threads = 0) {
  return OpRunner("FusedBatchNormV3", c.Attrs(), threads)
      .Run({o.x, o.scale, o.offset, o.mean, o.variance});
}

// Per channel: the mean and biased variance of x, in double.
void BatchStats(const Case& c, const std::vector<double>& x,
                std::vector<double>* mean, std::vector<double>* var) {
  const int64_t ch = c.channels();
  const double n = static_cast<double>(x.size() / ch);
  mean->assign(ch, 0);
  var->assign(ch, 0);
  for (size_t i = 0; i < x.size(); ++i) (*mean)[c.ChannelOf(i)] += x[i] / n;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = x[i] - (*mean)[c.ChannelOf(i)];
    (*var)[c.ChannelOf(i)] += d * d / n;
  }
}

// In training, weft normalizes with the batch mean rounded to float, which
// adds u_c |mean f|.
void ExpectY(const Case& c, const Operands& o, const Tensor& y,
             const std::vector<double>& mean, const std::vector<double>& var) {
  ASSERT_EQ(y.dtype(), o.x.dtype());
  ASSERT_EQ(y.shape(), o.x.shape());
  const double u_c = test::UnitRoundoff(DT_FLOAT);
  const double u_t = test::UnitRoundoff(o.x.dtype());
  const std::vector<double> x = ToDoubles(o.x), got = ToDoubles(y),
                            scale = ToDoubles(o.scale),
                            offset = ToDoubles(o.offset);
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t ch = c.ChannelOf(i);
    const double f = scale[ch] / std::sqrt(var[ch] + c.epsilon);
    const double d = x[i] - mean[ch];
    const double want = d * f + offset[ch];
    const double rounded_mean = c.training ? u_c * std::fabs(mean[ch] * f) : 0;
    ASSERT_NEAR(got[i], want,
                8 * u_c * std::fabs(d * f) + 2 * (u_c + u_t) * std::fabs(want) +
                    rounded_mean)
        << "element " << i;
  }
}

class BatchNormDtypeTest : public ::testing::TestWithParam<DataType> {};

TEST_P(BatchNormDtypeTest, InferenceMatchesDefinition) {
  std::mt19937 rng(3);
  const std::vector<std::pair<std::string, std::vector<int64_t>>> layouts = {
      {"NHWC", {2, 3, 4, 5}},
      {"NCHW", {2, 5, 3, 4}},
      {"NDHWC", {1, 2, 3, 2, 4}},
      {"NCDHW", {2, 4, 2, 1, 3}}};
  for (const auto& [format, shape] : layouts) {
    SCOPED_TRACE(format);
    Case c;
    c.format = format;
    c.shape = shape;
    const Operands o = MakeOperands(c, GetParam(), &rng);
    StatusOr<std::vector<Tensor>> out = RunBatchNorm(c, o);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 6u);
    ExpectY(c, o, (*out)[0], ToDoubles(o.mean), ToDoubles(o.variance));
    // The estimates pass through; the reserve spaces are zeros and a
    // scalar, as TensorFlow's CPU kernel shapes them.
    ExpectTensorEqual((*out)[1], o.mean);
    ExpectTensorEqual((*out)[2], o.variance);
    const int64_t ch = c.channels();
    ExpectTensorEqual((*out)[3], AsTensor<float>(std::vector<float>(ch, 0),
                                                 TensorShape({ch})));
    ExpectTensorEqual((*out)[4], AsTensor<float>(std::vector<float>(ch, 0),
                                                 TensorShape({ch})));
    ExpectTensorEqual((*out)[5], AsTensor<float>({0}, TensorShape({})));
  }
}

TEST_P(BatchNormDtypeTest, TrainingUsesBatchStatistics) {
  std::mt19937 rng(4);
  for (float factor : {1.0f, 0.25f}) {
    for (const char* format : {"NHWC", "NCHW"}) {
      SCOPED_TRACE(std::string(format) + " factor " + std::to_string(factor));
      Case c;
      c.format = format;
      c.training = true;
      c.factor = factor;
      const Operands o = MakeOperands(c, GetParam(), &rng);
      StatusOr<std::vector<Tensor>> out = RunBatchNorm(c, o);
      ASSERT_TRUE(out.ok()) << out.status();
      std::vector<double> mean, var;
      BatchStats(c, ToDoubles(o.x), &mean, &var);
      ExpectY(c, o, (*out)[0], mean, var);
      const double n = static_cast<double>(o.x.NumElements() / c.channels());
      const std::vector<double> old_mean = ToDoubles(o.mean),
                                old_var = ToDoubles(o.variance);
      std::vector<double> running_mean(mean.size()), running_var(var.size());
      for (size_t ch = 0; ch < mean.size(); ++ch) {
        running_mean[ch] = (1 - factor) * old_mean[ch] + factor * mean[ch];
        running_var[ch] =
            (1 - factor) * old_var[ch] + factor * var[ch] * n / (n - 1);
      }
      const double u = test::UnitRoundoff(DT_FLOAT);
      auto expect_stats = [&](const Tensor& got,
                              const std::vector<double>& want) {
        const std::vector<double> g = ToDoubles(got);
        ASSERT_EQ(g.size(), want.size());
        for (size_t ch = 0; ch < g.size(); ++ch) {
          EXPECT_NEAR(g[ch], want[ch], 4 * u * (std::fabs(want[ch]) + 1e-30));
        }
      };
      expect_stats((*out)[1], running_mean);
      expect_stats((*out)[2], running_var);
      expect_stats((*out)[3], mean);
      expect_stats((*out)[4], var);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, BatchNormDtypeTest,
                         ::testing::Values(DT_FLOAT, DT_HALF, DT_BFLOAT16),
                         [](const auto& info) {
                           return DataTypeName(info.param);
                         });

// With one value per channel the variance is 0 and Bessel's correction is
// skipped (n / max(n - 1, 1)), as in TensorFlow.
TEST(BatchNormTest, TrainingWithOneValuePerChannel) {
  Case c;
  c.shape = {1, 1, 1, 2};
  c.training = true;
  Operands o;
  o.x = AsTensor<float>({3, -2}, TensorShape({1, 1, 1, 2}));
  o.scale = AsTensor<float>({2, 4}, TensorShape({2}));
  o.offset = AsTensor<float>({0.5, -1}, TensorShape({2}));
  // Training with factor 1 needs no estimates: empty vectors do.
  o.mean = Tensor(DT_FLOAT, TensorShape({0}));
  o.variance = Tensor(DT_FLOAT, TensorShape({0}));
  StatusOr<std::vector<Tensor>> out = RunBatchNorm(c, o);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0],
                    AsTensor<float>({0.5, -1}, TensorShape({1, 1, 1, 2})));
  ExpectTensorEqual((*out)[1], AsTensor<float>({3, -2}, TensorShape({2})));
  ExpectTensorEqual((*out)[2], AsTensor<float>({0, 0}, TensorShape({2})));
}

TEST(BatchNormTest, EmptyInputGivesNanStatistics) {
  for (bool training : {false, true}) {
    Case c;
    c.training = training;
    c.shape = {0, 2, 2, 3};
    std::mt19937 rng(1);
    const Operands o = MakeOperands(c, DT_FLOAT, &rng);
    StatusOr<std::vector<Tensor>> out = RunBatchNorm(c, o);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), TensorShape({0, 2, 2, 3}));
    const float nan = NAN;
    ExpectTensorEqual((*out)[1],
                      AsTensor<float>({nan, nan, nan}, TensorShape({3})));
    ExpectTensorEqual((*out)[2],
                      AsTensor<float>({nan, nan, nan}, TensorShape({3})));
  }
}

TEST(BatchNormTest, NanAndInfinityPropagate) {
  Case c;
  c.shape = {1, 1, 3, 1};
  Operands o;
  o.x = AsTensor<float>({NAN, INFINITY, 1}, TensorShape({1, 1, 3, 1}));
  o.scale = AsTensor<float>({1}, TensorShape({1}));
  o.offset = AsTensor<float>({0}, TensorShape({1}));
  o.mean = AsTensor<float>({1}, TensorShape({1}));
  o.variance = AsTensor<float>({1}, TensorShape({1}));
  c.epsilon = 0;
  StatusOr<std::vector<Tensor>> out = RunBatchNorm(c, o);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>({NAN, INFINITY, 0},
                                               TensorShape({1, 1, 3, 1})));
}

// The output may take over x's buffer; the result is the same.
TEST(BatchNormTest, ForwardedInputGivesSameResult) {
  std::mt19937 rng(8);
  for (bool training : {false, true}) {
    Case c;
    c.training = training;
    const Operands o = MakeOperands(c, DT_FLOAT, &rng);
    StatusOr<std::vector<Tensor>> shared = RunBatchNorm(c, o);
    ASSERT_TRUE(shared.ok()) << shared.status();
    Tensor x_copy = AsTensorOfType(DT_FLOAT, ToDoubles(o.x), o.x.shape());
    const void* buffer = x_copy.raw_data();
    StatusOr<std::vector<Tensor>> forwarded =
        OpRunner("FusedBatchNormV3", c.Attrs())
            .Run(Inputs(std::move(x_copy), o.scale, o.offset, o.mean,
                        o.variance));
    ASSERT_TRUE(forwarded.ok()) << forwarded.status();
    EXPECT_EQ((*forwarded)[0].raw_data(), buffer);
    for (int i = 0; i < 5; ++i) {
      ExpectTensorEqual((*forwarded)[i], (*shared)[i]);
    }
  }
}

TEST(BatchNormTest, ThreadCountDoesNotChangeResults) {
  std::mt19937 rng(12);
  for (bool training : {false, true}) {
    for (const char* format : {"NHWC", "NCHW"}) {
      SCOPED_TRACE(format);
      Case c;
      c.training = training;
      c.format = format;
      c.shape = std::string(format) == "NHWC"
                    ? std::vector<int64_t>{4, 33, 31, 16}
                    : std::vector<int64_t>{4, 16, 33, 31};
      const Operands o = MakeOperands(c, DT_FLOAT, &rng);
      StatusOr<std::vector<Tensor>> serial = RunBatchNorm(c, o, 0);
      StatusOr<std::vector<Tensor>> parallel = RunBatchNorm(c, o, 2);
      ASSERT_TRUE(serial.ok()) << serial.status();
      ASSERT_TRUE(parallel.ok()) << parallel.status();
      for (int i = 0; i < 6; ++i) {
        ExpectTensorEqual((*parallel)[i], (*serial)[i]);
      }
      std::vector<double> mean = ToDoubles(o.mean), var = ToDoubles(o.variance);
      if (training) BatchStats(c, ToDoubles(o.x), &mean, &var);
      ExpectY(c, o, (*serial)[0], mean, var);
    }
  }
}

void ExpectError(const StatusOr<std::vector<Tensor>>& out,
                 const std::string& fragment) {
  ASSERT_FALSE(out.ok());
  const std::string message(out.status().message());
  EXPECT_TRUE(absl::StrContains(message, "(FusedBatchNormV3)")) << message;
  EXPECT_TRUE(absl::StrContains(message, fragment)) << message;
}

TEST(BatchNormTest, BadInputsAreErrors) {
  std::mt19937 rng(2);
  Case c;
  Operands o = MakeOperands(c, DT_FLOAT, &rng);
  Operands bad = o;
  bad.x = Tensor(DT_FLOAT, TensorShape({2, 3, 4}));
  ExpectError(RunBatchNorm(c, bad), "rank 4");
  bad = o;
  bad.scale = Tensor(DT_FLOAT, TensorShape({4}));
  ExpectError(RunBatchNorm(c, bad),
              "scale (input 1) has shape [4] but must be [5]");
  bad = o;
  bad.offset = Tensor(DT_FLOAT, TensorShape({5, 1}));
  ExpectError(RunBatchNorm(c, bad), "offset (input 2)");
  bad = o;
  bad.mean = Tensor(DT_FLOAT, TensorShape({0}));
  ExpectError(RunBatchNorm(c, bad), "mean (input 3)");
  c.training = true;
  c.factor = 0.5f;
  bad = o;
  bad.variance = Tensor(DT_FLOAT, TensorShape({0}));
  ExpectError(RunBatchNorm(c, bad), "exponential_avg_factor");
  c.format = "NDHWC";
  ExpectError(RunBatchNorm(c, o), "rank 5");
}

}  // namespace cpu_batch_norm_test
}  // namespace weft
