// MaxPool and AvgPool against direct references computed here with
// TensorFlow's definitions: output sizes and paddings from its formulas
// (written out below), MaxPool's running maximum that starts at the dtype's
// lowest value and skips NaN, AvgPool's mean over the in-bounds elements.
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
namespace cpu_pooling_test {

using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::OpRunner;
using test::ToDoubles;

struct Dim {
  int64_t out = 0;
  int64_t pad = 0;
};

Dim WindowDim(int64_t n, int64_t k, int64_t s, const std::string& padding,
              int64_t pad_before, int64_t pad_after) {
  Dim r;
  if (padding == "SAME") {
    r.out = (n + s - 1) / s;
    r.pad = std::max<int64_t>(0, (r.out - 1) * s + k - n) / 2;
  } else if (padding == "VALID") {
    r.out = n >= k ? (n - k) / s + 1 : 0;
  } else {
    r.out = (n + pad_before + pad_after - k) / s + 1;
    r.pad = pad_before;
  }
  return r;
}

struct Pool {
  std::string name;
  int64_t n = 1, h = 5, w = 5, c = 2;
  int64_t kh = 2, kw = 2, sh = 2, sw = 2;
  std::string padding = "VALID";
  std::vector<int64_t> pads;  // top, bottom, left, right for EXPLICIT
  bool nchw = false;

  Dim Rows() const {
    return WindowDim(h, kh, sh, padding, pads.empty() ? 0 : pads[0],
                     pads.empty() ? 0 : pads[1]);
  }
  Dim Cols() const {
    return WindowDim(w, kw, sw, padding, pads.empty() ? 0 : pads[2],
                     pads.empty() ? 0 : pads[3]);
  }
  TensorShape Shape(int64_t hh, int64_t ww) const {
    return nchw ? TensorShape({n, c, hh, ww}) : TensorShape({n, hh, ww, c});
  }
  int64_t Index(int64_t hh, int64_t ww, int64_t b, int64_t y, int64_t x,
                int64_t ch) const {
    return nchw ? ((b * c + ch) * hh + y) * ww + x
                : ((b * hh + y) * ww + x) * c + ch;
  }
  AttrMap Attrs() const {
    AttrMap a;
    auto four = [&](int64_t hv, int64_t wv) {
      return AttrValue::IntList(nchw ? std::vector<int64_t>{1, 1, hv, wv}
                                     : std::vector<int64_t>{1, hv, wv, 1});
    };
    a["ksize"] = four(kh, kw);
    a["strides"] = four(sh, sw);
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

Pool Named(const std::string& name) {
  Pool p;
  p.name = name;
  return p;
}

// max: TensorFlow's running maximum from `lowest`, skipping NaN; else the
// mean of the in-bounds values.
std::vector<double> Reference(const Pool& p, const std::vector<double>& x,
                              bool max, double lowest) {
  const Dim rows = p.Rows(), cols = p.Cols();
  std::vector<double> out(p.n * rows.out * cols.out * p.c);
  for (int64_t b = 0; b < p.n; ++b) {
    for (int64_t oy = 0; oy < rows.out; ++oy) {
      for (int64_t ox = 0; ox < cols.out; ++ox) {
        for (int64_t ch = 0; ch < p.c; ++ch) {
          double acc = max ? lowest : 0;
          int64_t count = 0;
          for (int64_t i = 0; i < p.kh; ++i) {
            const int64_t y = oy * p.sh - rows.pad + i;
            if (y < 0 || y >= p.h) continue;
            for (int64_t j = 0; j < p.kw; ++j) {
              const int64_t xx = ox * p.sw - cols.pad + j;
              if (xx < 0 || xx >= p.w) continue;
              const double v = x[p.Index(p.h, p.w, b, y, xx, ch)];
              if (max) {
                if (acc < v) acc = v;
              } else {
                acc += v;
              }
              ++count;
            }
          }
          out[p.Index(rows.out, cols.out, b, oy, ox, ch)] =
              max ? acc : acc / count;
        }
      }
    }
  }
  return out;
}

std::vector<Pool> Configs(bool explicit_padding) {
  std::vector<Pool> v;
  v.push_back(Named("valid_2x2"));
  Pool p = Named("same_3x3_s2");
  p.kh = p.kw = 3, p.padding = "SAME";
  v.push_back(p);
  p = Named("same_even_rect");
  p.h = p.w = 6, p.kh = 2, p.kw = 3, p.padding = "SAME";
  v.push_back(p);
  p = Named("overlapping_s1");
  p.h = 4, p.w = 6, p.kh = p.kw = 3, p.sh = p.sw = 1, p.padding = "SAME";
  v.push_back(p);
  p = Named("stride_exceeds_window");
  p.h = 7, p.w = 8, p.sh = 3, p.sw = 4;
  v.push_back(p);
  p = Named("window_exceeds_input");
  p.h = 2, p.w = 3, p.kh = p.kw = 5, p.sh = p.sw = 1, p.padding = "SAME";
  v.push_back(p);
  p = Named("global");
  p.n = 2, p.h = 3, p.w = 4, p.kh = 3, p.kw = 4, p.c = 3;
  v.push_back(p);
  // Channel counts that use every block of the float max pool's vector
  // loop (16, 8, 4, then one by one: 29 = 16 + 8 + 4 + 1) and two full
  // blocks, with padding.
  p = Named("channel_blocks");
  p.h = 5, p.w = 6, p.c = 29, p.kh = p.kw = 3, p.padding = "SAME";
  v.push_back(p);
  p = Named("channel_blocks_full");
  p.n = 2, p.h = p.w = 4, p.c = 32, p.sh = p.sw = 1;
  v.push_back(p);
  if (explicit_padding) {
    p = Named("explicit");
    p.h = 4, p.w = 5, p.kh = p.kw = 3, p.padding = "EXPLICIT",
    p.pads = {2, 1, 0, 2};
    v.push_back(p);
  }
  const size_t plain = v.size();
  for (size_t i = 0; i < plain; ++i) {
    Pool t = v[i];
    t.name += "_nchw";
    t.nchw = true;
    v.push_back(t);
  }
  return v;
}

std::vector<double> Values(DataType dt, int64_t n, std::mt19937* rng) {
  std::vector<double> v(n);
  if (DataTypeIsFloating(dt)) {
    std::uniform_int_distribution<int> dist(-16, 16);
    for (double& x : v) x = dist(*rng) / 4.0;
  } else {
    const bool is_unsigned = DataTypeIsUnsigned(dt);
    std::uniform_int_distribution<int> dist(is_unsigned ? 0 : -100, 100);
    for (double& x : v) x = dist(*rng);
  }
  return v;
}

double Lowest(DataType dt) {
  switch (dt) {
    case DT_HALF:
      return -65504.0;
    case DT_BFLOAT16:
      return -3.3895313892515355e38;
    case DT_FLOAT:
      return std::numeric_limits<float>::lowest();
    case DT_DOUBLE:
      return std::numeric_limits<double>::lowest();
    case DT_INT8:
      return -128;
    case DT_INT16:
      return -32768;
    case DT_INT32:
      return std::numeric_limits<int32_t>::lowest();
    case DT_INT64:
      return -9223372036854775808.0;
    default:
      return 0;  // unsigned
  }
}

class MaxPoolDtypeTest : public ::testing::TestWithParam<DataType> {};

TEST_P(MaxPoolDtypeTest, MatchesReference) {
  const DataType dt = GetParam();
  std::mt19937 rng(5);
  for (const Pool& p : Configs(true)) {
    SCOPED_TRACE(p.name);
    const std::vector<double> x = Values(dt, p.n * p.h * p.w * p.c, &rng);
    StatusOr<std::vector<Tensor>> out =
        OpRunner("MaxPool", p.Attrs())
            .Run({AsTensorOfType(dt, x, p.Shape(p.h, p.w))});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0],
                      AsTensorOfType(dt, Reference(p, x, true, Lowest(dt)),
                                     p.Shape(p.Rows().out, p.Cols().out)));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Dtypes, MaxPoolDtypeTest,
    ::testing::Values(DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT32,
                      DT_INT64, DT_UINT8, DT_INT8, DT_INT16, DT_UINT16),
    [](const auto& info) { return DataTypeName(info.param); });

class AvgPoolDtypeTest : public ::testing::TestWithParam<DataType> {};

// Quarter-grid values sum exactly in float, so float and double give the
// mean correctly rounded; half and bfloat16 round the float mean once more
// (at most one unit in their last place from the correctly rounded mean).
TEST_P(AvgPoolDtypeTest, MatchesReference) {
  const DataType dt = GetParam();
  std::mt19937 rng(6);
  for (const Pool& p : Configs(false)) {
    SCOPED_TRACE(p.name);
    const std::vector<double> x = Values(dt, p.n * p.h * p.w * p.c, &rng);
    StatusOr<std::vector<Tensor>> out =
        OpRunner("AvgPool", p.Attrs())
            .Run({AsTensorOfType(dt, x, p.Shape(p.h, p.w))});
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor want = AsTensorOfType(dt, Reference(p, x, false, 0),
                                       p.Shape(p.Rows().out, p.Cols().out));
    if (dt == DT_FLOAT || dt == DT_DOUBLE) {
      ExpectTensorEqual((*out)[0], want);
    } else {
      test::ExpectTensorNear((*out)[0], want, 0, 2 * test::UnitRoundoff(dt));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, AvgPoolDtypeTest,
                         ::testing::Values(DT_FLOAT, DT_DOUBLE, DT_HALF,
                                           DT_BFLOAT16),
                         [](const auto& info) {
                           return DataTypeName(info.param);
                         });

// TensorFlow's MaxPool skips NaN (a window of NaNs gives the lowest value),
// and a window of -inf also gives the lowest finite value; AvgPool
// propagates NaN and infinities through its sum.
TEST(PoolTest, NanAndInfinities) {
  Pool p = Named("special");
  p.h = 2, p.w = 4, p.c = 1, p.kh = 2, p.kw = 1, p.sh = 2, p.sw = 1;
  const float nan = NAN, inf = INFINITY;
  const float lowest = std::numeric_limits<float>::lowest();
  // Columns (top, bottom): (nan, 1), (nan, nan), (-inf, -inf), (inf, -inf).
  const Tensor x = AsTensor<float>({nan, nan, -inf, inf, 1, nan, -inf, -inf},
                                   TensorShape({1, 2, 4, 1}));
  StatusOr<std::vector<Tensor>> out = OpRunner("MaxPool", p.Attrs()).Run({x});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>({1, lowest, lowest, inf},
                                               TensorShape({1, 1, 4, 1})));
  out = OpRunner("AvgPool", p.Attrs()).Run({x});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>({nan, nan, -inf, nan},
                                               TensorShape({1, 1, 4, 1})));
}

// The same in every lane of the float max pool's vector blocks: 29
// channels, channel ch holding special value ch % 4 at both rows.
TEST(PoolTest, NanAndInfinitiesInEveryChannelBlock) {
  Pool p = Named("special_blocks");
  p.h = 2, p.w = 1, p.c = 29, p.kh = 2, p.kw = 1, p.sh = 2, p.sw = 1;
  const float nan = NAN, inf = INFINITY;
  const float lowest = std::numeric_limits<float>::lowest();
  const float top[4] = {nan, nan, -inf, inf};
  const float bottom[4] = {1, nan, -inf, -inf};
  const float want_of[4] = {1, lowest, lowest, inf};
  std::vector<float> x(2 * 29), want(29);
  for (int ch = 0; ch < 29; ++ch) {
    x[ch] = top[ch % 4];
    x[29 + ch] = bottom[ch % 4];
    want[ch] = want_of[ch % 4];
  }
  StatusOr<std::vector<Tensor>> out =
      OpRunner("MaxPool", p.Attrs())
          .Run({AsTensor<float>(x, TensorShape({1, 2, 1, 29}))});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0],
                    AsTensor<float>(want, TensorShape({1, 1, 1, 29})));
}

TEST(PoolTest, MaxPoolOverDepth) {
  AttrMap a;
  a["ksize"] = AttrValue::IntList({1, 1, 1, 3});
  a["strides"] = AttrValue::IntList({1, 1, 1, 3});
  a["padding"] = AttrValue::String("VALID");
  std::vector<float> x(2 * 2 * 6);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 11);
  std::vector<float> want;
  for (size_t i = 0; i < x.size(); i += 3) {
    want.push_back(std::max({x[i], x[i + 1], x[i + 2]}));
  }
  StatusOr<std::vector<Tensor>> out =
      OpRunner("MaxPool", a)
          .Run({AsTensor<float>(x, TensorShape({1, 2, 2, 6}))});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0],
                    AsTensor<float>(want, TensorShape({1, 2, 2, 2})));
  // NCHW pools the channel dimension 1 the same way.
  a["data_format"] = AttrValue::String("NCHW");
  a["ksize"] = AttrValue::IntList({1, 3, 1, 1});
  a["strides"] = AttrValue::IntList({1, 3, 1, 1});
  std::vector<float> x_nchw(x.size()), want_nchw(want.size());
  for (int pix = 0; pix < 4; ++pix) {
    for (int ch = 0; ch < 6; ++ch) x_nchw[ch * 4 + pix] = x[pix * 6 + ch];
    for (int ch = 0; ch < 2; ++ch) want_nchw[ch * 4 + pix] = want[pix * 2 + ch];
  }
  out = OpRunner("MaxPool", a)
            .Run({AsTensor<float>(x_nchw, TensorShape({1, 6, 2, 2}))});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0],
                    AsTensor<float>(want_nchw, TensorShape({1, 2, 2, 2})));
}

TEST(PoolTest, ThreadCountDoesNotChangeResults) {
  std::mt19937 rng(9);
  for (const char* op : {"MaxPool", "AvgPool"}) {
    for (bool nchw : {false, true}) {
      Pool p = Named("big");
      p.n = 2, p.h = 37, p.w = 41, p.c = 24, p.kh = p.kw = 3,
      p.padding = "SAME", p.nchw = nchw;
      const std::vector<double> x =
          Values(DT_FLOAT, p.n * p.h * p.w * p.c, &rng);
      const Tensor in = AsTensorOfType(DT_FLOAT, x, p.Shape(p.h, p.w));
      StatusOr<std::vector<Tensor>> serial =
          OpRunner(op, p.Attrs(), 0).Run({in});
      StatusOr<std::vector<Tensor>> parallel =
          OpRunner(op, p.Attrs(), 2).Run({in});
      ASSERT_TRUE(serial.ok()) << serial.status();
      ASSERT_TRUE(parallel.ok()) << parallel.status();
      ExpectTensorEqual((*parallel)[0], (*serial)[0]);
      ExpectTensorEqual(
          (*serial)[0],
          AsTensorOfType(
              DT_FLOAT,
              Reference(p, x, std::string(op) == "MaxPool", Lowest(DT_FLOAT)),
              p.Shape(p.Rows().out, p.Cols().out)));
    }
  }
}

TEST(PoolTest, EmptyShapes) {
  for (const char* op : {"MaxPool", "AvgPool"}) {
    SCOPED_TRACE(op);
    Pool p = Named("empty");
    StatusOr<std::vector<Tensor>> out =
        OpRunner(op, p.Attrs())
            .Run({Tensor(DT_FLOAT, TensorShape({0, 4, 4, 2}))});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), TensorShape({0, 2, 2, 2}));
    out = OpRunner(op, p.Attrs())
              .Run({Tensor(DT_FLOAT, TensorShape({1, 4, 4, 0}))});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), TensorShape({1, 2, 2, 0}));
    // A window larger than the input with VALID padding: no outputs.
    p.kh = 5;
    out = OpRunner(op, p.Attrs())
              .Run({Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1}))});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), TensorShape({1, 0, 2, 1}));
  }
}

void ExpectError(const StatusOr<std::vector<Tensor>>& out, const char* op,
                 const std::string& fragment) {
  ASSERT_FALSE(out.ok());
  const std::string message(out.status().message());
  EXPECT_TRUE(absl::StrContains(message, std::string("(") + op + ")"))
      << message;
  EXPECT_TRUE(absl::StrContains(message, fragment)) << message;
}

TEST(PoolTest, BadInputsAndAttrsAreErrors) {
  const Tensor x(DT_FLOAT, TensorShape({1, 4, 4, 4}));
  for (const char* op : {"MaxPool", "AvgPool"}) {
    SCOPED_TRACE(op);
    Pool p = Named("errors");
    ExpectError(
        OpRunner(op, p.Attrs()).Run({Tensor(DT_FLOAT, TensorShape({4, 4, 4}))}),
        op, "4-dimensional");
    AttrMap a = p.Attrs();
    a["ksize"] = AttrValue::IntList({2, 2, 2, 1});
    ExpectError(OpRunner(op, a).Run({x}), op, "batch dimension");
    a = p.Attrs();
    a["ksize"] = AttrValue::IntList({1, 2, 0, 1});
    ExpectError(OpRunner(op, a).Run({x}), op, ">= 1");
    p.kh = 8;  // (4 - 8 + 2) / 2 < 0
    ExpectError(OpRunner(op, p.Attrs())
                    .Run({Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1}))}),
                op, "negative");
  }
  AttrMap a = Named("x").Attrs();
  a["ksize"] = AttrValue::IntList({1, 1, 1, 2});
  ExpectError(OpRunner("AvgPool", a).Run({x}), "AvgPool",
              "does not pool over depth");
  // MaxPool's EXPLICIT paddings must be smaller than the window.
  Pool p = Named("explicit");
  p.padding = "EXPLICIT", p.pads = {0, 2, 0, 0};
  ExpectError(OpRunner("MaxPool", p.Attrs()).Run({x}), "MaxPool",
              "bottom padding 2 must be smaller than the window size 2");
  // Depth pooling's constraints.
  a = Named("depth").Attrs();
  a["ksize"] = AttrValue::IntList({1, 1, 1, 3});
  a["strides"] = AttrValue::IntList({1, 1, 1, 3});
  ExpectError(OpRunner("MaxPool", a).Run({x}), "MaxPool",
              "depth window 3 to divide the input depth 4");
  a["strides"] = AttrValue::IntList({1, 1, 1, 1});
  ExpectError(OpRunner("MaxPool", a).Run({x}), "MaxPool",
              "depth stride to equal the depth window");
  a["ksize"] = AttrValue::IntList({1, 2, 1, 2});
  a["strides"] = AttrValue::IntList({1, 1, 1, 2});
  ExpectError(OpRunner("MaxPool", a).Run({x}), "MaxPool", "not both");
  a = Named("depth").Attrs();
  a["ksize"] = AttrValue::IntList({1, 1, 1, 2});
  a["strides"] = AttrValue::IntList({1, 1, 1, 2});
  a["padding"] = AttrValue::String("EXPLICIT");
  a["explicit_paddings"] = AttrValue::IntList({0, 0, 0, 0, 0, 0, 0, 0});
  ExpectError(OpRunner("MaxPool", a).Run({x}), "MaxPool", "EXPLICIT");
  a = Named("vect").Attrs();
  a["data_format"] = AttrValue::String("NCHW_VECT_C");
  ExpectError(OpRunner("MaxPool", a).Run({x}), "MaxPool", "NCHW_VECT_C");
}

}  // namespace cpu_pooling_test
}  // namespace weft
