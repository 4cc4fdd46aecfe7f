// Products with a right-hand side packed ahead of time (GemmPackedRhs, the
// parallel Gemm overload taking one, Conv2DPackedFilter): what constant
// weights take in a session. They must give the unpacked path's bits
// exactly, whatever the split (serially, one unit at a time in reverse
// order, on two threads), on every CPU path (the CI step that forces the
// baseline path runs this file too), and lie within the classical k-term
// dot product bound of a double reference:
//   |c - c_ref| <= (k + 2) * 2^-24 * sum_l |a_il b_lj|
// (Higham, Accuracy and Stability of Numerical Algorithms, eq. 3.5, with
// two roundings of slack for block sums and the bias).
//
// Shapes: rows m = 0, 1, 9 (a late 3x3 layer at batch 1), 20 and 36 (two
// and three row tiles of a few-row product with AVX-512's 14-row tiles,
// each later tile fetching its own slice of the next panel), the few-rows
// limit and one past it (56 and 57 rows: four tiles, then none), 100;
// k = 1, 3 and 300 (two k blocks); n = 1, 17, 33 (not multiples of the
// 16- or 32-column micro-kernels), 96 (3 panels of AVX-512's: 100 rows in
// 4 row blocks rather than 3, so that the units are a multiple of 4), 728
// (46 panels of the AVX2 path's: 12 column parts rather than 11) and 2100
// (two column blocks); b transposed or not; with and without a bias + Relu
// epilogue.
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/common/conv_shape.h"
#include "kernels/cpu/conv2d.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/parallel_for.h"

namespace weft {
namespace cpu_gemm_packed_rhs_test {

// One unit per call, last unit first: a split no thread count gives, so
// any dependence of an element on its unit shows.
const ParallelForFn& ReverseUnits() {
  static const ParallelForFn* const fn = new ParallelForFn(
      [](int64_t n, int64_t, const std::function<void(int64_t, int64_t)>& f) {
        for (int64_t i = n - 1; i >= 0; --i) f(i, i + 1);
      });
  return *fn;
}

// Units on a two-thread arena, as a session with threads = 2 runs them.
class TwoThreads {
 public:
  TwoThreads() : arena_(2) {
    arena_.initialize();
    fn_ = [this](int64_t n, int64_t,
                 const std::function<void(int64_t, int64_t)>& f) {
      tbb::parallel_for(
          tbb::blocked_range<int64_t>(0, n, 1),
          [&](const tbb::blocked_range<int64_t>& r) { f(r.begin(), r.end()); });
    };
  }
  // Runs `body` inside the arena, so that fn() uses its threads.
  template <typename Body>
  void Run(Body&& body) {
    arena_.execute(body);
  }
  const ParallelForFn& fn() const { return fn_; }

 private:
  tbb::task_arena arena_;
  ParallelForFn fn_;
};

std::vector<float> Random(int64_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  // One spare element so that data() is never null for empty shapes.
  std::vector<float> v(count + 1);
  for (float& x : v) x = dist(rng);
  return v;
}

void ExpectBitsEqual(const std::vector<float>& got,
                     const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    uint32_t x, y;
    std::memcpy(&x, &got[i], 4);
    std::memcpy(&y, &want[i], 4);
    if (x != y && ++bad <= 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i]
                    << ", want " << want[i];
    }
  }
}

struct Shape {
  int64_t m, k, n;
};

TEST(CpuGemmPackedRhsTest, ParallelPackedEqualsUnpacked) {
  TwoThreads two;
  unsigned seed = 1;
  for (bool tb : {false, true}) {
    for (int64_t m : {0, 1, 9, 20, 36, 56, 57, 100}) {
      for (int64_t k : {1, 3, 300}) {
        for (int64_t n : {1, 17, 33, 96, 728, 2100}) {
          if (m * k * n > 70'000'000) continue;
          const std::string what =
              absl::StrCat("m=", m, " k=", k, " n=", n, tb ? " b^T" : "");
          const std::vector<float> a = Random(m * k, seed++);
          const std::vector<float> b = Random(k * n, seed++);
          const std::vector<float> bias = Random(n, seed++);
          const GemmOperand<float> lhs{a.data(), k, false};
          const GemmOperand<float> rhs{b.data(), tb ? k : n, tb};
          const GemmPackedRhs packed(k, n, rhs);
          GemmEpilogue relu;
          relu.bias = bias.data();
          relu.activation = GemmEpilogue::Activation::kRelu;
          // A residual with its own leading dimension.
          const std::vector<float> residual = Random(m * (n + 3) + 1, seed++);
          GemmEpilogue residual_relu = relu;
          residual_relu.residual = residual.data();
          residual_relu.residual_ld = n + 3;
          for (const GemmEpilogue& ep : {GemmEpilogue(), relu, residual_relu}) {
            const std::string w =
                what + (ep.residual != nullptr ? " bias+residual+relu"
                        : ep.bias != nullptr   ? " bias+relu"
                                               : "");
            std::vector<float> want(m * n + 1, -7.0f);
            Gemm(SerialFor(), m, k, n, lhs, rhs, want.data(), n, ep);
            std::vector<float> got(m * n + 1, -7.0f);
            Gemm(SerialFor(), m, lhs, packed, got.data(), n, ep);
            ExpectBitsEqual(got, want, w + " serial");
            std::fill(got.begin(), got.end(), -7.0f);
            Gemm(ReverseUnits(), m, lhs, packed, got.data(), n, ep);
            ExpectBitsEqual(got, want, w + " reverse units");
            std::fill(got.begin(), got.end(), -7.0f);
            two.Run([&] { Gemm(two.fn(), m, lhs, packed, got.data(), n, ep); });
            ExpectBitsEqual(got, want, w + " two threads");
            std::fill(got.begin(), got.end(), -7.0f);
            GemmSerial(m, lhs, packed, got.data(), n, ep);
            ExpectBitsEqual(got, want, w + " GemmSerial");
            if (ep.bias != nullptr) continue;
            // The double reference, within the dot-product bound.
            int bad = 0;
            for (int64_t i = 0; i < m; ++i) {
              for (int64_t j = 0; j < n; ++j) {
                double sum = 0, abs_sum = 0;
                for (int64_t l = 0; l < k; ++l) {
                  const double p = double(a[i * k + l]) *
                                   double(tb ? b[j * k + l] : b[l * n + j]);
                  sum += p;
                  abs_sum += std::fabs(p);
                }
                const double bound = (k + 2) * std::ldexp(1.0, -24) * abs_sum;
                if (!(std::fabs(got[i * n + j] - sum) <= bound) && ++bad <= 3) {
                  ADD_FAILURE()
                      << w << " (" << i << ", " << j << "): " << got[i * n + j]
                      << ", reference " << sum;
                }
              }
            }
          }
        }
      }
    }
  }
}

// An op(a) read where it lies (GemmStridedLhs) gives the bits of its
// row-major copy through GemmSerial, for every epilogue: groups of rows
// whose tiles are cut unevenly (17 rows), rows overlapping each other
// (row_stride < run, as a stride-1 convolution reads them), runs crossing
// the k blocks (k = 360: blocks of 180, runs of 120 or 7), runs in pieces
// with gaps between them (a convolution's groups or dilated columns; a
// piece crossing a k block too), and panels that are full, narrow (n = 8
// or 16) or both (n = 40, 2100).
TEST(CpuGemmPackedRhsTest, StridedLhsEqualsItsRowMajorCopy) {
  if (!GemmStridedLhsSupported()) {
    GTEST_SKIP() << "no strided op(a) on the baseline CPU path";
  }
  struct Case {
    int64_t groups, group_rows, row_stride, run, runs, n;
    int64_t piece = 0, gap = 0;  // pieces of a run, floats between them
  };
  unsigned seed = 500;
  for (const Case& c : {
           Case{1, 1, 3, 9, 3, 16},          // one row, a stem's k = 27
           Case{3, 17, 3, 9, 3, 8},          // narrow n, tiles of 9 and 8 rows
           Case{2, 14, 6, 9, 3, 40},         // stride 2, full + narrow panel
           Case{2, 20, 40, 120, 3, 33},      // k = 360: a run crosses a block
           Case{1, 30, 7, 7, 40, 16},        // k = 280: many short runs
           Case{1, 9, 4, 12, 2, 2100},       // two column blocks
           Case{2, 14, 6, 12, 3, 40, 4, 5},  // 3 pieces of 4 per run
           Case{3, 17, 3, 9, 3, 8, 3, 1},    // pieces of 3, narrow n
           Case{2, 20, 40, 120, 3, 33, 8, 3},  // a piece crosses a block
           Case{1, 30, 7, 12, 30, 16, 1, 2},   // pieces of one float
       }) {
    const int64_t k = c.run * c.runs;
    const int64_t m = c.groups * c.group_rows;
    // The source: groups one after another, then runs of each row apart,
    // each run `gap` floats between its pieces.
    GemmStridedLhs a;
    a.group_rows = c.group_rows;
    a.row_stride = c.row_stride;
    a.run = c.run;
    const int64_t piece = c.piece > 0 ? c.piece : c.run;
    if (c.piece > 0) {
      a.piece = c.piece;
      a.piece_stride = c.piece + c.gap;
    }
    const int64_t run_extent = (c.run / piece) * (piece + c.gap);
    a.run_stride = (c.group_rows - 1) * c.row_stride + run_extent + 5;
    a.group_stride = c.runs * a.run_stride + 3;
    const std::vector<float> source = Random(c.groups * a.group_stride, seed++);
    a.data = source.data();
    std::vector<float> copy(m * k);
    for (int64_t i = 0; i < m; ++i) {
      const float* row = source.data() + (i / c.group_rows) * a.group_stride +
                         (i % c.group_rows) * c.row_stride;
      for (int64_t l = 0; l < k; ++l) {
        const int64_t j = l % c.run;
        copy[i * k + l] = row[(l / c.run) * a.run_stride +
                              (j / piece) * (piece + c.gap) + j % piece];
      }
    }
    const std::vector<float> b = Random(k * c.n, seed++);
    const GemmPackedRhs packed(k, c.n, GemmOperand<float>{b.data(), c.n});
    const std::vector<float> bias = Random(c.n, seed++);
    const std::vector<float> residual = Random(m * c.n, seed++);
    GemmEpilogue relu6;
    relu6.bias = bias.data();
    relu6.activation = GemmEpilogue::Activation::kRelu6;
    GemmEpilogue residual_elu;  // Elu: applied after the tile is stored
    residual_elu.bias = bias.data();
    residual_elu.residual = residual.data();
    residual_elu.residual_ld = c.n;
    residual_elu.activation = GemmEpilogue::Activation::kElu;
    for (const GemmEpilogue& ep : {GemmEpilogue(), relu6, residual_elu}) {
      const std::string what =
          absl::StrCat("groups=", c.groups, " rows=", c.group_rows,
                       " row_stride=", c.row_stride, " run=", c.run,
                       " runs=", c.runs, " piece=", c.piece, " n=", c.n,
                       ep.residual != nullptr ? " bias+residual+elu"
                       : ep.bias != nullptr   ? " bias+relu6"
                                              : "");
      std::vector<float> want(m * c.n + 1, -7.0f);
      GemmSerial(m, GemmOperand<float>{copy.data(), k}, packed, want.data(),
                 c.n, ep);
      std::vector<float> got(m * c.n + 1, -7.0f);
      GemmSerialStrided(m, a, packed, got.data(), c.n, ep);
      ExpectBitsEqual(got, want, what);
      // Part by part (3 and 5 parts: panels unevenly shared, some parts
      // empty where n has fewer panels): the same bits, each part writing
      // only its own columns.
      for (int64_t count : {3, 5}) {
        std::vector<float> parts(m * c.n + 1, -7.0f);
        for (int64_t index = count - 1; index >= 0; --index) {
          GemmSerialStrided(m, a, packed, parts.data(), c.n, ep,
                            GemmColumnPart{index, count});
        }
        ExpectBitsEqual(parts, want, absl::StrCat(what, " parts=", count));
      }
      // Each part alone writes its own columns and leaves the others as
      // they were: of two parts, every element is written by exactly one.
      std::vector<float> half[2];
      for (int64_t index : {0, 1}) {
        half[index].assign(m * c.n + 1, -7.0f);
        GemmSerialStrided(m, a, packed, half[index].data(), c.n, ep,
                          GemmColumnPart{index, 2});
        EXPECT_EQ(half[index][m * c.n], -7.0f) << what;
      }
      for (int64_t e = 0; e < m * c.n; ++e) {
        const int64_t j = e % c.n;
        const bool first = half[0][e] != -7.0f;
        ASSERT_NE(first, half[1][e] != -7.0f)
            << what << " element " << e << " in both halves or neither";
        const float v = first ? half[0][e] : half[1][e];
        ASSERT_EQ(std::memcmp(&v, &want[e], sizeof v), 0)
            << what << " element " << e;
        // Columns go to the first part up to a panel boundary, then to the
        // second.
        if (j > 0 && first) {
          ASSERT_NE(half[0][e - 1], -7.0f) << what << " element " << e;
        }
      }
    }
  }
}

// k == 0: zeros, then the epilogue, as the unpacked path.
// GemmRhsLocality::kMemory (a constant weight read for the first time in a
// run) only makes a product prefetch the panels of an op(b) of 1 MiB or
// more; the bits stay the unpacked product's: few rows, one row block of
// many row tiles, several row blocks, a last panel of 8 columns (n = 1000),
// every epilogue (Elu applied after the tiles), serially, in reverse units,
// on two threads, and for an op(a) gathered in the GEMM's own layout.
TEST(CpuGemmPackedRhsTest, RhsFromMemoryChangesNoBits) {
  TwoThreads two;
  unsigned seed = 500;
  const int64_t k = 300;
  const int64_t n = 1000;
  for (bool tb : {false, true}) {
    const std::vector<float> b = Random(k * n, seed++);
    const GemmOperand<float> rhs{b.data(), tb ? k : n, tb};
    const GemmPackedRhs packed(k, n, rhs);
    const std::vector<float> bias = Random(n, seed++);
    for (int64_t m : {1, 20, 57, 100, 200, 500}) {
      const std::string what = absl::StrCat("m=", m, tb ? " b^T" : "");
      const std::vector<float> a = Random(m * k, seed++);
      const std::vector<float> residual = Random(m * n, seed++);
      const GemmOperand<float> lhs{a.data(), k, false};
      GemmEpilogue relu;
      relu.bias = bias.data();
      relu.activation = GemmEpilogue::Activation::kRelu;
      GemmEpilogue residual_relu = relu;
      residual_relu.residual = residual.data();
      residual_relu.residual_ld = n;
      GemmEpilogue elu = relu;
      elu.activation = GemmEpilogue::Activation::kElu;
      int which = 0;
      for (const GemmEpilogue& ep :
           {GemmEpilogue(), relu, residual_relu, elu}) {
        const std::string w = absl::StrCat(what, " epilogue ", which++);
        std::vector<float> want(m * n + 1, -7.0f);
        Gemm(SerialFor(), m, k, n, lhs, rhs, want.data(), n, ep);
        std::vector<float> got(m * n + 1, -7.0f);
        Gemm(SerialFor(), m, lhs, packed, got.data(), n, ep,
             GemmRhsLocality::kMemory);
        ExpectBitsEqual(got, want, w + " serial");
        std::fill(got.begin(), got.end(), -7.0f);
        Gemm(ReverseUnits(), m, lhs, packed, got.data(), n, ep,
             GemmRhsLocality::kMemory);
        ExpectBitsEqual(got, want, w + " reverse units");
        std::fill(got.begin(), got.end(), -7.0f);
        two.Run([&] {
          Gemm(two.fn(), m, lhs, packed, got.data(), n, ep,
               GemmRhsLocality::kMemory);
        });
        ExpectBitsEqual(got, want, w + " two threads");
        std::fill(got.begin(), got.end(), -7.0f);
        GemmSerial(m, lhs, packed, got.data(), n, ep, GemmRhsLocality::kMemory);
        ExpectBitsEqual(got, want, w + " GemmSerial");
        GemmLhsLayout layout;
        if (!GemmGatheredLhsLayout(k, &layout)) continue;  // baseline path
        std::vector<float> gathered(layout.Size(m, k) + 1, 0.0f);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t l = 0; l < k; ++l) {
            gathered[layout.Offset(m, i, l)] = a[i * k + l];
          }
        }
        std::fill(got.begin(), got.end(), -7.0f);
        GemmSerialGathered(m, gathered.data(), packed, got.data(), n, ep,
                           GemmRhsLocality::kMemory);
        ExpectBitsEqual(got, want, w + " gathered");
      }
    }
  }
}

TEST(CpuGemmPackedRhsTest, EmptySum) {
  const std::vector<float> a(1), b(1);
  const float bias[3] = {1.0f, -2.0f, 0.5f};
  const GemmPackedRhs packed(0, 3, GemmOperand<float>{b.data(), 3, false});
  GemmEpilogue relu;
  relu.bias = bias;
  relu.activation = GemmEpilogue::Activation::kRelu;
  std::vector<float> c(6, -7.0f);
  Gemm(SerialFor(), 2, GemmOperand<float>{a.data(), 0, false}, packed, c.data(),
       3, relu);
  EXPECT_EQ(c, (std::vector<float>{1, 0, 0.5f, 1, 0, 0.5f}));
}

// Conv2DNhwc with a Conv2DPackedFilter gives the per-call packing's bits,
// on each of its paths (1x1 in place, one chunk, many chunks, the input
// read in place), grouped or not, and at an empty batch.
TEST(CpuGemmPackedRhsTest, PackedFilterEqualsPerCallPacking) {
  struct Case {
    int64_t batch, size, in_depth, window, filter_depth, out_depth, stride;
  };
  TwoThreads two;
  unsigned seed = 100;
  for (const Case& c : {
           Case{1, 3, 64, 3, 64, 33, 1},   // late layer: m = 9, one chunk
           Case{1, 5, 3, 3, 3, 17, 2},     // k = 27, n = 17, stride 2
           Case{2, 20, 64, 3, 64, 33, 1},  // many chunks (k = 576)
           Case{1, 7, 1, 1, 1, 1, 1},      // 1x1 in place, k = 1, n = 1
           Case{3, 6, 40, 1, 40, 17, 1},   // 1x1 in place, m = 108
           Case{1, 9, 3, 1, 3, 33, 2},     // strided 1x1: k = 3
           Case{0, 5, 8, 3, 8, 16, 1},     // empty batch
           Case{1, 6, 8, 3, 4, 6, 1},      // 2 groups
           Case{2, 20, 16, 3, 4, 12, 1},   // 4 groups, many chunks
           Case{2, 12, 16, 3, 16, 24, 1},  // input read in place (strided)
           Case{1, 17, 3, 3, 3, 16, 2},    // the same, stride 2, narrow
       }) {
    const std::string what =
        absl::StrCat("batch=", c.batch, " size=", c.size, " in=", c.in_depth,
                     " window=", c.window, " filter_depth=", c.filter_depth,
                     " out=", c.out_depth, " stride=", c.stride);
    Conv2DGeometry s;
    s.batch = c.batch;
    s.in_depth = c.in_depth;
    s.filter_depth = c.filter_depth;
    s.out_depth = c.out_depth;
    s.groups = c.in_depth / c.filter_depth;
    for (WindowDim* d : {&s.rows, &s.cols}) {
      d->input = c.size;
      d->window = c.window;
      d->stride = c.stride;
      d->dilation = 1;
      // SAME padding.
      d->output = (c.size + c.stride - 1) / c.stride;
      const int64_t pad =
          std::max<int64_t>(0, (d->output - 1) * c.stride + c.window - c.size);
      d->pad_before = pad / 2;
    }
    Tensor filter(DT_FLOAT, TensorShape({c.window, c.window, c.filter_depth,
                                         c.out_depth}));
    const std::vector<float> fv = Random(filter.NumElements(), seed++);
    std::copy_n(fv.begin(), filter.NumElements(), filter.data<float>());
    const std::vector<float> in =
        Random(c.batch * c.size * c.size * c.in_depth, seed++);
    const std::vector<float> bias = Random(c.out_depth, seed++);
    GemmEpilogue relu;
    relu.bias = bias.data();
    relu.activation = GemmEpilogue::Activation::kRelu;
    auto packed = Conv2DPackedFilter::Make(filter, s.groups);
    ASSERT_NE(packed, nullptr) << what;
    ASSERT_EQ(packed->For(filter, s), packed.get()) << what;
    const int64_t out_size = s.output_pixels() * c.out_depth + 1;
    for (const GemmEpilogue& ep : {GemmEpilogue(), relu}) {
      std::vector<float> want(out_size, -7.0f);
      Conv2DNhwc(SerialFor(), s, in.data(), filter.data<float>(), ep,
                 want.data());
      std::vector<float> got(out_size, -7.0f);
      Conv2DNhwc(SerialFor(), s, in.data(), filter.data<float>(), ep,
                 got.data(), packed.get());
      ExpectBitsEqual(got, want, what + " serial");
      std::fill(got.begin(), got.end(), -7.0f);
      Conv2DNhwc(ReverseUnits(), s, in.data(), filter.data<float>(), ep,
                 got.data(), packed.get());
      ExpectBitsEqual(got, want, what + " reverse units");
      std::fill(got.begin(), got.end(), -7.0f);
      two.Run([&] {
        Conv2DNhwc(two.fn(), s, in.data(), filter.data<float>(), ep, got.data(),
                   packed.get());
      });
      ExpectBitsEqual(got, want, what + " two threads");
    }
  }
}

// A packing serves only its own filter buffer and shape, and its group
// count; Make refuses what it cannot pack.
TEST(CpuGemmPackedRhsTest, PackedFilterServesItsFilterOnly) {
  Tensor filter(DT_FLOAT, TensorShape({3, 3, 4, 8}));
  std::fill_n(filter.data<float>(), filter.NumElements(), 1.0f);
  auto packed = Conv2DPackedFilter::Make(filter, 1);
  ASSERT_NE(packed, nullptr);
  Conv2DGeometry s;
  s.groups = 1;
  EXPECT_EQ(packed->For(filter, s), packed.get());
  Tensor copy(DT_FLOAT, filter.shape());
  std::fill_n(copy.data<float>(), copy.NumElements(), 1.0f);
  EXPECT_EQ(packed->For(copy, s), nullptr);  // another buffer
  auto reshaped = filter.Reshaped(TensorShape({3, 3, 8, 4}));
  ASSERT_TRUE(reshaped.ok());
  EXPECT_EQ(packed->For(*reshaped, s), nullptr);  // same buffer, other shape
  s.groups = 2;
  EXPECT_EQ(packed->For(filter, s), nullptr);
  EXPECT_EQ(Conv2DPackedFilter::Make(filter, 3), nullptr);  // 8 % 3
  EXPECT_EQ(Conv2DPackedFilter::Make(Tensor(DT_DOUBLE, filter.shape()), 1),
            nullptr);
  EXPECT_EQ(
      Conv2DPackedFilter::Make(Tensor(DT_FLOAT, TensorShape({3, 3, 4})), 1),
      nullptr);
}

}  // namespace cpu_gemm_packed_rhs_test
}  // namespace weft
