// BiasAdd, Relu, Relu6, Softmax and LogSoftmax against references written
// here. BiasAdd and the activations perform at most one correctly rounded
// operation per element, so they must match exactly; the softmax family
// is checked against a long double reference within a stated bound.
#include <cfloat>
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
namespace cpu_nn_ops_test {

using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::ExpectTensorNear;
using test::OpRunner;
using test::ToDoubles;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

template <typename T>
constexpr bool kIsInt = std::is_integral_v<T>;

std::vector<double> GridValues(int64_t n, bool ints, std::mt19937* rng) {
  std::uniform_int_distribution<int> dist(-32, 32);
  std::vector<double> v(n);
  for (double& x : v) x = ints ? dist(*rng) : dist(*rng) / 4.0;
  return v;
}

AttrMap Format(const std::string& format) {
  AttrMap attrs;
  attrs["data_format"] = AttrValue::String(format);
  return attrs;
}

// ---- BiasAdd ----------------------------------------------------------------

template <typename T>
class NnTypedTest : public ::testing::Test {};
using NnTypes =
    ::testing::Types<half, bfloat16, float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(NnTypedTest, NnTypes);

TYPED_TEST(NnTypedTest, BiasAddBothFormatsEveryRank) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  std::mt19937 rng(21);
  const std::vector<TensorShape> shapes = {
      {3, 4}, {2, 3, 5}, {2, 3, 4, 5}, {2, 3, 2, 2, 3}, {0, 3}, {2, 3, 0}};
  for (const std::string format : {"NHWC", "NCHW"}) {
    for (const TensorShape& shape : shapes) {
      SCOPED_TRACE(format + " " + shape.DebugString());
      const int channel_dim = format == "NCHW" ? 1 : shape.dims() - 1;
      const int64_t channels = shape.dim_size(channel_dim);
      const std::vector<double> v =
          GridValues(shape.num_elements(), kIsInt<T>, &rng);
      const std::vector<double> b = GridValues(channels, kIsInt<T>, &rng);
      // Channel of flat index i: (i / stride) % channels.
      int64_t stride = 1;
      for (int d = channel_dim + 1; d < shape.dims(); ++d) {
        stride *= shape.dim_size(d);
      }
      std::vector<double> expected(v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        expected[i] = v[i] + b[(i / stride) % channels];
      }
      StatusOr<std::vector<Tensor>> out =
          OpRunner("BiasAdd", Format(format))
              .Run({AsTensorOfType(dt, v, shape),
                    AsTensorOfType(dt, b, {channels})});
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectTensorEqual((*out)[0], AsTensorOfType(dt, expected, shape));
    }
  }
}

TEST(BiasAddTest, DefaultFormatIsNhwcAndForwards) {
  Tensor value = AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const void* buf = value.raw_data();
  OpRunner runner("BiasAdd");
  StatusOr<std::vector<Tensor>> out = runner.Run(
      test::Inputs(std::move(value), AsTensor<float>({10, 20, 30}, {3})));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(runner.node().attr.at("data_format").s, "NHWC");
  EXPECT_EQ((*out)[0].raw_data(), buf);
  ExpectTensorEqual((*out)[0],
                    AsTensor<float>({11, 22, 33, 14, 25, 36}, {2, 3}));
}

TEST(BiasAddTest, Errors) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner("BiasAdd", Format("NCHW"))
          .Run({Tensor(DT_FLOAT, {2, 3, 4, 4}), Tensor(DT_FLOAT, {4})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(std::string(out.status().message()),
            "node 'kernel_test/BiasAdd' (BiasAdd): bias has shape [4] but "
            "value has shape [2,3,4,4] whose channel dimension (1, "
            "data_format NCHW) has size 3");
  out = OpRunner("BiasAdd").Run(
      {Tensor(DT_FLOAT, {2, 3}), Tensor(DT_FLOAT, {1, 3})});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(absl::StrContains(out.status().message(),
                                "bias must be a vector (rank 1), but has "
                                "shape [1,3]"))
      << out.status();
  out = OpRunner("BiasAdd").Run({Tensor(DT_FLOAT, {3}), Tensor(DT_FLOAT, {3})});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(absl::StrContains(out.status().message(),
                                "value must have rank >= 2, but has shape [3]"))
      << out.status();
}

TEST(BiasAddTest, ParallelMatchesSingleThread) {
  std::mt19937 rng(4);
  for (const std::string format : {"NHWC", "NCHW"}) {
    const TensorShape shape({8, 16, 32, 24});
    const int64_t channels = format == "NHWC" ? 24 : 16;
    const Tensor v = AsTensorOfType(
        DT_FLOAT, GridValues(shape.num_elements(), false, &rng), shape);
    const Tensor b =
        AsTensorOfType(DT_FLOAT, GridValues(channels, false, &rng), {channels});
    StatusOr<std::vector<Tensor>> single =
        OpRunner("BiasAdd", Format(format), 0).Run({v, b});
    StatusOr<std::vector<Tensor>> multi =
        OpRunner("BiasAdd", Format(format), 2).Run({v, b});
    ASSERT_TRUE(single.ok()) << single.status();
    ASSERT_TRUE(multi.ok()) << multi.status();
    ExpectTensorEqual((*multi)[0], (*single)[0]);
  }
}

// ---- Relu, Relu6 ------------------------------------------------------------

TYPED_TEST(NnTypedTest, ReluAndRelu6) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  const std::vector<double> x = {-7, -1, 0, 1, 5, 6, 7, 100};
  StatusOr<std::vector<Tensor>> relu =
      OpRunner("Relu").Run({AsTensorOfType(dt, x, {2, 4})});
  ASSERT_TRUE(relu.ok()) << relu.status();
  ExpectTensorEqual((*relu)[0],
                    AsTensorOfType(dt, {0, 0, 0, 1, 5, 6, 7, 100}, {2, 4}));
  StatusOr<std::vector<Tensor>> relu6 =
      OpRunner("Relu6").Run({AsTensorOfType(dt, x, {2, 4})});
  ASSERT_TRUE(relu6.ok()) << relu6.status();
  ExpectTensorEqual((*relu6)[0],
                    AsTensorOfType(dt, {0, 0, 0, 1, 5, 6, 6, 6}, {2, 4}));
}

template <typename T>
class NnFloatTypedTest : public ::testing::Test {};
using NnFloatTypes = ::testing::Types<half, bfloat16, float, double>;
TYPED_TEST_SUITE(NnFloatTypedTest, NnFloatTypes);

TYPED_TEST(NnFloatTypedTest, ReluSpecialValues) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  const Tensor x =
      AsTensorOfType(dt, {kNan, kInf, -kInf, -0.0, 0.5, 6.5, -0.25}, {7});
  StatusOr<std::vector<Tensor>> relu = OpRunner("Relu").Run({x});
  ASSERT_TRUE(relu.ok()) << relu.status();
  ExpectTensorEqual((*relu)[0],
                    AsTensorOfType(dt, {kNan, kInf, 0, 0, 0.5, 6.5, 0}, {7}));
  // -0 stays -0, as in TensorFlow.
  EXPECT_TRUE(std::signbit(ToDoubles((*relu)[0])[3]));
  StatusOr<std::vector<Tensor>> relu6 = OpRunner("Relu6").Run({x});
  ASSERT_TRUE(relu6.ok()) << relu6.status();
  ExpectTensorEqual((*relu6)[0],
                    AsTensorOfType(dt, {kNan, 6, 0, 0, 0.5, 6, 0}, {7}));
}

TEST(ReluTest, ForwardsAndSplitsIdentically) {
  Tensor x = AsTensor<float>({-1, 2}, {2});
  const void* buf = x.raw_data();
  StatusOr<std::vector<Tensor>> out =
      OpRunner("Relu").Run(test::Inputs(std::move(x)));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].raw_data(), buf);
  ExpectTensorEqual((*out)[0], AsTensor<float>({0, 2}, {2}));

  std::mt19937 rng(8);
  const Tensor big =
      AsTensorOfType(DT_FLOAT, GridValues(100000, false, &rng), {100000});
  for (const char* op : {"Relu", "Relu6"}) {
    StatusOr<std::vector<Tensor>> single = OpRunner(op, {}, 0).Run({big});
    StatusOr<std::vector<Tensor>> multi = OpRunner(op, {}, 2).Run({big});
    ASSERT_TRUE(single.ok() && multi.ok());
    ExpectTensorEqual((*multi)[0], (*single)[0]);
  }
}

// ---- Softmax, LogSoftmax ----------------------------------------------------

// Reference rows in long double.
std::vector<double> ReferenceSoftmax(const std::vector<double>& x,
                                     int64_t depth, bool log) {
  std::vector<double> out(x.size());
  for (size_t r = 0; r * depth < x.size(); ++r) {
    const double* row = x.data() + r * depth;
    long double m = -INFINITY;
    for (int64_t i = 0; i < depth; ++i) m = std::max<long double>(m, row[i]);
    long double sum = 0;
    for (int64_t i = 0; i < depth; ++i) sum += std::exp(row[i] - m);
    for (int64_t i = 0; i < depth; ++i) {
      out[r * depth + i] = static_cast<double>(
          log ? (row[i] - m) - std::log(sum) : std::exp(row[i] - m) / sum);
    }
  }
  return out;
}

// Error bound of one softmax row of `depth` terms computed in precision u
// (float for half and bfloat16) and rounded to the output's precision v:
// the shift x - m (relative error u |x - m| after exp, at most u * `spread`,
// the row's max - min), the exponential (a few ulps in Eigen's vectorized
// exp, counted as 4u), the d-term sum ((d - 1)u), the reciprocal and the
// product (2u): a relative error of (d + 5 + spread)u, plus v for the final
// rounding and, absolutely, half the smallest subnormal of the output type
// and the smallest normal of the compute type (exp underflow). LogSoftmax's
// error is absolute: (d + 5)u from log(sum), plus u |y| and v |y| from the
// shift, the subtraction and the rounding.
struct SoftmaxTolerance {
  double atol, rtol;
};
SoftmaxTolerance Tolerance(DataType dt, int64_t depth, double spread,
                           bool log) {
  const DataType compute = dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT;
  const double u = test::UnitRoundoff(compute);
  const double v = test::UnitRoundoff(dt);
  if (log) return {(depth + 5) * u, 2 * u + v};
  const double tiny = (dt == DT_HALF ? std::ldexp(1.0, -25) : 0) +
                      (compute == DT_DOUBLE ? DBL_MIN : FLT_MIN);
  return {tiny, (depth + 5 + spread) * u + v};
}

TYPED_TEST(NnFloatTypedTest, SoftmaxAndLogSoftmaxMatchReference) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> dist(-10, 10);
  const std::vector<TensorShape> shapes = {
      {1},          {5},     {3, 4},  {2, 3, 7}, {4, 1},   {2, 40},
      {2, 2, 2, 9}, {3, 31}, {2, 56}, {2, 129},  {2, 1000}};
  for (bool log : {false, true}) {
    const char* op = log ? "LogSoftmax" : "Softmax";
    for (const TensorShape& shape : shapes) {
      SCOPED_TRACE(std::string(op) + " " + shape.DebugString());
      std::vector<double> v(shape.num_elements());
      for (double& x : v) x = dist(rng);
      const Tensor x = AsTensorOfType(dt, v, shape);
      StatusOr<std::vector<Tensor>> out = OpRunner(op).Run({x});
      ASSERT_TRUE(out.ok()) << out.status();
      const int64_t depth = shape.dim_size(shape.dims() - 1);
      // |x| <= 10, so rows spread at most 20.
      const SoftmaxTolerance tol = Tolerance(dt, depth, 20, log);
      // The reference works on the rounded inputs and is compared in
      // double, so the output's own rounding is part of the bound.
      const std::vector<double> expected =
          ReferenceSoftmax(ToDoubles(x), depth, log);
      ExpectTensorNear(AsTensorOfType(DT_DOUBLE, ToDoubles((*out)[0]), shape),
                       AsTensorOfType(DT_DOUBLE, expected, shape), tol.atol,
                       tol.rtol);
    }
  }
}

TYPED_TEST(NnFloatTypedTest, SoftmaxSpecialRows) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  // Rows: all -inf; a NaN; a +inf; a -inf among finite values; huge values
  // that would overflow exp without the max shift.
  const Tensor x = AsTensorOfType(dt,
                                  {-kInf, -kInf, -kInf,  //
                                   kNan, 1, 2,           //
                                   1, kInf, 2,           //
                                   0, 0, -kInf,          //
                                   60000, 60000, 60000},
                                  {5, 3});
  StatusOr<std::vector<Tensor>> soft = OpRunner("Softmax").Run({x});
  ASSERT_TRUE(soft.ok()) << soft.status();
  ExpectTensorEqual((*soft)[0], AsTensorOfType(dt,
                                               {kNan, kNan, kNan,  //
                                                kNan, kNan, kNan,  //
                                                kNan, kNan, kNan,  //
                                                0.5, 0.5, 0,       //
                                                1.0 / 3, 1.0 / 3, 1.0 / 3},
                                               {5, 3}));
  StatusOr<std::vector<Tensor>> log = OpRunner("LogSoftmax").Run({x});
  ASSERT_TRUE(log.ok()) << log.status();
  const double log_half = -std::log(2.0);
  const double log_third = -std::log(3.0);
  ExpectTensorNear((*log)[0],
                   AsTensorOfType(dt,
                                  {kNan, kNan, kNan,           //
                                   kNan, kNan, kNan,           //
                                   kNan, kNan, kNan,           //
                                   log_half, log_half, -kInf,  //
                                   log_third, log_third, log_third},
                                  {5, 3}),
                   0, test::UnitRoundoff(dt));
}

TEST(SoftmaxTest, EmptyAndScalarLogits) {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (const TensorShape& shape :
         {TensorShape({0, 4}), TensorShape({3, 0}), TensorShape({0})}) {
      StatusOr<std::vector<Tensor>> out =
          OpRunner(op).Run({Tensor(DT_FLOAT, shape)});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ((*out)[0].shape(), shape);
    }
    StatusOr<std::vector<Tensor>> out =
        OpRunner(op).Run({AsTensor<float>({1}, {})});
    ASSERT_FALSE(out.ok());
    EXPECT_TRUE(absl::StrContains(out.status().message(),
                                  "logits must have rank >= 1, but has shape "
                                  "[]"))
        << out.status();
  }
}

TEST(SoftmaxTest, ParallelMatchesSingleThreadAndForwards) {
  std::mt19937 rng(2);
  const Tensor x =
      AsTensorOfType(DT_FLOAT, GridValues(500 * 300, false, &rng), {500, 300});
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    StatusOr<std::vector<Tensor>> single = OpRunner(op, {}, 0).Run({x});
    StatusOr<std::vector<Tensor>> multi = OpRunner(op, {}, 2).Run({x});
    ASSERT_TRUE(single.ok() && multi.ok());
    ExpectTensorEqual((*multi)[0], (*single)[0]);

    Tensor copy = AsTensorOfType(DT_FLOAT, ToDoubles(x), x.shape());
    const void* buf = copy.raw_data();
    StatusOr<std::vector<Tensor>> forwarded =
        OpRunner(op).Run(test::Inputs(std::move(copy)));
    ASSERT_TRUE(forwarded.ok()) << forwarded.status();
    EXPECT_EQ((*forwarded)[0].raw_data(), buf);
    ExpectTensorEqual((*forwarded)[0], (*single)[0]);
  }
}

}  // namespace cpu_nn_ops_test
}  // namespace weft
