// MatMul against a reference product computed here in long double.
//
// Two kinds of operands: values on a grid of quarters, for which every
// product and partial sum is exact in float (|sum| < 2^20 / 16), so any
// summation order gives the exact result and the kernel must match the
// reference rounded to the dtype bit for bit; and random reals, for which
// the kernel must stay within the classical bound for a k-term dot product
// in precision u, |error| <= k u sum_l |a_il b_lj| (Higham, Accuracy and
// Stability of Numerical Algorithms, eq. 3.5), plus one rounding of the
// result for half and bfloat16, which accumulate in float.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_matmul_test {

using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::OpRunner;
using test::ToDoubles;

AttrMap Transposes(bool ta, bool tb) {
  AttrMap attrs;
  attrs["transpose_a"] = AttrValue::Bool(ta);
  attrs["transpose_b"] = AttrValue::Bool(tb);
  return attrs;
}

struct Product {
  std::vector<long double> value;  // m x n
  std::vector<long double> abs;    // sum_l |a_il b_lj|
};

// a is m x k (stored k x m when ta), b is k x n (stored n x k when tb).
Product Reference(const std::vector<double>& a, const std::vector<double>& b,
                  bool ta, bool tb, int64_t m, int64_t k, int64_t n) {
  Product p{std::vector<long double>(m * n, 0),
            std::vector<long double>(m * n, 0)};
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t l = 0; l < k; ++l) {
        const long double x = ta ? a[l * m + i] : a[i * k + l];
        const long double y = tb ? b[j * k + l] : b[l * n + j];
        p.value[i * n + j] += x * y;
        p.abs[i * n + j] += std::fabs(x * y);
      }
    }
  }
  return p;
}

TensorShape Stored(int64_t rows, int64_t cols, bool transposed) {
  return transposed ? TensorShape({cols, rows}) : TensorShape({rows, cols});
}

std::vector<double> Grid(int64_t n, std::mt19937* rng) {
  std::uniform_int_distribution<int> dist(-32, 32);
  std::vector<double> v(n);
  for (double& x : v) x = dist(*rng) / 4.0;
  return v;
}

std::vector<double> Reals(int64_t n, std::mt19937* rng) {
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = dist(*rng);
  return v;
}

struct Dims {
  int64_t m, k, n;
};

// Small, odd, degenerate and banded (row- and column-split) products.
const std::vector<Dims>& Shapes() {
  static const auto* shapes = new std::vector<Dims>{
      {1, 1, 1},     {2, 3, 4},    {5, 7, 3}, {1, 64, 300}, {300, 64, 1},
      {130, 70, 90}, {40, 33, 97}, {0, 3, 4}, {3, 0, 4},    {3, 4, 0},
  };
  return *shapes;
}

template <typename T>
class MatMulTypedTest : public ::testing::Test {};
using MatMulTypes = ::testing::Types<half, bfloat16, float, double>;
TYPED_TEST_SUITE(MatMulTypedTest, MatMulTypes);

TYPED_TEST(MatMulTypedTest, ExactOnGridValues) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  std::mt19937 rng(5);
  for (const Dims& d : Shapes()) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(testing::Message() << d.m << "x" << d.k << "x" << d.n
                                        << " ta=" << ta << " tb=" << tb);
        const std::vector<double> a = Grid(d.m * d.k, &rng);
        const std::vector<double> b = Grid(d.k * d.n, &rng);
        StatusOr<std::vector<Tensor>> out =
            OpRunner("MatMul", Transposes(ta, tb))
                .Run({AsTensorOfType(dt, a, Stored(d.m, d.k, ta)),
                      AsTensorOfType(dt, b, Stored(d.k, d.n, tb))});
        ASSERT_TRUE(out.ok()) << out.status();
        const Product ref = Reference(a, b, ta, tb, d.m, d.k, d.n);
        std::vector<double> expected(ref.value.begin(), ref.value.end());
        ExpectTensorEqual((*out)[0], AsTensorOfType(dt, expected, {d.m, d.n}));
      }
    }
  }
}

TYPED_TEST(MatMulTypedTest, WithinDotProductBoundOnRealValues) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  // half and bfloat16 accumulate in float.
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const long double u_acc = test::UnitRoundoff(DataTypeToEnum<Acc>::value);
  const long double u_out = test::UnitRoundoff(dt);
  std::mt19937 rng(11);
  for (const Dims& d : Shapes()) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(testing::Message() << d.m << "x" << d.k << "x" << d.n
                                        << " ta=" << ta << " tb=" << tb);
        // Round the operands to T first so the reference sees what the
        // kernel sees.
        const Tensor at =
            AsTensorOfType(dt, Reals(d.m * d.k, &rng), Stored(d.m, d.k, ta));
        const Tensor bt =
            AsTensorOfType(dt, Reals(d.k * d.n, &rng), Stored(d.k, d.n, tb));
        StatusOr<std::vector<Tensor>> out =
            OpRunner("MatMul", Transposes(ta, tb)).Run({at, bt});
        ASSERT_TRUE(out.ok()) << out.status();
        const Product ref =
            Reference(ToDoubles(at), ToDoubles(bt), ta, tb, d.m, d.k, d.n);
        const std::vector<double> got = ToDoubles((*out)[0]);
        ASSERT_EQ(got.size(), ref.value.size());
        for (size_t i = 0; i < got.size(); ++i) {
          const long double bound = d.k * u_acc * ref.abs[i] * (1 + u_out) +
                                    u_out * std::fabs(ref.value[i]);
          ASSERT_LE(std::fabs(got[i] - ref.value[i]), bound)
              << "element " << i << ": got " << got[i] << ", expected "
              << static_cast<double>(ref.value[i]);
        }
      }
    }
  }
}

TEST(MatMulTest, ResultIsIdenticalAtEveryThreadCount) {
  std::mt19937 rng(3);
  const std::vector<Dims> shapes = {
      {257, 129, 200}, {1, 512, 4096}, {64, 64, 64}};
  for (const Dims& d : shapes) {
    for (bool ta : {false, true}) {
      SCOPED_TRACE(testing::Message()
                   << d.m << "x" << d.k << "x" << d.n << " ta=" << ta);
      const Tensor a = AsTensorOfType(DT_FLOAT, Reals(d.m * d.k, &rng),
                                      Stored(d.m, d.k, ta));
      const Tensor b =
          AsTensorOfType(DT_FLOAT, Reals(d.k * d.n, &rng), {d.k, d.n});
      StatusOr<std::vector<Tensor>> single =
          OpRunner("MatMul", Transposes(ta, false), 0).Run({a, b});
      ASSERT_TRUE(single.ok()) << single.status();
      for (int threads : {1, 2}) {
        StatusOr<std::vector<Tensor>> multi =
            OpRunner("MatMul", Transposes(ta, false), threads).Run({a, b});
        ASSERT_TRUE(multi.ok()) << multi.status();
        ExpectTensorEqual((*multi)[0], (*single)[0]);
      }
    }
  }
}

TEST(MatMulTest, EmptyInnerDimensionGivesZeros) {
  StatusOr<std::vector<Tensor>> out = OpRunner("MatMul").Run(
      {Tensor(DT_FLOAT, {2, 0}), Tensor(DT_FLOAT, {0, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>({0, 0, 0, 0, 0, 0}, {2, 3}));
}

TEST(MatMulTest, InnerDimensionMismatchNamesBothShapes) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner("MatMul", Transposes(false, true))
          .Run({Tensor(DT_FLOAT, {1, 128}), Tensor(DT_FLOAT, {10, 64})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(out.status().message()),
            "node 'kernel_test/MatMul' (MatMul): inner dimensions differ: a "
            "has shape [1,128] (transpose_a=false) and b has shape [10,64] "
            "(transpose_b=true), so a contributes 128 and b 64");
}

TEST(MatMulTest, NonMatrixOperands) {
  StatusOr<std::vector<Tensor>> out = OpRunner("MatMul").Run(
      {Tensor(DT_DOUBLE, {4}), Tensor(DT_DOUBLE, {4, 1})});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(absl::StrContains(
      out.status().message(), "a must be a matrix (rank 2) but has shape [4]"))
      << out.status();
  out = OpRunner("MatMul").Run(
      {Tensor(DT_DOUBLE, {1, 4}), Tensor(DT_DOUBLE, {2, 4, 1})});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(absl::StrContains(out.status().message(),
                                "b must be a matrix (rank 2) but has shape "
                                "[2,4,1]"))
      << out.status();
}

TEST(MatMulTest, UnregisteredDtypeIsAMissingKernel) {
  StatusOr<std::vector<Tensor>> out = OpRunner("MatMul").Run(
      {Tensor(DT_INT32, {1, 1}), Tensor(DT_INT32, {1, 1})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "T=int32"))
      << out.status();
}

}  // namespace cpu_matmul_test
}  // namespace weft
