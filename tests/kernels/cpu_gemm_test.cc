// Gemm and GemmSerial (kernels/cpu/gemm.h) called directly, against a naive
// product in double.
//
// Tolerance: for random operands the float result must lie within
//   |c - c_ref| <= (k + 2) * 2^-24 * sum_l |a_il b_lj|
// of the double reference: the classical bound for a k-term dot product in
// unit roundoff u = 2^-24 (Higham, Accuracy and Stability of Numerical
// Algorithms, eq. 3.5, gamma_k ~ k u), whatever the summation order, with
// slack of two roundings for the block sums added to c. The double reference
// itself is exact to far below that.
//
// Shapes cover all four transpose combinations, sizes around the register
// tiles and cache blocks (1, 2, 3, 7, 13, ... 1000+), leading dimensions
// wider than the matrices (whose padding must stay untouched), k == 0,
// NaN and infinity propagation, bit-identical results at 0, 1 and 2 threads,
// and the epilogue, which must equal running BiasAdd and the activation ops
// after the product, bit for bit.
#include "device/cpu_isa.h"
#include "kernels/cpu/context_parallel_for.h"
#include "kernels/cpu/gemm.h"

#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "device/cpu_device.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace {

using test::AsTensor;
using test::OpRunner;

constexpr float kSentinel = -12345.0f;

// A float matrix stored row-major with a leading dimension, and its
// GemmOperand: op(M) is rows x cols; the storage is cols x rows when
// transposed.
struct Matrix {
  int64_t rows = 0;
  int64_t cols = 0;
  bool transposed = false;
  int64_t ld = 0;
  std::vector<float> data;

  float at(int64_t i, int64_t j) const {
    return transposed ? data[j * ld + i] : data[i * ld + j];
  }
  float& at(int64_t i, int64_t j) {
    return transposed ? data[j * ld + i] : data[i * ld + j];
  }
  GemmOperand<float> operand() const { return {data.data(), ld, transposed}; }
};

Matrix RandomMatrix(int64_t rows, int64_t cols, bool transposed, int64_t pad,
                    std::mt19937* rng) {
  Matrix x;
  x.rows = rows;
  x.cols = cols;
  x.transposed = transposed;
  const int64_t stored_rows = transposed ? cols : rows;
  const int64_t stored_cols = transposed ? rows : cols;
  x.ld = stored_cols + pad;
  // One spare element so that data() is never null, even for empty shapes.
  x.data.assign(stored_rows * x.ld + 1, std::nanf(""));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) x.at(i, j) = dist(*rng);
  }
  return x;
}

// An output buffer of m rows with leading dimension ldc, every element
// (padding included) set to kSentinel.
std::vector<float> Output(int64_t m, int64_t ldc) {
  return std::vector<float>(m * ldc + 1, kSentinel);
}

// Runs Gemm on a device with an arena of `threads` threads (0: no arena).
class ThreadedGemm {
 public:
  explicit ThreadedGemm(int threads) : runner_("Identity") {
    // Any kernel will do: the context needs one, Gemm only uses the device.
    auto out = runner_.Run({AsTensor<float>({1.0f}, TensorShape({1}))});
    EXPECT_TRUE(out.ok());
    if (threads > 0) {
      arena_ = std::make_unique<tbb::task_arena>(threads);
      arena_->initialize();
    }
    device_ = std::make_unique<CpuDevice>("cpu:0", arena_.get());
  }

  void Run(int64_t m, int64_t k, int64_t n, const Matrix& a, const Matrix& b,
           float* c, int64_t ldc, const GemmEpilogue* epilogue = nullptr) {
    OpKernelContext::Params params;
    params.device = device_.get();
    params.kernel = runner_.kernel();
    OpKernelContext ctx(&params);
    auto call = [&] {
      if (epilogue != nullptr) {
        Gemm(ContextParallelFor(ctx), m, k, n, a.operand(), b.operand(), c, ldc,
             *epilogue);
      } else {
        Gemm<float>(ContextParallelFor(ctx), m, k, n, a.operand(), b.operand(),
                    c, ldc);
      }
    };
    if (arena_ != nullptr) {
      arena_->execute(call);
    } else {
      call();
    }
  }

 private:
  OpRunner runner_;
  std::unique_ptr<tbb::task_arena> arena_;
  std::unique_ptr<CpuDevice> device_;
};

// Checks that the padding of each of c's m rows (columns n to ldc) kept
// kSentinel, and returns the rows without it (m x n).
std::vector<float> ExpectPaddingKept(const std::vector<float>& c, int64_t m,
                                     int64_t n, int64_t ldc,
                                     const std::string& what) {
  std::vector<float> rows(m * n);
  int failures = 0;
  for (int64_t i = 0; i < m; ++i) {
    std::copy_n(c.begin() + i * ldc, n, rows.begin() + i * n);
    for (int64_t j = n; j < ldc && failures < 10; ++j) {
      if (c[i * ldc + j] != kSentinel) {
        ADD_FAILURE() << what << ": padding c[" << i << "][" << j
                      << "] was written";
        ++failures;
      }
    }
  }
  return rows;
}

// Checks c (m x n, leading dimension ldc) against the double product of a
// and b, and that the padding of each row kept kSentinel.
void ExpectProductNear(const Matrix& a, const Matrix& b,
                       const std::vector<float>& c, int64_t ldc,
                       const std::string& what) {
  const int64_t m = a.rows;
  const int64_t k = a.cols;
  const int64_t n = b.cols;
  int failures = 0;
  for (int64_t i = 0; i < m && failures < 10; ++i) {
    for (int64_t j = 0; j < n && failures < 10; ++j) {
      double sum = 0;
      double abs_sum = 0;
      for (int64_t l = 0; l < k; ++l) {
        const double p = double(a.at(i, l)) * double(b.at(l, j));
        sum += p;
        abs_sum += std::fabs(p);
      }
      const double bound = double(k + 2) * std::ldexp(1.0, -24) * abs_sum;
      const double got = c[i * ldc + j];
      if (!(std::fabs(got - sum) <= bound)) {
        ADD_FAILURE() << what << ": c[" << i << "][" << j << "] = " << got
                      << ", expected " << sum << " within " << bound;
        ++failures;
      }
    }
  }
  ExpectPaddingKept(c, m, n, ldc, what);
}

// Equal bits; with `any_nan`, any two NaNs also count as equal (a product
// of two NaNs returns either operand's, and which is the compiler's choice
// of operand order).
void ExpectBitsEqual(const std::vector<float>& x, const std::vector<float>& y,
                     const std::string& what, bool any_nan = false) {
  ASSERT_EQ(x.size(), y.size()) << what;
  for (size_t i = 0; i < x.size(); ++i) {
    if (any_nan && std::isnan(x[i]) && std::isnan(y[i])) continue;
    if (std::memcmp(&x[i], &y[i], sizeof(float)) != 0) {
      ADD_FAILURE() << what << ": element " << i << " differs: " << x[i]
                    << " vs " << y[i];
      return;
    }
  }
}

std::string Describe(int64_t m, int64_t k, int64_t n, bool ta, bool tb) {
  return "m=" + std::to_string(m) + " k=" + std::to_string(k) +
         " n=" + std::to_string(n) + " ta=" + std::to_string(ta) +
         " tb=" + std::to_string(tb);
}

// GemmSerial and Gemm at 0 and 2 threads on one shape: near the reference,
// and the three bit-identical.
void CheckShape(int64_t m, int64_t k, int64_t n, bool ta, bool tb, int64_t pad,
                std::mt19937* rng, ThreadedGemm* serial_ctx,
                ThreadedGemm* two_threads) {
  const std::string what = Describe(m, k, n, ta, tb);
  const Matrix a = RandomMatrix(m, k, ta, pad, rng);
  const Matrix b = RandomMatrix(k, n, tb, pad + 1, rng);
  const int64_t ldc = n + pad;
  std::vector<float> c = Output(m, ldc);
  GemmSerial<float>(m, k, n, a.operand(), b.operand(), c.data(), ldc);
  ExpectProductNear(a, b, c, ldc, what);
  std::vector<float> c0 = Output(m, ldc);
  serial_ctx->Run(m, k, n, a, b, c0.data(), ldc);
  ExpectBitsEqual(c, c0, what + " Gemm (0 threads) vs GemmSerial");
  std::vector<float> c2 = Output(m, ldc);
  two_threads->Run(m, k, n, a, b, c2.data(), ldc);
  ExpectBitsEqual(c, c2, what + " Gemm (2 threads) vs GemmSerial");
}

TEST(CpuGemmTest, SmallShapesAllTransposes) {
  std::mt19937 rng(1);
  ThreadedGemm serial_ctx(0);
  ThreadedGemm two_threads(2);
  const int64_t ms[] = {1, 2, 3, 7, 13, 14, 15, 29, 31, 33, 65};
  const int64_t ns[] = {1, 2, 3, 16, 17, 31, 32, 33, 65, 100};
  const int64_t ks[] = {1, 3, 33, 300};
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (int64_t m : ms) {
        for (int64_t n : ns) {
          for (int64_t k : ks) {
            CheckShape(m, k, n, ta, tb, (m + n + k) % 3 * 5, &rng, &serial_ctx,
                       &two_threads);
          }
        }
      }
    }
  }
}

TEST(CpuGemmTest, LargerShapesAllTransposes) {
  std::mt19937 rng(2);
  ThreadedGemm serial_ctx(0);
  ThreadedGemm two_threads(2);
  struct Shape {
    int64_t m, k, n;
  };
  const Shape shapes[] = {
      {127, 257, 129}, {257, 600, 33},  {1, 1280, 100}, {13, 1100, 300},
      {64, 64, 256},   {1030, 70, 130}, {20, 40, 2100}, {3, 513, 2111},
      {200, 16, 16},   {31, 2, 1000},
  };
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (const Shape& s : shapes) {
        CheckShape(s.m, s.k, s.n, ta, tb, 3, &rng, &serial_ctx, &two_threads);
      }
    }
  }
}

TEST(CpuGemmTest, BitIdenticalAcrossThreadCounts) {
  std::mt19937 rng(3);
  ThreadedGemm t0(0);
  ThreadedGemm t1(1);
  ThreadedGemm t2(2);
  ThreadedGemm t3(3);
  struct Shape {
    int64_t m, k, n;
  };
  for (const Shape& s : {Shape{1024, 1024, 1024}, Shape{300, 700, 2200},
                         Shape{5, 3000, 700}, Shape{3136, 96, 24}}) {
    const Matrix a = RandomMatrix(s.m, s.k, false, 0, &rng);
    const Matrix b = RandomMatrix(s.k, s.n, false, 0, &rng);
    std::vector<float> c0 = Output(s.m, s.n);
    std::vector<float> c1 = Output(s.m, s.n);
    std::vector<float> c2 = Output(s.m, s.n);
    std::vector<float> c3 = Output(s.m, s.n);
    std::vector<float> serial = Output(s.m, s.n);
    t0.Run(s.m, s.k, s.n, a, b, c0.data(), s.n);
    t1.Run(s.m, s.k, s.n, a, b, c1.data(), s.n);
    t2.Run(s.m, s.k, s.n, a, b, c2.data(), s.n);
    t3.Run(s.m, s.k, s.n, a, b, c3.data(), s.n);
    GemmSerial<float>(s.m, s.k, s.n, a.operand(), b.operand(), serial.data(),
                      s.n);
    const std::string what = Describe(s.m, s.k, s.n, false, false);
    ExpectBitsEqual(c0, c1, what + " threads 0 vs 1");
    ExpectBitsEqual(c0, c2, what + " threads 0 vs 2");
    ExpectBitsEqual(c0, c3, what + " threads 0 vs 3");
    ExpectBitsEqual(c0, serial, what + " Gemm vs GemmSerial");
  }
}

// GemmPackedRhs gives GemmSerial's values bit for bit, with and without an
// epilogue, for left-hand sides of any number of rows (as a convolution's
// chunks are).
TEST(CpuGemmTest, PackedRhsEqualsGemmSerial) {
  std::mt19937 rng(9);
  struct Shape {
    int64_t m, k, n;
  };
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (const Shape& s :
           {Shape{1, 27, 32}, Shape{13, 576, 64}, Shape{100, 2304, 65},
            Shape{7, 0, 9}, Shape{300, 300, 2100}}) {
        const std::string what = Describe(s.m, s.k, s.n, ta, tb);
        const Matrix a = RandomMatrix(s.m, s.k, ta, 2, &rng);
        const Matrix b = RandomMatrix(s.k, s.n, tb, 1, &rng);
        std::vector<float> bias(s.n, 0.25f);
        GemmEpilogue ep;
        ep.bias = bias.data();
        ep.activation = GemmEpilogue::Activation::kRelu;
        const GemmPackedRhs packed(s.k, s.n, b.operand());
        for (const GemmEpilogue& e : {GemmEpilogue(), ep}) {
          std::vector<float> want = Output(s.m, s.n + 3);
          GemmSerial(s.m, s.k, s.n, a.operand(), b.operand(), want.data(),
                     s.n + 3, e);
          std::vector<float> got = Output(s.m, s.n + 3);
          GemmSerial(s.m, a.operand(), packed, got.data(), s.n + 3, e);
          ExpectBitsEqual(got, want, what + " packed rhs");
        }
      }
    }
  }
}

// On the packed float paths (AVX2 and AVX-512, chosen at run time), an
// element's value does not depend on which band of rows or columns it was
// computed in (the k blocking follows k alone), so GemmSerial over bands
// equals the whole product. (Eigen's blocking, the baseline path's, follows
// the whole shape.)
TEST(CpuGemmTest, BandsEqualWholeProduct) {
  if (ActiveCpuIsa() == CpuIsa::kBaseline) {
    GTEST_SKIP() << "baseline path (Eigen): bands may round differently";
  }
  std::mt19937 rng(10);
  const int64_t m = 100, k = 700, n = 90;
  const Matrix a = RandomMatrix(m, k, false, 0, &rng);
  const Matrix b = RandomMatrix(k, n, false, 0, &rng);
  std::vector<float> whole = Output(m, n);
  GemmSerial<float>(m, k, n, a.operand(), b.operand(), whole.data(), n);
  std::vector<float> banded = Output(m, n);
  for (int64_t r0 = 0; r0 < m; r0 += 9) {
    const int64_t rows = std::min<int64_t>(9, m - r0);
    for (int64_t c0 = 0; c0 < n; c0 += 40) {
      const int64_t cols = std::min<int64_t>(40, n - c0);
      GemmSerial<float>(rows, k, cols,
                        GemmOperand<float>{a.data.data() + r0 * a.ld, a.ld},
                        GemmOperand<float>{b.data.data() + c0, b.ld},
                        banded.data() + r0 * n + c0, n);
    }
  }
  ExpectBitsEqual(banded, whole, "bands vs whole");
}

// A product of one or two rows multiplies several panels of op(b) at once
// (MultiPanelKernel); each element keeps its FMA sequence, so its rows equal
// the same rows of a product of many rows (MultiplyPackedBlock's tiles)
// bit for bit: op(b) in place and packed ahead, groups of panels with whole
// and partial panels after them, one and three k blocks, every epilogue
// (Elu's applied after the tile), one and two threads, c wider than n (its
// padding untouched), and n beyond one packed block (groups that would
// straddle two are not taken).
TEST(CpuGemmTest, OneAndTwoRowsEqualRowsOfTallProducts) {
  // What GemmRowBandsExact promises its callers, checked where it holds.
  EXPECT_EQ(GemmRowBandsExact(), ActiveCpuIsa() != CpuIsa::kBaseline);
  if (!GemmRowBandsExact()) {
    GTEST_SKIP() << "baseline path (Eigen): shapes may round differently";
  }
  using Act = GemmEpilogue::Activation;
  std::mt19937 rng(13);
  ThreadedGemm two_threads(2);
  const int64_t tall = 64;  // more rows than any path's few-row products
  struct Shape {
    int64_t k, n;
  };
  for (const Shape& s : {Shape{128, 512}, Shape{700, 300}, Shape{33, 130},
                         Shape{64, 1000}, Shape{300, 64}, Shape{40, 2100}}) {
    const Matrix a = RandomMatrix(tall, s.k, false, 0, &rng);
    const Matrix b = RandomMatrix(s.k, s.n, false, 0, &rng);
    const GemmPackedRhs packed(s.k, s.n, b.operand());
    std::vector<float> bias(s.n);
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    for (float& x : bias) x = dist(rng);
    std::vector<float> residual(tall * s.n);
    for (float& x : residual) x = dist(rng);
    for (Act act : {Act::kNone, Act::kRelu, Act::kElu, Act::kSwish}) {
      GemmEpilogue ep;
      ep.activation = act;
      ep.bias = act == Act::kNone ? nullptr : bias.data();
      ep.residual = act == Act::kRelu ? residual.data() : nullptr;
      ep.residual_ld = s.n;
      const int64_t ldc = s.n + 5;
      std::vector<float> want = Output(tall, ldc);
      GemmSerial(tall, s.k, s.n, a.operand(), b.operand(), want.data(), ldc,
                 ep);
      for (int64_t m : {1, 2}) {
        // Rows 3 and on of the tall product.
        const int64_t row0 = 3;
        const GemmOperand<float> rows{a.data.data() + row0 * a.ld, a.ld};
        GemmEpilogue rows_ep = ep;
        if (rows_ep.residual != nullptr) rows_ep.residual += row0 * s.n;
        const std::vector<float> expect(want.begin() + row0 * ldc,
                                        want.begin() + (row0 + m) * ldc);
        const std::string what = "m " + std::to_string(m) + " k " +
                                 std::to_string(s.k) + " n " +
                                 std::to_string(s.n) + " activation " +
                                 std::to_string(static_cast<int>(act));
        std::vector<float> got = Output(m, ldc);
        GemmSerial(m, s.k, s.n, rows, b.operand(), got.data(), ldc, rows_ep);
        got.pop_back();
        ExpectBitsEqual(got, expect, what + " in place");
        got = Output(m, ldc);
        GemmSerial(m, rows, packed, got.data(), ldc, rows_ep);
        got.pop_back();
        ExpectBitsEqual(got, expect, what + " packed ahead");
        // Split between two threads (units of whole panel groups or not).
        Matrix sub;
        sub.rows = m;
        sub.cols = s.k;
        sub.ld = a.ld;
        sub.data.assign(a.data.begin() + row0 * a.ld,
                        a.data.begin() + (row0 + m) * a.ld);
        got = Output(m, ldc);
        two_threads.Run(m, s.k, s.n, sub, b, got.data(), ldc, &rows_ep);
        got.pop_back();
        ExpectBitsEqual(got, expect, what + " two threads");
      }
    }
  }
}

// Products whose units span few panels of op(b) read an untransposed
// op(a) where it lies instead of packing it; a transposed op(a) is always
// packed. Both give each element the same FMA sequence, so the same bits:
// narrow and partial panels (n = 8 to 130), one and several k blocks and
// row blocks, rows 2 KiB apart (k = 512: packed either way) or not, at
// one and two threads, with and without the in-register epilogue.
TEST(CpuGemmTest, OpAInPlaceEqualsOpAPacked) {
  std::mt19937 rng(12);
  ThreadedGemm two_threads(2);
  struct Shape {
    int64_t m, k, n;
  };
  for (const Shape& s :
       {Shape{57, 64, 64}, Shape{300, 300, 24}, Shape{1000, 256, 64},
        Shape{700, 700, 100}, Shape{400, 512, 32}, Shape{200, 96, 130},
        Shape{4608, 64, 8}}) {
    const std::string what = Describe(s.m, s.k, s.n, false, false);
    const Matrix a = RandomMatrix(s.m, s.k, false, 0, &rng);
    Matrix at = RandomMatrix(s.m, s.k, true, 0, &rng);
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t l = 0; l < s.k; ++l) at.at(i, l) = a.at(i, l);
    }
    const Matrix b = RandomMatrix(s.k, s.n, false, 0, &rng);
    std::vector<float> bias(s.n);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& x : bias) x = dist(rng);
    GemmEpilogue relu;
    relu.bias = bias.data();
    relu.activation = GemmEpilogue::Activation::kRelu;
    for (const GemmEpilogue& e : {GemmEpilogue(), relu}) {
      std::vector<float> packed_a = Output(s.m, s.n);
      GemmSerial(s.m, s.k, s.n, at.operand(), b.operand(), packed_a.data(), s.n,
                 e);
      std::vector<float> in_place = Output(s.m, s.n);
      GemmSerial(s.m, s.k, s.n, a.operand(), b.operand(), in_place.data(), s.n,
                 e);
      ExpectBitsEqual(in_place, packed_a, what + " serial");
      std::fill(in_place.begin(), in_place.end(), kSentinel);
      two_threads.Run(s.m, s.k, s.n, a, b, in_place.data(), s.n, &e);
      ExpectBitsEqual(in_place, packed_a, what + " two threads");
      const GemmPackedRhs packed_b(s.k, s.n, b.operand());
      std::fill(in_place.begin(), in_place.end(), kSentinel);
      GemmSerial(s.m, a.operand(), packed_b, in_place.data(), s.n, e);
      ExpectBitsEqual(in_place, packed_a, what + " b packed ahead");
    }
  }
}

TEST(CpuGemmTest, EmptyDepthGivesZeros) {
  std::mt19937 rng(4);
  ThreadedGemm two_threads(2);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const Matrix a = RandomMatrix(37, 0, ta, 2, &rng);
      const Matrix b = RandomMatrix(0, 45, tb, 2, &rng);
      std::vector<float> c = Output(37, 50);
      GemmSerial<float>(37, 0, 45, a.operand(), b.operand(), c.data(), 50);
      std::vector<float> c2 = Output(37, 50);
      two_threads.Run(37, 0, 45, a, b, c2.data(), 50);
      for (int64_t i = 0; i < 37; ++i) {
        for (int64_t j = 0; j < 50; ++j) {
          const float want = j < 45 ? 0.0f : kSentinel;
          EXPECT_EQ(c[i * 50 + j], want) << i << "," << j;
          EXPECT_EQ(c2[i * 50 + j], want) << i << "," << j;
        }
      }
    }
  }
}

TEST(CpuGemmTest, EmptyOutputWritesNothing) {
  std::mt19937 rng(5);
  const Matrix a = RandomMatrix(0, 5, false, 0, &rng);
  const Matrix b = RandomMatrix(5, 7, false, 0, &rng);
  std::vector<float> c = Output(1, 7);
  GemmSerial<float>(0, 5, 7, a.operand(), b.operand(), c.data(), 7);
  const Matrix a2 = RandomMatrix(3, 5, false, 0, &rng);
  const Matrix b2 = RandomMatrix(5, 0, false, 0, &rng);
  GemmSerial<float>(3, 5, 0, a2.operand(), b2.operand(), c.data(), 7);
  for (float x : c) EXPECT_EQ(x, kSentinel);
}

TEST(CpuGemmTest, NanAndInfinityPropagate) {
  std::mt19937 rng(6);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      // Sizes that exercise both the few-rows path and the packed one.
      for (int64_t m : {int64_t{5}, int64_t{40}}) {
        const int64_t k = 300;
        const int64_t n = 50;
        Matrix a = RandomMatrix(m, k, ta, 1, &rng);
        Matrix b = RandomMatrix(k, n, tb, 1, &rng);
        // Row 3 of op(a) holds a NaN: row 3 of c is NaN.
        a.at(3, 17) = std::numeric_limits<float>::quiet_NaN();
        // Column 41 of op(b) holds +inf where column 280 of op(a) is
        // positive (and elsewhere finite): those rows of column 41 are
        // +inf or NaN (inf - inf cannot happen: one infinity per sum).
        for (int64_t i = 0; i < m; ++i) a.at(i, 280) = 0.5f;
        b.at(280, 41) = std::numeric_limits<float>::infinity();
        std::vector<float> c = Output(m, n);
        GemmSerial<float>(m, k, n, a.operand(), b.operand(), c.data(), n);
        const std::string what = Describe(m, k, n, ta, tb);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            const float x = c[i * n + j];
            if (i == 3) {
              EXPECT_TRUE(std::isnan(x)) << what << " " << i << "," << j;
            } else if (j == 41) {
              EXPECT_EQ(x, std::numeric_limits<float>::infinity())
                  << what << " " << i << "," << j;
            } else {
              EXPECT_TRUE(std::isfinite(x)) << what << " " << i << "," << j;
            }
          }
        }
      }
    }
  }
}

// The epilogue against BiasAdd, AddV2 (the residual) and the activation ops
// run on the plain product: equal bit for bit, NaN and infinities included,
// with op(b) in place (the few-row path) and transposed (packed).
TEST(CpuGemmTest, EpilogueEqualsSeparateOps) {
  using Act = GemmEpilogue::Activation;
  std::mt19937 rng(7);
  ThreadedGemm two_threads(2);
  struct Case {
    Act act;
    const char* op;  // null: no activation op
  };
  const Case cases[] = {
      {Act::kNone, nullptr},          {Act::kRelu, "Relu"},
      {Act::kRelu6, "Relu6"},         {Act::kElu, "Elu"},
      {Act::kLeakyRelu, "LeakyRelu"}, {Act::kSwish, "Sigmoid"},
      {Act::kHardSwish, "Relu6"}};
  struct Shape {
    int64_t m, k, n;
  };
  for (const Shape& s : {Shape{1, 40, 37}, Shape{9, 300, 70}, Shape{45, 20, 33},
                         Shape{300, 270, 130}}) {
    for (int variant = 0; variant < 8; ++variant) {
      const bool with_bias = variant & 1;
      const bool with_residual = variant & 2;
      const bool tb = !(variant & 4);
      for (const Case& cs : cases) {
        // Scaled so that Relu6's upper clamp and Elu's exp are exercised.
        Matrix a = RandomMatrix(s.m, s.k, false, 0, &rng);
        Matrix b = RandomMatrix(s.k, s.n, tb, 0, &rng);
        for (float& x : a.data) x *= 3.0f;
        a.at(s.m - 1, 0) = std::numeric_limits<float>::quiet_NaN();
        std::vector<float> bias(s.n);
        std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
        for (float& x : bias) x = dist(rng);
        // The residual, rows n + 3 floats apart, with an infinity in it.
        const int64_t rld = s.n + 3;
        std::vector<float> residual(s.m * rld, std::nanf(""));
        std::vector<float> packed_residual(s.m * s.n);
        for (int64_t i = 0; i < s.m; ++i) {
          for (int64_t j = 0; j < s.n; ++j) {
            residual[i * rld + j] = packed_residual[i * s.n + j] = dist(rng);
          }
        }
        residual[0] = packed_residual[0] =
            -std::numeric_limits<float>::infinity();

        GemmEpilogue ep;
        ep.bias = with_bias ? bias.data() : nullptr;
        ep.activation = cs.act;
        ep.alpha = 0.3f;
        ep.beta = 1.5f;
        if (with_residual) {
          ep.residual = residual.data();
          ep.residual_ld = rld;
        }
        const std::string what = Describe(s.m, s.k, s.n, false, tb) +
                                 (cs.op ? std::string(" ") + cs.op : "") +
                                 (with_bias ? " bias" : "") +
                                 (with_residual ? " residual" : "");

        // Expected: the plain product, then the separate ops.
        std::vector<float> plain(s.m * s.n);
        GemmSerial<float>(s.m, s.k, s.n, a.operand(), b.operand(), plain.data(),
                          s.n);
        Tensor expected = AsTensor<float>(plain, TensorShape({s.m, s.n}));
        if (with_bias) {
          OpRunner bias_add("BiasAdd");
          auto out = bias_add.Run(
              {expected, AsTensor<float>(bias, TensorShape({s.n}))});
          ASSERT_TRUE(out.ok()) << out.status();
          expected = (*out)[0];
        }
        if (with_residual) {
          OpRunner add("AddV2");
          auto out =
              add.Run({expected, AsTensor<float>(packed_residual,
                                                 TensorShape({s.m, s.n}))});
          ASSERT_TRUE(out.ok()) << out.status();
          expected = (*out)[0];
        }
        if (cs.op != nullptr) {
          AttrMap attrs;
          if (cs.act == Act::kLeakyRelu)
            attrs["alpha"] = AttrValue::Float(0.3f);
          if (cs.act == Act::kHardSwish) {
            // x * (Relu6(x + 3) / 6), the four ops Keras' hard_silu writes.
            OpRunner add("AddV2"), relu6("Relu6"), div("RealDiv"), mul("Mul");
            auto t = add.Run({expected, AsTensor<float>({3.0f}, {})});
            ASSERT_TRUE(t.ok()) << t.status();
            auto r = relu6.Run({(*t)[0]});
            ASSERT_TRUE(r.ok()) << r.status();
            auto d = div.Run({(*r)[0], AsTensor<float>({6.0f}, {})});
            ASSERT_TRUE(d.ok()) << d.status();
            auto out = mul.Run({expected, (*d)[0]});
            ASSERT_TRUE(out.ok()) << out.status();
            expected = (*out)[0];
          } else if (cs.act == Act::kSwish) {
            // x * Sigmoid(beta * x), the three ops Keras' swish writes.
            OpRunner mul("Mul");
            auto scaled = mul.Run({expected, AsTensor<float>({1.5f}, {})});
            ASSERT_TRUE(scaled.ok()) << scaled.status();
            OpRunner sigmoid("Sigmoid");
            auto gate = sigmoid.Run({(*scaled)[0]});
            ASSERT_TRUE(gate.ok()) << gate.status();
            auto out = mul.Run({expected, (*gate)[0]});
            ASSERT_TRUE(out.ok()) << out.status();
            expected = (*out)[0];
          } else {
            OpRunner act(cs.op, attrs);
            auto out = act.Run({expected});
            ASSERT_TRUE(out.ok()) << out.status();
            expected = (*out)[0];
          }
        }
        const std::vector<float> want(expected.data<float>(),
                                      expected.data<float>() + s.m * s.n);

        std::vector<float> fused(s.m * s.n);
        GemmSerial(s.m, s.k, s.n, a.operand(), b.operand(), fused.data(), s.n,
                   ep);
        // Swish multiplies x by its sigmoid: both NaN for a NaN x.
        const bool any_nan = cs.act == Act::kSwish || cs.act == Act::kHardSwish;
        ExpectBitsEqual(fused, want, what + " GemmSerial", any_nan);
        std::vector<float> fused2(s.m * s.n);
        two_threads.Run(s.m, s.k, s.n, a, b, fused2.data(), s.n, &ep);
        ExpectBitsEqual(fused2, want, what + " Gemm (2 threads)", any_nan);
        // Rows of c wider than n: the epilogue writes only their n columns
        // (the AVX2 tile stores whole vectors with plain moves).
        const int64_t ldc = s.n + 5;
        std::vector<float> padded = Output(s.m, ldc);
        GemmSerial(s.m, s.k, s.n, a.operand(), b.operand(), padded.data(), ldc,
                   ep);
        ExpectBitsEqual(ExpectPaddingKept(padded, s.m, s.n, ldc, what), want,
                        what + " GemmSerial, ldc n + 5", any_nan);
      }
    }
  }
}

TEST(CpuGemmTest, EpilogueOnEmptyDepth) {
  std::mt19937 rng(8);
  const Matrix a = RandomMatrix(3, 0, false, 0, &rng);
  const Matrix b = RandomMatrix(0, 4, false, 0, &rng);
  const std::vector<float> bias = {-1.0f, 2.0f, 7.0f, -0.5f};
  GemmEpilogue ep;
  ep.bias = bias.data();
  ep.activation = GemmEpilogue::Activation::kRelu6;
  std::vector<float> c(12, kSentinel);
  GemmSerial(3, 0, 4, a.operand(), b.operand(), c.data(), 4, ep);
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(c[i * 4 + 0], 0.0f);
    EXPECT_EQ(c[i * 4 + 1], 2.0f);
    EXPECT_EQ(c[i * 4 + 2], 6.0f);
    EXPECT_EQ(c[i * 4 + 3], 0.0f);
  }
}

// The math layer needs no kernel framework: any ParallelForFn will do. A
// serial one and one that runs the ranges of a split in reverse order (a
// pool that schedules however it likes) give GemmSerial's bits, with and
// without an epilogue.
TEST(CpuGemmTest, RunsOnAnyParallelFor) {
  std::mt19937 rng(29);
  int calls = 0;
  const ParallelForFn reversed =
      [&calls](int64_t n, int64_t,
               const std::function<void(int64_t, int64_t)>& fn) {
        ++calls;
        const int64_t step = 3;
        for (int64_t end = n; end > 0; end -= step) {
          fn(std::max<int64_t>(0, end - step), end);
        }
      };
  GemmEpilogue relu;
  relu.activation = GemmEpilogue::Activation::kRelu;
  for (const auto& [m, k, n] :
       {std::tuple<int64_t, int64_t, int64_t>{97, 300, 131},
        {640, 64, 24},
        {5, 7, 3}}) {
    const std::string what = Describe(m, k, n, false, true);
    const Matrix a = RandomMatrix(m, k, false, 1, &rng);
    const Matrix b = RandomMatrix(k, n, true, 2, &rng);
    const int64_t ldc = n + 1;
    for (const GemmEpilogue& ep : {GemmEpilogue(), relu}) {
      std::vector<float> serial = Output(m, ldc);
      GemmSerial(m, k, n, a.operand(), b.operand(), serial.data(), ldc, ep);
      if (ep.activation == GemmEpilogue::Activation::kNone) {
        ExpectProductNear(a, b, serial, ldc, what);
      }
      std::vector<float> c = Output(m, ldc);
      Gemm(SerialFor(), m, k, n, a.operand(), b.operand(), c.data(), ldc, ep);
      ExpectBitsEqual(serial, c, what + " Gemm(SerialFor()) vs GemmSerial");
      std::vector<float> r = Output(m, ldc);
      Gemm(reversed, m, k, n, a.operand(), b.operand(), r.data(), ldc, ep);
      ExpectBitsEqual(serial, r, what + " Gemm(reversed) vs GemmSerial");
    }
  }
  EXPECT_GT(calls, 0) << "no product was split";
}

}  // namespace
}  // namespace weft
