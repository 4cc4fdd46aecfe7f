// The element-wise unary kernels (math, activations, rounding, sign, IsNan,
// IsFinite, LogicalNot) against references computed here: the C library's
// double-precision functions for the math, the definitions for the rest.
// TensorFlow's own outputs are checked in cpu_cwise_golden_test.cc.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_cwise_unary_test {

using test::AsScalar;
using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::OpRunner;
using test::ToDoubles;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

StatusOr<Tensor> RunOne(const std::string& op, const Tensor& x,
                        AttrMap attrs = {}, int threads = 0) {
  OpRunner runner(op, std::move(attrs), threads);
  WEFT_ASSIGN_OR_RETURN(std::vector<Tensor> out, runner.Run({x}));
  return out[0];
}

Tensor MustRun(const std::string& op, const Tensor& x, AttrMap attrs = {},
               int threads = 0) {
  StatusOr<Tensor> out = RunOne(op, x, std::move(attrs), threads);
  EXPECT_TRUE(out.ok()) << op << ": " << out.status();
  return out.ok() ? *out : Tensor();
}

// The definitions, in double. The activations use TensorFlow's formulas
// (Elu as exp(x) - 1, not expm1), with constants as TensorFlow rounds them
// for float.
double Selu(double x) {
  const double scale = static_cast<float>(1.0507009873554804934193349852946);
  const double scale_alpha =
      static_cast<float>(1.7580993408473768599402175208123);
  return x < 0 ? scale_alpha * (std::exp(x) - 1) : scale * x;
}

const std::map<std::string, std::function<double(double)>>& MathOps() {
  static const auto* ops =
      new std::map<std::string, std::function<double(double)>>{
          {"Exp", [](double x) { return std::exp(x); }},
          {"Log", [](double x) { return std::log(x); }},
          {"Log1p", [](double x) { return std::log1p(x); }},
          {"Sqrt", [](double x) { return std::sqrt(x); }},
          {"Rsqrt", [](double x) { return 1 / std::sqrt(x); }},
          {"Sin", [](double x) { return std::sin(x); }},
          {"Cos", [](double x) { return std::cos(x); }},
          {"Tanh", [](double x) { return std::tanh(x); }},
          {"Sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }},
          {"Erf", [](double x) { return std::erf(x); }},
          {"Erfc", [](double x) { return std::erfc(x); }},
          {"Elu", [](double x) { return x < 0 ? std::exp(x) - 1 : x; }},
          {"Selu", Selu},
          {"Softplus",
           [](double x) {
             return x > 0 ? x + std::log1p(std::exp(-x))
                          : std::log1p(std::exp(x));
           }},
          {"Softsign", [](double x) { return x / (std::fabs(x) + 1); }},
      };
  return *ops;
}

// The domain each op is swept over, and the accuracy weft's float kernel
// keeps there: |weft - exact| <= ulps * ulp(exact) + abs_ulps * ulp(1), with
// ulp(v) the spacing of floats at v. The bounds are those of Eigen 3.4's
// vectorized approximations (a few ulps) and of the formulas: Sin and Cos
// lose a few ulps of 1 to argument reduction, Elu and Selu compute exp(x) - 1
// and so keep an absolute error of an ulp of 1 near 0, Tanh and Erf use
// rational approximations whose error near the saturation at 1 is absolute.
struct Sweep {
  double lo, hi;
  double ulps, abs_ulps;
};

const std::map<std::string, Sweep>& Sweeps() {
  static const auto* sweeps = new std::map<std::string, Sweep>{
      {"Exp", {-87, 88, 2, 0}},         {"Log", {1e-30, 1e30, 2, 1}},
      {"Log1p", {-0.999, 1e6, 3, 0}},   {"Sqrt", {0, 1e30, 0.5, 0}},
      {"Rsqrt", {1e-30, 1e30, 1.5, 0}}, {"Sin", {-100, 100, 2, 2}},
      {"Cos", {-100, 100, 2, 2}},       {"Tanh", {-10, 10, 4, 4}},
      {"Sigmoid", {-100, 40, 4, 0}},    {"Erf", {-5, 5, 4, 4}},
      {"Erfc", {-4, 10, 4, 4}},         {"Elu", {-20, 20, 3, 2}},
      {"Selu", {-20, 20, 3, 4}},        {"Softplus", {-30, 30, 4, 1}},
      {"Softsign", {-1e4, 1e4, 1, 0}},
  };
  return *sweeps;
}

double FloatUlp(double v) {
  const float a = static_cast<float>(std::fabs(v));
  return static_cast<double>(std::nextafter(a, INFINITY) - a);
}

// Values spread over [lo, hi], geometrically where the range spans decades.
std::vector<double> SweepValues(const Sweep& s, int n) {
  std::vector<double> v;
  std::mt19937 rng(42);
  for (int i = 0; i < n; ++i) {
    double x;
    if (s.lo > 0 && s.hi / s.lo > 1e3) {
      std::uniform_real_distribution<double> e(std::log(s.lo), std::log(s.hi));
      x = std::exp(e(rng));
    } else {
      std::uniform_real_distribution<double> u(s.lo, s.hi);
      x = u(rng);
    }
    v.push_back(static_cast<float>(x));
  }
  return v;
}

TEST(CwiseUnaryTest, FloatMathWithinItsBoundOfTheExactValue) {
  for (const auto& [op, fn] : MathOps()) {
    SCOPED_TRACE(op);
    const Sweep& s = Sweeps().at(op);
    const std::vector<double> x = SweepValues(s, 4096);
    const Tensor got = MustRun(
        op, AsTensorOfType(DT_FLOAT, x, {static_cast<int64_t>(x.size())}));
    const std::vector<double> g = ToDoubles(got);
    // The element furthest beyond its bound, relative to the bound.
    double worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double exact = fn(x[i]);
      const double bound =
          s.ulps * FloatUlp(exact) + s.abs_ulps * FloatUlp(1.0);
      const double ratio = std::fabs(g[i] - exact) / bound;
      if (!(ratio <= worst)) {
        worst = ratio;
        at = i;
      }
    }
    EXPECT_LE(worst, 1.0) << op << "(" << x[at] << "): weft " << g[at]
                          << ", exact " << fn(x[at]);
  }
}

// double goes through Eigen's double packet functions or the C library:
// within a couple of ulps of the exact value (long double reference).
TEST(CwiseUnaryTest, DoubleMathWithinTwoUlps) {
  const std::map<std::string, long double (*)(long double)> ops = {
      {"Exp", [](long double x) { return std::exp(x); }},
      {"Log", [](long double x) { return std::log(x); }},
      {"Log1p", [](long double x) { return std::log1p(x); }},
      {"Sqrt", [](long double x) { return std::sqrt(x); }},
      {"Sin", [](long double x) { return std::sin(x); }},
      {"Cos", [](long double x) { return std::cos(x); }},
      {"Tanh", [](long double x) { return std::tanh(x); }},
      {"Erf", [](long double x) { return std::erf(x); }},
      {"Sigmoid", [](long double x) { return 1 / (1 + std::exp(-x)); }},
  };
  for (const auto& [op, fn] : ops) {
    SCOPED_TRACE(op);
    const Sweep& s = Sweeps().at(op);
    std::vector<double> x;
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(s.lo > 0 ? 1e-3 : s.lo,
                                             std::min(s.hi, 80.0));
    for (int i = 0; i < 1000; ++i) x.push_back(u(rng));
    const std::vector<double> g =
        ToDoubles(MustRun(op, AsTensorOfType(DT_DOUBLE, x, {1000})));
    for (size_t i = 0; i < x.size(); ++i) {
      const long double exact = fn(x[i]);
      const double ulp =
          std::nextafter(std::fabs(static_cast<double>(exact)), kInf) -
          std::fabs(static_cast<double>(exact));
      // Sin and Cos: argument reduction, up to an ulp of 1.
      const double slack = (op == "Sin" || op == "Cos") ? 2.3e-16 : 0;
      ASSERT_LE(std::fabs(static_cast<long double>(g[i]) - exact),
                2 * ulp + slack)
          << op << "(" << x[i] << ")";
    }
  }
}

// Special values, each from the function's definition (IEEE 754 and C's
// Annex F) or TensorFlow's formula where that decides (Softsign(inf) is
// inf / inf), for every floating dtype.
TEST(CwiseUnaryTest, SpecialValues) {
  struct Case {
    const char* op;
    double x;
    double y;
  };
  const std::vector<Case> cases = {
      {"Exp", -kInf, 0},
      {"Exp", kInf, kInf},
      {"Exp", 0, 1},
      {"Exp", kNan, kNan},
      {"Exp", -1000, 0},
      {"Log", 0, -kInf},
      {"Log", -0.0, -kInf},
      {"Log", -1, kNan},
      {"Log", kInf, kInf},
      {"Log", 1, 0},
      {"Log1p", -1, -kInf},
      {"Log1p", -2, kNan},
      {"Log1p", kInf, kInf},
      {"Log1p", -0.0, -0.0},
      {"Sqrt", -0.0, -0.0},
      {"Sqrt", kInf, kInf},
      {"Sqrt", -1, kNan},
      {"Sqrt", 4, 2},
      {"Rsqrt", 0, kInf},
      {"Rsqrt", -0.0, -kInf},
      {"Rsqrt", kInf, 0},
      {"Rsqrt", -4, kNan},
      {"Rsqrt", 4, 0.5},
      {"Sin", kInf, kNan},
      {"Sin", -0.0, -0.0},
      {"Cos", kInf, kNan},
      {"Cos", 0, 1},
      {"Tanh", kInf, 1},
      {"Tanh", -kInf, -1},
      {"Tanh", -0.0, -0.0},
      {"Tanh", kNan, kNan},
      {"Sigmoid", kInf, 1},
      {"Sigmoid", -kInf, 0},
      {"Sigmoid", 0, 0.5},
      {"Sigmoid", kNan, kNan},
      {"Erf", kInf, 1},
      {"Erfc", kInf, 0},
      {"Erfc", -kInf, 2},
      {"Erfc", 0, 1},
      {"Erfc", kNan, kNan},
      {"Erf", -kInf, -1},
      {"Erf", 0, 0},
      {"Erf", kNan, kNan},
      {"Elu", -kInf, -1},
      {"Elu", kInf, kInf},
      {"Elu", kNan, kNan},
      {"Elu", -0.0, -0.0},
      {"Selu", kInf, kInf},
      {"Selu", kNan, kNan},
      {"Softplus", kInf, kInf},
      {"Softplus", -kInf, 0},
      {"Softplus", kNan, kNan},
      {"Softsign", kInf, kNan},
      {"Softsign", -0.0, -0.0},
      {"Softsign", 1, 0.5},
      {"Neg", 0, -0.0},
      {"Neg", kInf, -kInf},
      {"Abs", -0.0, 0},
      {"Abs", -kInf, kInf},
      {"Square", -kInf, kInf},
      {"Square", -3, 9},
      {"Reciprocal", 0, kInf},
      {"Reciprocal", -0.0, -kInf},
      {"Reciprocal", kInf, 0},
      {"Reciprocal", 4, 0.25},
      {"Sign", kNan, kNan},
      {"Sign", -0.0, 0},
      {"Sign", -kInf, -1},
      {"Sign", 1e-3, 1},
      {"Floor", -0.0, -0.0},
      {"Floor", -0.5, -1},
      {"Floor", 0.5, 0},
      {"Floor", kInf, kInf},
      {"Floor", kNan, kNan},
      {"Floor", -3, -3},
      {"Ceil", -0.5, -0.0},
      {"Ceil", -0.0, -0.0},
      {"Ceil", 0.25, 1},
      {"Ceil", -kInf, -kInf},
      {"Round", 0.5, 0},
      {"Round", 1.5, 2},
      {"Round", 2.5, 2},
      {"Round", -0.5, -0.0},
      {"Round", -2.5, -2},
      {"Round", -0.25, -0.0},
      {"Round", kNan, kNan},
      {"Round", kInf, kInf},
  };
  for (DataType dt : {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.op) + "(" + std::to_string(c.x) + ") " +
                   DataTypeName(dt));
      const Tensor got = MustRun(c.op, AsTensorOfType(dt, {c.x}, {1}));
      const double g = ToDoubles(got)[0];
      if (std::isnan(c.y)) {
        EXPECT_TRUE(std::isnan(g)) << g;
      } else {
        EXPECT_EQ(g, c.y);
        EXPECT_EQ(std::signbit(g), std::signbit(c.y)) << "sign of " << g;
      }
    }
  }
}

// Large magnitudes where the SSE2 rounding tricks must leave values alone.
TEST(CwiseUnaryTest, RoundingKeepsIntegersAndLargeValues) {
  const std::vector<double> x = {8388607.5, -8388607.5, 8388608,  -8388609,
                                 1e20,      -1e20,      16777217, 0.49999997};
  for (const char* op : {"Floor", "Ceil", "Round"}) {
    SCOPED_TRACE(op);
    for (DataType dt : {DT_FLOAT, DT_DOUBLE}) {
      const Tensor in = AsTensorOfType(dt, x, {8});
      const std::vector<double> xs = ToDoubles(in);
      std::vector<double> want;
      for (double v : xs) {
        want.push_back(std::string(op) == "Floor"  ? std::floor(v)
                       : std::string(op) == "Ceil" ? std::ceil(v)
                                                   : std::nearbyint(v));
      }
      ExpectTensorEqual(MustRun(op, in), AsTensorOfType(dt, want, {8}));
    }
  }
}

// The exact ops in half and bfloat16: the float result rounded once.
TEST(CwiseUnaryTest, HalfAndBfloat16RoundTheFloatResultOnce) {
  const std::vector<double> x = {0.1, 2.75, 3.3, 100.5, 0.007, 1000, 5e-4};
  const std::map<std::string, std::function<double(double)>> ops = {
      {"Neg", [](double v) { return -v; }},
      {"Abs", [](double v) { return std::fabs(v); }},
      {"Square", [](double v) { return v * v; }},
      {"Reciprocal", [](double v) { return 1 / v; }},
      {"Sqrt", [](double v) { return std::sqrt(v); }},
  };
  for (DataType dt : {DT_HALF, DT_BFLOAT16}) {
    for (double sign : {1.0, -1.0}) {
      std::vector<double> signed_x;
      for (double v : x) signed_x.push_back(sign * v);
      const Tensor in = AsTensorOfType(dt, signed_x, {7});
      const std::vector<double> xs = ToDoubles(in);
      for (const auto& [op, fn] : ops) {
        if (op == "Sqrt" && sign < 0) continue;
        SCOPED_TRACE(op + " " + DataTypeName(dt));
        // The double result is float's correctly rounded one after rounding
        // to float (products and quotients of these few-bit values are
        // exact or rounded once either way); then rounded to dt.
        std::vector<double> want;
        for (double v : xs) want.push_back(static_cast<float>(fn(v)));
        ExpectTensorEqual(MustRun(op, in), AsTensorOfType(dt, want, {7}));
      }
    }
  }
}

TEST(CwiseUnaryTest, IntegerOpsWrapLikeTensorFlow) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  const Tensor x = AsTensor<int32_t>({kMin, kMax, -5, 0, 7, 46341}, {6});
  ExpectTensorEqual(MustRun("Neg", x),
                    AsTensor<int32_t>({kMin, -kMax, 5, 0, -7, -46341}, {6}));
  ExpectTensorEqual(MustRun("Abs", x),
                    AsTensor<int32_t>({kMin, kMax, 5, 0, 7, 46341}, {6}));
  // 46341^2 = 2147488281 = 2^31 + 4633 wraps to -2^31 + 4633; kMax^2 =
  // 2^62 - 2^32 + 1 keeps 1; kMin^2 = 2^62 keeps 0.
  ExpectTensorEqual(MustRun("Square", x),
                    AsTensor<int32_t>({0, 1, 25, 0, 49, kMin + 4633}, {6}));
  ExpectTensorEqual(MustRun("Sign", x),
                    AsTensor<int32_t>({-1, 1, -1, 0, 1, 1}, {6}));
  ExpectTensorEqual(MustRun("Round", x), x);

  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  const Tensor y = AsTensor<int64_t>({kMin64, -3, 3037000500}, {3});
  ExpectTensorEqual(MustRun("Neg", y),
                    AsTensor<int64_t>({kMin64, 3, -3037000500}, {3}));
  ExpectTensorEqual(MustRun("Abs", y),
                    AsTensor<int64_t>({kMin64, 3, 3037000500}, {3}));
  // 3037000500^2 = 9223372037000250000 = 2^63 + 145474192 wraps negative.
  ExpectTensorEqual(MustRun("Square", y),
                    AsTensor<int64_t>({0, 9, kMin64 + 145474192}, {3}));
  ExpectTensorEqual(MustRun("Sign", y), AsTensor<int64_t>({-1, -1, 1}, {3}));
  ExpectTensorEqual(MustRun("Round", y), y);
}

// TensorFlow's Softplus switches to x above -t and to exp(x) below t, with
// t = log(epsilon) + 2 computed in T: -7.0078125 for half (Eigen's half
// epsilon is 2^-13), -2.84375 for bfloat16 (2^-7), about -13.94 for float
// and -34.04 for double. On either side of each switch the result is the
// branch's formula exactly.
TEST(CwiseUnaryTest, SoftplusSwitchesAtTensorFlowsThresholds) {
  struct Case {
    DataType dt;
    double below;  // largest value given exp(x)
    double above;  // smallest value given x
  };
  for (const Case& c :
       {Case{DT_HALF, -7.01171875, 7.01171875},
        Case{DT_BFLOAT16, -2.859375, 2.859375},
        Case{DT_FLOAT, -13.9424, 13.9424}, Case{DT_DOUBLE, -34.044, 34.044}}) {
    SCOPED_TRACE(DataTypeName(c.dt));
    const Tensor in = AsTensorOfType(c.dt, {c.below, c.above}, {2});
    const std::vector<double> xs = ToDoubles(in);
    const std::vector<double> got = ToDoubles(MustRun("Softplus", in));
    const double e = ToDoubles(AsTensorOfType(
        c.dt,
        {c.dt == DT_DOUBLE ? std::exp(xs[0])
                           : static_cast<float>(std::exp(xs[0]))},
        {1}))[0];
    EXPECT_NEAR(got[0], e, std::fabs(e) * 4 * test::UnitRoundoff(c.dt));
    EXPECT_EQ(got[1], xs[1]);
  }
}

TEST(CwiseUnaryTest, LeakyReluUsesAlphaRoundedToT) {
  const Tensor x = AsTensor<float>({-2, -0.0f, 3, NAN}, {4});
  for (float alpha : {0.2f, 1.5f, -0.5f, 0.0f}) {
    SCOPED_TRACE(alpha);
    AttrMap attrs = {{"alpha", AttrValue::Float(alpha)}};
    const std::vector<double> g = ToDoubles(MustRun("LeakyRelu", x, attrs));
    EXPECT_EQ(g[0], -2 * alpha);
    EXPECT_EQ(g[1], -0.0f * alpha);
    EXPECT_EQ(std::signbit(g[1]), std::signbit(-0.0f * alpha));
    EXPECT_EQ(g[2], 3);
    EXPECT_TRUE(std::isnan(g[3]));
  }
  // alpha 0.1 is 0.0999755859375 in half: the product is of two halves,
  // exact in float, rounded once.
  AttrMap attrs = {{"alpha", AttrValue::Float(0.1f)}};
  const Tensor h = AsTensorOfType(DT_HALF, {-3}, {1});
  const double alpha_half = ToDoubles(AsTensorOfType(DT_HALF, {0.1}, {1}))[0];
  ExpectTensorEqual(MustRun("LeakyRelu", h, attrs),
                    AsTensorOfType(DT_HALF, {-3 * alpha_half}, {1}));
}

TEST(CwiseUnaryTest, PredicatesAndLogicalNot) {
  for (DataType dt : {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE}) {
    SCOPED_TRACE(DataTypeName(dt));
    const Tensor x = AsTensorOfType(dt, {kNan, kInf, -kInf, 0, -1.5}, {5});
    ExpectTensorEqual(MustRun("IsNan", x),
                      AsTensor<bool>({true, false, false, false, false}, {5}));
    ExpectTensorEqual(MustRun("IsFinite", x),
                      AsTensor<bool>({false, false, false, true, true}, {5}));
  }
  ExpectTensorEqual(MustRun("LogicalNot", AsTensor<bool>({true, false}, {2})),
                    AsTensor<bool>({false, true}, {2}));
}

const char* const kFloatOps[] = {
    "Neg",      "Abs",      "Exp",        "Log",       "Log1p", "Sqrt",
    "Rsqrt",    "Square",   "Reciprocal", "Sign",      "Floor", "Ceil",
    "Round",    "Tanh",     "Sigmoid",    "LeakyRelu", "Elu",   "Selu",
    "Softplus", "Softsign", "Erf",        "Sin",       "Cos"};

// A large tensor (split across threads at threads = 2) gives the same bits
// as on one thread, and as each element computed on its own: no element's
// result depends on where a block starts or ends.
TEST(CwiseUnaryTest, ResultsDoNotDependOnThreadsOrPosition) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-30, 30);
  std::vector<double> v(100003);
  for (double& x : v) x = u(rng);
  for (DataType dt : {DT_FLOAT, DT_HALF, DT_DOUBLE}) {
    const Tensor x = AsTensorOfType(dt, v, {static_cast<int64_t>(v.size())});
    for (const char* op : kFloatOps) {
      SCOPED_TRACE(std::string(op) + " " + DataTypeName(dt));
      const Tensor one = MustRun(op, x, {}, 0);
      const Tensor two = MustRun(op, x, {}, 2);
      ExpectTensorEqual(two, one);
      // Elements 0..12 computed alone and in runs of odd lengths.
      const std::vector<double> all = ToDoubles(one);
      const std::vector<double> xs = ToDoubles(x);
      for (int len : {1, 3, 5}) {
        for (int start = 0; start + len <= 13; start += len) {
          std::vector<double> part(xs.begin() + start,
                                   xs.begin() + start + len);
          const std::vector<double> got =
              ToDoubles(MustRun(op, AsTensorOfType(dt, part, {len})));
          for (int i = 0; i < len; ++i) {
            ASSERT_TRUE(got[i] == all[start + i] ||
                        (std::isnan(got[i]) && std::isnan(all[start + i])))
                << "element " << start + i << " alone in a run of " << len
                << ": " << got[i] << " vs " << all[start + i];
          }
        }
      }
    }
  }
}

TEST(CwiseUnaryTest, EmptyScalarAndHigherRank) {
  for (const char* op : kFloatOps) {
    SCOPED_TRACE(op);
    const Tensor empty = MustRun(op, Tensor(DT_FLOAT, {0, 3}));
    EXPECT_EQ(empty.shape(), TensorShape({0, 3}));
    const Tensor scalar = MustRun(op, AsScalar<float>(0.5f));
    EXPECT_EQ(scalar.shape(), TensorShape());
    const Tensor cube = MustRun(
        op, AsTensorOfType(DT_FLOAT, std::vector<double>(24, 0.5), {2, 3, 4}));
    EXPECT_EQ(cube.shape(), TensorShape({2, 3, 4}));
    // Every element equals the scalar's result.
    for (double g : ToDoubles(cube)) EXPECT_EQ(g, ToDoubles(scalar)[0]);
  }
}

TEST(CwiseUnaryTest, ForwardsAnUnsharedInput) {
  OpRunner runner("Exp");
  Tensor x = AsTensor<float>({0, 1}, {2});
  const void* buffer = x.raw_data();
  StatusOr<std::vector<Tensor>> out = runner.Run(test::Inputs(std::move(x)));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].raw_data(), buffer);

  Tensor shared = AsTensor<float>({0, 1}, {2});
  out = runner.Run({shared});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NE((*out)[0].raw_data(), shared.raw_data());
  ExpectTensorEqual(shared, AsTensor<float>({0, 1}, {2}));
}

// Dtypes TensorFlow has no CPU kernel for are refused: by the op's own type
// list, or, where the op allows the type but TensorFlow's CPU kernels do not
// (Reciprocal of integers, Sign of int8), at kernel lookup.
TEST(CwiseUnaryTest, UnregisteredDtypesAreRefused) {
  struct Case {
    const char* op;
    DataType dt;
    const char* message;
  };
  for (const Case& c :
       {Case{"Exp", DT_INT32, "allowed"}, Case{"Floor", DT_INT64, "allowed"},
        Case{"Reciprocal", DT_INT32, "no kernel"},
        Case{"Sign", DT_INT8, "no kernel"},
        Case{"Square", DT_UINT8, "no kernel"}}) {
    SCOPED_TRACE(c.op);
    StatusOr<Tensor> out = RunOne(c.op, AsTensorOfType(c.dt, {1}, {1}));
    ASSERT_FALSE(out.ok());
    EXPECT_TRUE(absl::StrContains(out.status().message(), c.message))
        << out.status();
  }
}

}  // namespace cpu_cwise_unary_test
}  // namespace weft
