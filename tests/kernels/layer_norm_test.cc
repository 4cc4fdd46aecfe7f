// The _LayerNorm kernel (kernels/cpu/layer_norm_op.cc) on whichever CPU path
// runs, against the formula in long double on the rounded inputs: each
// value within (depth + 10) float roundings of its terms (the two sums of
// depth terms, the division, rsqrt and the final products and sums), for
// depths around the vector widths and rows far from 0 (the variance's
// cancellation); NaN and inf rows; empty input; shape errors; the same bits
// at every thread count.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace layer_norm_test {
namespace {

using test::AsTensor;
using test::ExpectTensorEqual;
using test::OpRunner;

Tensor Random(const TensorShape& shape, float lo, float hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = dist(gen);
  return t;
}

StatusOr<Tensor> LayerNorm(const Tensor& x, const Tensor& gamma,
                           const Tensor& beta, float epsilon, int threads = 0) {
  OpRunner runner("_LayerNorm", {{"epsilon", AttrValue::Float(epsilon)}},
                  threads);
  WEFT_ASSIGN_OR_RETURN(std::vector<Tensor> out, runner.Run({x, gamma, beta}));
  return out[0];
}

void ExpectMatchesFormula(const Tensor& x, const Tensor& gamma,
                          const Tensor& beta, float epsilon, const Tensor& y) {
  const int64_t depth = x.dim_size(x.dims() - 1);
  const int64_t rows = x.NumElements() / depth;
  const float* px = x.data<float>();
  const float* g = gamma.data<float>();
  const float* b = beta.data<float>();
  const float* py = y.data<float>();
  const long double u = std::ldexp(1.0L, -24);
  int failures = 0;
  for (int64_t r = 0; r < rows && failures < 10; ++r) {
    const float* row = px + r * depth;
    long double mean = 0, var = 0;
    for (int64_t i = 0; i < depth; ++i) mean += row[i];
    mean /= depth;
    for (int64_t i = 0; i < depth; ++i) {
      var += (row[i] - mean) * (row[i] - mean);
    }
    var /= depth;
    const long double rs = 1 / std::sqrt(var + epsilon);
    for (int64_t i = 0; i < depth; ++i) {
      const long double s = rs * g[i];
      const long double want = (row[i] - mean) * s + b[i];
      const long double scale =
          std::fabs(row[i] * s) + std::fabs(mean * s) + std::fabs(b[i]);
      const long double tol = (depth + 10) * u * scale + 1e-30L;
      const float got = py[r * depth + i];
      if (!(std::fabs(got - want) <= tol)) {
        ADD_FAILURE() << "row " << r << " value " << i << ": " << got
                      << ", want " << static_cast<double>(want) << " (tol "
                      << static_cast<double>(tol) << ")";
        ++failures;
      }
    }
  }
}

TEST(LayerNormTest, MatchesTheFormula) {
  for (int64_t depth : {1, 7, 8, 15, 16, 17, 31, 33, 64, 256, 1000}) {
    for (float center : {0.0f, 1000.0f}) {
      SCOPED_TRACE(absl::StrCat("depth ", depth, " center ", center));
      const Tensor x = Random(TensorShape({3, 5, depth}), center - 2,
                              center + 2, static_cast<unsigned>(depth));
      const Tensor gamma = Random(TensorShape({depth}), 0.5f, 1.5f, 2);
      const Tensor beta = Random(TensorShape({depth}), -1, 1, 3);
      StatusOr<Tensor> y = LayerNorm(x, gamma, beta, 1e-5f);
      ASSERT_TRUE(y.ok()) << y.status();
      ASSERT_EQ(y->shape(), x.shape());
      ExpectMatchesFormula(x, gamma, beta, 1e-5f, *y);
    }
  }
}

TEST(LayerNormTest, NanAndInfinityTakeTheirRowOnly) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Random(TensorShape({4, 20}), -1, 1, 5);
  x.data<float>()[3] = nan;
  x.data<float>()[20 + 19] = inf;
  x.data<float>()[40 + 7] = -inf;
  const Tensor gamma = Random(TensorShape({20}), 0.5f, 1.5f, 6);
  const Tensor beta = Random(TensorShape({20}), -1, 1, 7);
  StatusOr<Tensor> y = LayerNorm(x, gamma, beta, 1e-5f);
  ASSERT_TRUE(y.ok()) << y.status();
  for (int64_t i = 0; i < 60; ++i) {
    EXPECT_TRUE(std::isnan(y->data<float>()[i])) << i;
  }
  for (int64_t i = 60; i < 80; ++i) {
    EXPECT_TRUE(std::isfinite(y->data<float>()[i])) << i;
  }
}

TEST(LayerNormTest, EmptyAndBadShapes) {
  const Tensor gamma = Random(TensorShape({4}), 0.5f, 1.5f, 8);
  const Tensor beta = Random(TensorShape({4}), -1, 1, 9);
  StatusOr<Tensor> empty =
      LayerNorm(Tensor(DT_FLOAT, TensorShape({0, 4})), gamma, beta, 1e-5f);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({0, 4}));
  StatusOr<Tensor> wide =
      LayerNorm(Random(TensorShape({2, 5}), -1, 1, 10), gamma, beta, 1e-5f);
  ASSERT_FALSE(wide.ok());
  EXPECT_TRUE(absl::StrContains(wide.status().message(), "[2,5]"))
      << wide.status();
}

TEST(LayerNormTest, SameBitsAtEveryThreadCount) {
  const Tensor x = Random(TensorShape({64, 33, 96}), -3, 3, 11);
  const Tensor gamma = Random(TensorShape({96}), 0.5f, 1.5f, 12);
  const Tensor beta = Random(TensorShape({96}), -1, 1, 13);
  StatusOr<Tensor> one = LayerNorm(x, gamma, beta, 1e-6f, 0);
  ASSERT_TRUE(one.ok()) << one.status();
  for (int threads : {1, 2, 4}) {
    StatusOr<Tensor> many = LayerNorm(x, gamma, beta, 1e-6f, threads);
    ASSERT_TRUE(many.ok()) << many.status();
    ExpectTensorEqual(*many, *one);
  }
}

}  // namespace
}  // namespace layer_norm_test
}  // namespace weft
