// Tanh of floats: the vector paths' loop (kernels/cpu/tanh_float.h) and the
// Tanh kernel on whichever path runs, against tanh in long double of the
// rounded input: within 3 float ulps, the special values, every length
// around the four-vector step, in place.
#include "kernels/cpu/tanh_float.h"

#include <algorithm>
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
namespace tanh_float_test {
namespace {

using test::AsTensor;
using test::OpRunner;

// |got - tanh(x)| in float ulps at tanh(x) (the subnormals' spacing below
// the normal range).
double UlpError(float x, float got) {
  const long double want = std::tanh(static_cast<long double>(x));
  const int exponent = std::max(std::ilogb(static_cast<float>(want)), -126);
  const long double unit = std::ldexp(1.0L, exponent - 23);
  return static_cast<double>(std::fabs(got - want) / unit);
}

// x over [-16, 16] in steps of 2^-12 (both sides of the switch at 0.625
// and of where tanh rounds to 1), small magnitudes down to the subnormals,
// and large ones.
std::vector<float> Sweep() {
  std::vector<float> x;
  for (int i = -65536; i <= 65536; ++i) x.push_back(std::ldexp(i, -12));
  for (int e = -149; e <= -12; ++e) {
    x.push_back(std::ldexp(1.0f, e));
    x.push_back(-std::ldexp(1.0f, e) * 1.75f);
  }
  for (float big : {17.0f, 100.0f, 1e10f, 3.4e38f}) {
    x.push_back(big);
    x.push_back(-big);
  }
  const float below = std::nextafter(0.625f, 0.0f);
  for (float v : {0.625f, below, -0.625f, -below}) x.push_back(v);
  return x;
}

TEST(TanhFloatTest, DeclinesOnlyOnTheBaselinePath) {
  test::ExpectDeclinesOnlyOnTheBaselinePath(TanhFloatOnVectorPath);
}

TEST(TanhFloatTest, VectorPathWithinThreeUlps) {
  if (ActiveCpuIsa() == CpuIsa::kBaseline) GTEST_SKIP() << "baseline path";
  const std::vector<float> x = Sweep();
  std::vector<float> y(x.size());
  ASSERT_TRUE(TanhFloatOnVectorPath(x.data(), y.data(), x.size()));
  test::ExpectWithinUlps(x, y, UlpError, 3.0, "tanh");
}

TEST(TanhFloatTest, SpecialValues) {
  if (ActiveCpuIsa() == CpuIsa::kBaseline) GTEST_SKIP() << "baseline path";
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {0.0f, -0.0f, inf, -inf,
                                std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> y(x.size());
  ASSERT_TRUE(TanhFloatOnVectorPath(x.data(), y.data(), x.size()));
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_FALSE(std::signbit(y[0]));
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_TRUE(std::signbit(y[1]));
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_EQ(y[3], -1.0f);
  EXPECT_TRUE(std::isnan(y[4]));
}

TEST(TanhFloatTest, EveryLengthAndInPlace) {
  if (ActiveCpuIsa() == CpuIsa::kBaseline) GTEST_SKIP() << "baseline path";
  test::ExpectEveryLengthAndInPlace(TanhFloatOnVectorPath, UlpError, 3.0, -3.0f,
                                    0.09f);
}

// The Tanh kernel runs the vector loop on the vector paths (the same bits)
// and stays within the same bound there.
TEST(TanhOpTest, UsesTheVectorLoopOnThisPath) {
  if (ActiveCpuIsa() == CpuIsa::kBaseline) GTEST_SKIP() << "baseline path";
  const std::vector<float> x = Sweep();
  StatusOr<std::vector<Tensor>> out =
      OpRunner("Tanh").Run({AsTensor<float>(x, {(int64_t)x.size()})});
  ASSERT_TRUE(out.ok()) << out.status();
  const float* got = (*out)[0].data<float>();
  std::vector<float> want(x.size());
  ASSERT_TRUE(TanhFloatOnVectorPath(x.data(), want.data(), x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(got[i], want[i]) << "tanh(" << x[i] << ")";
  }
}

}  // namespace
}  // namespace tanh_float_test
}  // namespace weft
