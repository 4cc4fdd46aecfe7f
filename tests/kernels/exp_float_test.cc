// Exp of floats: the vector paths' loop (kernels/cpu/exp_float.h) and the
// Exp kernel on whichever path runs, against exp in long double of the
// rounded input: within 2 float ulps over the whole range (results in the
// subnormals included), overflow to infinity, the special values, every
// length around the four-vector step, in place.
#include "kernels/cpu/exp_float.h"

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
namespace exp_float_test {
namespace {

using test::AsTensor;
using test::OpRunner;

// The float nearest exp(x), computed in long double.
long double Want(float x) { return std::exp(static_cast<long double>(x)); }

// |got - exp(x)| in float ulps at exp(x): the spacing of floats at the
// exact value, the subnormals' below the normal range. Where exp(x) is
// beyond the largest float, only +inf is right (0 error), anything else
// fails.
double UlpError(float x, float got) {
  const long double want = Want(x);
  if (want > std::numeric_limits<float>::max()) {
    return std::isinf(got) && got > 0 ? 0.0 : 1e9;
  }
  const int exponent = std::max(std::ilogb(static_cast<float>(want)), -126);
  const long double unit = std::ldexp(1.0L, exponent - 23);
  return static_cast<double>(std::fabs(got - want) / unit);
}

// x over [-110, 95] in steps of 2^-10 (both ends of the float range: the
// subnormal results from about -87.3 down, 0 from about -103.97, infinity
// from about 88.72), finer around 0, and very large magnitudes.
std::vector<float> Sweep() {
  std::vector<float> x;
  for (int i = -110 * 1024; i <= 95 * 1024; ++i)
    x.push_back(std::ldexp(i, -10));
  for (int e = -149; e <= -10; ++e) {
    x.push_back(std::ldexp(1.0f, e));
    x.push_back(-std::ldexp(1.0f, e) * 1.75f);
  }
  const float top = std::log(std::numeric_limits<float>::max());
  for (float v :
       {top, std::nextafter(top, 0.0f), std::nextafter(top, 100.0f), -87.33654f,
        -103.97208f, -103.27893f, 1e10f, -1e10f, 3.4e38f, -3.4e38f}) {
    x.push_back(v);
  }
  return x;
}

TEST(ExpFloatTest, DeclinesOnlyOnTheBaselinePath) {
  test::ExpectDeclinesOnlyOnTheBaselinePath(ExpFloatOnVectorPath);
}

TEST(ExpFloatTest, VectorPathWithinTwoUlps) {
  if (ActiveCpuIsa() == CpuIsa::kBaseline) GTEST_SKIP() << "baseline path";
  const std::vector<float> x = Sweep();
  std::vector<float> y(x.size());
  ASSERT_TRUE(ExpFloatOnVectorPath(x.data(), y.data(), x.size()));
  test::ExpectWithinUlps(x, y, UlpError, 2.0, "exp");
}

TEST(ExpFloatTest, SpecialValues) {
  if (ActiveCpuIsa() == CpuIsa::kBaseline) GTEST_SKIP() << "baseline path";
  const float inf = std::numeric_limits<float>::infinity();
  const float min_sub = std::numeric_limits<float>::denorm_min();
  const std::vector<float> x = {
      0.0f, -0.0f, inf,     -inf,   std::numeric_limits<float>::quiet_NaN(),
      1.0f, 89.0f, -104.0f, -103.0f};
  std::vector<float> y(x.size());
  ASSERT_TRUE(ExpFloatOnVectorPath(x.data(), y.data(), x.size()));
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_EQ(y[2], inf);
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_FALSE(std::signbit(y[3]));
  EXPECT_TRUE(std::isnan(y[4]));
  EXPECT_NEAR(y[5], 2.718281828f, 2.4e-7f);
  EXPECT_EQ(y[6], inf);
  EXPECT_EQ(y[7], 0.0f);
  // e^-103 = 1.38e-45: the smallest subnormal, 2^-149 = 1.40e-45.
  EXPECT_EQ(y[8], min_sub);
}

TEST(ExpFloatTest, EveryLengthAndInPlace) {
  if (ActiveCpuIsa() == CpuIsa::kBaseline) GTEST_SKIP() << "baseline path";
  test::ExpectEveryLengthAndInPlace(ExpFloatOnVectorPath, UlpError, 2.0, -20.0f,
                                    0.61f);
}

// The Exp kernel runs the vector loop on the vector paths (the same bits);
// on the baseline path Eigen's packets, within the same bound.
TEST(ExpOpTest, KernelOnThisPath) {
  const std::vector<float> x = Sweep();
  StatusOr<std::vector<Tensor>> out =
      OpRunner("Exp").Run({AsTensor<float>(x, {(int64_t)x.size()})});
  ASSERT_TRUE(out.ok()) << out.status();
  const float* got = (*out)[0].data<float>();
  if (ActiveCpuIsa() == CpuIsa::kBaseline) {
    test::ExpectWithinUlps(x, std::vector<float>(got, got + x.size()), UlpError,
                           2.0, "Exp");
    return;
  }
  std::vector<float> want(x.size());
  ASSERT_TRUE(ExpFloatOnVectorPath(x.data(), want.data(), x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(got[i], want[i]) << "exp(" << x[i] << ")";
  }
}

}  // namespace
}  // namespace exp_float_test
}  // namespace weft
