#include "tests/kernels/float_loop_testutil.h"

#include <algorithm>

#include "device/cpu_isa.h"
#include "gtest/gtest.h"

namespace weft {
namespace test {

void ExpectDeclinesOnlyOnTheBaselinePath(const FloatLoop& run) {
  float x = 1.0f, y = -7.0f;
  const bool ran = run(&x, &y, 1);
  EXPECT_EQ(ran, ActiveCpuIsa() != CpuIsa::kBaseline);
  if (!ran) {
    EXPECT_EQ(y, -7.0f) << "wrote on the baseline path";
  }
}

void ExpectWithinUlps(const std::vector<float>& x, const std::vector<float>& y,
                      const UlpError& ulp_error, double bound,
                      const std::string& name, const std::string& property) {
  ASSERT_EQ(x.size(), y.size());
  int failures = 0;
  double worst = 0;
  for (size_t i = 0; i < x.size() && failures < 10; ++i) {
    const double e = ulp_error(x[i], y[i]);
    worst = std::max(worst, e);
    if (!(e <= bound)) {
      ADD_FAILURE() << name << "(" << x[i] << ") = " << y[i] << ": " << e
                    << " ulps, bound " << bound;
      ++failures;
    }
  }
  ::testing::Test::RecordProperty(property, std::to_string(worst));
}

void ExpectEveryLengthAndInPlace(const FloatLoop& run,
                                 const UlpError& ulp_error, double bound,
                                 float first, float step) {
  for (int64_t n = 0; n <= 70; ++n) {
    std::vector<float> x(n + 1);
    for (int64_t i = 0; i < n; ++i) x[i] = first + step * i;
    x[n] = 42.0f;  // past the end: must stay
    std::vector<float> y(n + 1, -7.0f);
    ASSERT_TRUE(run(x.data(), y.data(), n));
    std::vector<float> z = x;
    ASSERT_TRUE(run(z.data(), z.data(), n));
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_LE(ulp_error(x[i], y[i]), bound) << "n=" << n << " i=" << i;
      EXPECT_EQ(z[i], y[i]) << "in place, n=" << n << " i=" << i;
    }
    EXPECT_EQ(y[n], -7.0f) << "n=" << n << ": wrote past the end";
    EXPECT_EQ(z[n], 42.0f) << "n=" << n << ": wrote past the end in place";
  }
}

}  // namespace test
}  // namespace weft
