// Winograd's F(2x2, 3x3) convolution (kernels/cpu/conv2d_winograd.h).
//
// On operands that are multiples of 1/4 in [-2, 2] (biases of 1/8) every
// value the algorithm forms is exact in float: the filter transform halves
// twice (multiples of 1/64 below 4.5 in magnitude), the input transform
// adds four inputs, each product then has at most 12 significant bits and a
// sum over a few hundred channels at most 21. So the result must equal a
// naive double reference bit for bit, whatever the tiles, blocks, parts and
// thread count: a wrong coefficient, tap or edge shows as an exact
// mismatch. On random floats the rounding the transforms add is held to
// the k-term dot-product bound (k + 2) * 2^-24 * sum |x w| that the direct
// path meets. The epilogue is checked against ApplyEpilogueRows on the
// plain result, NaN and Inf against the windows that hold them, and the
// choice (WinogradFilter::Make, WinogradApplies, Conv2DNhwc) against the
// rules in the header.
#include "kernels/cpu/conv2d_winograd.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "device/cpu_isa.h"
#include "gtest/gtest.h"
#include "kernels/cpu/conv2d.h"
#include "kernels/cpu/fused_epilogue.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_conv2d_winograd_test {

struct Case {
  int64_t n, h, w, cin, cout;
  Padding padding = Padding::kSame;
  std::vector<int64_t> pads = {};  // top, bottom, left, right for kExplicit
};

std::string Name(const Case& c) {
  return absl::StrCat(c.n, "x", c.h, "x", c.w, "x", c.cin, " -> ", c.cout,
                      c.padding == Padding::kSame    ? " SAME"
                      : c.padding == Padding::kValid ? " VALID"
                                                     : " EXPLICIT");
}

WindowAttrs Attrs(const Case& c) {
  WindowAttrs a;
  a.padding = c.padding;
  if (!c.pads.empty()) {
    a.explicit_paddings = {0,         0,         c.pads[0], c.pads[1],
                           c.pads[2], c.pads[3], 0,         0};
  }
  return a;
}

// Multiples of 1/4 in [-2, 2] (`grid`) or uniform in [-1, 1].
Tensor Values(const TensorShape& shape, bool grid, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> step(-8, 8);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = grid ? step(rng) / 4.0f : uniform(rng);
  }
  return t;
}

struct Operands {
  Tensor input, filter;
  Conv2DGeometry s;
};

Operands Make(const Case& c, bool grid, unsigned seed) {
  Operands o{Values(TensorShape({c.n, c.h, c.w, c.cin}), grid, seed),
             Values(TensorShape({3, 3, c.cin, c.cout}), grid, seed + 1),
             Conv2DGeometry()};
  const Status st = MakeConv2DGeometry(Attrs(c), o.input, o.filter, &o.s);
  EXPECT_TRUE(st.ok()) << st;
  return o;
}

// The direct sum in double, and the sum of |products| per output.
void Reference(const Operands& o, std::vector<double>* ref,
               std::vector<double>* abs_ref) {
  const Conv2DGeometry& s = o.s;
  const float* x = o.input.data<float>();
  const float* f = o.filter.data<float>();
  ref->assign(s.output_pixels() * s.out_depth, 0.0);
  abs_ref->assign(ref->size(), 0.0);
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t oh = 0; oh < s.rows.output; ++oh) {
      for (int64_t ow = 0; ow < s.cols.output; ++ow) {
        const int64_t o_at =
            ((n * s.rows.output + oh) * s.cols.output + ow) * s.out_depth;
        for (int64_t kh = 0; kh < 3; ++kh) {
          for (int64_t kw = 0; kw < 3; ++kw) {
            const int64_t ih = oh - s.rows.pad_before + kh;
            const int64_t iw = ow - s.cols.pad_before + kw;
            if (ih < 0 || ih >= s.rows.input || iw < 0 || iw >= s.cols.input) {
              continue;
            }
            const float* xp =
                x + ((n * s.rows.input + ih) * s.cols.input + iw) * s.in_depth;
            for (int64_t ci = 0; ci < s.in_depth; ++ci) {
              const float* fp =
                  f + ((kh * 3 + kw) * s.in_depth + ci) * s.out_depth;
              for (int64_t co = 0; co < s.out_depth; ++co) {
                const double p = double(xp[ci]) * double(fp[co]);
                (*ref)[o_at + co] += p;
                (*abs_ref)[o_at + co] += std::fabs(p);
              }
            }
          }
        }
      }
    }
  }
}

std::vector<float> Convolve(const ParallelForFn& parallel, const Operands& o,
                            const WinogradFilter& f,
                            const GemmEpilogue& ep = GemmEpilogue()) {
  std::vector<float> out(o.s.output_pixels() * o.s.out_depth,
                         std::numeric_limits<float>::quiet_NaN());
  WinogradConv2D(parallel, o.s, o.input.data<float>(), f, ep, out.data());
  return out;
}

bool SameBits(float a, float b) {
  return std::memcmp(&a, &b, sizeof(float)) == 0;
}

// The shapes: odd and even outputs (a last tile half outside), VALID and
// wider explicit padding, channel counts with vector tails on both paths,
// output channels in several parts (16 * cin * cout beyond a part's
// budget) with a last part wider than the others and two blocks that split
// one image, many blocks over images. Kept small: the double reference is
// what the sanitizer suite spends its time on.
std::vector<Case> Cases() {
  return {
      {1, 8, 8, 48, 16},
      {1, 7, 9, 51, 21},
      {2, 10, 11, 48, 40, Padding::kValid},
      {1, 9, 8, 56, 17, Padding::kExplicit, {2, 0, 1, 3}},
      {1, 11, 13, 128, 520},
      {2, 23, 30, 49, 64},
  };
}

class WinogradTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Another test of the process may have turned it off and not back on.
    ASSERT_EQ(unsetenv("WEFT_CONV_WINOGRAD"), 0);
    if (ActiveCpuIsa() == CpuIsa::kBaseline) {
      GTEST_SKIP() << "the baseline CPU path convolves directly (no "
                      "Winograd there; see WinogradFilterIsNotMadeWhere...)";
    }
  }
};

TEST_F(WinogradTest, ExactOnGridOperandsAtEveryThreadCount) {
  unsigned seed = 10;
  for (const Case& c : Cases()) {
    const Operands o = Make(c, /*grid=*/true, seed += 2);
    auto f = WinogradFilter::Make(o.filter);
    ASSERT_NE(f, nullptr) << Name(c);
    ASSERT_TRUE(WinogradApplies(o.s)) << Name(c);
    std::vector<double> ref, abs_ref;
    Reference(o, &ref, &abs_ref);
    const std::vector<float> one = Convolve(SerialFor(), o, *f);
    int bad = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      if (one[i] != ref[i] && ++bad <= 3) {
        ADD_FAILURE() << Name(c) << ": element " << i << " is " << one[i]
                      << ", reference " << ref[i];
      }
    }
    for (int threads : {2, 3, 4}) {
      const std::vector<float> more =
          Convolve(test::SplitOverThreads(threads), o, *f);
      for (size_t i = 0; i < ref.size(); ++i) {
        ASSERT_TRUE(SameBits(more[i], one[i]))
            << Name(c) << " threads=" << threads << " element " << i;
      }
    }
  }
}

TEST_F(WinogradTest, RandomOperandsWithinTheDotProductBound) {
  unsigned seed = 40;
  for (const Case& c : Cases()) {
    const Operands o = Make(c, /*grid=*/false, seed += 2);
    auto f = WinogradFilter::Make(o.filter);
    ASSERT_NE(f, nullptr) << Name(c);
    std::vector<double> ref, abs_ref;
    Reference(o, &ref, &abs_ref);
    const std::vector<float> got = Convolve(test::SplitOverThreads(2), o, *f);
    const int64_t k = 9 * c.cin;
    int bad = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      const double bound = (k + 2) * std::ldexp(1.0, -24) * abs_ref[i];
      if (!(std::fabs(got[i] - ref[i]) <= bound) && ++bad <= 3) {
        ADD_FAILURE() << Name(c) << ": element " << i << " is " << got[i]
                      << ", reference " << ref[i] << ", bound " << bound;
      }
    }
  }
}

// A filter transformed and packed through 2 or 3 threads convolves to the
// bits of the one made on the calling thread, for a filter of one part and
// for one cut in several (3x3 x 256 x 512: 16 * 256 * 512 floats are two
// parts' worth, rounded up to four).
TEST_F(WinogradTest, FilterMadeThroughThreadsEqualsTheSerialOne) {
  unsigned seed = 60;
  for (const Case& c : {Case{1, 6, 7, 50, 37}, Case{1, 4, 4, 256, 512}}) {
    const Operands o = Make(c, /*grid=*/false, seed += 2);
    auto serial = WinogradFilter::Make(o.filter);
    ASSERT_NE(serial, nullptr) << Name(c);
    const std::vector<float> want = Convolve(SerialFor(), o, *serial);
    for (int threads : {2, 3}) {
      const ParallelForFn split = test::SplitOverThreads(threads);
      auto made = WinogradFilter::Make(o.filter, &split);
      ASSERT_NE(made, nullptr);
      ASSERT_EQ(made->parts(), serial->parts()) << Name(c);
      const std::vector<float> got = Convolve(SerialFor(), o, *made);
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_TRUE(SameBits(got[i], want[i]))
            << Name(c) << " threads=" << threads << " element " << i;
      }
    }
  }
}

// Each epilogue equals the plain result with ApplyEpilogueRows applied (the
// in-register path for bias, residual, Relu and Relu6; the per-pixel path
// for LeakyRelu, Elu, Swish and HardSwish), bit for bit.
TEST_F(WinogradTest, EpilogueEqualsApplyingItAfterwards) {
  const Case c{2, 9, 11, 50, 37};
  const Operands o = Make(c, /*grid=*/false, 70);
  auto f = WinogradFilter::Make(o.filter);
  ASSERT_NE(f, nullptr);
  const std::vector<float> plain = Convolve(SerialFor(), o, *f);
  const Tensor bias = Values(TensorShape({c.cout}), false, 71);
  const Tensor residual =
      Values(TensorShape({o.s.output_pixels(), static_cast<int64_t>(c.cout)}),
             false, 72);
  using Act = GemmEpilogue::Activation;
  for (Act act : {Act::kNone, Act::kRelu, Act::kRelu6, Act::kLeakyRelu,
                  Act::kElu, Act::kSwish, Act::kHardSwish}) {
    for (int with : {0, 1, 2, 3}) {  // bit 0: bias, bit 1: residual
      GemmEpilogue ep;
      ep.activation = act;
      ep.alpha = 0.3f;
      ep.beta = 0.7f;
      if (with & 1) ep.bias = bias.data<float>();
      if (with & 2) {
        ep.residual = residual.data<float>();
        ep.residual_ld = c.cout;
      }
      std::vector<float> want = plain;
      ApplyEpilogueRows(ep, want.data(), o.s.output_pixels(), c.cout, c.cout);
      const std::vector<float> got =
          Convolve(test::SplitOverThreads(2), o, *f, ep);
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_TRUE(SameBits(got[i], want[i]))
            << "activation " << static_cast<int>(act) << " with " << with
            << " element " << i << ": " << got[i] << " vs " << want[i];
      }
    }
  }
}

// A NaN reaches exactly the outputs whose 3x3 window holds it; an infinity
// makes those outputs non-finite (NaN or infinite) and no other.
TEST_F(WinogradTest, NanAndInfReachTheWindowsThatHoldThem) {
  const Case c{1, 8, 8, 48, 16};
  for (float bad : {std::numeric_limits<float>::quiet_NaN(),
                    std::numeric_limits<float>::infinity()}) {
    Operands o = Make(c, /*grid=*/true, 90);
    // Pixel (3, 4), channel 5: rows 2..4, columns 3..5 of the output.
    o.input.data<float>()[(3 * c.w + 4) * c.cin + 5] = bad;
    auto f = WinogradFilter::Make(o.filter);
    ASSERT_NE(f, nullptr);
    const std::vector<float> got = Convolve(SerialFor(), o, *f);
    for (int64_t oh = 0; oh < c.h; ++oh) {
      for (int64_t ow = 0; ow < c.w; ++ow) {
        const bool reached = oh >= 2 && oh <= 4 && ow >= 3 && ow <= 5;
        for (int64_t co = 0; co < c.cout; ++co) {
          const float y = got[(oh * c.w + ow) * c.cout + co];
          if (std::isnan(bad)) {
            EXPECT_EQ(std::isnan(y), reached) << oh << "," << ow << "," << co;
          } else {
            EXPECT_EQ(!std::isfinite(y), reached)
                << oh << "," << ow << "," << co;
          }
        }
      }
    }
  }
}

// Conv2DNhwc with a filter packed for a unit-stride convolution takes the
// Winograd path (the same bits as WinogradConv2D) where it applies, and the
// direct path (its own bits) elsewhere.
TEST_F(WinogradTest, Conv2DNhwcUsesItWhereItApplies) {
  const Case c{2, 12, 10, 48, 48};
  const Operands o = Make(c, /*grid=*/false, 110);
  const WindowAttrs attrs = Attrs(c);
  auto packed = Conv2DPackedFilter::Make(o.filter, 1, &attrs);
  ASSERT_NE(packed, nullptr);
  // Concurrent first callers (each making it through two threads) all get
  // the one published first; the same form after.
  std::vector<const WinogradFilter*> made(4);
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&, t] {
      made[t] = packed->WinogradFor(o.s, test::SplitOverThreads(2));
    });
  }
  for (std::thread& th : callers) th.join();
  ASSERT_NE(made[0], nullptr);
  for (const WinogradFilter* w : made) EXPECT_EQ(w, made[0]);
  EXPECT_EQ(packed->WinogradFor(o.s, SerialFor()), made[0]);
  auto direct = Conv2DPackedFilter::Make(o.filter, 1);
  ASSERT_EQ(direct->WinogradFor(o.s, SerialFor()), nullptr);
  const std::vector<float> want = Convolve(SerialFor(), o, *made[0]);
  std::vector<float> got(want.size()), plain(want.size());
  Conv2DNhwc(test::SplitOverThreads(2), o.s, o.input.data<float>(),
             o.filter.data<float>(), GemmEpilogue(), got.data(),
             packed->For(o.filter, o.s));
  Conv2DNhwc(test::SplitOverThreads(2), o.s, o.input.data<float>(),
             o.filter.data<float>(), GemmEpilogue(), plain.data(),
             direct->For(o.filter, o.s));
  bool differs = false;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_TRUE(SameBits(got[i], want[i])) << "element " << i;
    differs |= !SameBits(plain[i], want[i]);
  }
  EXPECT_TRUE(differs) << "the direct path gave Winograd's bits everywhere";

  // Strided: the same filter packed for stride 2 has no Winograd form.
  WindowAttrs strided = attrs;
  strided.strides = {1, 2, 2, 1};
  EXPECT_EQ(Conv2DPackedFilter::Make(o.filter, 1, &strided)
                ->WinogradFor(o.s, SerialFor()),
            nullptr);
  WindowAttrs dilated = attrs;
  dilated.dilations = {1, 1, 2, 1};
  EXPECT_EQ(Conv2DPackedFilter::Make(o.filter, 1, &dilated)
                ->WinogradFor(o.s, SerialFor()),
            nullptr);
  // A shape it does not apply to (too few tiles) leaves it to the direct
  // path.
  Operands small = Make({1, 6, 6, 48, 48}, false, 112);
  EXPECT_EQ(packed->WinogradFor(small.s, SerialFor()), nullptr);
  // An empty batch writes nothing.
  Operands empty = Make({0, 12, 10, 48, 48}, false, 111);
  Conv2DNhwc(test::SplitOverThreads(2), empty.s, empty.input.data<float>(),
             empty.filter.data<float>(), GemmEpilogue(), nullptr,
             packed->For(empty.filter, empty.s));
}

TEST_F(WinogradTest, AppliesOnlyToItsShapes) {
  const Operands o = Make({1, 12, 12, 48, 16}, false, 120);
  EXPECT_TRUE(WinogradApplies(o.s));
  // Too few tiles: a 6x6 output has 9.
  EXPECT_FALSE(WinogradApplies(Make({1, 6, 6, 48, 16}, false, 121).s));
  // A 9x9 output's 25 tiles: enough for a small filter; for a large one
  // (2.4 MB) on the AVX2 path, not on the AVX-512 one, whose direct path is
  // faster there (kMinTilesLargeFilterAvx512).
  EXPECT_TRUE(WinogradApplies(Make({1, 9, 9, 48, 16}, false, 122).s));
  EXPECT_EQ(WinogradApplies(Make({1, 9, 9, 256, 256}, false, 123).s),
            ActiveCpuIsa() != CpuIsa::kAvx512);
  // And 36 tiles of it: enough on both.
  EXPECT_TRUE(WinogradApplies(Make({1, 12, 12, 256, 256}, false, 124).s));
  // One property off at a time.
  const std::vector<std::pair<const char*, void (*)(Conv2DGeometry*)>> off = {
      {"32 input channels",
       [](Conv2DGeometry* g) { g->in_depth = g->filter_depth = 32; }},
      {"8 output channels", [](Conv2DGeometry* g) { g->out_depth = 8; }},
      {"row stride 2", [](Conv2DGeometry* g) { g->rows.stride = 2; }},
      {"column dilation 2", [](Conv2DGeometry* g) { g->cols.dilation = 2; }},
      {"2 groups", [](Conv2DGeometry* g) { g->groups = 2; }},
      {"5 filter rows", [](Conv2DGeometry* g) { g->rows.window = 5; }},
  };
  for (const auto& [what, change] : off) {
    Conv2DGeometry g = o.s;
    change(&g);
    EXPECT_FALSE(WinogradApplies(g)) << what;
  }
}

TEST(WinogradFilterTest, IsNotMadeWhereItDoesNotPay) {
  ASSERT_EQ(unsetenv("WEFT_CONV_WINOGRAD"), 0);
  const bool vector_path = ActiveCpuIsa() != CpuIsa::kBaseline;
  EXPECT_EQ(WinogradFilter::Make(
                Values(TensorShape({3, 3, 48, 16}), false, 1)) != nullptr,
            vector_path);
  // A stem's 3 input channels, 32, few output channels, other windows and
  // dtypes: none.
  EXPECT_EQ(WinogradFilter::Make(Values(TensorShape({3, 3, 3, 64}), false, 2)),
            nullptr);
  EXPECT_EQ(WinogradFilter::Make(Values(TensorShape({3, 3, 32, 64}), false, 2)),
            nullptr);
  EXPECT_EQ(WinogradFilter::Make(Values(TensorShape({3, 3, 64, 8}), false, 3)),
            nullptr);
  EXPECT_EQ(WinogradFilter::Make(Values(TensorShape({1, 1, 64, 64}), false, 4)),
            nullptr);
  EXPECT_EQ(WinogradFilter::Make(Values(TensorShape({5, 5, 64, 64}), false, 5)),
            nullptr);
  EXPECT_EQ(
      WinogradFilter::Make(Tensor(DT_DOUBLE, TensorShape({3, 3, 48, 16}))),
      nullptr);
  // WEFT_CONV_WINOGRAD=0 turns it off for kernels made after.
  EXPECT_TRUE(WinogradFilter::Eligible(Values(TensorShape({3, 3, 48, 16}),
                                              false, 6)) == vector_path);
  ASSERT_EQ(setenv("WEFT_CONV_WINOGRAD", "0", 1), 0);
  EXPECT_FALSE(
      WinogradFilter::Eligible(Values(TensorShape({3, 3, 48, 16}), false, 6)));
  EXPECT_EQ(WinogradFilter::Make(Values(TensorShape({3, 3, 48, 16}), false, 6)),
            nullptr);
  ASSERT_EQ(unsetenv("WEFT_CONV_WINOGRAD"), 0);
}

}  // namespace cpu_conv2d_winograd_test
}  // namespace weft
