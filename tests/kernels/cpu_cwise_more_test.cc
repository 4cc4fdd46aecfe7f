// Div, DivNoNan, FloorDiv, FloorMod, Pow, SquaredDifference, the comparisons,
// LogicalAnd/Or and AddN, against references written independently here:
// integer results from exact wide arithmetic (then wrapped), floating ones
// from the definitions on values where they are exact, broadcasting by brute
// force over output indices. TensorFlow's own outputs are checked in
// cpu_cwise_golden_test.cc.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_cwise_more_test {

using test::AsScalar;
using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::OpRunner;
using test::ToDoubles;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

StatusOr<Tensor> RunOp(const std::string& op, std::vector<Tensor> inputs,
                       AttrMap attrs = {}, int threads = 0) {
  OpRunner runner(op, std::move(attrs), threads);
  WEFT_ASSIGN_OR_RETURN(std::vector<Tensor> out, runner.Run(std::move(inputs)));
  return out[0];
}

Tensor MustRun(const std::string& op, std::vector<Tensor> inputs,
               AttrMap attrs = {}, int threads = 0) {
  StatusOr<Tensor> out =
      RunOp(op, std::move(inputs), std::move(attrs), threads);
  EXPECT_TRUE(out.ok()) << op << ": " << out.status();
  return out.ok() ? *out : Tensor();
}

// ---- integer semantics, from exact arithmetic -------------------------------

using Wide = __int128;

// The exact value wrapped to T (two's complement).
template <typename T>
T Wrap(Wide v) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<unsigned __int128>(v)));
}

Wide FloorDivExact(Wide a, Wide b) {
  Wide q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

template <typename T>
T IntReference(const std::string& op, T a, T b) {
  const Wide x = a, y = b;
  if (op == "Div") return Wrap<T>(x / y);
  if (op == "FloorDiv") return Wrap<T>(FloorDivExact(x, y));
  if (op == "FloorMod") return Wrap<T>(x - FloorDivExact(x, y) * y);
  if (op == "SquaredDifference") return Wrap<T>((x - y) * (x - y));
  if (op == "Pow") {
    // b multiplications, each wrapped (the low bits of a product depend only
    // on the low bits of its factors).
    T r = 1;
    for (T i = 0; i < b; ++i) r = Wrap<T>(Wide(r) * x);
    return r;
  }
  ADD_FAILURE() << op;
  return 0;
}

template <typename T>
class IntBinaryTest : public ::testing::Test {};
using IntTypes = ::testing::Types<int32_t, int64_t>;
TYPED_TEST_SUITE(IntBinaryTest, IntTypes);

TYPED_TEST(IntBinaryTest, MatchesExactArithmetic) {
  using T = TypeParam;
  constexpr T kMin = std::numeric_limits<T>::min();
  constexpr T kMax = std::numeric_limits<T>::max();
  const std::vector<T> xs = {-7,       7, -7,   7,    0, kMin, kMin, kMin,
                             kMin + 1, 5, kMax, kMin, 6, -6,   1,    -1};
  const std::vector<T> ys = {2,  2,    -2, -2,   3,  -1, 1,    3,
                             -2, kMin, -1, kMin, -4, 4,  kMax, kMin};
  const int64_t n = xs.size();
  for (const char* op : {"Div", "FloorDiv", "FloorMod", "SquaredDifference"}) {
    SCOPED_TRACE(op);
    std::vector<T> want;
    for (int64_t i = 0; i < n; ++i)
      want.push_back(IntReference<T>(op, xs[i], ys[i]));
    ExpectTensorEqual(MustRun(op, {AsTensor<T>(xs, {n}), AsTensor<T>(ys, {n})}),
                      AsTensor<T>(want, {n}));
  }
  const std::vector<T> bases = {2, 3, -2, 0, 1, -1, -3, 7, 2, kMin, 0, 10};
  const std::vector<T> exps = {3, 40, 3, 0, 100, 7, 21, 0, 70, 2, 5, 19};
  std::vector<T> want;
  for (size_t i = 0; i < bases.size(); ++i) {
    want.push_back(IntReference<T>("Pow", bases[i], exps[i]));
  }
  const int64_t m = bases.size();
  ExpectTensorEqual(
      MustRun("Pow", {AsTensor<T>(bases, {m}), AsTensor<T>(exps, {m})}),
      AsTensor<T>(want, {m}));
}

TYPED_TEST(IntBinaryTest, DivisionByZeroAndNegativeExponentsAreErrors) {
  using T = TypeParam;
  const Tensor x = AsTensor<T>({1, 2, 3}, {3});
  const Tensor zero_at_1 = AsTensor<T>({1, 0, 2}, {3});
  for (const char* op : {"Div", "FloorDiv", "FloorMod"}) {
    SCOPED_TRACE(op);
    StatusOr<Tensor> out = RunOp(op, {x, zero_at_1});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string msg(out.status().message());
    EXPECT_TRUE(absl::StrContains(msg, std::string("(") + op + ")")) << msg;
    EXPECT_TRUE(absl::StrContains(msg, "integer division by zero")) << msg;
    EXPECT_TRUE(absl::StrContains(msg, "flat index 1")) << msg;
    // A broadcast zero divisor too.
    EXPECT_FALSE(RunOp(op, {x, AsScalar<T>(0)}).ok());
    // An empty output reads no divisor, as in TensorFlow.
    EXPECT_TRUE(RunOp(op, {AsTensor<T>({}, {0}), AsScalar<T>(0)}).ok());
  }
  StatusOr<Tensor> out = RunOp("Pow", {x, AsTensor<T>({2, -1, 0}, {3})});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(absl::StrContains(out.status().message(), "exponents >= 0"))
      << out.status();
  // Floating division by zero is no error.
  EXPECT_TRUE(
      RunOp("FloorDiv", {AsTensor<float>({1}, {1}), AsTensor<float>({0}, {1})})
          .ok());
}

// ---- floating semantics -----------------------------------------------------

// Python's x mod y (the sign of y), exactly, for values whose quotients and
// remainders are exact in long double.
long double FloorModReal(long double x, long double y) {
  return x - y * std::floor(x / y);
}

template <typename T>
class FloatBinaryTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<half, bfloat16, float, double>;
TYPED_TEST_SUITE(FloatBinaryTest, FloatTypes);

TYPED_TEST(FloatBinaryTest, MatchesDefinitionsOnExactValues) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  // Quarters and small integers: every quotient below that is rounded is
  // compared with the quotient rounded in T.
  const std::vector<double> x = {5, -5, 5, -5, 7.5, -7.5, 0.75, -0.25, 6, 3};
  const std::vector<double> y = {3, 3, -3, -3, 2, 2, -0.5, 0.5, 4, -0.25};
  const int64_t n = x.size();
  const Tensor tx = AsTensorOfType(dt, x, {n});
  const Tensor ty = AsTensorOfType(dt, y, {n});
  std::vector<double> div, floordiv, floormod, sqdiff, divnonan;
  for (int64_t i = 0; i < n; ++i) {
    const double q = ToDoubles(AsTensorOfType(dt, {x[i] / y[i]}, {1}))[0];
    div.push_back(q);
    divnonan.push_back(q);
    floordiv.push_back(std::floor(q));
    floormod.push_back(static_cast<double>(FloorModReal(x[i], y[i])));
    sqdiff.push_back((x[i] - y[i]) * (x[i] - y[i]));
  }
  ExpectTensorEqual(MustRun("Div", {tx, ty}), AsTensorOfType(dt, div, {n}));
  ExpectTensorEqual(MustRun("DivNoNan", {tx, ty}),
                    AsTensorOfType(dt, divnonan, {n}));
  ExpectTensorEqual(MustRun("FloorDiv", {tx, ty}),
                    AsTensorOfType(dt, floordiv, {n}));
  ExpectTensorEqual(MustRun("FloorMod", {tx, ty}),
                    AsTensorOfType(dt, floormod, {n}));
  ExpectTensorEqual(MustRun("SquaredDifference", {tx, ty}),
                    AsTensorOfType(dt, sqdiff, {n}));

  // Powers that are exact.
  const std::vector<double> b = {2, 3, 0.5, 4, 9, -2, -2, 0, 10};
  const std::vector<double> e = {3, 4, -2, 0.5, -0.5, 3, -1, 0, 2};
  std::vector<double> p;
  for (size_t i = 0; i < b.size(); ++i) p.push_back(std::pow(b[i], e[i]));
  ExpectTensorEqual(
      MustRun("Pow", {AsTensorOfType(dt, b, {9}), AsTensorOfType(dt, e, {9})}),
      AsTensorOfType(dt, p, {9}));
}

// IEEE special values, from the definitions (C Annex F for pow and fmod).
TYPED_TEST(FloatBinaryTest, SpecialValues) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  struct Case {
    const char* op;
    double x, y, z;
  };
  const std::vector<Case> cases = {
      {"DivNoNan", 5, 0, 0},
      {"DivNoNan", kNan, 0, 0},
      {"DivNoNan", kInf, 0, 0},
      {"DivNoNan", 1, kInf, 0},
      {"DivNoNan", 0, kNan, kNan},
      {"Div", 1, 0, kInf},
      {"Div", -1, 0, -kInf},
      {"Div", 0, 0, kNan},
      {"FloorDiv", 1, 0, kInf},
      {"FloorDiv", -1, 0, -kInf},
      {"FloorDiv", 0, 0, kNan},
      {"FloorDiv", -0.0, 3, -0.0},
      {"FloorMod", -0.0, 3, -0.0},
      {"FloorMod", 0, -3, 0},
      {"FloorMod", 1, kInf, 1},
      {"FloorMod", -1, kInf, kInf},
      {"FloorMod", 1, -kInf, -kInf},
      {"FloorMod", kInf, 2, kNan},
      {"FloorMod", 3, 0, kNan},
      {"FloorMod", kNan, 1, kNan},
      {"Pow", kNan, 0, 1},
      {"Pow", 1, kNan, 1},
      {"Pow", 0, -1, kInf},
      {"Pow", -0.0, -1, -kInf},
      {"Pow", -2, 0.5, kNan},
      {"Pow", 0.5, -kInf, kInf},
      {"Pow", kInf, -2, 0},
      {"SquaredDifference", kInf, kInf, kNan},
      {"SquaredDifference", -kInf, 1, kInf},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.op) + "(" + std::to_string(c.x) + ", " +
                 std::to_string(c.y) + ")");
    const double z =
        ToDoubles(MustRun(c.op, {AsTensorOfType(dt, {c.x}, {1}),
                                 AsTensorOfType(dt, {c.y}, {1})}))[0];
    if (std::isnan(c.z)) {
      EXPECT_TRUE(std::isnan(z)) << z;
    } else {
      EXPECT_EQ(z, c.z);
      EXPECT_EQ(std::signbit(z), std::signbit(c.z));
    }
  }
}

// ---- broadcasting, threads --------------------------------------------------

// NumPy broadcasting by brute force: per output index, each input read at that
// index or 0 where its dimension is 1; `fn` on the doubles of each pair.
Tensor BroadcastReference(const Tensor& x, const Tensor& y, DataType out_dtype,
                          const std::function<double(double, double)>& fn) {
  const int rank = std::max(x.dims(), y.dims());
  std::vector<int64_t> xd(rank, 1), yd(rank, 1), od(rank);
  for (int i = 0; i < x.dims(); ++i) xd[rank - x.dims() + i] = x.dim_size(i);
  for (int i = 0; i < y.dims(); ++i) yd[rank - y.dims() + i] = y.dim_size(i);
  TensorShape shape;
  for (int d = 0; d < rank; ++d) {
    od[d] = (xd[d] == 0 || yd[d] == 0) ? 0 : std::max(xd[d], yd[d]);
    EXPECT_TRUE(shape.AddDim(od[d]).ok());
  }
  const std::vector<double> xv = ToDoubles(x), yv = ToDoubles(y);
  std::vector<double> out;
  std::vector<int64_t> idx(rank);
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    int64_t r = i;
    for (int d = rank - 1; d >= 0; --d) {
      idx[d] = r % od[d];
      r /= od[d];
    }
    int64_t xi = 0, yi = 0;
    for (int d = 0; d < rank; ++d) {
      xi = xi * xd[d] + (xd[d] == 1 ? 0 : idx[d]);
      yi = yi * yd[d] + (yd[d] == 1 ? 0 : idx[d]);
    }
    out.push_back(fn(xv[xi], yv[yi]));
  }
  return AsTensorOfType(out_dtype, out, shape);
}

struct OpSpec {
  const char* op;
  std::function<double(double, double)> fn;
  bool to_bool;
};

// Ops whose float result on small integers and halves is exact in double.
const std::vector<OpSpec>& BroadcastOps() {
  static const auto* ops = new std::vector<OpSpec>{
      {"Div", [](double a, double b) { return a / b; }, false},
      {"FloorDiv", [](double a, double b) { return std::floor(a / b); }, false},
      {"FloorMod",
       [](double a, double b) {
         return static_cast<double>(FloorModReal(a, b));
       },
       false},
      {"SquaredDifference",
       [](double a, double b) { return (a - b) * (a - b); }, false},
      {"DivNoNan", [](double a, double b) { return b == 0 ? 0 : a / b; },
       false},
      {"Equal", [](double a, double b) { return double(a == b); }, true},
      {"NotEqual", [](double a, double b) { return double(a != b); }, true},
      {"Less", [](double a, double b) { return double(a < b); }, true},
      {"LessEqual", [](double a, double b) { return double(a <= b); }, true},
      {"Greater", [](double a, double b) { return double(a > b); }, true},
      {"GreaterEqual", [](double a, double b) { return double(a >= b); }, true},
  };
  return *ops;
}

const std::vector<std::pair<TensorShape, TensorShape>>& ShapePairs() {
  static const auto* pairs =
      new std::vector<std::pair<TensorShape, TensorShape>>{
          {{}, {}},
          {{5}, {5}},
          {{}, {3, 2}},
          {{3, 2}, {}},
          {{2, 3}, {3}},
          {{2, 1}, {1, 3}},
          {{4, 1, 3}, {1, 5, 1}},
          {{2, 1, 3, 1, 2}, {1, 4, 1, 2, 1}},
          {{0, 3}, {1, 3}},
          {{2, 0, 3}, {2, 1, 3}}};
  return *pairs;
}

// Divisors from {1, 2, 4, -1, -2, -4} keep every quotient a small binary
// fraction, exact in every dtype; dividends are integers in [-8, 8].
Tensor Values(DataType dt, const TensorShape& shape, bool divisor,
              std::mt19937* rng) {
  static const double kDivisors[] = {1, 2, 4, -1, -2, -4};
  std::uniform_int_distribution<int> pick(0, 5), val(-8, 8);
  std::vector<double> v;
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    v.push_back(divisor ? kDivisors[pick(*rng)] : val(*rng));
  }
  return AsTensorOfType(dt, v, shape);
}

TEST(CwiseMoreTest, BroadcastingMatchesReference) {
  std::mt19937 rng(11);
  for (DataType dt :
       {DT_FLOAT, DT_HALF, DT_BFLOAT16, DT_DOUBLE, DT_INT32, DT_INT64}) {
    for (const OpSpec& spec : BroadcastOps()) {
      const std::string op = spec.op;
      if (op == "DivNoNan" && !DataTypeIsFloating(dt)) continue;
      for (const auto& [xs, ys] : ShapePairs()) {
        SCOPED_TRACE(op + " " + DataTypeName(dt) + " " + xs.DebugString() +
                     " " + ys.DebugString());
        const Tensor x = Values(dt, xs, false, &rng);
        const Tensor y = Values(dt, ys, true, &rng);
        std::function<double(double, double)> fn = spec.fn;
        if (op == "Div" && !DataTypeIsFloating(dt)) {
          fn = [](double a, double b) { return std::trunc(a / b); };
        }
        ExpectTensorEqual(
            MustRun(op, {x, y}),
            BroadcastReference(x, y, spec.to_bool ? DT_BOOL : dt, fn));
      }
    }
  }
}

TEST(CwiseMoreTest, ParallelMatchesSingleThread) {
  std::mt19937 rng(5);
  const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
      {{300001}, {300001}}, {{1000, 301}, {301}}, {{3, 1, 40000}, {1, 5, 1}}};
  for (DataType dt : {DT_FLOAT, DT_HALF, DT_INT32}) {
    for (const char* op : {"Div", "FloorDiv", "FloorMod", "Pow",
                           "SquaredDifference", "Less", "Equal"}) {
      for (const auto& [xs, ys] : shapes) {
        SCOPED_TRACE(std::string(op) + " " + DataTypeName(dt) + " " +
                     xs.DebugString());
        Tensor x = Values(dt, xs, false, &rng);
        Tensor y = Values(dt, ys, true, &rng);
        if (std::string(op) == "Pow") {
          // Non-negative exponents for the integer kernel.
          y = AsTensorOfType(dt, std::vector<double>(ys.num_elements(), 3), ys);
        }
        ExpectTensorEqual(MustRun(op, {x, y}, {}, 2),
                          MustRun(op, {x, y}, {}, 0));
      }
    }
  }
}

// ---- comparisons and logical ops --------------------------------------------

TEST(CwiseMoreTest, ComparisonsTreatNanAsUnordered) {
  for (DataType dt : {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE}) {
    SCOPED_TRACE(DataTypeName(dt));
    const Tensor x = AsTensorOfType(dt, {kNan, kNan, 1, 0, -kInf}, {5});
    const Tensor y = AsTensorOfType(dt, {kNan, 1, kNan, -0.0, -kInf}, {5});
    ExpectTensorEqual(MustRun("Equal", {x, y}),
                      AsTensor<bool>({false, false, false, true, true}, {5}));
    ExpectTensorEqual(MustRun("NotEqual", {x, y}),
                      AsTensor<bool>({true, true, true, false, false}, {5}));
    for (const char* op : {"Less", "Greater"}) {
      ExpectTensorEqual(
          MustRun(op, {x, y}),
          AsTensor<bool>({false, false, false, false, false}, {5}));
    }
    for (const char* op : {"LessEqual", "GreaterEqual"}) {
      ExpectTensorEqual(MustRun(op, {x, y}),
                        AsTensor<bool>({false, false, false, true, true}, {5}));
    }
  }
  ExpectTensorEqual(MustRun("Equal", {AsTensor<bool>({true, false}, {2}),
                                      AsScalar<bool>(false)}),
                    AsTensor<bool>({false, true}, {2}));
}

TEST(CwiseMoreTest, EqualityWithIncompatibleShapes) {
  const Tensor x = AsTensor<float>({1, 2, 3}, {3});
  const Tensor y = AsTensor<float>({1, 2}, {2});
  // The default, incompatible_shape_error = true: an error naming both
  // shapes.
  StatusOr<Tensor> out = RunOp("Equal", {x, y});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(absl::StrContains(out.status().message(), "[3]")) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), "[2]")) << out.status();
  // false: the scalar false (Equal) or true (NotEqual).
  AttrMap no_error = {{"incompatible_shape_error", AttrValue::Bool(false)}};
  ExpectTensorEqual(MustRun("Equal", {x, y}, no_error), AsScalar<bool>(false));
  ExpectTensorEqual(MustRun("NotEqual", {x, y}, no_error),
                    AsScalar<bool>(true));
  // Shapes that broadcast are compared either way.
  ExpectTensorEqual(MustRun("Equal", {x, AsTensor<float>({2}, {1})}, no_error),
                    AsTensor<bool>({false, true, false}, {3}));
  // The ordering comparisons have no such attr.
  EXPECT_FALSE(RunOp("Less", {x, y}).ok());
}

TEST(CwiseMoreTest, LogicalAndOr) {
  const Tensor x = AsTensor<bool>({true, false}, {2, 1});
  const Tensor y = AsTensor<bool>({true, false, true}, {3});
  ExpectTensorEqual(
      MustRun("LogicalAnd", {x, y}),
      AsTensor<bool>({true, false, true, false, false, false}, {2, 3}));
  ExpectTensorEqual(
      MustRun("LogicalOr", {x, y}),
      AsTensor<bool>({true, true, true, true, false, true}, {2, 3}));
  EXPECT_FALSE(RunOp("LogicalOr", {AsTensor<bool>({true, false, true}, {3}),
                                   AsTensor<bool>({true, false}, {2})})
                   .ok());
}

// ---- AddN -------------------------------------------------------------------

TEST(CwiseMoreTest, AddNSumsInTensorFlowsOrder) {
  // Floats spaced 8 apart near 1e8: adding 1 to 1e8 is lost to rounding, so
  // the order of the additions shows in the result.
  auto run = [](const std::vector<float>& values) {
    std::vector<Tensor> in;
    for (float v : values) in.push_back(AsTensor<float>({v}, {1}));
    return ToDoubles(MustRun("AddN", in))[0];
  };
  // N = 9: left to right, every 1 is lost.
  EXPECT_EQ(run({1e8f, 1, 1, 1, 1, 1, 1, 1, 1}), 1e8);
  // N = 10: x0 + x1, then the group of eight x2..x9 summed on its own
  // (8, exact) and added: 1e8 + 8.
  EXPECT_EQ(run({1e8f, 0, 1, 1, 1, 1, 1, 1, 1, 1}), 1e8 + 8);
  // N = 17: x0..x8 left to right (1e8), then x9..x16 (8).
  std::vector<float> v17(17, 1.0f);
  v17[0] = 1e8f;
  EXPECT_EQ(run(v17), 1e8 + 8);
}

TEST(CwiseMoreTest, AddNEveryDtypeAndWrapping) {
  for (DataType dt :
       {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64}) {
    SCOPED_TRACE(DataTypeName(dt));
    const Tensor a = AsTensorOfType(dt, {1, 2, 3, 4, 5, 6}, {2, 3});
    const Tensor b = AsTensorOfType(dt, {-1, 0, 8, 2, -10, 1}, {2, 3});
    ExpectTensorEqual(MustRun("AddN", {a, b, a}),
                      AsTensorOfType(dt, {1, 4, 14, 10, 0, 13}, {2, 3}));
  }
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  ExpectTensorEqual(
      MustRun("AddN",
              {AsTensor<int32_t>({kMax}, {1}), AsTensor<int32_t>({1}, {1})}),
      AsTensor<int32_t>({std::numeric_limits<int32_t>::min()}, {1}));
}

TEST(CwiseMoreTest, AddNShapesAndBuffers) {
  // One input passes through.
  Tensor x = AsTensor<float>({1, 2}, {2});
  Tensor out = MustRun("AddN", {x});
  EXPECT_EQ(out.raw_data(), x.raw_data());
  // Empty inputs.
  EXPECT_EQ(
      MustRun("AddN", {Tensor(DT_FLOAT, {0, 4}), Tensor(DT_FLOAT, {0, 4})})
          .shape(),
      TensorShape({0, 4}));
  // Differing shapes are an error naming both.
  StatusOr<Tensor> bad = RunOp(
      "AddN", {AsTensor<float>({1, 2}, {2}), AsTensor<float>({1, 2, 3}, {3})});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(
      absl::StrContains(bad.status().message(), "input 1 has shape [3]"))
      << bad.status();
  // An unshared second input becomes the output.
  OpRunner runner("AddN");
  Tensor a = AsTensor<float>({1, 2}, {2});
  Tensor b = AsTensor<float>({3, 4}, {2});
  const void* b_buffer = b.raw_data();
  StatusOr<std::vector<Tensor>> r =
      runner.Run(test::Inputs(a, std::move(b), a));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].raw_data(), b_buffer);
  ExpectTensorEqual((*r)[0], AsTensor<float>({5, 8}, {2}));
  ExpectTensorEqual(a, AsTensor<float>({1, 2}, {2}));
}

TEST(CwiseMoreTest, AddNLargeMatchesOnTwoThreads) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Tensor> in;
  for (int k = 0; k < 11; ++k) {
    std::vector<double> v(50001);
    for (double& e : v) e = u(rng) * std::pow(10.0, k % 5);
    in.push_back(AsTensorOfType(DT_FLOAT, v, {50001}));
  }
  const Tensor one = MustRun("AddN", in, {}, 0);
  ExpectTensorEqual(MustRun("AddN", in, {}, 2), one);
  // Element 777 by the rule: x0 + x1 + x2 (11 mod 8 = 3), then the group of
  // eight summed on its own.
  auto at = [&](int k) { return static_cast<float>(ToDoubles(in[k])[777]); };
  float head = at(0) + at(1);
  head += at(2);
  float group = at(3) + at(4);
  for (int k = 5; k < 11; ++k) group += at(k);
  EXPECT_EQ(ToDoubles(one)[777], static_cast<double>(head + group));
}

}  // namespace cpu_cwise_more_test
}  // namespace weft
