// The float depthwise convolution kernel (kernels/cpu/depthwise_conv.h)
// behind DepthwiseConv2dNative and _FusedDepthwiseConv2dNative, on the
// shapes where its blocked paths meet: images narrower than a strip or than
// the filter, channel counts that leave narrow vector blocks, strides,
// dilations, multipliers, explicit padding.
//
// Two references, both computed here: a sequential float sum 0 + p0 + p1 +
// ... over the in-bounds taps in (kh, kw) order, which the kernel promises to
// reproduce bit for bit whatever its blocking, vector width and thread
// count; and a double sum, against which the float result must stay within
// the dot-product rounding bound (so the sequential reference is itself
// checked).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_depthwise_test {

using test::OpRunner;

struct Case {
  int64_t n = 1, h = 5, w = 5, c = 3, m = 1;
  int64_t kh = 3, kw = 3;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  std::string padding = "SAME";
  std::vector<int64_t> pads;  // top, bottom, left, right for EXPLICIT

  std::string Name() const {
    return absl::StrCat(n, "x", h, "x", w, "x", c, "_m", m, "_k", kh, "x", kw,
                        "_s", sh, "x", sw, "_d", dh, "x", dw, "_", padding);
  }
};

struct Geometry {
  int64_t out = 0, pad = 0;
};

// TensorFlow's output size and leading padding, written out independently.
Geometry Window(int64_t in, int64_t k, int64_t d, int64_t s,
                const std::string& padding, int64_t before, int64_t after) {
  const int64_t e = (k - 1) * d + 1;
  Geometry g;
  if (padding == "SAME") {
    g.out = (in + s - 1) / s;
    g.pad = std::max<int64_t>(0, (g.out - 1) * s + e - in) / 2;
  } else if (padding == "VALID") {
    g.out = in >= e ? (in - e) / s + 1 : 0;
  } else {
    g.out = (in + before + after - e) / s + 1;
    g.pad = before;
  }
  return g;
}

struct Expected {
  TensorShape shape;
  std::vector<float> sequential;  // float, taps in (kh, kw) order
  std::vector<double> exact;
  std::vector<double> abs_sum;  // sum of |products|
};

Expected Reference(const Case& c, const std::vector<float>& x,
                   const std::vector<float>& f) {
  const int64_t p0 = c.pads.empty() ? 0 : c.pads[0];
  const int64_t p1 = c.pads.empty() ? 0 : c.pads[1];
  const int64_t p2 = c.pads.empty() ? 0 : c.pads[2];
  const int64_t p3 = c.pads.empty() ? 0 : c.pads[3];
  const Geometry rows = Window(c.h, c.kh, c.dh, c.sh, c.padding, p0, p1);
  const Geometry cols = Window(c.w, c.kw, c.dw, c.sw, c.padding, p2, p3);
  const int64_t cm = c.c * c.m;
  Expected e;
  e.shape = TensorShape({c.n, rows.out, cols.out, cm});
  for (int64_t b = 0; b < c.n; ++b) {
    for (int64_t oy = 0; oy < rows.out; ++oy) {
      for (int64_t ox = 0; ox < cols.out; ++ox) {
        for (int64_t o = 0; o < cm; ++o) {
          float seq = 0.0f;
          double exact = 0, abs = 0;
          for (int64_t i = 0; i < c.kh; ++i) {
            const int64_t y = oy * c.sh - rows.pad + i * c.dh;
            if (y < 0 || y >= c.h) continue;
            for (int64_t j = 0; j < c.kw; ++j) {
              const int64_t xx = ox * c.sw - cols.pad + j * c.dw;
              if (xx < 0 || xx >= c.w) continue;
              const float a = x[((b * c.h + y) * c.w + xx) * c.c + o / c.m];
              const float w = f[(i * c.kw + j) * cm + o];
              const float product = a * w;
              seq = seq + product;
              exact += static_cast<double>(a) * w;
              abs += std::fabs(static_cast<double>(a) * w);
            }
          }
          e.sequential.push_back(seq);
          e.exact.push_back(exact);
          e.abs_sum.push_back(abs);
        }
      }
    }
  }
  return e;
}

AttrMap Attrs(const Case& c) {
  AttrMap a;
  a["strides"] = AttrValue::IntList({1, c.sh, c.sw, 1});
  a["dilations"] = AttrValue::IntList({1, c.dh, c.dw, 1});
  a["padding"] = AttrValue::String(c.padding);
  if (!c.pads.empty()) {
    a["explicit_paddings"] = AttrValue::IntList(
        {0, 0, c.pads[0], c.pads[1], c.pads[2], c.pads[3], 0, 0});
  }
  return a;
}

std::vector<float> RandomValues(int64_t n, std::mt19937* rng) {
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = dist(*rng);
  return v;
}

Tensor FloatTensor(const std::vector<float>& v, const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  if (!v.empty()) std::memcpy(t.data<float>(), v.data(), v.size() * 4);
  return t;
}

// Bit-for-bit equality, any NaN matching any NaN.
void ExpectBits(const Tensor& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.NumElements(), static_cast<int64_t>(expected.size()));
  int bad = 0;
  for (int64_t i = 0; i < actual.NumElements(); ++i) {
    const float a = actual.data<float>()[i];
    const float b = expected[i];
    const bool same = (std::isnan(a) && std::isnan(b)) ||
                      std::memcmp(&a, &b, sizeof(float)) == 0;
    if (!same && ++bad <= 5) {
      ADD_FAILURE() << "element " << i << ": " << a << ", expected " << b;
    }
  }
}

StatusOr<std::vector<Tensor>> RunDepthwise(const Case& c, const Tensor& x,
                                           const Tensor& f, int threads) {
  OpRunner runner("DepthwiseConv2dNative", Attrs(c), threads);
  return runner.Run({x, f});
}

void Check(const Case& c, unsigned seed) {
  SCOPED_TRACE(c.Name());
  std::mt19937 rng(seed);
  const std::vector<float> x = RandomValues(c.n * c.h * c.w * c.c, &rng);
  const std::vector<float> f = RandomValues(c.kh * c.kw * c.c * c.m, &rng);
  const Expected e = Reference(c, x, f);
  const Tensor xt = FloatTensor(x, TensorShape({c.n, c.h, c.w, c.c}));
  const Tensor ft = FloatTensor(f, TensorShape({c.kh, c.kw, c.c, c.m}));
  for (int threads : {0, 1, 2}) {
    SCOPED_TRACE(absl::StrCat("threads ", threads));
    StatusOr<std::vector<Tensor>> out = RunDepthwise(c, xt, ft, threads);
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor& y = (*out)[0];
    ASSERT_EQ(y.shape(), e.shape);
    ExpectBits(y, e.sequential);
    const double u = std::ldexp(1.0, -24);
    const double terms = static_cast<double>(c.kh * c.kw);
    for (int64_t i = 0; i < y.NumElements(); ++i) {
      const double bound =
          terms * u * e.abs_sum[i] * 1.01 + u * std::fabs(e.exact[i]) + 1e-45;
      ASSERT_LE(std::fabs(y.data<float>()[i] - e.exact[i]), bound)
          << "element " << i;
    }
  }
}

TEST(DepthwiseKernelTest, MatchesSequentialSumOnEdgeShapes) {
  std::vector<Case> cases;
  // 1x1 images and channel counts that leave narrow blocks.
  for (int64_t ch : {1, 3, 16, 17, 33}) {
    Case c;
    c.h = c.w = 1, c.c = ch;
    cases.push_back(c);
    c.h = 6, c.w = 23;  // several strips and a shifted last one
    cases.push_back(c);
    c.w = 12;  // 10 interior pixels: a strip of 8, then a shifted one of 4
    cases.push_back(c);
    c.w = 13;  // 11: strips of 6 (AVX2, 3x3), the second shifted over the first
    cases.push_back(c);
    c.w = 23;
    c.sh = c.sw = 2;
    cases.push_back(c);
    c.padding = "VALID";
    cases.push_back(c);
  }
  // Filters larger than the image, SAME and EXPLICIT.
  for (int64_t k : {4, 5, 7}) {
    Case c;
    c.h = 3, c.w = 2, c.kh = c.kw = k, c.c = 17;
    cases.push_back(c);
    c.padding = "EXPLICIT", c.pads = {3, 2, 4, 3};
    cases.push_back(c);
  }
  // Strides 1, 2, 3 on both axes, 3x3 and 5x5 (the fixed-window paths)
  // and 2x4 (the generic one), with multipliers 1, 2, 3.
  for (int64_t s : {1, 2, 3}) {
    for (int64_t m : {1, 2, 3}) {
      for (int64_t k : {3, 5}) {
        Case c;
        c.n = 2, c.h = 11, c.w = 29, c.c = 19, c.m = m, c.kh = c.kw = k;
        c.sh = c.sw = s;
        cases.push_back(c);
      }
      Case c;
      c.h = 9, c.w = 17, c.c = 5, c.m = m, c.kh = 2, c.kw = 4, c.sh = s;
      c.sw = 4 - s;
      cases.push_back(c);
    }
  }
  // Dilations.
  for (int64_t d : {2, 3}) {
    Case c;
    c.h = 12, c.w = 26, c.c = 33, c.dh = d, c.dw = d;
    cases.push_back(c);
    c.sh = c.sw = 2, c.m = 2, c.padding = "VALID";
    cases.push_back(c);
  }
  // Dilated rows go in chains of rows `dilation / gcd(stride, dilation)`
  // apart: several bands of chains over two images, a band ending inside
  // a chain (29 rows), stride 2 with dilation 3 (chains 3 rows apart) and
  // 4 (2 apart), a 5-row filter.
  for (int64_t d : {2, 3, 4}) {
    Case c;
    c.n = 2, c.h = 29, c.w = 11, c.c = 20, c.dh = d, c.dw = 2;
    cases.push_back(c);
    c.sh = 2, c.kh = 5;
    cases.push_back(c);
  }
  // Channel groups (rows too wide for L1 go a group of channels at a time,
  // band by band of output rows, when the input stays in L2): 263 channels
  // in groups of 96 (AVX-512), the last one ending in narrow blocks; two
  // images, three bands; and a 5x5 stride-2 layer in groups of 48.
  {
    Case c;
    c.n = 2, c.h = c.w = 12, c.c = 263;
    cases.push_back(c);
    c.n = 1, c.h = c.w = 14, c.c = 197, c.kh = c.kw = 5, c.sh = c.sw = 2;
    cases.push_back(c);
    // An input beyond 512 KiB goes without groups: whole rows, every
    // channel, band by band.
    c.n = 2, c.h = c.w = 24, c.c = 263, c.kh = c.kw = 3, c.sh = c.sw = 1;
    cases.push_back(c);
    c.kh = c.kw = 5, c.sh = c.sw = 2;
    cases.push_back(c);
    // Beyond 1 MiB each output row asks for the input rows the next one
    // adds, the next image's first rows after an image's last: three
    // images, 3x3 at strides 1 and 2, 112 channels (16-float blocks; 8 and 4
    // on the narrower paths).
    c.n = 3, c.h = c.w = 30, c.c = 112, c.kh = c.kw = 3, c.sh = c.sw = 1;
    cases.push_back(c);
    c.sh = c.sw = 2;
    cases.push_back(c);
  }
  // 1024 channels: pixels 4 KiB apart, read from copies with wider
  // pixels; grouped (9 x 9, in L2), not grouped (two 20 x 20 images), at
  // stride 2 with a 5x5 filter, and dilated.
  {
    Case c;
    c.h = c.w = 9, c.c = 1024;
    cases.push_back(c);
    c.n = 2, c.h = c.w = 20;
    cases.push_back(c);
    c.n = 1, c.h = 11, c.w = 14, c.kh = c.kw = 5, c.sh = c.sw = 2;
    cases.push_back(c);
    c.kh = c.kw = 3, c.sh = c.sw = 1, c.dh = 3, c.dw = 2;
    cases.push_back(c);
    // Dilated by 2 over two images of 21 rows: chains of copied rows,
    // copies kept from one band to the next.
    c.n = 2, c.h = 21, c.w = 7, c.dh = c.dw = 2;
    cases.push_back(c);
  }
  // MobileNet's explicit stride-2 padding (a folded Keras Pad).
  Case c;
  c.h = c.w = 24, c.c = 48, c.sh = c.sw = 2, c.padding = "EXPLICIT";
  c.pads = {0, 1, 0, 1};
  cases.push_back(c);
  unsigned seed = 1;
  for (const Case& k : cases) Check(k, seed++);
}

TEST(DepthwiseKernelTest, NanAndInfinityPropagateAsInTheSequentialSum) {
  Case c;
  c.h = 7, c.w = 21, c.c = 35, c.m = 1;
  std::mt19937 rng(5);
  std::vector<float> x = RandomValues(c.n * c.h * c.w * c.c, &rng);
  std::vector<float> f = RandomValues(c.kh * c.kw * c.c, &rng);
  const float inf = std::numeric_limits<float>::infinity();
  x[3 * c.w * c.c + 10 * c.c + 4] = std::numeric_limits<float>::quiet_NaN();
  x[0] = inf;  // top-left corner: edge pixels
  x[2 * c.w * c.c + 7 * c.c + 20] = -inf;
  x[2 * c.w * c.c + 8 * c.c + 20] = inf;  // inf - inf in one window
  f[4 * c.c + 33] = inf;                  // centre tap of channel 33
  const Expected e = Reference(c, x, f);
  StatusOr<std::vector<Tensor>> out =
      RunDepthwise(c, FloatTensor(x, TensorShape({1, c.h, c.w, c.c})),
                   FloatTensor(f, TensorShape({3, 3, c.c, 1})), 2);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectBits((*out)[0], e.sequential);
  int nans = 0;
  for (float v : e.sequential) nans += std::isnan(v);
  EXPECT_GT(nans, 9);
}

TEST(DepthwiseKernelTest, EmptyBatchAndEmptyChannels) {
  Case c;
  c.n = 0;
  StatusOr<std::vector<Tensor>> out =
      RunDepthwise(c, Tensor(DT_FLOAT, TensorShape({0, 5, 5, 3})),
                   Tensor(DT_FLOAT, TensorShape({3, 3, 3, 1})), 2);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({0, 5, 5, 3}));
  out = RunDepthwise(c, Tensor(DT_FLOAT, TensorShape({2, 5, 5, 0})),
                     Tensor(DT_FLOAT, TensorShape({3, 3, 0, 2})), 2);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({2, 5, 5, 0}));
}

TEST(DepthwiseKernelTest, LargeImageIsTheSameAtEveryThreadCount) {
  Case c;
  c.n = 3, c.h = 40, c.w = 40, c.c = 40, c.sh = c.sw = 1;
  Check(c, 99);
  c.m = 2, c.sh = c.sw = 2;
  Check(c, 100);
}

// The fused op runs the same convolution, then the bias and activation: the
// sequential sum plus the bias, through the activation as the standalone
// ops compute it, bit for bit (Elu and Swish, through exp, within a few
// ulps).
TEST(DepthwiseKernelTest, FusedEpilogueMatchesTheSequentialSum) {
  struct Epilogue {
    std::vector<std::string> ops;
    float alpha = 0.2f;
  };
  const std::vector<Epilogue> epilogues = {{{"BiasAdd", "Relu6"}},
                                           {{"BiasAdd", "Relu"}},
                                           {{"BiasAdd", "LeakyRelu"}, 0.3f},
                                           {{"BiasAdd"}},
                                           {{"Relu6"}},
                                           {{"BiasAdd", "Elu"}},
                                           {{"BiasAdd", "Swish"}},
                                           {{"Swish"}},
                                           {{"BiasAdd", "HardSwish"}}};
  for (const Epilogue& ep : epilogues) {
    // 263 channels: in channel groups of 80 (AVX-512).
    for (int64_t ch : {3, 17, 48, 263}) {
      Case c;
      c.h = 9, c.w = 19, c.c = ch, c.sh = c.sw = 2;
      SCOPED_TRACE(absl::StrCat(c.Name(), " ", ep.ops.back()));
      std::mt19937 rng(7);
      std::vector<float> x = RandomValues(c.h * c.w * c.c, &rng);
      for (float& v : x) v *= 8;  // reach both sides of Relu6's clamp
      x[4 * c.w * c.c + 9 * c.c] = std::numeric_limits<float>::quiet_NaN();
      const std::vector<float> f = RandomValues(9 * c.c, &rng);
      const std::vector<float> bias = RandomValues(c.c, &rng);
      const bool has_bias = ep.ops.front() == "BiasAdd";
      const std::string act = ep.ops.back();
      const Expected e = Reference(c, x, f);
      std::vector<float> expected = e.sequential;
      for (size_t i = 0; i < expected.size(); ++i) {
        float v = expected[i];
        if (has_bias) v = v + bias[i % c.c];
        if (act == "Relu") v = v < 0 ? 0.0f : v;
        if (act == "Relu6") v = v < 0 ? 0.0f : (v > 6 ? 6.0f : v);
        if (act == "LeakyRelu") v = v > 0 ? v : v * ep.alpha;
        if (act == "Elu") v = v < 0 ? std::exp(v) - 1.0f : v;
        if (act == "Swish") v = v / (1.0f + std::exp(-1.25f * v));
        if (act == "HardSwish") {
          const float t = v + 3.0f;
          v = v * ((t < 0 ? 0.0f : (t > 6 ? 6.0f : t)) / 6.0f);
        }
        expected[i] = v;
      }
      AttrMap a = Attrs(c);
      a["fused_ops"] = AttrValue::StringList(ep.ops);
      a["num_args"] = AttrValue::Int(has_bias ? 1 : 0);
      a["leakyrelu_alpha"] = AttrValue::Float(ep.alpha);
      a["swish_beta"] = AttrValue::Float(1.25f);
      for (int threads : {0, 2}) {
        OpRunner runner("_FusedDepthwiseConv2dNative", a, threads);
        std::vector<Tensor> inputs = {
            FloatTensor(x, TensorShape({1, c.h, c.w, c.c})),
            FloatTensor(f, TensorShape({3, 3, c.c, 1}))};
        if (has_bias) inputs.push_back(FloatTensor(bias, TensorShape({c.c})));
        StatusOr<std::vector<Tensor>> out = runner.Run(inputs);
        ASSERT_TRUE(out.ok()) << out.status();
        ASSERT_EQ((*out)[0].shape(), e.shape);
        if (act == "Elu" || act == "Swish") {
          test::ExpectTensorNear((*out)[0], FloatTensor(expected, e.shape),
                                 1e-6, 1e-6);
        } else {
          ExpectBits((*out)[0], expected);
        }
      }
    }
  }
}

}  // namespace cpu_depthwise_test
}  // namespace weft
