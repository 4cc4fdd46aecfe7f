// Replays TensorFlow's reference outputs (testdata/cpu_kernel_goldens.txt,
// written by gen_kernel_goldens.py from tf.raw_ops on the CPU) through the
// weft kernels.
//
// Tolerances, per op family, with u_T the unit roundoff of the dtype (2^-24
// float, 2^-53 double, 2^-11 half, 2^-8 bfloat16) and u_c that of the
// precision weft computes in (float for half and bfloat16):
//  - Add, AddV2, Sub, Mul, RealDiv, Maximum, Minimum, BiasAdd, Relu, Relu6:
//    exact. Each output is one correctly rounded IEEE operation on the same
//    operands in both implementations (half and bfloat16 are widened to
//    float and rounded once by both), so any difference is a bug.
//  - MatMul: |weft - tf| <= k (u_c + u_T) sum_l |a_il b_lj| + 2 u_T |c_ij|:
//    each side is within the dot-product bound k u sum |a b| of the exact
//    value (Higham, eq. 3.5) in its own accumulation precision (TensorFlow
//    may accumulate half in half), plus the final rounding of each.
//  - Softmax: relative (d + 5 + r)(u_c + u_T) + 2 u_T for rows of d values
//    spreading at most r (max - min): the shift x - m (u |x - m| after
//    exp), the exponential (a few ulps), the d-term sum, the reciprocal and
//    product, in each implementation, plus each one's final rounding.
//  - LogSoftmax: absolute (d + 5)(u_c + u_T) (the log of the sum) plus
//    relative 2 (u_c + u_T) (the subtraction and the rounding).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "tests/kernels/golden_testutil.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_golden_test {

using test::ToDoubles;

using test::GoldenCase;

std::string GoldenPath() {
  if (const char* env = std::getenv("WEFT_KERNEL_GOLDENS")) return env;
  return test::GoldenPath("cpu_kernel_goldens.txt");
}

const std::vector<GoldenCase>& Goldens() {
  static const auto* cases = [] {
    StatusOr<std::vector<GoldenCase>> loaded =
        test::LoadGoldenFile(GoldenPath());
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    return new std::vector<GoldenCase>(loaded.ok() ? *std::move(loaded)
                                                   : std::vector<GoldenCase>());
  }();
  return *cases;
}

double ComputeRoundoff(DataType dt) {
  return test::UnitRoundoff(dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT);
}

void CheckMatMul(const GoldenCase& c, const Tensor& got) {
  const bool ta = c.attrs.at("transpose_a").b;
  const bool tb = c.attrs.at("transpose_b").b;
  const Tensor& a = c.inputs[0];
  const Tensor& b = c.inputs[1];
  const int64_t m = a.dim_size(ta ? 1 : 0);
  const int64_t k = a.dim_size(ta ? 0 : 1);
  const int64_t n = b.dim_size(tb ? 0 : 1);
  const DataType dt = c.expected[0].dtype();
  const double u_t = test::UnitRoundoff(dt);
  const double u_c = ComputeRoundoff(dt);
  ASSERT_EQ(got.dtype(), dt);
  ASSERT_EQ(got.shape(), c.expected[0].shape());
  const std::vector<double> av = ToDoubles(a);
  const std::vector<double> bv = ToDoubles(b);
  const std::vector<double> g = ToDoubles(got);
  const std::vector<double> e = ToDoubles(c.expected[0]);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double abs_sum = 0;
      for (int64_t l = 0; l < k; ++l) {
        abs_sum += std::fabs((ta ? av[l * m + i] : av[i * k + l]) *
                             (tb ? bv[j * k + l] : bv[l * n + j]));
      }
      const double tol = k * (u_c + u_t) * abs_sum * 1.0001 +
                         2 * u_t * std::fabs(e[i * n + j]);
      EXPECT_LE(std::fabs(g[i * n + j] - e[i * n + j]), tol)
          << "element [" << i << "," << j << "]: got " << g[i * n + j]
          << ", TensorFlow " << e[i * n + j];
    }
  }
}

// The largest max - min over the finite values of any row (last dimension).
double RowSpread(const Tensor& logits) {
  const std::vector<double> v = ToDoubles(logits);
  const int64_t d = logits.dims() == 0 ? 1 : logits.dim_size(logits.dims() - 1);
  double spread = 0;
  for (size_t r = 0; d > 0 && r * d < v.size(); ++r) {
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < d; ++i) {
      const double x = v[r * d + i];
      if (!std::isfinite(x)) continue;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    if (hi >= lo) spread = std::max(spread, hi - lo);
  }
  return spread;
}

void CheckCase(const GoldenCase& c, const Tensor& got) {
  const DataType dt = c.expected[0].dtype();
  const double u_t = test::UnitRoundoff(dt);
  const double u_c = ComputeRoundoff(dt);
  if (c.op == "MatMul") {
    CheckMatMul(c, got);
  } else if (c.op == "Softmax" || c.op == "LogSoftmax") {
    const TensorShape& s = c.expected[0].shape();
    const int64_t d = s.dims() == 0 ? 1 : s.dim_size(s.dims() - 1);
    if (c.op == "Softmax") {
      test::ExpectTensorNear(
          got, c.expected[0], 0,
          (d + 5 + RowSpread(c.inputs[0])) * (u_c + u_t) + 2 * u_t);
    } else {
      test::ExpectTensorNear(got, c.expected[0], (d + 5) * (u_c + u_t),
                             2 * (u_c + u_t));
    }
  } else {
    test::ExpectTensorEqual(got, c.expected[0]);
  }
}

TEST(CpuGoldenTest, MatchesTensorFlow) {
  const std::vector<GoldenCase>& cases = Goldens();
  ASSERT_FALSE(cases.empty()) << "no cases in " << GoldenPath();
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(GoldenPath() + ":" + std::to_string(c.line) + ": " + c.name);
    StatusOr<std::vector<Tensor>> out =
        test::OpRunner(c.op, c.attrs).Run(c.inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 1u);
    CheckCase(c, (*out)[0]);
  }
}

// Every dtype a kernel of these ops is registered for has at least one
// TensorFlow case, so a newly registered dtype cannot go unchecked.
TEST(CpuGoldenTest, CoversEveryRegisteredDtype) {
  std::set<std::pair<std::string, DataType>> covered;
  for (const GoldenCase& c : Goldens()) {
    covered.insert({c.op, c.expected[0].dtype()});
  }
  for (const char* op :
       {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "MatMul",
        "BiasAdd", "Relu", "Relu6", "Softmax", "LogSoftmax"}) {
    const std::vector<const KernelDef*> defs =
        KernelRegistry::Global()->KernelsForOp(op);
    EXPECT_FALSE(defs.empty()) << "no kernels for " << op;
    for (const KernelDef* def : defs) {
      if (def->device_type != DEVICE_CPU) continue;
      const KernelDef::AttrConstraint* t = def->FindConstraint("T");
      ASSERT_NE(t, nullptr) << op;
      for (DataType dt : t->allowed_types) {
        EXPECT_TRUE(covered.count({op, dt}))
            << op << " has a CPU kernel for " << DataTypeName(dt)
            << " but no golden case; add one to gen_kernel_goldens.py";
      }
    }
  }
}

}  // namespace cpu_golden_test
}  // namespace weft
