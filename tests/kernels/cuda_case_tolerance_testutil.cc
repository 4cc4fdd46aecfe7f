// The CUDA-vs-CPU table's tolerance and its comparison
// (tests/kernels/cuda_kernel_cases.h).
#include <cmath>
#include <cstdint>
#include <sstream>
#include <vector>

#include "tests/kernels/cuda_kernel_cases.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft::test {

Tolerance CaseTolerance(const Case& c, DataType dtype) {
  const double u = UnitRoundoff(dtype);
  const bool narrow = dtype == DT_HALF || dtype == DT_BFLOAT16;
  if (!c.float_compute || !narrow) {
    return {c.atol_ulps * u, c.rtol_ulps * u};
  }
  const double f = UnitRoundoff(DT_FLOAT);
  // Below 2^-14 a half rounds to a multiple of 2^-24, each side by at most
  // half of that; bfloat16 has float's exponent range, so its subnormals
  // are float's (below anything these rows produce).
  const double subnormal_steps = dtype == DT_HALF ? 0x1p-24 : 0x1p-149;
  return {1.01 * c.atol_ulps * f + subnormal_steps,
          1.01 * (c.rtol_ulps * f + 2 * u)};
}

testing::AssertionResult WithinTolerance(const Tensor& got, const Tensor& want,
                                         Tolerance tol) {
  if (got.dtype() != want.dtype()) {
    return testing::AssertionFailure()
           << "dtype " << DataTypeName(got.dtype()) << ", expected "
           << DataTypeName(want.dtype());
  }
  if (got.shape() != want.shape()) {
    return testing::AssertionFailure()
           << "shape " << got.shape().DebugString() << ", expected "
           << want.shape().DebugString();
  }
  const std::vector<double> a = ToDoubles(got);
  const std::vector<double> e = ToDoubles(want);
  if (a.size() != e.size()) {
    return testing::AssertionFailure() << "cannot read the elements";
  }
  std::ostringstream os;
  os.precision(9);
  int64_t bad = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    bool ok;
    if (std::isnan(a[i]) || std::isnan(e[i])) {
      ok = std::isnan(a[i]) && std::isnan(e[i]);
    } else if (std::isinf(a[i]) || std::isinf(e[i])) {
      ok = a[i] == e[i];
    } else {
      ok = std::fabs(a[i] - e[i]) <= tol.atol + tol.rtol * std::fabs(e[i]);
    }
    if (ok) continue;
    if (++bad <= 10) {
      os << "\n  element " << i << ": got " << a[i] << ", expected " << e[i]
         << " (difference " << std::fabs(a[i] - e[i]) << ", allowed "
         << tol.atol + tol.rtol * std::fabs(e[i]) << ")";
    }
  }
  if (bad == 0) return testing::AssertionSuccess();
  return testing::AssertionFailure()
         << bad << " of " << a.size() << " elements differ (atol " << tol.atol
         << ", rtol " << tol.rtol << "):" << os.str();
}

}  // namespace weft::test
