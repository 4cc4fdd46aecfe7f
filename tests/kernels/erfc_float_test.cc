// The vector paths' float erfc (kernels/cpu/erfc_float.h) against the C
// library's double erfc: within 3 float ulps (the erfcc formula's 1.2e-7
// relative error is about 2 ulps; measured worst 2.23 ulps over a million
// points of [-6, 12]), the special values, every length around the
// unrolled step (tails), and in place. On the baseline path it must decline.
#include "kernels/cpu/erfc_float.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "device/cpu_isa.h"
#include "gtest/gtest.h"
#include "tests/kernels/float_loop_testutil.h"

namespace weft {
namespace erfc_float_test {

// |got - erfc(x)| in units of the float ulp at erfc(x) (the smallest
// subnormal's below the normal range).
double UlpError(float x, float got) {
  const double want = std::erfc(static_cast<double>(x));
  const int exponent = std::max(std::ilogb(static_cast<float>(want)), -126);
  return std::fabs(static_cast<double>(got) - want) /
         std::ldexp(1.0, exponent - 23);
}

TEST(ErfcFloatTest, DeclinesOnlyOnTheBaselinePath) {
  test::ExpectDeclinesOnlyOnTheBaselinePath(ErfcFloatOnVectorPath);
}

TEST(ErfcFloatTest, WithinThreeUlpsOfTheCLibrary) {
  if (ActiveCpuIsa() == CpuIsa::kBaseline) GTEST_SKIP() << "baseline path";
  std::vector<float> x;
  // A sweep of [-6, 12] (erfc is 2 to float precision below -4 and reaches
  // the subnormals near 10) and small magnitudes around 0.
  for (int i = 0; i <= 180000; ++i) x.push_back(-6.0f + i * 1e-4f);
  for (int e = -40; e <= 0; ++e) {
    x.push_back(std::ldexp(1.0f, e));
    x.push_back(-std::ldexp(1.0f, e));
  }
  std::vector<float> y(x.size());
  ASSERT_TRUE(ErfcFloatOnVectorPath(x.data(), y.data(), x.size()));
  test::ExpectWithinUlps(x, y, UlpError, 3.0, "erfc");
}

TEST(ErfcFloatTest, SpecialValues) {
  if (ActiveCpuIsa() == CpuIsa::kBaseline) GTEST_SKIP() << "baseline path";
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {inf, -inf, nan, 0.0f, -0.0f, 11.0f, -11.0f};
  std::vector<float> y(x.size());
  ASSERT_TRUE(ErfcFloatOnVectorPath(x.data(), y.data(), x.size()));
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 2.0f);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_EQ(y[3], 1.0f);
  EXPECT_EQ(y[4], 1.0f);
  EXPECT_EQ(y[5], 0.0f);  // erfc(11) ~ 1.4e-54: below the subnormals
  EXPECT_EQ(y[6], 2.0f);
}

TEST(ErfcFloatTest, EveryLengthAndInPlace) {
  if (ActiveCpuIsa() == CpuIsa::kBaseline) GTEST_SKIP() << "baseline path";
  test::ExpectEveryLengthAndInPlace(ErfcFloatOnVectorPath, UlpError, 3.0, -3.0f,
                                    0.1f);
}

}  // namespace erfc_float_test
}  // namespace weft
