// The broadcasting arithmetic kernels (Add, AddV2, Sub, Mul, RealDiv,
// Maximum, Minimum) against a reference written independently here: a plain
// loop over output indices that applies NumPy's rule per dimension and the
// scalar operation in the tensor's own type. Element-wise arithmetic is one
// correctly rounded IEEE operation per element in both, so results must be
// identical, not merely close. TensorFlow's own outputs are checked in
// cpu_golden_test.cc.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::OpRunner;

const char* const kAllOps[] = {"Add",     "AddV2",   "Sub",    "Mul",
                               "RealDiv", "Maximum", "Minimum"};

template <typename T>
constexpr bool kIsInt = std::is_integral_v<T>;

template <typename T>
bool IsNan(T v) {
  if constexpr (kIsInt<T>) {
    return false;
  } else {
    return std::isnan(static_cast<double>(v));
  }
}

// The scalar semantics, spelled out: integers wrap (two's complement),
// Maximum and Minimum propagate NaN.
template <typename T>
T Reference(const std::string& op, T a, T b) {
  if constexpr (kIsInt<T>) {
    using U = std::make_unsigned_t<T>;
    const U ua = static_cast<U>(a);
    const U ub = static_cast<U>(b);
    if (op == "Add" || op == "AddV2") return static_cast<T>(ua + ub);
    if (op == "Sub") return static_cast<T>(ua - ub);
    if (op == "Mul") return static_cast<T>(ua * ub);
  } else {
    if (op == "Add" || op == "AddV2") return a + b;
    if (op == "Sub") return a - b;
    if (op == "Mul") return a * b;
    if (op == "RealDiv") return a / b;
  }
  if (IsNan(a)) return a;
  if (IsNan(b)) return b;
  if (op == "Maximum") return a < b ? b : a;
  if (op == "Minimum") return b < a ? b : a;
  ADD_FAILURE() << "no reference for " << op;
  return T();
}

// NumPy broadcasting by brute force: pad both shapes with leading 1s, and
// for every output index read each input at that index, or 0 where its
// dimension is 1.
template <typename T>
Tensor ReferenceBroadcast(const std::string& op, const Tensor& x,
                          const Tensor& y) {
  const int rank = std::max(x.dims(), y.dims());
  std::vector<int64_t> xd(rank, 1), yd(rank, 1), od(rank);
  for (int i = 0; i < x.dims(); ++i) xd[rank - x.dims() + i] = x.dim_size(i);
  for (int i = 0; i < y.dims(); ++i) yd[rank - y.dims() + i] = y.dim_size(i);
  TensorShape out_shape;
  for (int d = 0; d < rank; ++d) {
    od[d] = std::max(xd[d], yd[d]);
    if (xd[d] == 0 || yd[d] == 0) od[d] = 0;
    EXPECT_TRUE(out_shape.AddDim(od[d]).ok());
  }
  Tensor z(DataTypeToEnum<T>::value, out_shape);
  std::vector<int64_t> idx(rank, 0);
  for (int64_t i = 0; i < out_shape.num_elements(); ++i) {
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
    z.data<T>()[i] = Reference<T>(op, x.data<T>()[xi], y.data<T>()[yi]);
  }
  return z;
}

bool Registered(const std::string& op, DataType dt) {
  return !(op == "RealDiv" && !DataTypeIsFloating(dt));
}

// Random values on a grid of quarters in [-8, 8]: exact in every registered
// dtype (bfloat16 included), with zeros among them.
template <typename T>
Tensor RandomTensor(const TensorShape& shape, std::mt19937* rng) {
  std::uniform_int_distribution<int> dist(-32, 32);
  std::vector<double> v;
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    const int q = dist(*rng);
    v.push_back(kIsInt<T> ? q : q / 4.0);
  }
  return AsTensorOfType(DataTypeToEnum<T>::value, v, shape);
}

template <typename T>
class CwiseBinaryTypedTest : public ::testing::Test {};
using CwiseTypes =
    ::testing::Types<half, bfloat16, float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(CwiseBinaryTypedTest, CwiseTypes);

TYPED_TEST(CwiseBinaryTypedTest, SmallValuesEveryOp) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  // Hand-checkable: x = [6, -3, 0, 2.5 (ints: 2)], y = [2, 4, -1, 0.5 (1)].
  const bool ints = kIsInt<T>;
  const Tensor x = AsTensorOfType(dt, {6, -3, 0, ints ? 2 : 2.5}, {2, 2});
  const Tensor y = AsTensorOfType(dt, {2, 4, -1, ints ? 1 : 0.5}, {2, 2});
  const std::vector<std::pair<std::string, std::vector<double>>> cases = {
      {"Add", {8, 1, -1, ints ? 3 : 3}},
      {"AddV2", {8, 1, -1, ints ? 3 : 3}},
      {"Sub", {4, -7, 1, ints ? 1 : 2}},
      {"Mul", {12, -12, 0, ints ? 2 : 1.25}},
      {"RealDiv", {3, -0.75, 0, 5}},
      {"Maximum", {6, 4, 0, ints ? 2 : 2.5}},
      {"Minimum", {2, -3, -1, ints ? 1 : 0.5}},
  };
  for (const auto& [op, expected] : cases) {
    SCOPED_TRACE(op);
    OpRunner runner(op);
    StatusOr<std::vector<Tensor>> out = runner.Run({x, y});
    if (!Registered(op, dt)) {
      ASSERT_FALSE(out.ok());
      EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound)
          << out.status();
      EXPECT_TRUE(absl::StrContains(out.status().message(), "no kernel"))
          << out.status();
      continue;
    }
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensorOfType(dt, expected, {2, 2}));
  }
}

// Shape pairs covering each loop shape: same shapes, scalars on either
// side, size-1 dimensions on either side or both, rank differences, rank 5
// and rank 7, and empty outputs.
const std::vector<std::pair<TensorShape, TensorShape>>& ShapePairs() {
  static const auto* pairs =
      new std::vector<std::pair<TensorShape, TensorShape>>{
          {{}, {}},
          {{5}, {5}},
          {{2, 3}, {2, 3}},
          {{}, {3, 2}},
          {{3, 2}, {}},
          {{1}, {4}},
          {{2, 3}, {3}},
          {{3}, {2, 3}},
          {{2, 3}, {2, 1}},
          {{2, 1}, {1, 3}},
          {{4, 1, 3}, {1, 5, 1}},
          {{8, 1, 3, 4}, {3, 4}},
          {{2, 1, 3, 1, 2}, {1, 4, 1, 2, 1}},
          {{2, 3, 1, 4, 5}, {1, 3, 2, 1, 5}},
          {{1, 2, 1, 2, 1, 2, 3}, {2, 1, 2, 1, 2, 1, 3}},
          {{0, 3}, {1, 3}},
          {{0}, {}},
          {{2, 0, 3}, {2, 1, 3}},
          {{1, 1}, {1}},
          // Short rows against one row, in tiles of whole rows with a
          // partial last tile, either operand the row.
          {{8, 96, 3}, {3}},
          {{3}, {100, 3}},
          {{9, 1, 63}, {63}},
          {{1, 1, 5}, {4, 70, 5}},
      };
  return *pairs;
}

TYPED_TEST(CwiseBinaryTypedTest, BroadcastingMatchesReference) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  std::mt19937 rng(1234);
  for (const char* op : kAllOps) {
    if (!Registered(op, dt)) continue;
    for (const auto& [xs, ys] : ShapePairs()) {
      SCOPED_TRACE(std::string(op) + " " + xs.DebugString() + " " +
                   ys.DebugString());
      const Tensor x = RandomTensor<T>(xs, &rng);
      const Tensor y = RandomTensor<T>(ys, &rng);
      OpRunner runner(op);
      StatusOr<std::vector<Tensor>> out = runner.Run({x, y});
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectTensorEqual((*out)[0], ReferenceBroadcast<T>(op, x, y));
    }
  }
}

TYPED_TEST(CwiseBinaryTypedTest, RandomShapesUpToRankSix) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  std::mt19937 rng(99);
  std::uniform_int_distribution<int> rank_dist(0, 6);
  std::uniform_int_distribution<int> size_dist(1, 3);
  std::bernoulli_distribution one(0.35);
  for (int trial = 0; trial < 40; ++trial) {
    // A common shape; each input drops leading dims and sets some to 1.
    const int rank = rank_dist(rng);
    std::vector<int64_t> full(rank);
    for (int64_t& d : full) d = size_dist(rng);
    auto derive = [&] {
      const int keep = std::uniform_int_distribution<int>(0, rank)(rng);
      TensorShape s;
      for (int i = rank - keep; i < rank; ++i) {
        EXPECT_TRUE(s.AddDim(one(rng) ? 1 : full[i]).ok());
      }
      return s;
    };
    const TensorShape xs = derive();
    const TensorShape ys = derive();
    const char* op = kAllOps[trial % 7];
    if (!Registered(op, dt)) continue;
    SCOPED_TRACE(std::string(op) + " " + xs.DebugString() + " " +
                 ys.DebugString());
    const Tensor x = RandomTensor<T>(xs, &rng);
    const Tensor y = RandomTensor<T>(ys, &rng);
    OpRunner runner(op);
    StatusOr<std::vector<Tensor>> out = runner.Run({x, y});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], ReferenceBroadcast<T>(op, x, y));
  }
}

TYPED_TEST(CwiseBinaryTypedTest, ParallelMatchesSingleThread) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  std::mt19937 rng(7);
  // Large enough that ParallelFor splits: flat, scalar and broadcast loops.
  const std::vector<std::pair<TensorShape, TensorShape>> pairs = {
      {{300, 257}, {300, 257}},       {{}, {300, 257}},
      {{300, 1}, {1, 257}},           {{7, 1, 129}, {1, 90, 129}},
      {{4, 96, 96, 3}, {1, 1, 1, 3}}, {{5}, {20000, 5}},
  };
  for (const char* op : kAllOps) {
    if (!Registered(op, dt)) continue;
    for (const auto& [xs, ys] : pairs) {
      SCOPED_TRACE(std::string(op) + " " + xs.DebugString() + " " +
                   ys.DebugString());
      const Tensor x = RandomTensor<T>(xs, &rng);
      const Tensor y = RandomTensor<T>(ys, &rng);
      StatusOr<std::vector<Tensor>> single = OpRunner(op, {}, 0).Run({x, y});
      ASSERT_TRUE(single.ok()) << single.status();
      for (int threads : {1, 2}) {
        StatusOr<std::vector<Tensor>> multi =
            OpRunner(op, {}, threads).Run({x, y});
        ASSERT_TRUE(multi.ok()) << multi.status();
        ExpectTensorEqual((*multi)[0], (*single)[0]);
      }
      ExpectTensorEqual((*single)[0], ReferenceBroadcast<T>(op, x, y));
    }
  }
}

template <typename T>
class CwiseFloatTypedTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<half, bfloat16, float, double>;
TYPED_TEST_SUITE(CwiseFloatTypedTest, FloatTypes);

TYPED_TEST(CwiseFloatTypedTest, NanAndInfinityPropagate) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = AsTensorOfType(dt, {nan, 1, inf, -inf, 0, inf, 2}, {7});
  const Tensor y = AsTensorOfType(dt, {1, nan, inf, 2, 0, -inf, -inf}, {7});
  const std::vector<std::pair<std::string, std::vector<double>>> cases = {
      {"AddV2", {nan, nan, inf, -inf, 0, nan, -inf}},
      {"Sub", {nan, nan, nan, -inf, 0, inf, inf}},
      {"Mul", {nan, nan, inf, -inf, 0, -inf, -inf}},
      {"RealDiv", {nan, nan, nan, -inf, nan, nan, -0.0}},
      {"Maximum", {nan, nan, inf, 2, 0, inf, 2}},
      {"Minimum", {nan, nan, inf, -inf, 0, -inf, -inf}},
  };
  for (const auto& [op, expected] : cases) {
    SCOPED_TRACE(op);
    StatusOr<std::vector<Tensor>> out = OpRunner(op).Run({x, y});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensorOfType(dt, expected, {7}));
  }
  // A NaN scalar spreads over the whole broadcast output.
  StatusOr<std::vector<Tensor>> out = OpRunner("Maximum").Run(
      {AsTensorOfType(dt, {nan}, {}), AsTensorOfType(dt, {1, 2, 3}, {3})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensorOfType(dt, {nan, nan, nan}, {3}));
}

TEST(CwiseBinaryTest, IntegerArithmeticWraps) {
  const int32_t max = std::numeric_limits<int32_t>::max();
  const int32_t min = std::numeric_limits<int32_t>::min();
  const Tensor x = AsTensor<int32_t>({max, min, max, 65536}, {4});
  const Tensor y = AsTensor<int32_t>({1, 1, 2, 65536}, {4});
  StatusOr<std::vector<Tensor>> add = OpRunner("AddV2").Run({x, y});
  ASSERT_TRUE(add.ok()) << add.status();
  ExpectTensorEqual((*add)[0],
                    AsTensor<int32_t>({min, min + 1, min + 1, 131072}, {4}));
  StatusOr<std::vector<Tensor>> sub = OpRunner("Sub").Run({x, y});
  ASSERT_TRUE(sub.ok()) << sub.status();
  ExpectTensorEqual((*sub)[0],
                    AsTensor<int32_t>({max - 1, max, max - 2, 0}, {4}));
  StatusOr<std::vector<Tensor>> mul = OpRunner("Mul").Run({x, y});
  ASSERT_TRUE(mul.ok()) << mul.status();
  // max * 2 = 2^32 - 2 -> -2; 2^16 * 2^16 = 2^32 -> 0.
  ExpectTensorEqual((*mul)[0], AsTensor<int32_t>({max, min, -2, 0}, {4}));
}

TEST(CwiseBinaryTest, ResultShapesFollowNumpy) {
  struct Case {
    TensorShape x, y, z;
  };
  const std::vector<Case> cases = {
      {{}, {}, {}},
      {{2, 1, 3}, {4, 1}, {2, 4, 3}},
      {{1}, {}, {1}},
      {{0, 1}, {1, 5}, {0, 5}},
      {{5, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {5, 1, 1, 1, 1}},
      {{3, 1, 1, 2, 1, 1, 1, 2},
       {4, 1, 1, 1, 1, 2, 1},
       {3, 4, 1, 2, 1, 1, 2, 2}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.x.DebugString() + " " + c.y.DebugString());
    StatusOr<std::vector<Tensor>> out =
        OpRunner("Mul").Run({Tensor(DT_FLOAT, c.x), Tensor(DT_FLOAT, c.y)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), c.z);
  }
}

TEST(CwiseBinaryTest, IncompatibleShapesNameBothShapes) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner("AddV2").Run({Tensor(DT_FLOAT, {2, 3}), Tensor(DT_FLOAT, {4})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(out.status().message());
  EXPECT_TRUE(absl::StartsWith(msg, "node 'kernel_test/AddV2' (AddV2): "))
      << msg;
  EXPECT_TRUE(absl::StrContains(msg, "[2,3]")) << msg;
  EXPECT_TRUE(absl::StrContains(msg, "[4]")) << msg;
  EXPECT_TRUE(absl::StrContains(msg, "x has size 3 and y has size 4")) << msg;

  // Zero against a size other than 1 does not broadcast either.
  out =
      OpRunner("Mul").Run({Tensor(DT_INT32, {0, 2}), Tensor(DT_INT32, {3, 2})});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(absl::StrContains(out.status().message(), "[0,2]"))
      << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), "[3,2]"))
      << out.status();
}

TEST(CwiseBinaryTest, ForwardsAnUnsharedInputThatCoversTheOutput) {
  // x covers the output and is held only by the runner: it is reused.
  Tensor x = AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const void* x_buf = x.raw_data();
  StatusOr<std::vector<Tensor>> out = OpRunner("AddV2").Run(
      test::Inputs(std::move(x), AsTensor<float>({10, 20, 30}, {3})));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].raw_data(), x_buf);
  ExpectTensorEqual((*out)[0],
                    AsTensor<float>({11, 22, 33, 14, 25, 36}, {2, 3}));

  // Only y covers the output: y's buffer is taken.
  Tensor y = AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const void* y_buf = y.raw_data();
  out = OpRunner("Sub").Run(test::Inputs(AsScalar<float>(10), std::move(y)));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].raw_data(), y_buf);
  ExpectTensorEqual((*out)[0], AsTensor<float>({9, 8, 7, 6, 5, 4}, {2, 3}));
}

TEST(CwiseBinaryTest, DoesNotForwardSharedOrNonForwardableInputs) {
  const Tensor x = AsTensor<double>({1, 2, 3}, {3});
  // The caller keeps a reference to x.
  StatusOr<std::vector<Tensor>> out =
      OpRunner("Mul").Run({x, AsTensor<double>({2, 2, 2}, {3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE((*out)[0].SharesBufferWith(x));
  ExpectTensorEqual(x, AsTensor<double>({1, 2, 3}, {3}));
  ExpectTensorEqual((*out)[0], AsTensor<double>({2, 4, 6}, {3}));

  // The executor says the slot is read again later.
  Tensor z = AsTensor<double>({1, 2, 3}, {3});
  const void* z_buf = z.raw_data();
  OpRunner runner("Mul");
  runner.set_forwardable(false);
  out =
      runner.Run(test::Inputs(std::move(z), AsTensor<double>({2, 2, 2}, {3})));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NE((*out)[0].raw_data(), z_buf);

  // An input broadcast into a larger output is never reused.
  Tensor small = AsTensor<double>({1, 2, 3}, {3});
  const void* small_buf = small.raw_data();
  out = OpRunner("Mul").Run(
      test::Inputs(std::move(small), Tensor(DT_DOUBLE, {2, 3})));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NE((*out)[0].raw_data(), small_buf);
}

TEST(CwiseBinaryTest, SameTensorOnBothInputs) {
  // Two slots sharing one buffer: neither may be overwritten.
  Tensor x = AsTensor<float>({1, -2, 3}, {3});
  const Tensor alias = x;
  StatusOr<std::vector<Tensor>> out =
      OpRunner("Mul").Run(test::Inputs(std::move(x), alias));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>({1, 4, 9}, {3}));
  ExpectTensorEqual(alias, AsTensor<float>({1, -2, 3}, {3}));
}

}  // namespace
}  // namespace weft
