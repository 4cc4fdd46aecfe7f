// The float convolution Conv2D and _FusedConv2D share (kernels/cpu/conv2d.h)
// on the shapes that pick its paths: the MobileNetV2 stem's k = 27, 1x1
// strided filters (ResNet's projection shortcuts), enough output pixels for
// many chunks, groups (one input channel each: the depthwise kernel),
// dilations, every padding mode, the input read in place (strided_*), and
// each epilogue.
//
// Operands are multiples of 1/4 in [-2, 2] and the biases multiples of 1/8,
// so every product and partial sum is exact in float: whatever the
// summation order, the kernel must equal a naive double reference bit for
// bit (LeakyRelu's alpha 0.25 keeps that; Elu and Swish go through exp, and
// HardSwish divides by 6: they are held to a relative bound instead).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_conv2d_test {

using test::AsTensor;
using test::ExpectTensorEqual;
using test::OpRunner;

struct Case {
  std::string name;
  int64_t n = 1, h = 7, w = 7, cin = 3;
  int64_t kh = 3, kw = 3, cout = 8, groups = 1;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  std::string padding = "SAME";
  std::vector<int64_t> pads;  // top, bottom, left, right for EXPLICIT

  AttrMap Attrs() const {
    AttrMap a;
    a["strides"] = AttrValue::IntList({1, sh, sw, 1});
    a["dilations"] = AttrValue::IntList({1, dh, dw, 1});
    a["padding"] = AttrValue::String(padding);
    if (!pads.empty()) {
      a["explicit_paddings"] =
          AttrValue::IntList({0, 0, pads[0], pads[1], pads[2], pads[3], 0, 0});
    }
    return a;
  }
};

// Output size and leading padding along one dimension, TensorFlow's rules.
void OutputDim(int64_t in, int64_t k, int64_t d, int64_t s,
               const std::string& padding, int64_t before, int64_t after,
               int64_t* out, int64_t* pad) {
  const int64_t e = (k - 1) * d + 1;
  if (padding == "SAME") {
    *out = (in + s - 1) / s;
    *pad = std::max<int64_t>(0, (*out - 1) * s + e - in) / 2;
  } else if (padding == "VALID") {
    *out = in >= e ? (in - e) / s + 1 : 0;
    *pad = 0;
  } else {
    *out = (in + before + after - e) / s + 1;
    *pad = before;
  }
}

struct Reference {
  TensorShape shape;
  std::vector<double> value;
};

Reference Convolve(const Case& c, const std::vector<float>& x,
                   const std::vector<float>& f) {
  int64_t oh, ow, pt, pl;
  OutputDim(c.h, c.kh, c.dh, c.sh, c.padding, c.pads.empty() ? 0 : c.pads[0],
            c.pads.empty() ? 0 : c.pads[1], &oh, &pt);
  OutputDim(c.w, c.kw, c.dw, c.sw, c.padding, c.pads.empty() ? 0 : c.pads[2],
            c.pads.empty() ? 0 : c.pads[3], &ow, &pl);
  const int64_t fin = c.cin / c.groups;
  const int64_t cout_g = c.cout / c.groups;
  Reference r;
  r.shape = TensorShape({c.n, oh, ow, c.cout});
  r.value.assign(r.shape.num_elements(), 0.0);
  for (int64_t b = 0; b < c.n; ++b) {
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t xo = 0; xo < ow; ++xo) {
        for (int64_t co = 0; co < c.cout; ++co) {
          const int64_t g = co / cout_g;
          double sum = 0;
          for (int64_t i = 0; i < c.kh; ++i) {
            const int64_t iy = y * c.sh - pt + i * c.dh;
            if (iy < 0 || iy >= c.h) continue;
            for (int64_t j = 0; j < c.kw; ++j) {
              const int64_t ix = xo * c.sw - pl + j * c.dw;
              if (ix < 0 || ix >= c.w) continue;
              for (int64_t ci = 0; ci < fin; ++ci) {
                sum +=
                    double{
                        x[((b * c.h + iy) * c.w + ix) * c.cin + g * fin + ci]} *
                    f[((i * c.kw + j) * fin + ci) * c.cout + co];
              }
            }
          }
          r.value[((b * oh + y) * ow + xo) * c.cout + co] = sum;
        }
      }
    }
  }
  return r;
}

std::vector<float> Grid(int64_t n, int scale, std::mt19937* rng) {
  std::uniform_int_distribution<int> dist(-2 * scale, 2 * scale);
  std::vector<float> v(n);
  for (float& e : v) e = static_cast<float>(dist(*rng)) / scale;
  return v;
}

std::vector<Case> Cases() {
  std::vector<Case> v;
  Case c;
  c.name = "stem_k27_stride2";
  c.h = c.w = 33, c.cout = 32, c.sh = c.sw = 2;
  v.push_back(c);
  c = Case();
  c.name = "k27_many_chunks";  // 10000 pixels: several chunks of patches
  c.h = c.w = 100, c.cout = 16;
  v.push_back(c);
  c = Case();
  c.name = "pointwise_stride2_valid";
  c.n = 2, c.h = c.w = 9, c.cin = 8, c.kh = c.kw = 1, c.cout = 16,
  c.sh = c.sw = 2, c.padding = "VALID";
  v.push_back(c);
  c = Case();
  c.name = "pointwise_stride2_same_even";
  c.h = c.w = 56, c.cin = 32, c.kh = c.kw = 1, c.cout = 40, c.sh = c.sw = 2;
  v.push_back(c);
  c = Case();
  c.name = "pointwise_explicit";
  c.h = 5, c.w = 4, c.cin = 5, c.kh = c.kw = 1, c.padding = "EXPLICIT",
  c.pads = {1, 0, 2, 1};
  v.push_back(c);
  c = Case();
  c.name = "pointwise_grouped";
  c.h = c.w = 6, c.cin = 6, c.kh = c.kw = 1, c.cout = 9, c.groups = 3;
  v.push_back(c);
  c = Case();
  c.name = "grouped_3x3_stride2";
  c.n = 2, c.h = 11, c.w = 10, c.cin = 6, c.cout = 9, c.groups = 3,
  c.sh = c.sw = 2;
  v.push_back(c);
  c = Case();
  c.name = "dilated";
  c.h = c.w = 12, c.cin = 4, c.dh = 2, c.dw = 3;
  v.push_back(c);
  c = Case();
  c.name = "explicit_dilated_stride";
  c.h = 9, c.w = 8, c.cin = 4, c.padding = "EXPLICIT", c.pads = {0, 3, 2, 1},
  c.dh = 2, c.sw = 2;
  v.push_back(c);
  c = Case();
  c.name = "valid_5x5";
  c.h = 13, c.w = 11, c.cin = 16, c.kh = c.kw = 5, c.cout = 24,
  c.padding = "VALID";
  v.push_back(c);
  c = Case();
  c.name = "window_exceeds_input";
  c.h = c.w = 2, c.kh = c.kw = 5;
  v.push_back(c);
  c = Case();
  c.name = "few_pixels_deep";  // one chunk: the product is split by Gemm
  c.n = 1, c.h = c.w = 2, c.cin = 64, c.cout = 96;
  v.push_back(c);
  c = Case();
  // 64 pixels of 4608-element patches would be 4 chunks of 16 rows, each
  // streaming the whole filter; gathered at once instead (ChunkRowsForFilter).
  c.name = "deep_filter_gathered_at_once";
  c.h = c.w = 8, c.cin = 512, c.cout = 64;
  v.push_back(c);
  c = Case();
  c.name = "deep_filter_grouped_gathered_at_once";
  c.h = c.w = 8, c.cin = 512, c.cout = 256, c.groups = 2;
  v.push_back(c);
  c = Case();
  // Many chunks, each gathered in the GEMM's own layout (GemmLhsLayout;
  // output rows of 7 pixels are too narrow for the strided path): k = 288
  // is two blocks of 144 columns, so the second filter row's taps (columns
  // 96 to 191) and the zeros of the padded border are split between
  // blocks.
  c.name = "chunks_in_gemm_layout";
  c.n = 8, c.h = c.w = 7, c.cin = 32, c.cout = 40;
  v.push_back(c);
  c = Case();
  // The same with one tap per run (groups, dilation), k = 600 in three
  // blocks of 200.
  c.name = "chunks_in_gemm_layout_grouped_dilated";
  c.h = c.w = 30, c.cin = 48, c.cout = 32, c.groups = 2, c.kh = c.kw = 5,
  c.dh = c.dw = 2;
  v.push_back(c);
  // The input read in place (StridedConv2D: groups 1, no column dilation,
  // output rows of 8 pixels or more, a filter of at most 2^22 floats).
  c = Case();
  c.name = "strided_same_stride2_row_dilation";  // padded 1 before, 2 after
  c.n = 2, c.h = 20, c.w = 19, c.cin = 5, c.cout = 20, c.sh = c.sw = 2,
  c.dh = 2;
  v.push_back(c);
  c = Case();
  // k = 360 in two blocks of 180: the second filter row's run (columns 120
  // to 239) crosses them; n = 16 is one narrow panel.
  c.name = "strided_two_k_blocks_narrow";
  c.n = 2, c.h = c.w = 12, c.cin = 40, c.cout = 16;
  v.push_back(c);
  c = Case();
  c.name = "strided_explicit_asymmetric";  // n = 33: a full and a narrow panel
  c.h = 9, c.w = 16, c.cout = 33, c.padding = "EXPLICIT", c.pads = {2, 0, 0, 3};
  v.push_back(c);
  c = Case();
  c.name = "strided_valid_5x5";
  c.h = 13, c.w = 14, c.cin = 16, c.kh = c.kw = 5, c.cout = 24,
  c.padding = "VALID";
  v.push_back(c);
  c = Case();
  c.name = "strided_7x7_stem_stride2";  // ResNet's stem, k = 147
  c.h = c.w = 32, c.kh = c.kw = 7, c.cout = 64, c.sh = c.sw = 2;
  v.push_back(c);
  c = Case();
  // Output rows of 260 pixels: units of one output row, each copying its
  // three padded input rows (the first and last units a zero row).
  c.name = "strided_wide_rows_one_per_unit";
  c.h = 5, c.w = 260, c.cin = 3, c.cout = 8;
  v.push_back(c);
  c = Case();
  // Units of several output rows whose bands overlap by the filter's
  // extra rows, and a last unit shorter than the others.
  c.name = "strided_tall_uneven_units";
  c.n = 1, c.h = 45, c.w = 8, c.cin = 4, c.cout = 12, c.kh = 5, c.kw = 3;
  v.push_back(c);
  c = Case();
  // A filter of 9 * 384 * 320 floats, beyond StridedConv2D's cache budget:
  // units of one image's rows times four parts of the output channels
  // (uneven in panels: 10 of 32 columns, 20 of 16).
  c.name = "strided_filter_in_channel_parts";
  c.n = 2, c.h = c.w = 8, c.cin = 384, c.cout = 320;
  v.push_back(c);
  // One input channel per group: the depthwise kernel computes these.
  c = Case();
  c.name = "groups_of_one_channel_7x7";  // ConvNeXt's layers
  c.n = 2, c.h = c.w = 9, c.cin = c.cout = c.groups = 24, c.kh = c.kw = 7;
  v.push_back(c);
  c = Case();
  c.name = "groups_of_one_channel_multiplier_2_stride2";
  c.h = 11, c.w = 10, c.cin = c.groups = 6, c.cout = 12, c.sh = c.sw = 2;
  v.push_back(c);
  c = Case();
  c.name = "groups_of_one_channel_explicit_dilated";
  c.h = 9, c.w = 8, c.cin = c.cout = c.groups = 5, c.padding = "EXPLICIT",
  c.pads = {0, 3, 2, 1}, c.dh = 2, c.sw = 2;
  v.push_back(c);
  c = Case();
  // 40 channels: two full vectors and a remainder on every path.
  c.name = "groups_of_one_channel_valid_wide";
  c.n = 3, c.h = c.w = 6, c.cin = c.cout = c.groups = 40, c.padding = "VALID";
  v.push_back(c);
  // Narrow groups, multiplied several at a time (kMergedGroupColumns).
  c = Case();
  c.name = "narrow_groups_4_by_4";  // ResNeXt's: 8 groups as 2 of 16
  c.n = 2, c.h = c.w = 7, c.cin = c.cout = 32, c.groups = 8;
  v.push_back(c);
  c = Case();
  c.name = "narrow_groups_merged_into_one";  // then the ungrouped paths
  c.h = 9, c.w = 12, c.cin = c.cout = 8, c.groups = 2;
  v.push_back(c);
  c = Case();
  c.name = "narrow_groups_2_to_3_strided_dilated";  // 6 groups as 2 of 9
  c.h = c.w = 11, c.cin = 12, c.cout = 18, c.groups = 6, c.sh = 2, c.dw = 2;
  v.push_back(c);
  c = Case();
  c.name = "narrow_groups_prime_count";  // 7 groups of 3: none merged
  c.h = c.w = 5, c.cin = 14, c.cout = 21, c.groups = 7;
  v.push_back(c);
  c = Case();
  // Gathered at once, a unit per group (kGroupUnitsMin).
  c.name = "groups_of_16_gathered_at_once";
  c.h = c.w = 4, c.cin = c.cout = 64, c.groups = 4;
  v.push_back(c);
  return v;
}

struct Epilogue {
  std::string name;
  std::vector<std::string> fused_ops;
  double (*act)(double);
};

std::vector<Epilogue> Epilogues() {
  return {
      {"none", {}, [](double x) { return x; }},
      {"bias", {"BiasAdd"}, [](double x) { return x; }},
      {"relu", {"Relu"}, [](double x) { return x < 0 ? 0.0 : x; }},
      {"bias_relu",
       {"BiasAdd", "Relu"},
       [](double x) { return x < 0 ? 0.0 : x; }},
      {"bias_relu6",
       {"BiasAdd", "Relu6"},
       [](double x) { return x < 0 ? 0.0 : (x > 6 ? 6.0 : x); }},
      {"bias_leakyrelu",
       {"BiasAdd", "LeakyRelu"},
       [](double x) { return x > 0 ? x : 0.25 * x; }},
      {"bias_elu",
       {"BiasAdd", "Elu"},
       [](double x) { return x < 0 ? std::exp(x) - 1 : x; }},
      // With a residual (the last input, of the output's shape).
      {"bias_residual_relu",
       {"BiasAdd", "Add", "Relu"},
       [](double x) { return x < 0 ? 0.0 : x; }},
      {"residual", {"Add"}, [](double x) { return x; }},
      {"bias_residual_elu",
       {"BiasAdd", "Add", "Elu"},
       [](double x) { return x < 0 ? std::exp(x) - 1 : x; }},
      // swish_beta 0.5 (RunFused).
      {"bias_swish",
       {"BiasAdd", "Swish"},
       [](double x) { return x / (1 + std::exp(-0.5 * x)); }},
      {"bias_residual_swish",
       {"BiasAdd", "Add", "Swish"},
       [](double x) { return x / (1 + std::exp(-0.5 * x)); }},
      {"bias_hardswish",
       {"BiasAdd", "HardSwish"},
       [](double x) { return x * std::min(6.0, std::max(0.0, x + 3)) / 6; }},
  };
}

bool HasResidual(const Epilogue& e) {
  return std::find(e.fused_ops.begin(), e.fused_ops.end(), "Add") !=
         e.fused_ops.end();
}

StatusOr<std::vector<Tensor>> RunFused(const Case& c, const Epilogue& e,
                                       const Tensor& x, const Tensor& f,
                                       const Tensor& bias, int threads,
                                       const Tensor& residual = Tensor()) {
  AttrMap a = c.Attrs();
  a["fused_ops"] = AttrValue::StringList(e.fused_ops);
  const bool has_bias = !e.fused_ops.empty() && e.fused_ops[0] == "BiasAdd";
  a["num_args"] = AttrValue::Int((has_bias ? 1 : 0) + (HasResidual(e) ? 1 : 0));
  a["leakyrelu_alpha"] = AttrValue::Float(0.25f);
  a["swish_beta"] = AttrValue::Float(0.5f);
  std::vector<Tensor> inputs = {x, f};
  if (has_bias) inputs.push_back(bias);
  if (HasResidual(e)) inputs.push_back(residual);
  return OpRunner("_FusedConv2D", a, threads).Run(inputs);
}

// Conv2D and every _FusedConv2D epilogue equal the reference, at threads 0,
// 1 and 2 alike.
TEST(SharedConv2DTest, MatchesReferenceAtEveryThreadCount) {
  std::mt19937 rng(5);
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const TensorShape xs({c.n, c.h, c.w, c.cin});
    const TensorShape fs({c.kh, c.kw, c.cin / c.groups, c.cout});
    const std::vector<float> xv = Grid(xs.num_elements(), 4, &rng);
    const std::vector<float> fv = Grid(fs.num_elements(), 4, &rng);
    const std::vector<float> bv = Grid(c.cout, 8, &rng);
    const Tensor x = AsTensor<float>(xv, xs);
    const Tensor f = AsTensor<float>(fv, fs);
    const Tensor bias = AsTensor<float>(bv, TensorShape({c.cout}));
    const Reference r = Convolve(c, xv, fv);
    const std::vector<float> rv = Grid(r.shape.num_elements(), 8, &rng);
    const Tensor residual = AsTensor<float>(rv, r.shape);

    std::vector<float> plain(r.value.begin(), r.value.end());
    for (int threads : {0, 1, 2}) {
      SCOPED_TRACE(threads);
      StatusOr<std::vector<Tensor>> out =
          OpRunner("Conv2D", c.Attrs(), threads).Run({x, f});
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectTensorEqual((*out)[0], AsTensor<float>(plain, r.shape));
    }
    for (const Epilogue& e : Epilogues()) {
      SCOPED_TRACE(e.name);
      const bool has_bias = !e.fused_ops.empty() && e.fused_ops[0] == "BiasAdd";
      std::vector<double> want(r.value.size());
      for (size_t i = 0; i < want.size(); ++i) {
        want[i] = e.act(r.value[i] + (has_bias ? bv[i % c.cout] : 0.0) +
                        (HasResidual(e) ? rv[i] : 0.0));
      }
      std::vector<Tensor> results;
      for (int threads : {0, 1, 2}) {
        SCOPED_TRACE(threads);
        StatusOr<std::vector<Tensor>> out =
            RunFused(c, e, x, f, bias, threads, residual);
        ASSERT_TRUE(out.ok()) << out.status();
        ASSERT_EQ((*out)[0].shape(), r.shape);
        results.push_back((*out)[0]);
      }
      ExpectTensorEqual(results[1], results[0]);
      ExpectTensorEqual(results[2], results[0]);
      if (e.name.find("elu") != std::string::npos ||
          e.name.find("swish") != std::string::npos) {
        const float* got = results[0].data<float>();
        for (size_t i = 0; i < want.size(); ++i) {
          ASSERT_NEAR(got[i], want[i], 4e-7 * std::max(1.0, std::fabs(want[i])))
              << "element " << i;
        }
      } else {
        std::vector<float> wf(want.begin(), want.end());
        ExpectTensorEqual(results[0], AsTensor<float>(wf, r.shape));
      }
    }
  }
}

TEST(SharedConv2DTest, FusedEmptyBatchAndNoInputChannels) {
  Case c;
  c.cin = 2, c.cout = 3;
  const Epilogue relu = Epilogues()[3];  // bias_relu
  const Tensor bias = AsTensor<float>({-1, 0.5f, 2}, TensorShape({3}));
  StatusOr<std::vector<Tensor>> out = RunFused(
      c, relu, Tensor(DT_FLOAT, TensorShape({0, 7, 7, 2})),
      AsTensor<float>(std::vector<float>(54, 1), TensorShape({3, 3, 2, 3})),
      bias, 2);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({0, 7, 7, 3}));
  // No input channels: every sum is empty, so each output is relu(bias).
  c.h = c.w = 2;
  out = RunFused(
      c, relu, Tensor(DT_FLOAT, TensorShape({1, 2, 2, 0})),
      AsTensor<float>(std::vector<float>(27, 1), TensorShape({3, 3, 1, 3})),
      bias, 0);
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<float> want;
  for (int i = 0; i < 4; ++i) want.insert(want.end(), {0, 0.5f, 2});
  ExpectTensorEqual((*out)[0],
                    AsTensor<float>(want, TensorShape({1, 2, 2, 3})));
}

// A residual whose shape is not the output's is refused with both shapes
// named; one without channels gives relu(bias + residual).
TEST(SharedConv2DTest, FusedResidualShapes) {
  Case c;
  c.h = c.w = 2, c.cin = 2, c.cout = 3;
  const Epilogue e = {
      "bias_residual_relu", {"BiasAdd", "Add", "Relu"}, nullptr};
  const Tensor bias = AsTensor<float>({-1, 0.5f, 2}, TensorShape({3}));
  const Tensor f =
      AsTensor<float>(std::vector<float>(54, 1), TensorShape({3, 3, 2, 3}));
  const Tensor x(DT_FLOAT, TensorShape({1, 2, 2, 2}));
  for (const TensorShape& bad : {TensorShape({1, 1, 1, 3}),
                                 TensorShape({2, 2, 2, 3}), TensorShape({3})}) {
    StatusOr<std::vector<Tensor>> out =
        RunFused(c, e, x, f, bias, 0, Tensor(DT_FLOAT, bad));
    ASSERT_FALSE(out.ok()) << bad.DebugString();
    EXPECT_NE(std::string(out.status().message())
                  .find("residual (input 3) has shape " + bad.DebugString() +
                        " but must be the output's shape [1,2,2,3]"),
              std::string::npos)
        << out.status();
  }
  c.cin = 0;
  const std::vector<float> rv = {1, -1, 0, -3, 0.5f, 0.25f, 0, 0, 0, 2, -2, -2};
  StatusOr<std::vector<Tensor>> out = RunFused(
      c, e, Tensor(DT_FLOAT, TensorShape({1, 2, 2, 0})),
      AsTensor<float>(std::vector<float>(27, 1), TensorShape({3, 3, 1, 3})),
      bias, 0, AsTensor<float>(rv, TensorShape({1, 2, 2, 3})));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0],
                    AsTensor<float>({0, 0, 2, 0, 1, 2.25f, 0, 0.5f, 2, 1, 0, 0},
                                    TensorShape({1, 2, 2, 3})));
}

// NaN and Inf in a patch reach the outputs whose windows hold them, through
// the bias and Relu (NaN passes through Relu) on the gathered path and the
// strided 1x1 one.
TEST(SharedConv2DTest, NanAndInfPropagateThroughTheEpilogue) {
  const Epilogue relu = Epilogues()[3];  // bias_relu
  Case c;
  c.h = c.w = 3, c.cin = 1, c.kh = c.kw = 2, c.cout = 1, c.padding = "VALID";
  std::vector<float> x(9, 1.0f);
  x[0] = NAN;
  x[8] = INFINITY;
  const Tensor bias = AsTensor<float>({-5}, TensorShape({1}));
  StatusOr<std::vector<Tensor>> out = RunFused(
      c, relu, AsTensor<float>(x, TensorShape({1, 3, 3, 1})),
      AsTensor<float>({1, 1, 1, 1}, TensorShape({2, 2, 1, 1})), bias, 0);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>({NAN, 0, 0, INFINITY},
                                               TensorShape({1, 2, 2, 1})));
  c.kh = c.kw = 1, c.sh = c.sw = 2;
  out = RunFused(c, relu, AsTensor<float>(x, TensorShape({1, 3, 3, 1})),
                 AsTensor<float>({1}, TensorShape({1, 1, 1, 1})), bias, 0);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>({NAN, 0, 0, INFINITY},
                                               TensorShape({1, 2, 2, 1})));
}

// Narrow groups are multiplied several at a time through a block-diagonal
// filter; an infinite or NaN input still reaches only its own group's
// outputs (its zeros would make NaNs of the others), on the gathered path
// (2 output columns) and the one reading the input in place (9).
TEST(SharedConv2DTest, NonFiniteInputsStayInTheirGroup) {
  for (int64_t w : {3, 10}) {
    SCOPED_TRACE(w);
    Case c;
    c.h = 3, c.w = w, c.cin = c.cout = 8, c.groups = 4, c.kh = c.kw = 2,
    c.padding = "VALID";
    std::vector<float> x(3 * w * 8, 1.0f);
    x[0] = INFINITY;           // pixel (0, 0), channel 0: group 0
    x[(w + 1) * 8 + 5] = NAN;  // pixel (1, 1), channel 5: group 2
    const Tensor f = AsTensor<float>(std::vector<float>(2 * 2 * 2 * 8, 1.0f),
                                     TensorShape({2, 2, 2, 8}));
    const int64_t ow = w - 1;
    std::vector<float> want(2 * ow * 8, 8.0f);
    want[0] = want[1] = INFINITY;  // output (0, 0), group 0
    for (int64_t p : {int64_t{0}, int64_t{1}, ow, ow + 1}) {
      want[p * 8 + 4] = want[p * 8 + 5] = NAN;  // the windows over (1, 1)
    }
    for (int threads : {0, 2}) {
      StatusOr<std::vector<Tensor>> out =
          OpRunner("Conv2D", c.Attrs(), threads)
              .Run({AsTensor<float>(x, TensorShape({1, 3, w, 8})), f});
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectTensorEqual((*out)[0],
                        AsTensor<float>(want, TensorShape({1, 2, ow, 8})));
    }
  }
}

}  // namespace cpu_conv2d_test
}  // namespace weft
