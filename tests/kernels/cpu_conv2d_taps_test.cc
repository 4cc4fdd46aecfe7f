// The convolution by taps (kernels/cpu/conv2d_taps.h).
//
// Operands are multiples of 1/4 in [-2, 2]: each product is a multiple of
// 1/16 below 4 in magnitude, and a sum of a few thousand of them needs
// fewer than 24 bits, so every partial sum is exact in float and the result
// must equal a naive double reference bit for bit whatever the order: a
// wrong tap, output range or offset shows as a mismatch. The shapes cover
// atrous rates within and beyond the input, batches, strides with explicit
// padding, rows and columns dilated differently, and channel counts that
// make two k blocks and a narrow panel. Also checked: the epilogue against
// ApplyEpilogueRows on the plain result, taps in the padding skipped (an
// infinite filter tap reaches only the outputs whose window meets the
// input there), the choice (TapConv2DApplies, TapsInsideFraction), and
// Conv2DNhwc taking this path with a filter packed ahead or not.
#include "kernels/cpu/conv2d_taps.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

#include "device/cpu_isa.h"
#include "gtest/gtest.h"
#include "kernels/cpu/conv2d.h"
#include "kernels/cpu/fused_epilogue.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_conv2d_taps_test {
namespace {

struct Case {
  const char* name;
  int64_t n, h, w, cin, cout, kh, kw;
  int64_t sh, sw, dh, dw;
  std::vector<int64_t> pads;  // top, bottom, left, right; empty for SAME
};

std::vector<Case> Cases() {
  return {
      {"rate_6", 1, 17, 17, 24, 20, 3, 3, 1, 1, 6, 6, {}},
      {"rate_4_batch_two_k_blocks", 2, 12, 12, 300, 33, 3, 3, 1, 1, 4, 4, {}},
      {"rate_beyond_input", 1, 9, 10, 16, 16, 3, 3, 1, 1, 12, 12, {}},
      {"stride_2_explicit", 1, 21, 20, 8, 12, 3, 3, 2, 2, 3, 3, {4, 1, 0, 5}},
      {"rows_and_columns_apart", 2, 11, 14, 12, 24, 5, 3, 1, 1, 5, 2, {}},
  };
}

// Multiples of 1/4 in [-2, 2].
Tensor Grid(const TensorShape& shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> step(-8, 8);
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = step(rng) / 4.0f;
  }
  return t;
}

struct Operands {
  Tensor input, filter;
  Conv2DGeometry s;
};

Operands Make(const Case& c, unsigned seed) {
  Operands o{Grid(TensorShape({c.n, c.h, c.w, c.cin}), seed),
             Grid(TensorShape({c.kh, c.kw, c.cin, c.cout}), seed + 1),
             Conv2DGeometry()};
  WindowAttrs a;
  a.strides = {1, c.sh, c.sw, 1};
  a.dilations = {1, c.dh, c.dw, 1};
  if (c.pads.empty()) {
    a.padding = Padding::kSame;
  } else {
    a.padding = Padding::kExplicit;
    a.explicit_paddings = {0,         0,         c.pads[0], c.pads[1],
                           c.pads[2], c.pads[3], 0,         0};
  }
  const Status st = MakeConv2DGeometry(a, o.input, o.filter, &o.s);
  EXPECT_TRUE(st.ok()) << st;
  return o;
}

// The convolution in double, taps in the padding left out.
std::vector<double> Reference(const Operands& o) {
  const Conv2DGeometry& s = o.s;
  const float* x = o.input.data<float>();
  const float* f = o.filter.data<float>();
  std::vector<double> out(s.output_pixels() * s.out_depth, 0.0);
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t oh = 0; oh < s.rows.output; ++oh) {
      for (int64_t ow = 0; ow < s.cols.output; ++ow) {
        double* y =
            &out[((n * s.rows.output + oh) * s.cols.output + ow) * s.out_depth];
        for (int64_t kh = 0; kh < s.rows.window; ++kh) {
          const int64_t ih =
              oh * s.rows.stride - s.rows.pad_before + kh * s.rows.dilation;
          if (ih < 0 || ih >= s.rows.input) continue;
          for (int64_t kw = 0; kw < s.cols.window; ++kw) {
            const int64_t iw =
                ow * s.cols.stride - s.cols.pad_before + kw * s.cols.dilation;
            if (iw < 0 || iw >= s.cols.input) continue;
            const float* xp =
                x + ((n * s.rows.input + ih) * s.cols.input + iw) * s.in_depth;
            for (int64_t ci = 0; ci < s.in_depth; ++ci) {
              const float* fp =
                  f +
                  ((kh * s.cols.window + kw) * s.in_depth + ci) * s.out_depth;
              for (int64_t co = 0; co < s.out_depth; ++co) {
                y[co] += double{xp[ci]} * double{fp[co]};
              }
            }
          }
        }
      }
    }
  }
  return out;
}

TapFilters Pack(const Operands& o) {
  return TapFilters(o.filter.data<float>(), o.s.rows.window, o.s.cols.window,
                    o.s.in_depth, o.s.out_depth);
}

// The output starts as NaNs: an element TapConv2D does not write stays one.
std::vector<float> Convolve(const ParallelForFn& parallel, const Operands& o,
                            const TapFilters& taps,
                            const GemmEpilogue& ep = GemmEpilogue()) {
  std::vector<float> out(o.s.output_pixels() * o.s.out_depth,
                         std::numeric_limits<float>::quiet_NaN());
  TapConv2D(parallel, o.s, o.input.data<float>(), taps, ep, out.data());
  return out;
}

bool SameBits(float a, float b) {
  return std::memcmp(&a, &b, sizeof(float)) == 0;
}

class TapConv2DTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!GemmStridedLhsSupported()) {
      GTEST_SKIP() << "the baseline CPU path has no products read in place; "
                      "its convolutions gather patches (TapConv2DApplies is "
                      "false there: AppliesOnlyToItsShapes)";
    }
  }
};

TEST_F(TapConv2DTest, ExactOnGridOperandsAtEveryThreadCount) {
  unsigned seed = 10;
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const Operands o = Make(c, seed += 2);
    const std::vector<double> want = Reference(o);
    const TapFilters taps = Pack(o);
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(threads);
      const std::vector<float> got =
          Convolve(test::SplitOverThreads(threads), o, taps);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(got[i], static_cast<float>(want[i])) << "element " << i;
      }
    }
  }
}

// Bias, residual and activation equal ApplyEpilogueRows on the plain
// result, bit for bit.
TEST_F(TapConv2DTest, EpilogueEqualsApplyingItAfterwards) {
  const Operands o = Make(Cases()[1], 40);
  const TapFilters taps = Pack(o);
  const Tensor bias = Grid(TensorShape({o.s.out_depth}), 41);
  const Tensor residual =
      Grid(TensorShape({o.s.output_pixels(), o.s.out_depth}), 42);
  GemmEpilogue ep;
  ep.bias = bias.data<float>();
  ep.residual = residual.data<float>();
  ep.residual_ld = o.s.out_depth;
  for (auto act :
       {GemmEpilogue::Activation::kRelu6, GemmEpilogue::Activation::kElu}) {
    ep.activation = act;
    std::vector<float> want = Convolve(SerialFor(), o, taps);
    ApplyEpilogueRows(ep, want.data(), o.s.output_pixels(), o.s.out_depth,
                      o.s.out_depth);
    const std::vector<float> got =
        Convolve(test::SplitOverThreads(2), o, taps, ep);
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_TRUE(SameBits(got[i], want[i])) << "element " << i;
    }
  }
}

// An infinite filter tap reaches only the outputs whose window meets the
// input at that tap: elsewhere it lies in the padding and is skipped.
TEST_F(TapConv2DTest, TapsInThePaddingAreSkipped) {
  const Case c = Cases()[0];  // 17 x 17, rate 6, SAME: padding 6
  Operands o = Make(c, 50);
  // Tap (0, 2), input channel 3, output channel 7: it reads row oh - 6 and
  // column ow + 6, inside for oh >= 6 and ow <= 10.
  o.filter.data<float>()[((0 * 3 + 2) * c.cin + 3) * c.cout + 7] =
      std::numeric_limits<float>::infinity();
  const std::vector<float> got =
      Convolve(test::SplitOverThreads(2), o, Pack(o));
  for (int64_t oh = 0; oh < c.h; ++oh) {
    for (int64_t ow = 0; ow < c.w; ++ow) {
      for (int64_t co = 0; co < c.cout; ++co) {
        const float y = got[(oh * c.w + ow) * c.cout + co];
        const bool reached = co == 7 && oh >= 6 && ow <= 10;
        EXPECT_EQ(!std::isfinite(y), reached) << oh << "," << ow << "," << co;
      }
    }
  }
}

TEST_F(TapConv2DTest, AppliesOnlyToItsShapes) {
  // 17 x 17 at rate 6: per dimension 17 + 11 + 11 of 51 (output, tap) pairs
  // read the input. Taken from 32 input channels; Cases()[0], 24 channels
  // in rows of 17 pixels, goes by patches.
  const Operands o =
      Make({"rate_6_deep", 1, 17, 17, 32, 20, 3, 3, 1, 1, 6, 6, {}}, 60);
  EXPECT_DOUBLE_EQ(TapsInsideFraction(o.s), (39.0 / 51) * (39.0 / 51));
  EXPECT_TRUE(TapConv2DApplies(o.s));
  EXPECT_FALSE(TapConv2DApplies(Make(Cases()[0], 60).s));
  // 64 x 64 at rate 2: 0.96 of the pairs inside, too many.
  const Operands dense =
      Make({"dense", 1, 64, 64, 8, 8, 3, 3, 1, 1, 2, 2, {}}, 61);
  EXPECT_GT(TapsInsideFraction(dense.s), 0.95);
  EXPECT_FALSE(TapConv2DApplies(dense.s));
  // Fewer input channels need more of the pairs outside: 17 x 17 at rate 4
  // has (17 + 13 + 13) / 51 per dimension inside, 0.71 in all, taken from
  // 64 input channels and from 32 (at most 0.8) but not below (0.6, and
  // only in rows of 32 pixels or more): 33 x 33 at rate 12 (0.57) is.
  struct DepthCase {
    int64_t size, depth, rate;
    bool taken;
  };
  for (const DepthCase& d : {DepthCase{17, 64, 4, true},
                             {17, 32, 4, true},
                             {17, 31, 4, false},
                             {17, 16, 4, false},
                             {17, 16, 6, false},
                             {33, 16, 12, true},
                             {33, 15, 12, true},
                             {33, 16, 6, false}}) {
    const Operands op = Make({"depth",
                              1,
                              d.size,
                              d.size,
                              d.depth,
                              8,
                              3,
                              3,
                              1,
                              1,
                              d.rate,
                              d.rate,
                              {}},
                             63);
    EXPECT_EQ(TapConv2DApplies(op.s), d.taken)
        << d.size << " x " << d.size << " x " << d.depth << " at rate "
        << d.rate << ", " << TapsInsideFraction(op.s) << " inside";
  }
  const std::vector<std::pair<const char*, void (*)(Conv2DGeometry*)>> off = {
      {"undilated",
       [](Conv2DGeometry* g) { g->rows.dilation = 1, g->cols.dilation = 1; }},
      {"2 groups", [](Conv2DGeometry* g) { g->groups = 2; }},
      {"output rows of 7 pixels",
       [](Conv2DGeometry* g) { g->cols.output = 7; }},
  };
  for (const auto& [what, change] : off) {
    Conv2DGeometry g = o.s;
    change(&g);
    EXPECT_FALSE(TapConv2DApplies(g)) << what;
  }
  // Without padding every pair is inside.
  const Operands valid =
      Make({"valid", 1, 20, 20, 4, 4, 3, 3, 1, 1, 3, 3, {0, 0, 0, 0}}, 62);
  EXPECT_EQ(TapsInsideFraction(valid.s), 1.0);
}

// Conv2DNhwc computes these shapes by taps, with the filter packed ahead
// (concurrent first callers, each packing through two threads, all get the
// one published first) or per call: the same bits as TapConv2D.
TEST_F(TapConv2DTest, Conv2DNhwcTakesThisPath) {
  const Operands o = Make(Cases()[1], 70);
  auto packed = Conv2DPackedFilter::Make(o.filter, 1);
  ASSERT_NE(packed, nullptr);
  std::vector<const TapFilters*> made(4);
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back(
        [&, t] { made[t] = packed->TapsFor(o.s, test::SplitOverThreads(2)); });
  }
  for (std::thread& th : callers) th.join();
  ASSERT_NE(made[0], nullptr);
  for (const TapFilters* m : made) EXPECT_EQ(m, made[0]);
  const std::vector<float> want = Convolve(SerialFor(), o, *made[0]);
  std::vector<float> ahead(want.size()), per_call(want.size());
  Conv2DNhwc(test::SplitOverThreads(2), o.s, o.input.data<float>(),
             o.filter.data<float>(), GemmEpilogue(), ahead.data(),
             packed->For(o.filter, o.s));
  Conv2DNhwc(test::SplitOverThreads(2), o.s, o.input.data<float>(),
             o.filter.data<float>(), GemmEpilogue(), per_call.data());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_TRUE(SameBits(ahead[i], want[i])) << "element " << i;
    ASSERT_TRUE(SameBits(per_call[i], want[i])) << "element " << i;
  }
  // A shape it does not apply to has no tap form.
  const Operands dense =
      Make({"dense", 1, 64, 64, 8, 8, 3, 3, 1, 1, 2, 2, {}}, 71);
  EXPECT_EQ(
      Conv2DPackedFilter::Make(dense.filter, 1)->TapsFor(dense.s, SerialFor()),
      nullptr);
}

TEST(TapConv2DBaselineTest, NotOnTheBaselinePath) {
  if (GemmStridedLhsSupported()) {
    GTEST_SKIP() << "a vector CPU path: run with WEFT_CPU_ISA=baseline";
  }
  EXPECT_FALSE(TapConv2DApplies(Make(Cases()[0], 80).s));
}

}  // namespace
}  // namespace cpu_conv2d_taps_test
}  // namespace weft
