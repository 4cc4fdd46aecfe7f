// BatchMatMulV2 against a reference computed here: the batch dimensions
// broadcast by NumPy's rules (aligned at the right, a 1 stretches), each
// product summed in long double (floating) or in wrapping 64-bit
// arithmetic (integers, then truncated to the dtype's width).
//
// On grid values (quarters in [-2, 2], and k <= 64) every partial sum is
// exact in the accumulation precision (float for half and bfloat16, which
// are rounded once at the end), so in any summation order the kernel must
// give the exact value rounded to the dtype, bit for bit. On random reals the
// kernel must stay within the dot-product bound k u sum_l |x_il y_lj| (Higham,
// eq. 3.5) in its accumulation precision u (float for half and bfloat16), plus
// one rounding to the dtype.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace {

using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::OpRunner;
using test::ToDoubles;

AttrMap Adjoints(bool adj_x, bool adj_y) {
  AttrMap attrs;
  attrs["adj_x"] = AttrValue::Bool(adj_x);
  attrs["adj_y"] = AttrValue::Bool(adj_y);
  return attrs;
}

StatusOr<Tensor> BatchMatMul(const Tensor& x, const Tensor& y, bool adj_x,
                             bool adj_y, int threads = 0) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner("BatchMatMulV2", Adjoints(adj_x, adj_y), threads).Run({x, y});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

struct Reference {
  TensorShape shape;
  std::vector<long double> value;
  std::vector<long double> abs;   // sum_l |x_il y_lj|
  std::vector<uint64_t> wrapped;  // integer products, mod 2^64
};

// x: [..., m, k] ([..., k, m] when adj_x); y: [..., k, n] ([..., n, k]).
Reference Compute(const Tensor& x, bool adj_x, const Tensor& y, bool adj_y) {
  const int xr = x.dims();
  const int yr = y.dims();
  const int64_t m = x.dim_size(adj_x ? xr - 1 : xr - 2);
  const int64_t k = x.dim_size(adj_x ? xr - 2 : xr - 1);
  const int64_t n = y.dim_size(adj_y ? yr - 2 : yr - 1);
  const int br = std::max(xr, yr) - 2;
  // Batch sizes right-aligned, 1 where a shape is shorter.
  std::vector<int64_t> xb(br, 1), yb(br, 1), ob(br);
  for (int d = 0; d < xr - 2; ++d) xb[br - (xr - 2) + d] = x.dim_size(d);
  for (int d = 0; d < yr - 2; ++d) yb[br - (yr - 2) + d] = y.dim_size(d);
  for (int d = 0; d < br; ++d) ob[d] = std::max(xb[d], yb[d]);
  if (std::find(xb.begin(), xb.end(), 0) != xb.end() ||
      std::find(yb.begin(), yb.end(), 0) != yb.end()) {
    for (int d = 0; d < br; ++d) {
      if (xb[d] == 0 || yb[d] == 0) ob[d] = 0;
    }
  }
  std::vector<int64_t> dims = ob;
  dims.push_back(m);
  dims.push_back(n);
  Reference r;
  r.shape = *TensorShape::Build(dims);
  const std::vector<double> xv = ToDoubles(x);
  const std::vector<double> yv = ToDoubles(y);
  int64_t batch = 1;
  for (int64_t s : ob) batch *= s;
  std::vector<int64_t> index(br, 0);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t xi = 0, yi = 0;
    for (int d = 0; d < br; ++d) {
      xi = xi * xb[d] + (xb[d] == 1 ? 0 : index[d]);
      yi = yi * yb[d] + (yb[d] == 1 ? 0 : index[d]);
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        long double sum = 0, abs = 0;
        uint64_t wrap = 0;
        for (int64_t l = 0; l < k; ++l) {
          const double a = xv[xi * m * k + (adj_x ? l * m + i : i * k + l)];
          const double c = yv[yi * k * n + (adj_y ? j * k + l : l * n + j)];
          sum += static_cast<long double>(a) * c;
          abs += std::fabs(static_cast<long double>(a) * c);
          wrap += static_cast<uint64_t>(static_cast<int64_t>(a)) *
                  static_cast<uint64_t>(static_cast<int64_t>(c));
        }
        r.value.push_back(sum);
        r.abs.push_back(abs);
        r.wrapped.push_back(wrap);
      }
    }
    for (int d = br - 1; d >= 0; --d) {
      if (++index[d] < ob[d]) break;
      index[d] = 0;
    }
  }
  return r;
}

Tensor Expected(DataType dt, const Reference& r) {
  if (dt == DT_INT32) {
    std::vector<int32_t> v;
    for (uint64_t w : r.wrapped) {
      v.push_back(static_cast<int32_t>(static_cast<uint32_t>(w)));
    }
    return AsTensor<int32_t>(v, r.shape);
  }
  if (dt == DT_INT64) {
    std::vector<int64_t> v;
    for (uint64_t w : r.wrapped) v.push_back(static_cast<int64_t>(w));
    return AsTensor<int64_t>(v, r.shape);
  }
  return AsTensorOfType(dt, std::vector<double>(r.value.begin(), r.value.end()),
                        r.shape);
}

TensorShape Operand(std::vector<int64_t> batch, int64_t rows, int64_t cols,
                    bool adj) {
  batch.push_back(adj ? cols : rows);
  batch.push_back(adj ? rows : cols);
  return *TensorShape::Build(batch);
}

struct Case {
  std::vector<int64_t> x_batch;
  std::vector<int64_t> y_batch;
  int64_t m, k, n;
};

// Same batches; one side broadcast (also folded into one product when y
// is shared and x is not adjoint); both sides broadcast; different ranks;
// no batch; empty batch, rows, columns and inner dimension.
const std::vector<Case>& Cases() {
  static const auto* cases = new std::vector<Case>{{{2}, {2}, 3, 4, 5},
                                                   {{}, {3}, 2, 5, 3},
                                                   {{3}, {}, 4, 2, 3},
                                                   {{2, 3}, {1}, 3, 3, 2},
                                                   {{2, 1, 3}, {4, 1}, 2, 3, 2},
                                                   {{1, 2}, {3, 1}, 1, 1, 1},
                                                   {{}, {}, 5, 7, 3},
                                                   {{0}, {}, 3, 4, 5},
                                                   {{2}, {2}, 0, 4, 5},
                                                   {{2}, {1}, 3, 4, 0},
                                                   {{2}, {2}, 3, 0, 5},
                                                   {{4, 2}, {2}, 1, 64, 3}};
  return *cases;
}

std::vector<double> Grid(int64_t n, std::mt19937* rng) {
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<double> v(n);
  for (double& x : v) x = dist(*rng) / 4.0;
  return v;
}

std::vector<double> Integers(int64_t n, std::mt19937* rng) {
  std::uniform_int_distribution<int> dist(-9, 9);
  std::vector<double> v(n);
  for (double& x : v) x = dist(*rng);
  return v;
}

template <typename T>
class BatchMatMulTypedTest : public ::testing::Test {};
using Types = ::testing::Types<half, bfloat16, float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(BatchMatMulTypedTest, Types);

TYPED_TEST(BatchMatMulTypedTest, ExactOnGridValuesWithBroadcasting) {
  const DataType dt = DataTypeToEnum<TypeParam>::value;
  const bool integer = dt == DT_INT32 || dt == DT_INT64;
  std::mt19937 rng(3);
  for (const Case& c : Cases()) {
    for (bool adj_x : {false, true}) {
      for (bool adj_y : {false, true}) {
        const TensorShape xs = Operand(c.x_batch, c.m, c.k, adj_x);
        const TensorShape ys = Operand(c.y_batch, c.k, c.n, adj_y);
        SCOPED_TRACE(testing::Message()
                     << xs.DebugString() << " x " << ys.DebugString()
                     << " adj_x=" << adj_x << " adj_y=" << adj_y);
        auto values = [&](int64_t n) {
          return integer ? Integers(n, &rng) : Grid(n, &rng);
        };
        const Tensor x = AsTensorOfType(dt, values(xs.num_elements()), xs);
        const Tensor y = AsTensorOfType(dt, values(ys.num_elements()), ys);
        StatusOr<Tensor> got = BatchMatMul(x, y, adj_x, adj_y);
        ASSERT_TRUE(got.ok()) << got.status();
        ExpectTensorEqual(*got, Expected(dt, Compute(x, adj_x, y, adj_y)));
      }
    }
  }
}

TEST(BatchMatMulTest, FloatsStayWithinTheDotProductBound) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (const DataType dt : {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE}) {
    const long double u_acc =
        test::UnitRoundoff(dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT);
    const long double u_out = test::UnitRoundoff(dt);
    for (const Case& c :
         {Case{{3}, {3}, 17, 33, 9}, Case{{2, 2}, {}, 40, 70, 30},
          Case{{}, {4}, 65, 20, 70}}) {
      for (bool adj : {false, true}) {
        SCOPED_TRACE(testing::Message()
                     << DataTypeName(dt) << " m=" << c.m << " adj=" << adj);
        const TensorShape xs = Operand(c.x_batch, c.m, c.k, adj);
        const TensorShape ys = Operand(c.y_batch, c.k, c.n, adj);
        std::vector<double> xv(xs.num_elements()), yv(ys.num_elements());
        for (double& v : xv) v = dist(rng);
        for (double& v : yv) v = dist(rng);
        const Tensor x = AsTensorOfType(dt, xv, xs);
        const Tensor y = AsTensorOfType(dt, yv, ys);
        StatusOr<Tensor> got = BatchMatMul(x, y, adj, adj);
        ASSERT_TRUE(got.ok()) << got.status();
        const Reference r = Compute(x, adj, y, adj);
        ASSERT_EQ(got->shape(), r.shape);
        const std::vector<double> g = ToDoubles(*got);
        for (size_t i = 0; i < g.size(); ++i) {
          const long double bound = c.k * u_acc * r.abs[i] * (1 + u_out) +
                                    u_out * std::fabs(r.value[i]);
          ASSERT_LE(std::fabs(g[i] - r.value[i]), bound) << "element " << i;
        }
      }
    }
  }
}

TEST(BatchMatMulTest, IntegersWrapAsInTensorFlow) {
  // 65536 * 65536 wraps to 0 in int32; 2^62 * 4 to 0 in int64; the sum of
  // two products 2^31 - 1 each wraps to -2.
  const int32_t big = 46341;  // 46341^2 = 2147488281 > 2^31 - 1
  StatusOr<Tensor> r32 = BatchMatMul(
      AsTensor<int32_t>({65536, big, 1, 1}, {1, 2, 2}),
      AsTensor<int32_t>({65536, big, 0, 0}, {1, 2, 2}), false, false);
  ASSERT_TRUE(r32.ok()) << r32.status();
  const Reference ref32 =
      Compute(AsTensor<int32_t>({65536, big, 1, 1}, {1, 2, 2}), false,
              AsTensor<int32_t>({65536, big, 0, 0}, {1, 2, 2}), false);
  ExpectTensorEqual(*r32, Expected(DT_INT32, ref32));
  EXPECT_EQ(r32->data<int32_t>()[0], 0);
  const int64_t q = int64_t{1} << 62;
  StatusOr<Tensor> r64 =
      BatchMatMul(AsTensor<int64_t>({q}, {1, 1}),
                  AsTensor<int64_t>({4}, {1, 1}), false, false);
  ASSERT_TRUE(r64.ok()) << r64.status();
  ExpectTensorEqual(*r64, AsTensor<int64_t>({0}, {1, 1}));
}

TEST(BatchMatMulTest, ResultIsIdenticalAtEveryThreadCount) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> dist(-1, 1);
  // A few large products (banded), many small ones, and a shared y folded
  // into one tall product.
  for (const Case& c :
       {Case{{2}, {2}, 200, 96, 150}, Case{{64}, {64}, 12, 16, 12},
        Case{{8, 16}, {}, 20, 32, 24}, Case{{3}, {1}, 1, 256, 900}}) {
    for (bool adj_x : {false, true}) {
      const TensorShape xs = Operand(c.x_batch, c.m, c.k, adj_x);
      const TensorShape ys = Operand(c.y_batch, c.k, c.n, false);
      SCOPED_TRACE(testing::Message()
                   << xs.DebugString() << " x " << ys.DebugString());
      std::vector<double> xv(xs.num_elements()), yv(ys.num_elements());
      for (double& v : xv) v = dist(rng);
      for (double& v : yv) v = dist(rng);
      const Tensor x = AsTensorOfType(DT_FLOAT, xv, xs);
      const Tensor y = AsTensorOfType(DT_FLOAT, yv, ys);
      StatusOr<Tensor> serial = BatchMatMul(x, y, adj_x, false, 0);
      ASSERT_TRUE(serial.ok()) << serial.status();
      for (int threads : {1, 2}) {
        StatusOr<Tensor> parallel = BatchMatMul(x, y, adj_x, false, threads);
        ASSERT_TRUE(parallel.ok()) << parallel.status();
        ExpectTensorEqual(*parallel, *serial);
      }
    }
  }
}

TEST(BatchMatMulTest, BadShapesAreErrorsNamingTheNode) {
  StatusOr<Tensor> rank = BatchMatMul(Tensor(DT_FLOAT, {3}),
                                      Tensor(DT_FLOAT, {3, 2}), false, false);
  ASSERT_FALSE(rank.ok());
  EXPECT_EQ(std::string(rank.status().message()),
            "node 'kernel_test/BatchMatMulV2' (BatchMatMulV2): x (input 0) "
            "must have rank >= 2 but has shape [3]");
  StatusOr<Tensor> inner = BatchMatMul(
      Tensor(DT_FLOAT, {2, 3, 4}), Tensor(DT_FLOAT, {2, 5, 4}), false, false);
  ASSERT_FALSE(inner.ok());
  EXPECT_EQ(std::string(inner.status().message()),
            "node 'kernel_test/BatchMatMulV2' (BatchMatMulV2): inner "
            "dimensions differ: x has shape [2,3,4] (adj_x=false) and y has "
            "shape [2,5,4] (adj_y=false), so x contributes 4 and y 5");
  StatusOr<Tensor> batch = BatchMatMul(
      Tensor(DT_FLOAT, {2, 3, 4}), Tensor(DT_FLOAT, {3, 4, 5}), false, false);
  ASSERT_FALSE(batch.ok());
  EXPECT_TRUE(absl::StrContains(batch.status().message(),
                                "the batch dimensions of x [2,3,4] and y "
                                "[3,4,5] do not broadcast"))
      << batch.status();
}

}  // namespace
}  // namespace weft
