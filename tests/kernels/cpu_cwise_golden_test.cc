// Replays TensorFlow's reference outputs for the element-wise ops
// (testdata/cwise_goldens.txt, written by gen_cwise_goldens.py from
// tf.raw_ops on the CPU) through the weft kernels.
//
// Tolerances. With u_T the unit roundoff of the output dtype (2^-24 float,
// 2^-53 double, 2^-11 half, 2^-8 bfloat16), an element passes when
//
//   |weft - tf| <= r u_T |tf| + a u_T + flush_T;
//
// NaN must meet NaN, an infinity the same infinity, and where the tolerance
// is 0 a zero the zero of the same sign. Per op (r, a):
//  - Exact (0, 0): Neg, Abs, Square, Sign, Floor, Ceil, Round, Sqrt,
//    LeakyRelu, Softsign (float, double), Reciprocal (double), Div, DivNoNan,
//    FloorDiv, FloorMod, SquaredDifference, AddN, Cast, the comparisons,
//    logical ops, Select, SelectV2, IsNan, IsFinite. Each result is the same
//    correctly rounded operations in T (or in float, rounded once to half or
//    bfloat16) in both implementations, so any difference is a bug.
//  - Reciprocal in float, half, bfloat16 (2, 0): TensorFlow's float
//    reciprocal is the hardware estimate refined by Newton steps, within an
//    ulp (<= 2 u_T) of weft's correctly rounded 1/x.
//  - Exp, Log, Log1p, Rsqrt, Tanh, Sigmoid, Erf, Softplus, Pow in float
//    (24, 0): both sides are vectorized approximations, each within 6 ulps
//    (12 u_T) of the exact value. TensorFlow's float kernels measure up to
//    5.5 ulps (Sigmoid), 5.2 (Erf), 4.5 (Tanh), 3.4 (Log1p) against a double
//    reference; weft's up to 5.3 (Erf) and 4.7 (Tanh), which
//    cpu_cwise_unary_test.cc bounds. (Softplus right below its switch to
//    exp(x) is 7 ulps from the exact value in both, by TensorFlow's formula,
//    so there the two agree far better than their accuracy.)
//  - Sin, Cos (24, 8): as above, plus the argument reduction of |x| <= 100,
//    which leaves an absolute error of a few ulps of 1 where the result is
//    near 0.
//  - Elu, Selu (24, 8): exp(x) - 1, as TensorFlow computes it, cancels near
//    0, so the error there is absolute: a few ulps of 1 (times Selu's 1.76).
//  - The same ops in double (8, 0), Sin, Cos, Elu, Selu (8, 8): Eigen's
//    double packet functions or the C library, within 2 ulps (4 u_T) on
//    either side (weft's: cpu_cwise_unary_test.cc).
//  - half and bfloat16, every op above that is not exact (4, 4), Elu and
//    Selu (4, 8), Softsign (4, 0): weft computes in float and rounds once;
//    TensorFlow computes in float too but rounds some intermediate results
//    to T (exp(x) before the - 1 of Elu and Selu, |x| + 1 of Softsign). The
//    float results differ by the float bounds above, which rounding to T
//    turns into at most one ulp of T (2 u_T), plus an ulp of each
//    intermediate rounding, relative to the intermediate's size (1 for
//    exp(x) <= 1 in Elu, up to 1.76 in Selu).
//  - flush_T: TensorFlow runs its kernels with denormals flushed to zero
//    (FTZ/DAZ), weft does not, so where a float, bfloat16 or double result
//    or input is below the smallest normal number TensorFlow gives 0:
//    flush_T is that smallest normal (1.2e-38 for float and bfloat16, whose
//    arithmetic is float's, 2.2e-308 for double; 0 for half, whose
//    subnormals are normal floats). This covers Cast of such inputs too.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "tests/kernels/golden_testutil.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_cwise_golden_test {

using test::GoldenCase;
using test::ToDoubles;

std::string GoldenPath() {
  if (const char* env = std::getenv("WEFT_CWISE_GOLDENS")) return env;
  return test::GoldenPath("cwise_goldens.txt");
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

// (r, a) of the file comment, in units of u_T.
struct Tolerance {
  double rel = 0;
  double abs = 0;
};

Tolerance ToleranceFor(const std::string& op, DataType dt) {
  static const auto* approx = new std::set<std::string>{
      "Exp",  "Log",      "Log1p", "Rsqrt", "Tanh", "Sigmoid", "Erf",
      "Erfc", "Softplus", "Pow",   "Sin",   "Cos",  "Elu",     "Selu"};
  const bool absolute =
      op == "Sin" || op == "Cos" || op == "Elu" || op == "Selu";
  const bool narrow = dt == DT_HALF || dt == DT_BFLOAT16;
  if (op == "Reciprocal")
    return dt == DT_DOUBLE ? Tolerance{} : Tolerance{2, 0};
  if (op == "Softsign") return narrow ? Tolerance{4, 0} : Tolerance{};
  if (!approx->count(op)) return {};
  if (narrow) return {4, (op == "Elu" || op == "Selu") ? 8.0 : 4.0};
  return {dt == DT_DOUBLE ? 8.0 : 24.0, absolute ? 8.0 : 0.0};
}

double SmallestNormal(DataType dt) {
  switch (dt) {
    case DT_FLOAT:
    case DT_BFLOAT16:
      return std::numeric_limits<float>::min();
    case DT_DOUBLE:
      return std::numeric_limits<double>::min();
    default:
      return 0;
  }
}

// Where weft deliberately gives another value than TensorFlow's kernel: the
// value weft gives for input x, else nullopt.
//  - Round of an integer: TensorFlow 2.21's raw Round kernel for int32 and
//    int64 returns 0 for every element (tf.math.round never calls it for
//    integers: it returns x). weft returns x, the documented meaning.
//  - Erf of +-inf in double: TensorFlow 2.21 gives NaN (its Eigen's double
//    erf); erf(+-inf) = +-1, which weft gives, as TensorFlow does for float,
//    half and bfloat16.
std::optional<double> Deviation(const GoldenCase& c, double x) {
  const DataType dt = c.expected[0].dtype();
  if (c.op == "Round" && !DataTypeIsFloating(dt)) return x;
  if (c.op == "Erf" && dt == DT_DOUBLE && std::isinf(x)) {
    return x > 0 ? 1.0 : -1.0;
  }
  return std::nullopt;
}

void CheckOutput(const GoldenCase& c, const Tensor& got) {
  const Tensor& want = c.expected[0];
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  const DataType dt = want.dtype();
  if (c.op == "Round" && !DataTypeIsFloating(dt)) {
    test::ExpectTensorEqual(got, c.inputs[0]);  // see Deviation
    return;
  }
  if (!DataTypeIsFloating(dt)) {
    test::ExpectTensorEqual(got, want);
    return;
  }
  const Tolerance tol = ToleranceFor(c.op, dt);
  const double u = test::UnitRoundoff(dt);
  const double flush = SmallestNormal(dt);
  const std::vector<double> g = ToDoubles(got);
  std::vector<double> e = ToDoubles(want);
  const std::vector<double> in = ToDoubles(c.inputs[0]);
  if (in.size() == e.size()) {
    for (size_t i = 0; i < e.size(); ++i) {
      if (std::optional<double> d = Deviation(c, in[i])) e[i] = *d;
    }
  }
  int reported = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    bool ok;
    if (std::isnan(e[i])) {
      ok = std::isnan(g[i]);
    } else if (g[i] == e[i]) {
      // Zeros must agree in sign too where the op is exact.
      ok = e[i] != 0 || tol.rel > 0 || flush > 0 ||
           std::signbit(g[i]) == std::signbit(e[i]);
    } else {
      const double bound = tol.rel * u * std::fabs(e[i]) + tol.abs * u + flush;
      ok = !std::isinf(e[i]) && std::fabs(g[i] - e[i]) <= bound;
    }
    if (!ok && ++reported <= 10) {
      ADD_FAILURE() << "element " << i << ": weft " << g[i] << ", TensorFlow "
                    << e[i] << " (x = "
                    << (in.size() == e.size() ? std::to_string(in[i]) : "?")
                    << "), difference " << std::fabs(g[i] - e[i]) / u << " u_T";
    }
  }
}

TEST(CpuCwiseGoldenTest, MatchesTensorFlow) {
  const std::vector<GoldenCase>& cases = Goldens();
  ASSERT_FALSE(cases.empty()) << "no cases in " << GoldenPath();
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(GoldenPath() + ":" + std::to_string(c.line) + ": " + c.name);
    StatusOr<std::vector<Tensor>> out =
        test::OpRunner(c.op, c.attrs).Run(c.inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 1u);
    CheckOutput(c, (*out)[0]);
  }
}

// The same cases on a session-like arena of 2 threads give the same results
// bit for bit (the golden inputs are small, so this mostly checks that the
// kernels run there; cpu_cwise_*_test.cc split large inputs).
TEST(CpuCwiseGoldenTest, SameResultsOnTwoThreads) {
  for (const GoldenCase& c : Goldens()) {
    SCOPED_TRACE(c.name);
    StatusOr<std::vector<Tensor>> one =
        test::OpRunner(c.op, c.attrs, 0).Run(c.inputs);
    StatusOr<std::vector<Tensor>> two =
        test::OpRunner(c.op, c.attrs, 2).Run(c.inputs);
    ASSERT_TRUE(one.ok()) << one.status();
    ASSERT_TRUE(two.ok()) << two.status();
    test::ExpectTensorEqual((*two)[0], (*one)[0]);
  }
}

const char* const kOps[] = {"Neg",          "Abs",        "Exp",
                            "Log",          "Log1p",      "Sqrt",
                            "Rsqrt",        "Square",     "Reciprocal",
                            "Sign",         "Floor",      "Ceil",
                            "Round",        "Tanh",       "Sigmoid",
                            "LeakyRelu",    "Elu",        "Selu",
                            "Softplus",     "Softsign",   "Erf",
                            "Erfc",         "Sin",        "Cos",
                            "Div",          "DivNoNan",   "FloorDiv",
                            "FloorMod",     "Pow",        "SquaredDifference",
                            "AddN",         "Equal",      "NotEqual",
                            "Less",         "LessEqual",  "Greater",
                            "GreaterEqual", "LogicalAnd", "LogicalOr",
                            "LogicalNot",   "Select",     "SelectV2",
                            "IsNan",        "IsFinite",   "Cast"};

// The dtype a case exercises for `attr`: the input's for T and SrcT, the
// output's for DstT.
DataType CaseType(const GoldenCase& c, const std::string& attr) {
  if (attr == "DstT") return c.expected[0].dtype();
  if (c.op == "Select" || c.op == "SelectV2") return c.inputs[1].dtype();
  return c.inputs[0].dtype();
}

// Every dtype a kernel of these ops is registered for has at least one
// TensorFlow case (for Cast, every source and every destination), so a newly
// registered dtype cannot go unchecked.
TEST(CpuCwiseGoldenTest, CoversEveryRegisteredDtype) {
  std::set<std::pair<std::string, DataType>> covered;
  std::set<std::pair<DataType, DataType>> casts;
  for (const GoldenCase& c : Goldens()) {
    for (const char* attr : {"T", "SrcT", "DstT"}) {
      covered.insert({c.op + "/" + attr, CaseType(c, attr)});
    }
    if (c.op == "Cast") {
      casts.insert({c.inputs[0].dtype(), c.expected[0].dtype()});
    }
  }
  for (const char* op : kOps) {
    const std::vector<const KernelDef*> defs =
        KernelRegistry::Global()->KernelsForOp(op);
    EXPECT_FALSE(defs.empty()) << "no kernels for " << op;
    for (const KernelDef* def : defs) {
      if (def->device_type != DEVICE_CPU) continue;
      for (const KernelDef::AttrConstraint& t : def->constraints) {
        for (DataType dt : t.allowed_types) {
          EXPECT_TRUE(covered.count({std::string(op) + "/" + t.name, dt}))
              << op << " has a CPU kernel for " << t.name << "="
              << DataTypeName(dt)
              << " but no golden case; add one to gen_cwise_goldens.py";
        }
      }
      if (std::string(op) == "Cast") {
        const KernelDef::AttrConstraint* src = def->FindConstraint("SrcT");
        const KernelDef::AttrConstraint* dst = def->FindConstraint("DstT");
        ASSERT_NE(src, nullptr);
        ASSERT_NE(dst, nullptr);
        for (DataType s : src->allowed_types) {
          for (DataType d : dst->allowed_types) {
            EXPECT_TRUE(casts.count({s, d}))
                << "no golden case for Cast " << DataTypeName(s) << " -> "
                << DataTypeName(d);
          }
        }
      }
    }
  }
}

}  // namespace cpu_cwise_golden_test
}  // namespace weft
