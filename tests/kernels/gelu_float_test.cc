// GELU of floats: the vector paths' loop (kernels/cpu/gelu_float.h) and the
// _Gelu kernel (kernels/cpu/gelu_op.cc) on whichever path runs, both forms,
// against the function computed in long double from the rounded input:
// within 6 float ulps (see UlpError below the normal range), the special
// values, every length around the unrolled step, in
// place, and the same bits at every thread count.
#include "kernels/cpu/gelu_float.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "device/cpu_isa.h"
#include "gtest/gtest.h"
#include "tests/kernels/float_loop_testutil.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace gelu_float_test {
namespace {

using test::AsTensor;
using test::ExpectTensorEqual;
using test::OpRunner;

long double Reference(float value, bool approximate) {
  const long double x = value;
  if (approximate) {
    // x (1 + tanh(y)) / 2 = x / (1 + e^(-2y)), which does not cancel for
    // negative y.
    const long double y =
        0.797884560802865355879892119868763737L * (x + 0.044715L * x * x * x);
    return x / (1 + std::exp(-2 * y));
  }
  return 0.5L * x * std::erfc(-x * 0.707106781186547524400844362104849039L);
}

// |got - want| in units of the larger of the float ulp at want and |x|
// times the smallest subnormal (where x's sigmoid or erfc is below the
// normal range it is rounded there before x multiplies it). The tanh form
// also gets the error of its argument: 2y = x (c1 + c2 x^2) is computed
// with at most five roundings (two of them the constants'), and
// sigmoid(2y)'s relative error is |2y| (1 - sigmoid(2y)) times 2y's, so
// 8 u |2y| |want| more is allowed (u = 2^-24). The exact form's argument
// x^2 / 2 is split exactly and needs no such term.
double UlpError(float x, float got, bool approximate) {
  const long double want = Reference(x, approximate);
  const int exponent = std::max(std::ilogb(static_cast<float>(want)), -126);
  const long double unit =
      std::max(std::ldexp(1.0L, exponent - 23),
               std::ldexp(1.0L, -149) * std::fabs((long double)x));
  long double err = std::fabs(got - want);
  if (approximate) {
    const long double two_y = 2 * 0.797884560802865355879892119868763737L *
                              (x + 0.044715L * x * x * x);
    err = std::max(0.0L, err - 8 * std::ldexp(1.0L, -24) * std::fabs(two_y) *
                                   std::fabs(want));
  }
  return static_cast<double>(err / unit);
}

// x over [-16, 16] in steps of 2^-12 and some small magnitudes.
std::vector<float> Sweep() {
  std::vector<float> x;
  for (int i = -65536; i <= 65536; ++i) x.push_back(std::ldexp(i, -12));
  for (int e = -60; e <= -12; ++e) {
    x.push_back(std::ldexp(1.0f, e));
    x.push_back(-std::ldexp(1.0f, e) * 1.5f);
  }
  return x;
}

// The vector loop of one form, and the error against that form.
test::FloatLoop Loop(bool approximate) {
  return [approximate](const float* in, float* out, int64_t n) {
    return GeluFloatOnVectorPath(in, out, n, approximate);
  };
}
test::UlpError ErrorOf(bool approximate) {
  return [approximate](float x, float got) {
    return UlpError(x, got, approximate);
  };
}

void ExpectClose(const std::vector<float>& x, const std::vector<float>& y,
                 bool approximate) {
  test::ExpectWithinUlps(x, y, ErrorOf(approximate), 6.0,
                         approximate ? "gelu_tanh" : "gelu",
                         approximate ? "worst_ulps_tanh" : "worst_ulps_exact");
}

TEST(GeluFloatTest, DeclinesOnlyOnTheBaselinePath) {
  test::ExpectDeclinesOnlyOnTheBaselinePath(Loop(false));
}

TEST(GeluFloatTest, VectorPathWithinSixUlps) {
  if (ActiveCpuIsa() == CpuIsa::kBaseline) GTEST_SKIP() << "baseline path";
  const std::vector<float> x = Sweep();
  for (bool approximate : {false, true}) {
    SCOPED_TRACE(approximate ? "tanh" : "exact");
    std::vector<float> y(x.size());
    ASSERT_TRUE(
        GeluFloatOnVectorPath(x.data(), y.data(), x.size(), approximate));
    ExpectClose(x, y, approximate);
  }
}

TEST(GeluFloatTest, EveryLengthAndInPlace) {
  if (ActiveCpuIsa() == CpuIsa::kBaseline) GTEST_SKIP() << "baseline path";
  for (bool approximate : {false, true}) {
    SCOPED_TRACE(approximate ? "tanh" : "exact");
    test::ExpectEveryLengthAndInPlace(Loop(approximate), ErrorOf(approximate),
                                      6.0, -5.0f, 0.15f);
  }
}

TEST(GeluOpTest, MatchesTheFunctionOnThisPath) {
  const std::vector<float> x = Sweep();
  const Tensor in = AsTensor<float>(x, {static_cast<int64_t>(x.size())});
  for (bool approximate : {false, true}) {
    SCOPED_TRACE(approximate ? "tanh" : "exact");
    OpRunner gelu("_Gelu", {{"approximate", AttrValue::Bool(approximate)}});
    StatusOr<std::vector<Tensor>> out = gelu.Run({in});
    ASSERT_TRUE(out.ok()) << out.status();
    const float* y = (*out)[0].data<float>();
    ExpectClose(x, std::vector<float>(y, y + x.size()), approximate);
  }
}

TEST(GeluOpTest, SpecialValuesAndEmpty) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (bool approximate : {false, true}) {
    SCOPED_TRACE(approximate ? "tanh" : "exact");
    OpRunner gelu("_Gelu", {{"approximate", AttrValue::Bool(approximate)}});
    StatusOr<std::vector<Tensor>> out = gelu.Run(
        {AsTensor<float>({inf, -inf, nan, 0.0f, -0.0f, 1e30f, -1e30f}, {7})});
    ASSERT_TRUE(out.ok()) << out.status();
    const float* y = (*out)[0].data<float>();
    EXPECT_EQ(y[0], inf);
    EXPECT_TRUE(std::isnan(y[1])) << y[1];  // 0 * -inf, as the nodes give
    EXPECT_TRUE(std::isnan(y[2])) << y[2];
    EXPECT_EQ(y[3], 0.0f);
    EXPECT_EQ(y[4], 0.0f);
    EXPECT_TRUE(std::signbit(y[4]));
    EXPECT_EQ(y[5], 1e30f);
    EXPECT_EQ(y[6], 0.0f);

    StatusOr<std::vector<Tensor>> empty =
        gelu.Run({Tensor(DT_FLOAT, TensorShape({0, 3}))});
    ASSERT_TRUE(empty.ok()) << empty.status();
    EXPECT_EQ((*empty)[0].shape(), TensorShape({0, 3}));
  }
}

TEST(GeluOpTest, SameBitsAtEveryThreadCount) {
  std::vector<float> x(100003);
  for (size_t i = 0; i < x.size(); ++i) x[i] = -8.0f + 16.0f * i / x.size();
  const Tensor in = AsTensor<float>(x, {static_cast<int64_t>(x.size())});
  for (bool approximate : {false, true}) {
    const AttrMap attrs = {{"approximate", AttrValue::Bool(approximate)}};
    StatusOr<std::vector<Tensor>> one = OpRunner("_Gelu", attrs, 0).Run({in});
    ASSERT_TRUE(one.ok()) << one.status();
    for (int threads : {1, 2, 4}) {
      StatusOr<std::vector<Tensor>> many =
          OpRunner("_Gelu", attrs, threads).Run({in});
      ASSERT_TRUE(many.ok()) << many.status();
      ExpectTensorEqual((*many)[0], (*one)[0]);
    }
  }
}

}  // namespace
}  // namespace gelu_float_test
}  // namespace weft
