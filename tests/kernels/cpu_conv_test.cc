// Conv2D, DepthwiseConv2dNative and Conv2DBackpropInput against direct
// summation references computed here in long double, with output sizes and
// paddings from TensorFlow's formulas written out independently below.
//
// Two kinds of operands, as in cpu_matmul_test.cc: values on a grid of
// quarters in [-2, 2], for which every product and partial sum is exact in
// float (sums of at most a few thousand multiples of 1/16 stay far below
// 2^20), so any summation order gives the exact value and each dtype's
// output must equal the reference rounded to the dtype bit for bit; and
// random reals, for which float results must stay within the dot-product
// bound K u sum |products| (Higham, eq. 3.5) plus one rounding.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_conv_test {

using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::OpRunner;
using test::ToDoubles;

// ---- window arithmetic (TensorFlow's definitions) ---------------------------

struct Dim {
  int64_t out = 0;
  int64_t pad = 0;  // before
};

// Output size and leading padding of a window of k taps dilated by d
// sliding by s over n elements.
Dim WindowDim(int64_t n, int64_t k, int64_t d, int64_t s,
              const std::string& padding, int64_t pad_before = 0,
              int64_t pad_after = 0) {
  const int64_t e = (k - 1) * d + 1;
  Dim r;
  if (padding == "SAME") {
    r.out = (n + s - 1) / s;
    const int64_t total = std::max<int64_t>(0, (r.out - 1) * s + e - n);
    r.pad = total / 2;
  } else if (padding == "VALID") {
    r.out = n >= e ? (n - e) / s + 1 : 0;
  } else {
    r.out = (n + pad_before + pad_after - e) / s + 1;
    r.pad = pad_before;
  }
  return r;
}

// ---- configurations ---------------------------------------------------------

struct Conv {
  std::string name;
  int64_t n = 1, h = 5, w = 5, cin = 2;
  int64_t kh = 3, kw = 3;
  // Conv2D: filter [kh, kw, cin / groups, cout]. Depthwise: cout is the
  // channel multiplier.
  int64_t cout = 3;
  int64_t groups = 1;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  std::string padding = "SAME";
  std::vector<int64_t> pads;  // top, bottom, left, right for EXPLICIT
  bool nchw = false;

  TensorShape ImageShape(int64_t hh, int64_t ww, int64_t c) const {
    return nchw ? TensorShape({n, c, hh, ww}) : TensorShape({n, hh, ww, c});
  }
  Dim Rows(int64_t in) const {
    return WindowDim(in, kh, dh, sh, padding, pads.empty() ? 0 : pads[0],
                     pads.empty() ? 0 : pads[1]);
  }
  Dim Cols(int64_t in) const {
    return WindowDim(in, kw, dw, sw, padding, pads.empty() ? 0 : pads[2],
                     pads.empty() ? 0 : pads[3]);
  }
  AttrMap Attrs(bool with_dilations = true) const {
    AttrMap a;
    auto four = [&](int64_t hv, int64_t wv) {
      return AttrValue::IntList(nchw ? std::vector<int64_t>{1, 1, hv, wv}
                                     : std::vector<int64_t>{1, hv, wv, 1});
    };
    a["strides"] = four(sh, sw);
    if (with_dilations) a["dilations"] = four(dh, dw);
    a["padding"] = AttrValue::String(padding);
    a["data_format"] = AttrValue::String(nchw ? "NCHW" : "NHWC");
    if (!pads.empty()) {
      a["explicit_paddings"] = AttrValue::IntList(
          nchw ? std::vector<int64_t>{0, 0, 0, 0, pads[0], pads[1], pads[2],
                                      pads[3]}
               : std::vector<int64_t>{0, 0, pads[0], pads[1], pads[2], pads[3],
                                      0, 0});
    }
    return a;
  }
};

Conv Named(const std::string& name) {
  Conv c;
  c.name = name;
  return c;
}

// Index of (b, y, x, c) in an image of this layout.
struct Layout {
  bool nchw;
  int64_t h, w, c;
  int64_t operator()(int64_t b, int64_t y, int64_t x, int64_t ch) const {
    return nchw ? ((b * c + ch) * h + y) * w + x
                : ((b * h + y) * w + x) * c + ch;
  }
};

struct Reference {
  TensorShape shape;
  std::vector<long double> value;
  std::vector<long double> abs;  // sum of |products|
  int64_t terms = 0;             // products per output
};

// Conv2D (depthwise = false) or DepthwiseConv2dNative.
Reference ForwardReference(const Conv& c, const std::vector<double>& x,
                           const std::vector<double>& f, bool depthwise) {
  const Dim rows = c.Rows(c.h), cols = c.Cols(c.w);
  const int64_t out_c = depthwise ? c.cin * c.cout : c.cout;
  const int64_t fin = depthwise ? c.cin : c.cin / c.groups;
  Reference r;
  r.shape = c.ImageShape(rows.out, cols.out, out_c);
  r.value.assign(r.shape.num_elements(), 0);
  r.abs.assign(r.shape.num_elements(), 0);
  r.terms = depthwise ? c.kh * c.kw : c.kh * c.kw * fin;
  const Layout in{c.nchw, c.h, c.w, c.cin};
  const Layout out{c.nchw, rows.out, cols.out, out_c};
  const int64_t cout_g = depthwise ? 1 : c.cout / c.groups;
  for (int64_t b = 0; b < c.n; ++b) {
    for (int64_t oy = 0; oy < rows.out; ++oy) {
      for (int64_t ox = 0; ox < cols.out; ++ox) {
        for (int64_t co = 0; co < out_c; ++co) {
          long double sum = 0, abs = 0;
          for (int64_t i = 0; i < c.kh; ++i) {
            const int64_t y = oy * c.sh - rows.pad + i * c.dh;
            if (y < 0 || y >= c.h) continue;
            for (int64_t j = 0; j < c.kw; ++j) {
              const int64_t xx = ox * c.sw - cols.pad + j * c.dw;
              if (xx < 0 || xx >= c.w) continue;
              for (int64_t k = 0; k < (depthwise ? 1 : fin); ++k) {
                long double p;
                if (depthwise) {
                  const int64_t ch = co / c.cout, m = co % c.cout;
                  p = static_cast<long double>(x[in(b, y, xx, ch)]) *
                      f[((i * c.kw + j) * c.cin + ch) * c.cout + m];
                } else {
                  const int64_t ci = (co / cout_g) * fin + k;
                  p = static_cast<long double>(x[in(b, y, xx, ci)]) *
                      f[((i * c.kw + j) * fin + k) * c.cout + co];
                }
                sum += p;
                abs += std::fabs(p);
              }
            }
          }
          r.value[out(b, oy, ox, co)] = sum;
          r.abs[out(b, oy, ox, co)] = abs;
        }
      }
    }
  }
  return r;
}

// Conv2DBackpropInput: the input gradient of `c` for out_backprop dy.
Reference BackpropReference(const Conv& c, const std::vector<double>& dy,
                            const std::vector<double>& f) {
  const Dim rows = c.Rows(c.h), cols = c.Cols(c.w);
  const int64_t fin = c.cin / c.groups, cout_g = c.cout / c.groups;
  Reference r;
  r.shape = c.ImageShape(c.h, c.w, c.cin);
  r.value.assign(r.shape.num_elements(), 0);
  r.abs.assign(r.shape.num_elements(), 0);
  r.terms = c.kh * c.kw * cout_g;
  const Layout in{c.nchw, c.h, c.w, c.cin};
  const Layout out{c.nchw, rows.out, cols.out, c.cout};
  for (int64_t b = 0; b < c.n; ++b) {
    for (int64_t oy = 0; oy < rows.out; ++oy) {
      for (int64_t ox = 0; ox < cols.out; ++ox) {
        for (int64_t i = 0; i < c.kh; ++i) {
          const int64_t y = oy * c.sh - rows.pad + i * c.dh;
          if (y < 0 || y >= c.h) continue;
          for (int64_t j = 0; j < c.kw; ++j) {
            const int64_t xx = ox * c.sw - cols.pad + j * c.dw;
            if (xx < 0 || xx >= c.w) continue;
            for (int64_t co = 0; co < c.cout; ++co) {
              const int64_t g = co / cout_g;
              for (int64_t k = 0; k < fin; ++k) {
                const long double p =
                    static_cast<long double>(dy[out(b, oy, ox, co)]) *
                    f[((i * c.kw + j) * fin + k) * c.cout + co];
                r.value[in(b, y, xx, g * fin + k)] += p;
                r.abs[in(b, y, xx, g * fin + k)] += std::fabs(p);
              }
            }
          }
        }
      }
    }
  }
  return r;
}

std::vector<double> Grid(int64_t n, std::mt19937* rng) {
  std::uniform_int_distribution<int> dist(-8, 8);
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

std::vector<double> Rounded(const Reference& r) {
  return std::vector<double>(r.value.begin(), r.value.end());
}

// Reals: |got - exact| <= K u_c sum|p| + u_T |exact| (one final rounding).
void ExpectWithinBound(const Tensor& got, const Reference& r, DataType dt) {
  ASSERT_EQ(got.shape(), r.shape);
  const double u_c = test::UnitRoundoff(dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT);
  const double u_t = test::UnitRoundoff(dt);
  const std::vector<double> g = ToDoubles(got);
  for (size_t i = 0; i < g.size(); ++i) {
    const long double tol =
        r.terms * u_c * r.abs[i] * 1.0001L + u_t * std::fabs(r.value[i]);
    ASSERT_LE(std::fabs(g[i] - r.value[i]), tol)
        << "element " << i << ": got " << g[i] << ", exact "
        << static_cast<double>(r.value[i]);
  }
}

std::vector<Conv> ForwardConfigs() {
  std::vector<Conv> v;
  v.push_back(Named("same_3x3"));
  Conv c;
  c = Named("valid_stride2");
  c.h = 7, c.w = 6, c.padding = "VALID", c.sh = c.sw = 2;
  v.push_back(c);
  c = Named("same_stride2_even");
  c.h = c.w = 6, c.sh = c.sw = 2;
  v.push_back(c);
  c = Named("same_stride3_window2");
  c.h = 7, c.w = 8, c.kh = c.kw = 2, c.sh = 3, c.sw = 3;
  v.push_back(c);
  c = Named("dilated");
  c.h = c.w = 7, c.dh = 2, c.dw = 3;
  v.push_back(c);
  c = Named("dilated_valid_stride2");
  c.h = 9, c.w = 8, c.dh = c.dw = 2, c.sh = c.sw = 2, c.padding = "VALID";
  v.push_back(c);
  c = Named("explicit");
  c.h = 4, c.w = 5, c.kh = 3, c.kw = 2, c.padding = "EXPLICIT",
  c.pads = {1, 2, 2, 0};
  v.push_back(c);
  c = Named("explicit_dilated_stride");
  c.h = 6, c.w = 6, c.padding = "EXPLICIT", c.pads = {0, 3, 1, 1}, c.dh = 2,
  c.sw = 2;
  v.push_back(c);
  c = Named("pointwise");
  c.n = 2, c.h = c.w = 3, c.cin = 4, c.kh = c.kw = 1, c.padding = "VALID";
  v.push_back(c);
  c = Named("pointwise_grouped");
  c.h = c.w = 3, c.cin = 4, c.kh = c.kw = 1, c.cout = 6, c.groups = 2;
  v.push_back(c);
  c = Named("pointwise_stride2");
  c.kh = c.kw = 1, c.sh = c.sw = 2;
  v.push_back(c);
  c = Named("pointwise_explicit");
  c.h = c.w = 2, c.kh = c.kw = 1, c.padding = "EXPLICIT", c.pads = {1, 0, 0, 1};
  v.push_back(c);
  c = Named("grouped");
  c.h = 4, c.w = 5, c.cin = 6, c.cout = 6, c.groups = 3;
  v.push_back(c);
  c = Named("grouped_rect_stride");
  c.h = 5, c.w = 6, c.cin = 4, c.cout = 4, c.groups = 2, c.kh = 2, c.sw = 2;
  v.push_back(c);
  c = Named("window_exceeds_input");
  c.h = c.w = 2, c.kh = c.kw = 5;
  v.push_back(c);
  c = Named("one_by_n");
  c.h = 1, c.w = 7, c.kh = 1, c.kw = 4, c.sw = 2;
  v.push_back(c);
  c = Named("batch3");
  c.n = 3, c.h = 4, c.w = 3;
  v.push_back(c);
  const size_t plain = v.size();
  for (size_t i = 0; i < plain; ++i) {
    Conv t = v[i];
    t.name += "_nchw";
    t.nchw = true;
    v.push_back(t);
  }
  return v;
}

StatusOr<std::vector<Tensor>> RunConv(const Conv& c, const Tensor& x,
                                      const Tensor& f, int threads = 0,
                                      const char* op = "Conv2D") {
  return OpRunner(op, c.Attrs(), threads).Run({x, f});
}

// ---- Conv2D -----------------------------------------------------------------

class Conv2DDtypeTest : public ::testing::TestWithParam<DataType> {};

TEST_P(Conv2DDtypeTest, GridValuesAreExact) {
  const DataType dt = GetParam();
  std::mt19937 rng(7);
  for (const Conv& c : ForwardConfigs()) {
    SCOPED_TRACE(c.name);
    const TensorShape xs = c.ImageShape(c.h, c.w, c.cin);
    const TensorShape fs({c.kh, c.kw, c.cin / c.groups, c.cout});
    std::vector<double> x = Grid(xs.num_elements(), &rng);
    std::vector<double> f = Grid(fs.num_elements(), &rng);
    if (dt == DT_INT32) {
      for (double& v : x) v = std::round(v * 4);
      for (double& v : f) v = std::round(v * 4);
    }
    const Reference r = ForwardReference(c, x, f, false);
    StatusOr<std::vector<Tensor>> out =
        RunConv(c, AsTensorOfType(dt, x, xs), AsTensorOfType(dt, f, fs));
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensorOfType(dt, Rounded(r), r.shape));
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Conv2DDtypeTest,
                         ::testing::Values(DT_FLOAT, DT_DOUBLE, DT_HALF,
                                           DT_BFLOAT16, DT_INT32),
                         [](const auto& info) {
                           return DataTypeName(info.param);
                         });

TEST(Conv2DTest, RealValuesWithinRoundingBound) {
  std::mt19937 rng(11);
  for (DataType dt : {DT_FLOAT, DT_DOUBLE, DT_HALF}) {
    for (const Conv& c : ForwardConfigs()) {
      SCOPED_TRACE(c.name + " " + DataTypeName(dt));
      const TensorShape xs = c.ImageShape(c.h, c.w, c.cin);
      const TensorShape fs({c.kh, c.kw, c.cin / c.groups, c.cout});
      // Operands rounded to the dtype first, so the reference sees what the
      // kernel sees.
      const Tensor x = AsTensorOfType(dt, Reals(xs.num_elements(), &rng), xs);
      const Tensor f = AsTensorOfType(dt, Reals(fs.num_elements(), &rng), fs);
      const Reference r =
          ForwardReference(c, ToDoubles(x), ToDoubles(f), false);
      StatusOr<std::vector<Tensor>> out = RunConv(c, x, f);
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectWithinBound((*out)[0], r, dt);
    }
  }
}

// int32 products and sums wrap modulo 2^32, as in TensorFlow.
TEST(Conv2DTest, Int32Wraps) {
  Conv c = Named("wrap");
  c.h = 1, c.w = 2, c.cin = 2, c.kh = 1, c.kw = 2, c.cout = 1,
  c.padding = "VALID";
  const Tensor x = AsTensor<int32_t>(
      {1 << 30, (1 << 30) - 1, -2147483647 - 1, 7}, TensorShape({1, 1, 2, 2}));
  const Tensor f = AsTensor<int32_t>({2, 3, 5, -1}, TensorShape({1, 2, 2, 1}));
  StatusOr<std::vector<Tensor>> out = RunConv(c, x, f);
  ASSERT_TRUE(out.ok()) << out.status();
  // 2 * 2^30 + 3 * (2^30 - 1) + 5 * -2^31 - 7 = -2^33 + 3 * 2^30 - 10,
  // which modulo 2^32 is 3 * 2^30 - 10 = 3221225462, as int32
  // 3221225462 - 2^32 = -1073741834.
  ExpectTensorEqual(
      (*out)[0], AsTensor<int32_t>({-1073741834}, TensorShape({1, 1, 1, 1})));
}

TEST(Conv2DTest, NanAndInfPropagate) {
  Conv c = Named("nan");
  c.h = 3, c.w = 3, c.cin = 1, c.kh = c.kw = 2, c.cout = 1, c.padding = "VALID";
  std::vector<float> x(9, 1.0f);
  x[0] = NAN;
  x[8] = INFINITY;
  StatusOr<std::vector<Tensor>> out =
      RunConv(c, AsTensor<float>(x, TensorShape({1, 3, 3, 1})),
              AsTensor<float>({1, 1, 1, 1}, TensorShape({2, 2, 1, 1})));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>({NAN, 4, 4, INFINITY},
                                               TensorShape({1, 2, 2, 1})));
}

// Large enough that every path splits its work: the result must not depend
// on the thread count, and must still match the reference.
TEST(Conv2DTest, ThreadCountDoesNotChangeResults) {
  std::mt19937 rng(3);
  std::vector<Conv> configs;
  Conv c = Named("big_3x3");
  c.n = 2, c.h = 17, c.w = 19, c.cin = 16, c.cout = 24;
  configs.push_back(c);
  c = Named("big_pointwise");
  c.n = 2, c.h = c.w = 20, c.cin = 32, c.kh = c.kw = 1, c.cout = 40;
  configs.push_back(c);
  c = Named("big_grouped_nchw");
  c.n = 1, c.h = 21, c.w = 16, c.cin = 12, c.cout = 18, c.groups = 3, c.sh = 2,
  c.nchw = true;
  configs.push_back(c);
  for (const Conv& cfg : configs) {
    SCOPED_TRACE(cfg.name);
    const TensorShape xs = cfg.ImageShape(cfg.h, cfg.w, cfg.cin);
    const TensorShape fs({cfg.kh, cfg.kw, cfg.cin / cfg.groups, cfg.cout});
    const Tensor x =
        AsTensorOfType(DT_FLOAT, Reals(xs.num_elements(), &rng), xs);
    const Tensor f =
        AsTensorOfType(DT_FLOAT, Reals(fs.num_elements(), &rng), fs);
    StatusOr<std::vector<Tensor>> serial = RunConv(cfg, x, f, 0);
    StatusOr<std::vector<Tensor>> parallel = RunConv(cfg, x, f, 2);
    ASSERT_TRUE(serial.ok()) << serial.status();
    ASSERT_TRUE(parallel.ok()) << parallel.status();
    ExpectTensorEqual((*parallel)[0], (*serial)[0]);
    ExpectWithinBound((*serial)[0],
                      ForwardReference(cfg, ToDoubles(x), ToDoubles(f), false),
                      DT_FLOAT);
  }
}

TEST(Conv2DTest, EmptyShapes) {
  Conv c = Named("empty");
  // No images.
  c.n = 0;
  StatusOr<std::vector<Tensor>> out =
      RunConv(c, Tensor(DT_FLOAT, TensorShape({0, 5, 5, 2})),
              AsTensorOfType(DT_FLOAT, std::vector<double>(54, 1),
                             TensorShape({3, 3, 2, 3})));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({0, 5, 5, 3}));
  // No output channels.
  c.n = 1;
  out = RunConv(c,
                AsTensorOfType(DT_FLOAT, std::vector<double>(50, 1),
                               TensorShape({1, 5, 5, 2})),
                Tensor(DT_FLOAT, TensorShape({3, 3, 2, 0})));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({1, 5, 5, 0}));
  // An empty image with SAME padding has an empty output.
  out = RunConv(c, Tensor(DT_FLOAT, TensorShape({1, 0, 5, 2})),
                AsTensorOfType(DT_FLOAT, std::vector<double>(54, 1),
                               TensorShape({3, 3, 2, 3})));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({1, 0, 5, 3}));
  // No input channels: every sum is empty, zeros as in TensorFlow.
  out = RunConv(c, Tensor(DT_FLOAT, TensorShape({1, 2, 2, 0})),
                AsTensorOfType(DT_FLOAT, std::vector<double>(18, 1),
                               TensorShape({3, 3, 1, 2})));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>(std::vector<float>(8, 0),
                                               TensorShape({1, 2, 2, 2})));
}

void ExpectError(const StatusOr<std::vector<Tensor>>& out,
                 const std::string& op, const std::string& fragment) {
  ASSERT_FALSE(out.ok());
  const std::string message(out.status().message());
  EXPECT_TRUE(absl::StrContains(message, "(" + op + ")")) << message;
  EXPECT_TRUE(absl::StrContains(message, fragment)) << message;
}

TEST(Conv2DTest, BadInputsAreErrors) {
  Conv c = Named("errors");
  const Tensor x = Tensor(DT_FLOAT, TensorShape({1, 5, 5, 4}));
  ExpectError(RunConv(c, Tensor(DT_FLOAT, TensorShape({5, 5, 4})),
                      Tensor(DT_FLOAT, TensorShape({3, 3, 4, 2}))),
              "Conv2D", "4-dimensional");
  ExpectError(RunConv(c, x, Tensor(DT_FLOAT, TensorShape({3, 4, 2}))), "Conv2D",
              "filter must be 4-dimensional");
  ExpectError(RunConv(c, x, Tensor(DT_FLOAT, TensorShape({3, 3, 3, 2}))),
              "Conv2D", "not a multiple of the filter's input depth 3");
  ExpectError(RunConv(c, x, Tensor(DT_FLOAT, TensorShape({3, 3, 2, 3}))),
              "Conv2D", "not a multiple of the number of groups 2");
  ExpectError(RunConv(c, x, Tensor(DT_FLOAT, TensorShape({3, 3, 0, 3}))),
              "Conv2D", "input depth 0");
  c.padding = "VALID";
  ExpectError(RunConv(c, x, Tensor(DT_FLOAT, TensorShape({7, 3, 4, 2}))),
              "Conv2D", "negative");
}

TEST(Conv2DTest, BadAttrsAreErrors) {
  const Tensor x = Tensor(DT_FLOAT, TensorShape({1, 5, 5, 2}));
  const Tensor f = Tensor(DT_FLOAT, TensorShape({3, 3, 2, 2}));
  auto run = [&](AttrMap attrs) {
    return OpRunner("Conv2D", std::move(attrs)).Run({x, f});
  };
  Conv c = Named("attrs");
  AttrMap a = c.Attrs();
  a["strides"] = AttrValue::IntList({2, 1, 1, 1});
  ExpectError(run(a), "Conv2D", "striding over the batch");
  a = c.Attrs();
  a["strides"] = AttrValue::IntList({1, 1, 1});
  ExpectError(run(a), "Conv2D", "4 values");
  a = c.Attrs();
  a["dilations"] = AttrValue::IntList({1, 1, 1, 2});
  ExpectError(run(a), "Conv2D", "dilating the batch or channel");
  a = c.Attrs();
  a["strides"] = AttrValue::IntList({1, 0, 1, 1});
  ExpectError(run(a), "Conv2D", ">= 1");
  a = c.Attrs();
  a["padding"] = AttrValue::String("EXPLICIT");
  a["explicit_paddings"] = AttrValue::IntList({0, 0, 1, 1});
  ExpectError(run(a), "Conv2D", "8 values");
  a["explicit_paddings"] = AttrValue::IntList({1, 0, 1, 1, 0, 0, 0, 0});
  ExpectError(run(a), "Conv2D", "batch dimension");
  a["explicit_paddings"] = AttrValue::IntList({0, 0, -1, 1, 0, 0, 0, 0});
  ExpectError(run(a), "Conv2D", ">= 0");
  a = c.Attrs();
  a["explicit_paddings"] = AttrValue::IntList({0, 0, 1, 1, 1, 1, 0, 0});
  ExpectError(run(a), "Conv2D", "must be empty unless padding is EXPLICIT");
}

// ---- DepthwiseConv2dNative --------------------------------------------------

std::vector<Conv> DepthwiseConfigs() {
  std::vector<Conv> v;
  for (const Conv& c : ForwardConfigs()) {
    if (c.groups != 1) continue;
    Conv d = c;
    d.cout = 2;  // multiplier
    v.push_back(d);
  }
  Conv c = Named("multiplier1");
  c.cin = 5, c.cout = 1;
  v.push_back(c);
  c = Named("rect_strides_multiplier3");
  c.h = 6, c.w = 7, c.sh = 1, c.sw = 3, c.cout = 3;
  v.push_back(c);
  return v;
}

class DepthwiseDtypeTest : public ::testing::TestWithParam<DataType> {};

TEST_P(DepthwiseDtypeTest, GridValuesAreExact) {
  const DataType dt = GetParam();
  std::mt19937 rng(17);
  for (const Conv& c : DepthwiseConfigs()) {
    SCOPED_TRACE(c.name);
    const TensorShape xs = c.ImageShape(c.h, c.w, c.cin);
    const TensorShape fs({c.kh, c.kw, c.cin, c.cout});
    const std::vector<double> x = Grid(xs.num_elements(), &rng);
    const std::vector<double> f = Grid(fs.num_elements(), &rng);
    const Reference r = ForwardReference(c, x, f, true);
    StatusOr<std::vector<Tensor>> out =
        RunConv(c, AsTensorOfType(dt, x, xs), AsTensorOfType(dt, f, fs), 0,
                "DepthwiseConv2dNative");
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensorOfType(dt, Rounded(r), r.shape));
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, DepthwiseDtypeTest,
                         ::testing::Values(DT_FLOAT, DT_DOUBLE, DT_HALF,
                                           DT_BFLOAT16),
                         [](const auto& info) {
                           return DataTypeName(info.param);
                         });

TEST(DepthwiseTest, RealValuesWithinRoundingBound) {
  std::mt19937 rng(19);
  for (const Conv& c : DepthwiseConfigs()) {
    SCOPED_TRACE(c.name);
    const TensorShape xs = c.ImageShape(c.h, c.w, c.cin);
    const TensorShape fs({c.kh, c.kw, c.cin, c.cout});
    const Tensor x =
        AsTensorOfType(DT_FLOAT, Reals(xs.num_elements(), &rng), xs);
    const Tensor f =
        AsTensorOfType(DT_FLOAT, Reals(fs.num_elements(), &rng), fs);
    StatusOr<std::vector<Tensor>> out =
        RunConv(c, x, f, 0, "DepthwiseConv2dNative");
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectWithinBound((*out)[0],
                      ForwardReference(c, ToDoubles(x), ToDoubles(f), true),
                      DT_FLOAT);
  }
}

TEST(DepthwiseTest, ThreadCountDoesNotChangeResults) {
  std::mt19937 rng(23);
  for (bool nchw : {false, true}) {
    Conv c = Named("big");
    c.n = 2, c.h = 23, c.w = 17, c.cin = 24, c.cout = 2, c.nchw = nchw;
    const TensorShape xs = c.ImageShape(c.h, c.w, c.cin);
    const TensorShape fs({c.kh, c.kw, c.cin, c.cout});
    const Tensor x =
        AsTensorOfType(DT_FLOAT, Reals(xs.num_elements(), &rng), xs);
    const Tensor f =
        AsTensorOfType(DT_FLOAT, Reals(fs.num_elements(), &rng), fs);
    StatusOr<std::vector<Tensor>> serial =
        RunConv(c, x, f, 0, "DepthwiseConv2dNative");
    StatusOr<std::vector<Tensor>> parallel =
        RunConv(c, x, f, 2, "DepthwiseConv2dNative");
    ASSERT_TRUE(serial.ok()) << serial.status();
    ASSERT_TRUE(parallel.ok()) << parallel.status();
    ExpectTensorEqual((*parallel)[0], (*serial)[0]);
    ExpectWithinBound((*serial)[0],
                      ForwardReference(c, ToDoubles(x), ToDoubles(f), true),
                      DT_FLOAT);
  }
}

TEST(DepthwiseTest, EmptyShapesAndErrors) {
  Conv c = Named("depthwise");
  StatusOr<std::vector<Tensor>> out = RunConv(
      c, Tensor(DT_FLOAT, TensorShape({0, 4, 4, 2})),
      Tensor(DT_FLOAT, TensorShape({3, 3, 2, 2})), 0, "DepthwiseConv2dNative");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({0, 4, 4, 4}));
  out = RunConv(c, Tensor(DT_FLOAT, TensorShape({1, 4, 4, 2})),
                Tensor(DT_FLOAT, TensorShape({3, 3, 2, 0})), 0,
                "DepthwiseConv2dNative");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({1, 4, 4, 0}));
  ExpectError(RunConv(c, Tensor(DT_FLOAT, TensorShape({1, 4, 4, 3})),
                      Tensor(DT_FLOAT, TensorShape({3, 3, 2, 1})), 0,
                      "DepthwiseConv2dNative"),
              "DepthwiseConv2dNative", "must equal the filter's in_depth");
  ExpectError(RunConv(c, Tensor(DT_FLOAT, TensorShape({4, 4, 3})),
                      Tensor(DT_FLOAT, TensorShape({3, 3, 3, 1})), 0,
                      "DepthwiseConv2dNative"),
              "DepthwiseConv2dNative", "4-dimensional");
  c.padding = "VALID";
  ExpectError(RunConv(c, Tensor(DT_FLOAT, TensorShape({1, 1, 4, 3})),
                      Tensor(DT_FLOAT, TensorShape({3, 3, 3, 1})), 0,
                      "DepthwiseConv2dNative"),
              "DepthwiseConv2dNative", "negative");
}

// ---- Conv2DBackpropInput ----------------------------------------------------

std::vector<Conv> BackpropConfigs() {
  std::vector<Conv> v;
  for (const Conv& c : ForwardConfigs()) v.push_back(c);
  Conv c = Named("transpose_4x4_s2");
  c.h = c.w = 8, c.kh = c.kw = 4, c.sh = c.sw = 2, c.cin = 3, c.cout = 2;
  v.push_back(c);
  c = Named("stride_exceeds_window");
  c.h = 7, c.w = 8, c.kh = c.kw = 2, c.sh = 3, c.sw = 4, c.padding = "VALID";
  v.push_back(c);
  return v;
}

StatusOr<std::vector<Tensor>> RunBackprop(const Conv& c, const Tensor& sizes,
                                          const Tensor& f, const Tensor& dy,
                                          int threads = 0) {
  return OpRunner("Conv2DBackpropInput", c.Attrs(), threads)
      .Run({sizes, f, dy});
}

Tensor Sizes(const Conv& c) {
  return c.nchw ? AsTensor<int32_t>(
                      {static_cast<int32_t>(c.n), static_cast<int32_t>(c.cin),
                       static_cast<int32_t>(c.h), static_cast<int32_t>(c.w)},
                      TensorShape({4}))
                : AsTensor<int32_t>(
                      {static_cast<int32_t>(c.n), static_cast<int32_t>(c.h),
                       static_cast<int32_t>(c.w), static_cast<int32_t>(c.cin)},
                      TensorShape({4}));
}

class BackpropDtypeTest : public ::testing::TestWithParam<DataType> {};

TEST_P(BackpropDtypeTest, GridValuesAreExact) {
  const DataType dt = GetParam();
  std::mt19937 rng(29);
  for (const Conv& c : BackpropConfigs()) {
    SCOPED_TRACE(c.name);
    const TensorShape dys =
        c.ImageShape(c.Rows(c.h).out, c.Cols(c.w).out, c.cout);
    const TensorShape fs({c.kh, c.kw, c.cin / c.groups, c.cout});
    std::vector<double> dy = Grid(dys.num_elements(), &rng);
    std::vector<double> f = Grid(fs.num_elements(), &rng);
    if (dt == DT_INT32) {
      for (double& v : dy) v = std::round(v * 4);
      for (double& v : f) v = std::round(v * 4);
    }
    const Reference r = BackpropReference(c, dy, f);
    StatusOr<std::vector<Tensor>> out = RunBackprop(
        c, Sizes(c), AsTensorOfType(dt, f, fs), AsTensorOfType(dt, dy, dys));
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensorOfType(dt, Rounded(r), r.shape));
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, BackpropDtypeTest,
                         ::testing::Values(DT_FLOAT, DT_DOUBLE, DT_HALF,
                                           DT_BFLOAT16, DT_INT32),
                         [](const auto& info) {
                           return DataTypeName(info.param);
                         });

// The defining property of the input gradient: for every x and dy,
// <Conv2D(x, f), dy> = <x, Conv2DBackpropInput(dy, f)>, checked with the
// kernels on both sides.
TEST(BackpropInputTest, IsTheAdjointOfConv2D) {
  std::mt19937 rng(31);
  for (const Conv& c : BackpropConfigs()) {
    SCOPED_TRACE(c.name);
    const TensorShape xs = c.ImageShape(c.h, c.w, c.cin);
    const TensorShape dys =
        c.ImageShape(c.Rows(c.h).out, c.Cols(c.w).out, c.cout);
    const TensorShape fs({c.kh, c.kw, c.cin / c.groups, c.cout});
    const Tensor x =
        AsTensorOfType(DT_DOUBLE, Reals(xs.num_elements(), &rng), xs);
    const Tensor dy =
        AsTensorOfType(DT_DOUBLE, Reals(dys.num_elements(), &rng), dys);
    const Tensor f =
        AsTensorOfType(DT_DOUBLE, Reals(fs.num_elements(), &rng), fs);
    StatusOr<std::vector<Tensor>> y = RunConv(c, x, f);
    StatusOr<std::vector<Tensor>> dx = RunBackprop(c, Sizes(c), f, dy);
    ASSERT_TRUE(y.ok()) << y.status();
    ASSERT_TRUE(dx.ok()) << dx.status();
    ASSERT_EQ((*y)[0].shape(), dys);
    ASSERT_EQ((*dx)[0].shape(), xs);
    long double lhs = 0, rhs = 0, scale = 0;
    const std::vector<double> yv = ToDoubles((*y)[0]), dyv = ToDoubles(dy),
                              xv = ToDoubles(x), dxv = ToDoubles((*dx)[0]);
    for (size_t i = 0; i < yv.size(); ++i) {
      lhs += static_cast<long double>(yv[i]) * dyv[i];
      scale += std::fabs(static_cast<long double>(yv[i]) * dyv[i]);
    }
    for (size_t i = 0; i < xv.size(); ++i) {
      rhs += static_cast<long double>(xv[i]) * dxv[i];
    }
    EXPECT_NEAR(static_cast<double>(lhs), static_cast<double>(rhs),
                1e-12 * static_cast<double>(scale + 1));
  }
}

TEST(BackpropInputTest, TwoSizesTakeBatchFromOutBackpropAndDepthFromFilter) {
  Conv c = Named("two_sizes");
  c.n = 2, c.h = 5, c.w = 4, c.cin = 3, c.cout = 2, c.sh = c.sw = 2;
  std::mt19937 rng(37);
  const TensorShape dys = c.ImageShape(3, 2, c.cout);
  const TensorShape fs({3, 3, 3, 2});
  const std::vector<double> dy = Grid(dys.num_elements(), &rng);
  const std::vector<double> f = Grid(fs.num_elements(), &rng);
  StatusOr<std::vector<Tensor>> out = RunBackprop(
      c, AsTensor<int32_t>({5, 4}, TensorShape({2})),
      AsTensorOfType(DT_FLOAT, f, fs), AsTensorOfType(DT_FLOAT, dy, dys));
  ASSERT_TRUE(out.ok()) << out.status();
  const Reference r = BackpropReference(c, dy, f);
  ExpectTensorEqual((*out)[0], AsTensorOfType(DT_FLOAT, Rounded(r), r.shape));
}

TEST(BackpropInputTest, ThreadCountDoesNotChangeResults) {
  std::mt19937 rng(41);
  for (bool nchw : {false, true}) {
    Conv c = Named("big");
    c.n = 3, c.h = 24, c.w = 22, c.cin = 16, c.cout = 24, c.kh = c.kw = 4,
    c.sh = c.sw = 2, c.nchw = nchw;
    const TensorShape dys =
        c.ImageShape(c.Rows(c.h).out, c.Cols(c.w).out, c.cout);
    const TensorShape fs({c.kh, c.kw, c.cin, c.cout});
    const Tensor dy =
        AsTensorOfType(DT_FLOAT, Reals(dys.num_elements(), &rng), dys);
    const Tensor f =
        AsTensorOfType(DT_FLOAT, Reals(fs.num_elements(), &rng), fs);
    StatusOr<std::vector<Tensor>> serial = RunBackprop(c, Sizes(c), f, dy, 0);
    StatusOr<std::vector<Tensor>> parallel = RunBackprop(c, Sizes(c), f, dy, 2);
    ASSERT_TRUE(serial.ok()) << serial.status();
    ASSERT_TRUE(parallel.ok()) << parallel.status();
    ExpectTensorEqual((*parallel)[0], (*serial)[0]);
    ExpectWithinBound((*serial)[0],
                      BackpropReference(c, ToDoubles(dy), ToDoubles(f)),
                      DT_FLOAT);
  }
}

TEST(BackpropInputTest, EmptyShapes) {
  Conv c = Named("empty");
  c.n = 0, c.h = c.w = 4;
  StatusOr<std::vector<Tensor>> out =
      RunBackprop(c, Sizes(c), Tensor(DT_FLOAT, TensorShape({3, 3, 2, 3})),
                  Tensor(DT_FLOAT, TensorShape({0, 4, 4, 3})));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({0, 4, 4, 2}));
  // No output channels: nothing flows back, the gradient is zero.
  c.n = 1, c.cout = 0;
  out = RunBackprop(c, Sizes(c), Tensor(DT_FLOAT, TensorShape({3, 3, 2, 0})),
                    Tensor(DT_FLOAT, TensorShape({1, 4, 4, 0})));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>(std::vector<float>(32, 0),
                                               TensorShape({1, 4, 4, 2})));
}

TEST(BackpropInputTest, BadInputsAreErrors) {
  Conv c = Named("errors");
  c.h = c.w = 4;
  const Tensor f = Tensor(DT_FLOAT, TensorShape({3, 3, 2, 3}));
  const Tensor dy = Tensor(DT_FLOAT, TensorShape({1, 4, 4, 3}));
  const std::string op = "Conv2DBackpropInput";
  ExpectError(
      RunBackprop(c, AsTensor<int32_t>({1, 4, 4}, TensorShape({3})), f, dy), op,
      "4 sizes");
  ExpectError(
      RunBackprop(c, AsTensor<int32_t>({1, 4, 4, 2}, TensorShape({2, 2})), f,
                  dy),
      op, "must be a vector");
  ExpectError(
      RunBackprop(c, AsTensor<int32_t>({1, -4, 4, 2}, TensorShape({4})), f, dy),
      op, "negative");
  ExpectError(
      RunBackprop(c, AsTensor<int32_t>({2, 4, 4, 2}, TensorShape({4})), f, dy),
      op, "batch size 2");
  ExpectError(
      RunBackprop(c, AsTensor<int32_t>({1, 5, 4, 2}, TensorShape({4})), f, dy),
      op, "spatial size [5, 4]");
  ExpectError(
      RunBackprop(c, AsTensor<int32_t>({1, 4, 4, 3}, TensorShape({4})), f, dy),
      op, "not a multiple of the filter's input depth 2");
  ExpectError(
      RunBackprop(c, Sizes(c), f, Tensor(DT_FLOAT, TensorShape({1, 4, 4, 2}))),
      op, "must equal the filter's output depth");
  ExpectError(
      RunBackprop(c, Sizes(c), Tensor(DT_FLOAT, TensorShape({3, 3, 2})), dy),
      op, "filter must be 4-dimensional");
}

}  // namespace cpu_conv_test
}  // namespace weft
