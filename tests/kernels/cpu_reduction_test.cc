// Sum, Mean, Prod, Max, Min, All, Any, ArgMax and ArgMin against references
// computed here: every input element is mapped to its output element in
// row-major order and each group is reduced in long double (floating) or in
// 64-bit wrapping arithmetic (integers), then rounded to the dtype.
//
// Exactness: on "grid" inputs (small integers, or powers of two for Prod)
// every partial sum and product is exact in every dtype, so any summation
// order gives the reference bit for bit and the kernel must match exactly.
// On random reals a Sum is within the classical bound of a d-term sum in
// the accumulation precision u (float for half and bfloat16), |error| <=
// (d - 1) u sum |x| (Higham, eq. 4.4), plus one rounding to the dtype.
//
// The NaN and ArgMax corner cases state TensorFlow 2.21's outputs (from
// tf.raw_ops on the CPU), which the kernels follow.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_reduction_test {

using test::AsScalar;
using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::OpRunner;
using test::ToDoubles;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

AttrMap KeepDims(bool keep) {
  AttrMap attrs;
  attrs["keep_dims"] = AttrValue::Bool(keep);
  return attrs;
}

Tensor Axes(const std::vector<int32_t>& axes) {
  return AsTensor<int32_t>(axes, {static_cast<int64_t>(axes.size())});
}

StatusOr<Tensor> Reduce(const std::string& op, const Tensor& x,
                        const Tensor& axes, bool keep_dims = false,
                        int threads = 0) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner(op, KeepDims(keep_dims), threads).Run({x, axes});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// ---- reference
// ---------------------------------------------------------------

// The output shape and, per output element, the indices of its input
// elements in row-major order.
struct Groups {
  TensorShape shape;
  std::vector<std::vector<int64_t>> members;
};

Groups GroupBy(const TensorShape& in, const std::vector<int32_t>& axes_in,
               bool keep_dims) {
  const int rank = in.dims();
  std::vector<bool> reduced(rank, false);
  for (int32_t a : axes_in) reduced[a < 0 ? a + rank : a] = true;
  Groups g;
  std::vector<int64_t> out_dims;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      out_dims.push_back(in.dim_size(d));
    } else if (keep_dims) {
      out_dims.push_back(1);
    }
  }
  g.shape = *TensorShape::Build(out_dims);
  g.members.resize(g.shape.num_elements());
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    int64_t o = 0;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) o = o * in.dim_size(d) + index[d];
    }
    g.members[o].push_back(i);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < in.dim_size(d)) break;
      index[d] = 0;
    }
  }
  return g;
}

bool IsInteger(DataType dt) { return dt == DT_INT32 || dt == DT_INT64; }

// Reference for one op on floating or integer input.
Tensor Reference(const std::string& op, const Tensor& x,
                 const std::vector<int32_t>& axes, bool keep_dims) {
  const Groups g = GroupBy(x.shape(), axes, keep_dims);
  const DataType dt = x.dtype();
  if (IsInteger(dt)) {
    const bool is32 = dt == DT_INT32;
    std::vector<int64_t> v(x.NumElements());
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      v[i] = is32 ? x.data<int32_t>()[i] : x.data<int64_t>()[i];
    }
    std::vector<int64_t> out;
    for (const auto& members : g.members) {
      uint64_t acc = op == "Prod" ? 1 : 0;
      int64_t best = op == "Max"   ? std::numeric_limits<int64_t>::min()
                     : op == "Min" ? std::numeric_limits<int64_t>::max()
                                   : 0;
      if (op == "Max" && is32) best = std::numeric_limits<int32_t>::min();
      if (op == "Min" && is32) best = std::numeric_limits<int32_t>::max();
      for (int64_t i : members) {
        if (op == "Prod") {
          acc *= static_cast<uint64_t>(v[i]);
        } else {
          acc += static_cast<uint64_t>(v[i]);
        }
        best = op == "Max" ? std::max(best, v[i]) : std::min(best, v[i]);
      }
      int64_t r = 0;
      if (op == "Sum" || op == "Prod") {
        r = is32 ? static_cast<int32_t>(static_cast<uint32_t>(acc))
                 : static_cast<int64_t>(acc);
      } else if (op == "Mean") {
        r = members.empty() ? 0
                            : static_cast<int64_t>(acc) /
                                  static_cast<int64_t>(members.size());
      } else {
        r = best;
      }
      out.push_back(r);
    }
    if (is32) {
      return AsTensor<int32_t>(std::vector<int32_t>(out.begin(), out.end()),
                               g.shape);
    }
    return AsTensor<int64_t>(out, g.shape);
  }
  const std::vector<double> v = ToDoubles(x);
  std::vector<double> out;
  for (const auto& members : g.members) {
    long double acc = op == "Prod" ? 1 : 0;
    long double best = op == "Max" ? -kInf : kInf;
    bool nan = false;
    for (int64_t i : members) {
      if (std::isnan(v[i])) nan = true;
      if (op == "Prod") {
        acc *= v[i];
      } else {
        acc += v[i];
      }
      best = op == "Max" ? std::max<long double>(best, v[i])
                         : std::min<long double>(best, v[i]);
    }
    if (op == "Sum" || op == "Prod") {
      out.push_back(static_cast<double>(acc));
    } else if (op == "Mean") {
      out.push_back(static_cast<double>(acc / members.size()));
    } else {
      out.push_back(nan ? kNaN : static_cast<double>(best));
    }
  }
  return AsTensorOfType(dt, out, g.shape);
}

// ---- numeric reductions over every dtype ----------------------------------

struct AxesCase {
  TensorShape shape;
  std::vector<int32_t> axes;
};

// Every kind of plan: no axes, one run at each position, two separate
// reduced runs ([r, k, r]), everything, negative axes, size-1 dimensions
// merged into neighbours, and only size-1 dimensions reduced (a copy).
const std::vector<AxesCase>& AxesCases() {
  static const auto* cases =
      new std::vector<AxesCase>{{{2, 3, 4}, {}},
                                {{2, 3, 4}, {0}},
                                {{2, 3, 4}, {1}},
                                {{2, 3, 4}, {2}},
                                {{2, 3, 4}, {-1}},
                                {{2, 3, 4}, {0, 2}},
                                {{2, 3, 4}, {2, 0, 1}},
                                {{2, 3, 4}, {-3, -1}},
                                {{1, 3, 1, 4}, {0, 3}},
                                {{2, 1, 3, 1, 2}, {1, 2, 4}},
                                {{5}, {0}},
                                {{}, {}},
                                {{2, 1, 3}, {1}},
                                {{3, 2, 2, 3}, {0, 3}},
                                {{2, 3, 2, 3, 2}, {1, 3}}};
  return *cases;
}

// Small integers in [-4, 4]: sums and means of up to 24 exact in half.
std::vector<double> GridValues(int64_t n, std::mt19937* rng) {
  std::uniform_int_distribution<int> dist(-4, 4);
  std::vector<double> v(n);
  for (double& x : v) x = dist(*rng);
  return v;
}

// Signed powers of two and 3 for integers: exact products (floats up to
// 2^24, within half's range only as far as it goes; beyond that both the
// reference and the kernel give inf).
std::vector<double> ProdValues(DataType dt, int64_t n, std::mt19937* rng) {
  const std::vector<double> floats = {1, -1, 2, -2, 0.5};
  const std::vector<double> ints = {1, -1, 2, -3, 3};
  const std::vector<double>& pool = IsInteger(dt) ? ints : floats;
  std::uniform_int_distribution<size_t> dist(0, pool.size() - 1);
  std::vector<double> v(n);
  for (double& x : v) x = pool[dist(*rng)];
  return v;
}

template <typename T>
class NumericReductionTest : public ::testing::Test {};
using NumericTypes =
    ::testing::Types<half, bfloat16, float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(NumericReductionTest, NumericTypes);

TYPED_TEST(NumericReductionTest, MatchesReferenceOnEveryAxesPlan) {
  const DataType dt = DataTypeToEnum<TypeParam>::value;
  std::mt19937 rng(7);
  for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min"}) {
    for (const AxesCase& c : AxesCases()) {
      for (bool keep : {false, true}) {
        SCOPED_TRACE(testing::Message()
                     << op << " " << c.shape.DebugString() << " axes "
                     << testing::PrintToString(c.axes) << " keep=" << keep);
        const int64_t n = c.shape.num_elements();
        const Tensor x =
            AsTensorOfType(dt,
                           std::string(op) == "Prod" ? ProdValues(dt, n, &rng)
                                                     : GridValues(n, &rng),
                           c.shape);
        StatusOr<Tensor> got = Reduce(op, x, Axes(c.axes), keep);
        ASSERT_TRUE(got.ok()) << got.status();
        ExpectTensorEqual(*got, Reference(op, x, c.axes, keep));
      }
    }
  }
}

TYPED_TEST(NumericReductionTest, Int64AxesAndScalarAxis) {
  const DataType dt = DataTypeToEnum<TypeParam>::value;
  std::mt19937 rng(8);
  const Tensor x = AsTensorOfType(dt, GridValues(24, &rng), {2, 3, 4});
  StatusOr<Tensor> by64 =
      Reduce("Sum", x, AsTensor<int64_t>({-1, 0}, {2}), false);
  ASSERT_TRUE(by64.ok()) << by64.status();
  ExpectTensorEqual(*by64, Reference("Sum", x, {-1, 0}, false));
  StatusOr<Tensor> scalar = Reduce("Max", x, AsScalar<int32_t>(1), true);
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  ExpectTensorEqual(*scalar, Reference("Max", x, {1}, true));
}

TYPED_TEST(NumericReductionTest, EmptyInputsGiveTensorFlowsIdentities) {
  const DataType dt = DataTypeToEnum<TypeParam>::value;
  const bool integer = IsInteger(dt);
  const double lowest =
      dt == DT_INT32 ? std::numeric_limits<int32_t>::min() : -kInf;
  const double highest =
      dt == DT_INT32 ? std::numeric_limits<int32_t>::max() : kInf;
  const Tensor x(dt, {0, 3});
  struct Expect {
    const char* op;
    double value;
  };
  for (const Expect& e :
       {Expect{"Sum", 0}, Expect{"Prod", 1}, Expect{"Mean", integer ? 0 : kNaN},
        Expect{"Max", lowest}, Expect{"Min", highest}}) {
    SCOPED_TRACE(e.op);
    if (dt == DT_INT64 &&
        (std::string(e.op) == "Max" || std::string(e.op) == "Min")) {
      // Not representable as a double: checked as int64 below.
      continue;
    }
    StatusOr<Tensor> got = Reduce(e.op, x, Axes({0}));
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectTensorEqual(*got,
                      AsTensorOfType(dt, {e.value, e.value, e.value}, {3}));
    // Reducing every dimension of an empty tensor: one identity.
    StatusOr<Tensor> all = Reduce(e.op, x, Axes({0, 1}), true);
    ASSERT_TRUE(all.ok()) << all.status();
    ExpectTensorEqual(*all, AsTensorOfType(dt, {e.value}, {1, 1}));
    // An empty output stays empty.
    StatusOr<Tensor> none = Reduce(e.op, x, Axes({1}));
    ASSERT_TRUE(none.ok()) << none.status();
    EXPECT_EQ(none->shape(), TensorShape({0}));
  }
}

TEST(ReductionTest, Int64ExtremesAsIdentities) {
  const Tensor x(DT_INT64, {2, 0});
  StatusOr<Tensor> max = Reduce("Max", x, Axes({1}));
  ASSERT_TRUE(max.ok()) << max.status();
  const int64_t lo = std::numeric_limits<int64_t>::min();
  const int64_t hi = std::numeric_limits<int64_t>::max();
  ExpectTensorEqual(*max, AsTensor<int64_t>({lo, lo}, {2}));
  StatusOr<Tensor> min = Reduce("Min", x, Axes({1}));
  ASSERT_TRUE(min.ok()) << min.status();
  ExpectTensorEqual(*min, AsTensor<int64_t>({hi, hi}, {2}));
}

// ---- TensorFlow's corner cases ----------------------------------------------

TEST(ReductionTest, IntegersWrapAndMeanTruncatesTowardZero) {
  const int32_t big = std::numeric_limits<int32_t>::max();
  // TensorFlow: Sum wraps to -2; Mean sums in 64 bits, so it stays exact.
  StatusOr<Tensor> sum =
      Reduce("Sum", AsTensor<int32_t>({big, big}, {2}), Axes({0}));
  ASSERT_TRUE(sum.ok()) << sum.status();
  ExpectTensorEqual(*sum, AsScalar<int32_t>(-2));
  StatusOr<Tensor> mean =
      Reduce("Mean", AsTensor<int32_t>({big, big}, {2}), Axes({0}));
  ASSERT_TRUE(mean.ok()) << mean.status();
  ExpectTensorEqual(*mean, AsScalar<int32_t>(big));
  // (-5 + 1) / 2 = -2 and (2 + 1) / 2 = 1 (truncated).
  StatusOr<Tensor> trunc =
      Reduce("Mean", AsTensor<int32_t>({-5, 2, 1, 1}, {2, 2}), Axes({0}));
  ASSERT_TRUE(trunc.ok()) << trunc.status();
  ExpectTensorEqual(*trunc, AsTensor<int32_t>({-2, 1}, {2}));
  // 2^16 * 2^16 * 3 wraps to 0 in 32 bits.
  StatusOr<Tensor> prod =
      Reduce("Prod", AsTensor<int32_t>({65536, 65536, 3}, {3}), Axes({0}));
  ASSERT_TRUE(prod.ok()) << prod.status();
  ExpectTensorEqual(*prod, AsScalar<int32_t>(0));
  // 2^62 + 2^62 wraps to -2^63.
  const int64_t q = int64_t{1} << 62;
  StatusOr<Tensor> sum64 =
      Reduce("Sum", AsTensor<int64_t>({q, q}, {2}), Axes({0}));
  ASSERT_TRUE(sum64.ok()) << sum64.status();
  ExpectTensorEqual(*sum64,
                    AsScalar<int64_t>(std::numeric_limits<int64_t>::min()));
}

TEST(ReductionTest, MaxAndMinPropagateNaNFromAnyPosition) {
  for (const DataType dt : {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE}) {
    SCOPED_TRACE(DataTypeName(dt));
    // Rows path (last axis) and columns path (first axis), NaN first,
    // middle and last.
    const Tensor x = AsTensorOfType(
        dt, {kNaN, 1, 2, 3, kNaN, 5, 6, 7, kNaN, 9, 10, 11}, {3, 4});
    for (const char* op : {"Max", "Min"}) {
      for (int32_t axis : {0, 1}) {
        StatusOr<Tensor> got = Reduce(op, x, Axes({axis}));
        ASSERT_TRUE(got.ok()) << got.status();
        ExpectTensorEqual(*got, Reference(op, x, {axis}, false));
      }
    }
    // TensorFlow gives NaN for Max([1, NaN, 3]) and Min([NaN, 1, 3]).
    StatusOr<Tensor> max =
        Reduce("Max", AsTensorOfType(dt, {1, kNaN, 3}, {3}), Axes({0}));
    ASSERT_TRUE(max.ok()) << max.status();
    EXPECT_TRUE(std::isnan(ToDoubles(*max)[0]));
    // Infinities are ordinary values; inf + -inf is NaN in a Sum.
    const Tensor inf = AsTensorOfType(dt, {kInf, -kInf, 1, -kInf}, {2, 2});
    StatusOr<Tensor> imax = Reduce("Max", inf, Axes({1}));
    ASSERT_TRUE(imax.ok()) << imax.status();
    ExpectTensorEqual(*imax, AsTensorOfType(dt, {kInf, 1}, {2}));
    StatusOr<Tensor> isum = Reduce("Sum", inf, Axes({1}));
    ASSERT_TRUE(isum.ok()) << isum.status();
    ExpectTensorEqual(*isum, AsTensorOfType(dt, {kNaN, -kInf}, {2}));
  }
}

TEST(ReductionTest, NoAxesOrOnlySizeOneAxesShareTheInput) {
  const Tensor x = AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 1, 3});
  StatusOr<Tensor> none = Reduce("Sum", x, Axes({}), true);
  ASSERT_TRUE(none.ok()) << none.status();
  ExpectTensorEqual(*none, x);
  EXPECT_TRUE(none->SharesBufferWith(x));
  StatusOr<Tensor> ones = Reduce("Mean", x, Axes({1}), false);
  ASSERT_TRUE(ones.ok()) << ones.status();
  ExpectTensorEqual(*ones, AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}));
  EXPECT_TRUE(ones->SharesBufferWith(x));
}

TEST(ReductionTest, AxesOfAnyShapeAreReadAsAList) {
  // TensorFlow's kernel flattens the axes tensor.
  StatusOr<Tensor> got =
      Reduce("Sum", AsTensor<float>({0, 1, 2, 3, 4, 5}, {2, 3}),
             AsTensor<int32_t>({1}, {1, 1}));
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectTensorEqual(*got, AsTensor<float>({3, 12}, {2}));
}

TEST(ReductionTest, BadAxesAreErrorsNamingTheNode) {
  const Tensor x(DT_FLOAT, {2, 3});
  StatusOr<Tensor> range = Reduce("Sum", x, Axes({2}));
  ASSERT_FALSE(range.ok());
  EXPECT_EQ(range.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(range.status().message()),
            "node 'kernel_test/Sum' (Sum): reduction axis 2 is out of range "
            "for input 0 of shape [2,3]: axes must be in [-2, 2) (axes given: "
            "[2])");
  StatusOr<Tensor> negative = Reduce("Max", x, Axes({-3}));
  ASSERT_FALSE(negative.ok());
  EXPECT_TRUE(absl::StrContains(negative.status().message(),
                                "reduction axis -3 is out of range"));
  // TensorFlow rejects duplicates, also when spelled differently.
  StatusOr<Tensor> twice = Reduce("Mean", x, Axes({1, -1}));
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(std::string(twice.status().message()),
            "node 'kernel_test/Mean' (Mean): reduction axes [1,-1] name "
            "dimension 1 of input 0 (shape [2,3]) more than once; each axis "
            "may be given once");
  StatusOr<Tensor> scalar = Reduce("Sum", AsScalar<float>(1), Axes({0}));
  ASSERT_FALSE(scalar.ok());
  EXPECT_TRUE(absl::StrContains(scalar.status().message(), "[0, 0)"));
}

// ---- large inputs: the parallel and blocked paths ---------------------------

std::vector<double> Reals(int64_t n, std::mt19937* rng) {
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = dist(*rng);
  return v;
}

// Each shape takes a different path: many rows; one long row (blocked);
// wide columns split into pieces; a tall narrow column block (blocked
// columns); two reduced runs.
const std::vector<AxesCase>& LargeCases() {
  static const auto* cases = new std::vector<AxesCase>{
      {{4096, 300}, {1}},      {{200000}, {0}},   {{2, 100, 5000}, {1}},
      {{50000, 4}, {0}},       {{3, 40000}, {1}}, {{64, 50, 64}, {0, 2}},
      {{8, 9, 10, 11}, {0, 2}}};
  return *cases;
}

TEST(ReductionTest, LargeSumsStayWithinTheSummationBound) {
  std::mt19937 rng(21);
  for (const DataType dt : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    const double u_acc =
        test::UnitRoundoff(dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT);
    const double u_out = test::UnitRoundoff(dt);
    for (const AxesCase& c : LargeCases()) {
      SCOPED_TRACE(testing::Message()
                   << DataTypeName(dt) << " " << c.shape.DebugString());
      const Tensor x =
          AsTensorOfType(dt, Reals(c.shape.num_elements(), &rng), c.shape);
      StatusOr<Tensor> got = Reduce("Sum", x, Axes(c.axes));
      ASSERT_TRUE(got.ok()) << got.status();
      const Groups g = GroupBy(x.shape(), c.axes, false);
      const std::vector<double> v = ToDoubles(x);
      const std::vector<double> out = ToDoubles(*got);
      ASSERT_EQ(out.size(), g.members.size());
      for (size_t o = 0; o < out.size(); ++o) {
        long double exact = 0;
        long double abs = 0;
        for (int64_t i : g.members[o]) {
          exact += v[i];
          abs += std::fabs(v[i]);
        }
        const double d = static_cast<double>(g.members[o].size());
        const double bound =
            (d - 1) * u_acc * static_cast<double>(abs) * (1 + u_out) +
            u_out * std::fabs(static_cast<double>(exact));
        ASSERT_LE(std::fabs(out[o] - static_cast<double>(exact)), bound)
            << "output " << o;
      }
    }
  }
}

TEST(ReductionTest, LargeReductionsAreIdenticalAtEveryThreadCount) {
  std::mt19937 rng(22);
  for (const AxesCase& c : LargeCases()) {
    const int64_t n = c.shape.num_elements();
    const Tensor xf = AsTensorOfType(DT_FLOAT, Reals(n, &rng), c.shape);
    const Tensor xh = AsTensorOfType(DT_HALF, Reals(n, &rng), c.shape);
    const Tensor xi = AsTensorOfType(DT_INT32, GridValues(n, &rng), c.shape);
    for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min"}) {
      for (const Tensor* x : {&xf, &xh, &xi}) {
        SCOPED_TRACE(testing::Message() << op << " " << DataTypeName(x->dtype())
                                        << " " << c.shape.DebugString());
        StatusOr<Tensor> serial = Reduce(op, *x, Axes(c.axes), false, 0);
        ASSERT_TRUE(serial.ok()) << serial.status();
        StatusOr<Tensor> parallel = Reduce(op, *x, Axes(c.axes), false, 2);
        ASSERT_TRUE(parallel.ok()) << parallel.status();
        ExpectTensorEqual(*parallel, *serial);
        // Integers and extrema are exact whatever the order.
        if (x->dtype() == DT_INT32 || std::string(op) == "Max" ||
            std::string(op) == "Min") {
          ExpectTensorEqual(*serial, Reference(op, *x, c.axes, false));
        }
      }
    }
  }
}

// ---- All and Any
// --------------------------------------------------------------

Tensor Bools(const std::vector<int>& v, const TensorShape& shape) {
  std::vector<double> d(v.begin(), v.end());
  return AsTensorOfType(DT_BOOL, d, shape);
}

Tensor BoolReference(bool all, const Tensor& x,
                     const std::vector<int32_t>& axes, bool keep) {
  const Groups g = GroupBy(x.shape(), axes, keep);
  std::vector<double> out;
  for (const auto& members : g.members) {
    bool acc = all;
    for (int64_t i : members) {
      acc = all ? (acc && x.data<bool>()[i]) : (acc || x.data<bool>()[i]);
    }
    out.push_back(acc);
  }
  return AsTensorOfType(DT_BOOL, out, g.shape);
}

TEST(ReductionTest, AllAndAnyMatchTheReference) {
  std::mt19937 rng(31);
  std::bernoulli_distribution mostly_true(0.9);
  for (const AxesCase& c : AxesCases()) {
    for (bool keep : {false, true}) {
      std::vector<int> v(c.shape.num_elements());
      for (int& b : v) b = mostly_true(rng);
      const Tensor x = Bools(v, c.shape);
      for (bool all : {true, false}) {
        SCOPED_TRACE(testing::Message()
                     << (all ? "All " : "Any ") << c.shape.DebugString()
                     << " axes " << testing::PrintToString(c.axes));
        StatusOr<Tensor> got =
            Reduce(all ? "All" : "Any", x, Axes(c.axes), keep);
        ASSERT_TRUE(got.ok()) << got.status();
        ExpectTensorEqual(*got, BoolReference(all, x, c.axes, keep));
      }
    }
  }
  // Empty: All is true and Any false, as in TensorFlow.
  StatusOr<Tensor> all = Reduce("All", Tensor(DT_BOOL, {0}), Axes({0}));
  ASSERT_TRUE(all.ok()) << all.status();
  ExpectTensorEqual(*all, Bools({1}, {}));
  StatusOr<Tensor> any = Reduce("Any", Tensor(DT_BOOL, {2, 0}), Axes({1}));
  ASSERT_TRUE(any.ok()) << any.status();
  ExpectTensorEqual(*any, Bools({0, 0}, {2}));
  // Large, at two thread counts.
  for (const AxesCase& c : LargeCases()) {
    std::vector<int> v(c.shape.num_elements());
    for (int& b : v) b = mostly_true(rng);
    const Tensor x = Bools(v, c.shape);
    for (const char* op : {"All", "Any"}) {
      SCOPED_TRACE(testing::Message() << op << " " << c.shape.DebugString());
      StatusOr<Tensor> got = Reduce(op, x, Axes(c.axes), false, 2);
      ASSERT_TRUE(got.ok()) << got.status();
      ExpectTensorEqual(
          *got, BoolReference(std::string(op) == "All", x, c.axes, false));
    }
  }
}

// ---- ArgMax and ArgMin
// --------------------------------------------------------

AttrMap OutputType(DataType dt) {
  AttrMap attrs;
  attrs["output_type"] = AttrValue::Type(dt);
  return attrs;
}

StatusOr<Tensor> Arg(const std::string& op, const Tensor& x, const Tensor& dim,
                     DataType out = DT_INT64, int threads = 0) {
  StatusOr<std::vector<Tensor>> r =
      OpRunner(op, OutputType(out), threads).Run({x, dim});
  if (!r.ok()) return r.status();
  return (*r)[0];
}

// The first index of the largest (smallest) value along `axis`, for inputs
// without NaN.
std::vector<int64_t> ArgReference(bool max, const Tensor& x, int axis) {
  const std::vector<double> v = ToDoubles(x);
  int64_t outer = 1;
  int64_t inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.dim_size(d);
  for (int d = axis + 1; d < x.dims(); ++d) inner *= x.dim_size(d);
  const int64_t len = x.dim_size(axis);
  std::vector<int64_t> out;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      int64_t best = 0;
      for (int64_t r = 1; r < len; ++r) {
        const double a = v[(o * len + r) * inner + j];
        const double b = v[(o * len + best) * inner + j];
        if (max ? a > b : a < b) best = r;
      }
      out.push_back(best);
    }
  }
  return out;
}

template <typename T>
class ArgTest : public ::testing::Test {};
using ArgTypes =
    ::testing::Types<half, bfloat16, float, double, int32_t, int64_t, bool>;
TYPED_TEST_SUITE(ArgTest, ArgTypes);

TYPED_TEST(ArgTest, FirstIndexOfTheExtremeAlongEveryAxis) {
  const DataType dt = DataTypeToEnum<TypeParam>::value;
  std::mt19937 rng(41);
  // Few distinct values, so ties are common.
  std::uniform_int_distribution<int> dist(dt == DT_BOOL ? 0 : -2,
                                          dt == DT_BOOL ? 1 : 2);
  for (const TensorShape& shape :
       {TensorShape({7}), TensorShape({3, 5}), TensorShape({2, 3, 4}),
        TensorShape({4, 1, 3}), TensorShape({0, 3})}) {
    std::vector<double> v(shape.num_elements());
    for (double& x : v) x = dist(rng);
    const Tensor x = AsTensorOfType(dt, v, shape);
    for (int axis = -shape.dims(); axis < shape.dims(); ++axis) {
      const int a = axis < 0 ? axis + shape.dims() : axis;
      if (shape.dim_size(a) == 0) continue;
      for (bool max : {true, false}) {
        SCOPED_TRACE(testing::Message()
                     << (max ? "ArgMax " : "ArgMin ") << shape.DebugString()
                     << " axis " << axis);
        StatusOr<Tensor> got =
            Arg(max ? "ArgMax" : "ArgMin", x, AsScalar<int32_t>(axis));
        ASSERT_TRUE(got.ok()) << got.status();
        std::vector<int64_t> dims;
        for (int d = 0; d < shape.dims(); ++d) {
          if (d != a) dims.push_back(shape.dim_size(d));
        }
        ExpectTensorEqual(*got, AsTensor<int64_t>(ArgReference(max, x, a),
                                                  *TensorShape::Build(dims)));
      }
    }
  }
}

TEST(ArgTest, NaNIsSkippedAsInTensorFlow) {
  // TensorFlow 2.21 CPU results (tf.raw_ops.ArgMax / ArgMin).
  struct Case {
    std::vector<double> values;
    int64_t argmax;
    int64_t argmin;
  };
  std::vector<double> long_nan(40, kNaN);
  long_nan.push_back(1);
  std::vector<double> nan_between = {1};
  nan_between.insert(nan_between.end(), 40, kNaN);
  nan_between.push_back(2);
  const std::vector<Case> cases = {
      {{1, kNaN, 3}, 2, 0},    {{kNaN, 1, 3}, 2, 1},
      {{kNaN, -kInf}, 0, 1},   {{kNaN, kNaN}, 0, 0},
      {{kNaN, kNaN, 2}, 2, 2}, {{-kInf, kNaN, -kInf}, 0, 0},
      {{3, kNaN}, 0, 0},       {{-kInf, -kInf, 5}, 2, 0},
      {long_nan, 40, 40},      {nan_between, 41, 0}};
  for (const DataType dt : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(testing::Message() << DataTypeName(dt) << " "
                                      << testing::PrintToString(c.values));
      const int64_t n = static_cast<int64_t>(c.values.size());
      const Tensor x = AsTensorOfType(dt, c.values, {n});
      StatusOr<Tensor> max = Arg("ArgMax", x, AsScalar<int32_t>(0));
      ASSERT_TRUE(max.ok()) << max.status();
      ExpectTensorEqual(*max, AsScalar<int64_t>(c.argmax));
      StatusOr<Tensor> min = Arg("ArgMin", x, AsScalar<int32_t>(0));
      ASSERT_TRUE(min.ok()) << min.status();
      ExpectTensorEqual(*min, AsScalar<int64_t>(c.argmin));
      // The same along a non-innermost axis (the columns path).
      std::vector<double> cols;
      for (double v : c.values) cols.insert(cols.end(), {v, v, v});
      const Tensor xc = AsTensorOfType(dt, cols, {n, 3});
      StatusOr<Tensor> cmax = Arg("ArgMax", xc, AsScalar<int32_t>(0));
      ASSERT_TRUE(cmax.ok()) << cmax.status();
      ExpectTensorEqual(*cmax,
                        AsTensor<int64_t>({c.argmax, c.argmax, c.argmax}, {3}));
    }
  }
  // The scan starts from the lowest (highest) finite value, not an
  // infinity, and takes only strictly better values: TensorFlow gives 0 for
  // ArgMax([-inf, lowest]) and ArgMin([inf, highest]), and [0, 1] along
  // axis 0 of [[-inf, -inf], [lowest, 1]].
  const float lowest = std::numeric_limits<float>::lowest();
  const float highest = std::numeric_limits<float>::max();
  const float inf = std::numeric_limits<float>::infinity();
  StatusOr<Tensor> low =
      Arg("ArgMax", AsTensor<float>({-inf, lowest}, {2}), AsScalar<int32_t>(0));
  ASSERT_TRUE(low.ok()) << low.status();
  ExpectTensorEqual(*low, AsScalar<int64_t>(0));
  StatusOr<Tensor> high =
      Arg("ArgMin", AsTensor<float>({inf, highest}, {2}), AsScalar<int32_t>(0));
  ASSERT_TRUE(high.ok()) << high.status();
  ExpectTensorEqual(*high, AsScalar<int64_t>(0));
  StatusOr<Tensor> cols =
      Arg("ArgMax", AsTensor<float>({-inf, -inf, lowest, 1}, {2, 2}),
          AsScalar<int32_t>(0));
  ASSERT_TRUE(cols.ok()) << cols.status();
  ExpectTensorEqual(*cols, AsTensor<int64_t>({0, 1}, {2}));
}

TEST(ArgTest, OutputAndDimensionTypes) {
  const Tensor x = AsTensor<float>({1, 5, 2, 7, 0, 3}, {2, 3});
  for (const DataType out : {DT_INT16, DT_UINT16, DT_INT32, DT_INT64}) {
    SCOPED_TRACE(DataTypeName(out));
    StatusOr<Tensor> got = Arg("ArgMax", x, AsScalar<int64_t>(-1), out);
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectTensorEqual(*got, AsTensorOfType(out, {1, 0}, {2}));
  }
  StatusOr<Tensor> min32 = Arg("ArgMin", x, AsScalar<int64_t>(0), DT_INT32);
  ASSERT_TRUE(min32.ok()) << min32.status();
  ExpectTensorEqual(*min32, AsTensor<int32_t>({0, 1, 0}, {3}));
  // ArgMax also takes an int16 axis (TensorFlow misreads one as int32).
  StatusOr<Tensor> by16 = Arg("ArgMax", x, AsScalar<int16_t>(0), DT_INT32);
  ASSERT_TRUE(by16.ok()) << by16.status();
  ExpectTensorEqual(*by16, AsTensor<int32_t>({1, 0, 1}, {3}));
  // TensorFlow has no int16 ArgMin.
  StatusOr<Tensor> min16 = Arg("ArgMin", x, AsScalar<int32_t>(0), DT_INT16);
  EXPECT_FALSE(min16.ok());
}

TEST(ArgTest, BadDimensionsAreErrors) {
  const Tensor x(DT_FLOAT, {2, 0});
  StatusOr<Tensor> range = Arg("ArgMax", x, AsScalar<int32_t>(2));
  ASSERT_FALSE(range.ok());
  EXPECT_EQ(std::string(range.status().message()),
            "node 'kernel_test/ArgMax' (ArgMax): dimension (input 1) is 2 but "
            "must be in [-2, 2) for input 0 of shape [2,0]");
  // TensorFlow refuses an empty axis even when the output would be empty.
  StatusOr<Tensor> empty = Arg("ArgMin", x, AsScalar<int32_t>(-1));
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(std::string(empty.status().message()),
            "node 'kernel_test/ArgMin' (ArgMin): dimension -1 of input 0 "
            "(shape [2,0]) is empty, so it has no smallest element");
  StatusOr<Tensor> vec =
      Arg("ArgMax", Tensor(DT_FLOAT, {3}), AsTensor<int32_t>({0}, {1}));
  ASSERT_FALSE(vec.ok());
  EXPECT_TRUE(absl::StrContains(vec.status().message(),
                                "dimension (input 1) must be a scalar"));
  StatusOr<Tensor> scalar =
      Arg("ArgMax", AsScalar<float>(1), AsScalar<int32_t>(0));
  ASSERT_FALSE(scalar.ok());
  EXPECT_TRUE(absl::StrContains(scalar.status().message(), "[0, 0)"));
  // An empty output along a non-empty axis is fine.
  StatusOr<Tensor> none =
      Arg("ArgMax", Tensor(DT_FLOAT, {0, 3}), AsScalar<int32_t>(1));
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->shape(), TensorShape({0}));
}

TEST(ArgTest, LargeInputsAreIdenticalAtEveryThreadCount) {
  std::mt19937 rng(43);
  std::uniform_int_distribution<int> dist(-1000, 1000);
  struct Case {
    TensorShape shape;
    int axis;
  };
  // One long row (blocked), wide columns in pieces, tall narrow columns
  // (blocked), many rows.
  for (const Case& c : {Case{{300000}, 0}, Case{{2, 50, 3000}, 1},
                        Case{{60000, 3}, 0}, Case{{5000, 40}, 1}}) {
    std::vector<double> v(c.shape.num_elements());
    for (double& x : v) x = dist(rng);
    const Tensor x = AsTensorOfType(DT_FLOAT, v, c.shape);
    for (bool max : {true, false}) {
      SCOPED_TRACE(testing::Message()
                   << c.shape.DebugString() << " " << (max ? "max" : "min"));
      const char* op = max ? "ArgMax" : "ArgMin";
      StatusOr<Tensor> serial = Arg(op, x, AsScalar<int32_t>(c.axis));
      ASSERT_TRUE(serial.ok()) << serial.status();
      StatusOr<Tensor> parallel =
          Arg(op, x, AsScalar<int32_t>(c.axis), DT_INT64, 2);
      ASSERT_TRUE(parallel.ok()) << parallel.status();
      ExpectTensorEqual(*parallel, *serial);
      std::vector<int64_t> dims;
      for (int d = 0; d < c.shape.dims(); ++d) {
        if (d != c.axis) dims.push_back(c.shape.dim_size(d));
      }
      ExpectTensorEqual(*serial, AsTensor<int64_t>(ArgReference(max, x, c.axis),
                                                   *TensorShape::Build(dims)));
    }
  }
}

}  // namespace cpu_reduction_test
}  // namespace weft
