// _FusedSeparableConv2D (kernels/cpu/separable_conv.h) against the two
// kernels it stands for, _FusedDepthwiseConv2dNative and then _FusedConv2D
// with a 1x1 filter, _FusedExpandSeparableConv2D against the three (a 1x1
// _FusedConv2D first) and _FusedExpandDepthwiseConv2dNative against the
// expansion and the depthwise kernel: the same bits for every shape,
// window, padding,
// epilogue and thread count, whether the depthwise output is computed whole
// (small layers), band by band (beyond 2^17 floats, or an expansion
// beyond that) or not at all (a 1x1 window: the product's prologue), NaN and
// infinities included; empty shapes; and clear
// errors for the operands they do not take. Here the 1x1 filters are
// ordinary inputs, packed per call; the constants packed once are
// tests/executor/separable_fusion_test.cc's.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace {

using test::ExpectTensorEqual;
using test::OpRunner;

Tensor Random(const TensorShape& shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

struct Case {
  int64_t n, h, w, c, m, k;
  int64_t stride = 1;
  const char* padding = "SAME";
  std::vector<std::string> depthwise_ops = {"BiasAdd", "Relu6"};
  std::vector<std::string> pointwise_ops = {"BiasAdd"};
  int window = 3;
  // With x > 0, an expansion from x channels to c first (the input has x).
  int64_t x = 0;
  std::vector<std::string> expand_ops = {"BiasAdd", "Relu6"};
  int64_t dilation = 1;
  // Rows before and after, columns before and after, for padding EXPLICIT.
  std::vector<int64_t> pads = {0, 0, 0, 0};
  // False (with an expansion): no 1x1 product after the depthwise
  // convolution, _FusedExpandDepthwiseConv2dNative.
  bool pointwise = true;
};

std::string CaseName(const Case& c) {
  return absl::StrCat(
      c.n, "x", c.h, "x", c.w, "x", c.x > 0 ? absl::StrCat(c.x, "->") : "", c.c,
      " M", c.m, " K", c.k, " s", c.stride, " d", c.dilation, " ", c.padding,
      " [", absl::StrJoin(c.pads, ","), "] ", c.window, "x", c.window, " ex[",
      absl::StrJoin(c.expand_ops, ","), "] dw[",
      absl::StrJoin(c.depthwise_ops, ","), "] ",
      c.pointwise
          ? absl::StrCat("pw[", absl::StrJoin(c.pointwise_ops, ","), "]")
          : "no pw");
}

// The operands of a case: input, the filters, then the expansion's, the
// depthwise and the pointwise args as the fused ops list them.
struct Operands {
  Tensor input, expand, depthwise, pointwise;
  std::vector<Tensor> expand_args, depthwise_args, pointwise_args;
};

// The output shape of the depthwise half.
TensorShape DepthwiseShape(const Case& c) {
  const int64_t reach = (c.window - 1) * c.dilation + 1;
  auto out = [&](int64_t size, int64_t pad) {
    return std::string(c.padding) == "SAME"
               ? (size + c.stride - 1) / c.stride
               : (size + pad - reach + c.stride) / c.stride;
  };
  const bool explicit_pads = std::string(c.padding) == "EXPLICIT";
  return TensorShape({c.n, out(c.h, explicit_pads ? c.pads[0] + c.pads[1] : 0),
                      out(c.w, explicit_pads ? c.pads[2] + c.pads[3] : 0),
                      c.c * c.m});
}

Operands Make(const Case& c, unsigned seed) {
  Operands o;
  o.input = Random(TensorShape({c.n, c.h, c.w, c.x > 0 ? c.x : c.c}), seed);
  if (c.x > 0) {
    o.expand = Random(TensorShape({1, 1, c.x, c.c}), seed + 6);
    for (const std::string& op : c.expand_ops) {
      if (op == "BiasAdd") {
        o.expand_args.push_back(Random(TensorShape({c.c}), seed + 7));
      }
    }
  }
  o.depthwise = Random(TensorShape({c.window, c.window, c.c, c.m}), seed + 1);
  o.pointwise = Random(TensorShape({1, 1, c.c * c.m, c.k}), seed + 2);
  for (const std::string& op : c.depthwise_ops) {
    if (op == "BiasAdd") {
      o.depthwise_args.push_back(Random(TensorShape({c.c * c.m}), seed + 3));
    }
  }
  for (const std::string& op : c.pointwise_ops) {
    if (op == "BiasAdd") {
      o.pointwise_args.push_back(Random(TensorShape({c.k}), seed + 4));
    } else if (op == "Add") {
      const TensorShape d = DepthwiseShape(c);
      o.pointwise_args.push_back(Random(
          TensorShape({d.dim_size(0), d.dim_size(1), d.dim_size(2), c.k}),
          seed + 5));
    }
  }
  return o;
}

AttrMap WindowAttrMap(const Case& c) {
  AttrMap a;
  a["strides"] = AttrValue::IntList({1, c.stride, c.stride, 1});
  a["dilations"] = AttrValue::IntList({1, c.dilation, c.dilation, 1});
  a["padding"] = AttrValue::String(c.padding);
  if (std::string(c.padding) == "EXPLICIT") {
    a["explicit_paddings"] = AttrValue::IntList(
        {0, 0, c.pads[0], c.pads[1], c.pads[2], c.pads[3], 0, 0});
  }
  return a;
}

// The separate kernels.
StatusOr<Tensor> Separately(const Case& c, const Operands& o, int threads) {
  Tensor x = o.input;
  if (c.x > 0) {
    AttrMap e;
    e["strides"] = AttrValue::IntList({1, 1, 1, 1});
    e["padding"] = AttrValue::String("VALID");
    e["fused_ops"] = AttrValue::StringList(c.expand_ops);
    e["num_args"] = AttrValue::Int(static_cast<int64_t>(o.expand_args.size()));
    std::vector<Tensor> in = {o.input, o.expand};
    in.insert(in.end(), o.expand_args.begin(), o.expand_args.end());
    OpRunner expand("_FusedConv2D", e, threads);
    WEFT_ASSIGN_OR_RETURN(std::vector<Tensor> expanded, expand.Run(in));
    x = expanded[0];
  }
  AttrMap d = WindowAttrMap(c);
  d["fused_ops"] = AttrValue::StringList(c.depthwise_ops);
  d["num_args"] = AttrValue::Int(static_cast<int64_t>(o.depthwise_args.size()));
  std::vector<Tensor> in = {x, o.depthwise};
  in.insert(in.end(), o.depthwise_args.begin(), o.depthwise_args.end());
  OpRunner depthwise("_FusedDepthwiseConv2dNative", d, threads);
  WEFT_ASSIGN_OR_RETURN(std::vector<Tensor> mid, depthwise.Run(in));
  if (!c.pointwise) return mid[0];
  AttrMap p;
  p["strides"] = AttrValue::IntList({1, 1, 1, 1});
  p["padding"] = AttrValue::String("VALID");
  p["fused_ops"] = AttrValue::StringList(c.pointwise_ops);
  p["num_args"] = AttrValue::Int(static_cast<int64_t>(o.pointwise_args.size()));
  in = {mid[0], o.pointwise};
  in.insert(in.end(), o.pointwise_args.begin(), o.pointwise_args.end());
  OpRunner pointwise("_FusedConv2D", p, threads);
  WEFT_ASSIGN_OR_RETURN(std::vector<Tensor> out, pointwise.Run(in));
  return out[0];
}

StatusOr<Tensor> Fused(const Case& c, const Operands& o, int threads,
                       AttrMap extra = {}) {
  if (!c.pointwise) {
    // The expansion and the depthwise convolution: its epilogue unprefixed.
    AttrMap a = WindowAttrMap(c);
    a["expand_fused_ops"] = AttrValue::StringList(c.expand_ops);
    a["num_expand_args"] =
        AttrValue::Int(static_cast<int64_t>(o.expand_args.size()));
    a["fused_ops"] = AttrValue::StringList(c.depthwise_ops);
    a["num_args"] =
        AttrValue::Int(static_cast<int64_t>(o.depthwise_args.size()));
    for (auto& [key, value] : extra) a[key] = value;
    std::vector<Tensor> in = {o.input, o.expand, o.depthwise};
    in.insert(in.end(), o.expand_args.begin(), o.expand_args.end());
    in.insert(in.end(), o.depthwise_args.begin(), o.depthwise_args.end());
    OpRunner runner("_FusedExpandDepthwiseConv2dNative", a, threads);
    WEFT_ASSIGN_OR_RETURN(std::vector<Tensor> out, runner.Run(in));
    return out[0];
  }
  AttrMap a = WindowAttrMap(c);
  a["depthwise_fused_ops"] = AttrValue::StringList(c.depthwise_ops);
  a["num_depthwise_args"] =
      AttrValue::Int(static_cast<int64_t>(o.depthwise_args.size()));
  a["fused_ops"] = AttrValue::StringList(c.pointwise_ops);
  a["num_args"] = AttrValue::Int(static_cast<int64_t>(o.pointwise_args.size()));
  std::vector<Tensor> in = {o.input, o.depthwise, o.pointwise};
  if (c.x > 0) {
    a["expand_fused_ops"] = AttrValue::StringList(c.expand_ops);
    a["num_expand_args"] =
        AttrValue::Int(static_cast<int64_t>(o.expand_args.size()));
    in.insert(in.begin() + 1, o.expand);
    in.insert(in.end(), o.expand_args.begin(), o.expand_args.end());
  }
  for (auto& [key, value] : extra) a[key] = value;
  in.insert(in.end(), o.depthwise_args.begin(), o.depthwise_args.end());
  in.insert(in.end(), o.pointwise_args.begin(), o.pointwise_args.end());
  OpRunner runner(
      c.x > 0 ? "_FusedExpandSeparableConv2D" : "_FusedSeparableConv2D", a,
      threads);
  WEFT_ASSIGN_OR_RETURN(std::vector<Tensor> out, runner.Run(in));
  return out[0];
}

// Small layers (computed whole) and large ones (banded: the depthwise output
// beyond 2^17 floats; in groups on one thread when the 1x1 filter has 2^18
// floats or more), with channel tails on every vector path, a multiplier,
// stride 2, VALID, 5x5, and every epilogue on either side.
std::vector<Case> Cases() {
  std::vector<Case> cases = {
      {1, 7, 9, 13, 1, 21},
      {2, 6, 5, 8, 2, 3, 2, "VALID"},
      {1, 12, 10, 32, 1, 16, 1, "SAME", {}, {}},
      {2, 40, 40, 48, 1, 24},  // banded: 153600 floats, 80 rows
      // A 1x1 filter of 2^18 floats: 16 bands, in 4 groups of 4 on one
      // thread.
      {1, 40, 40, 512, 1, 512, 1, "SAME", {"Relu"}, {"BiasAdd"}},
      {1, 61, 47, 51, 1, 37, 1, "SAME", {"Relu"}, {"BiasAdd", "Add", "Relu"}},
      {3, 33, 30, 24, 2, 40, 2, "SAME", {"BiasAdd", "Elu"}, {"LeakyRelu"}},
      {2,
       40,
       40,
       48,
       1,
       24,
       1,
       "SAME",
       {"BiasAdd", "Swish"},
       {"BiasAdd", "Swish"}},
      {1, 45, 45, 70, 1, 17, 1, "VALID", {"LeakyRelu"}, {"Add", "Relu6"}, 5},
      // 1024 channels (input rows read from copies): bands of 3 rows over
      // two images, a thread's later bands reusing its earlier bands'
      // copies.
      {2, 12, 17, 1024, 1, 16},
  };
  Case dilated_1024{1, 20, 9, 1024, 1, 8, 1, "SAME", {"Relu"}, {}};
  dilated_1024.dilation = 2;
  cases.push_back(dilated_1024);
  // 1x1 depthwise windows at unit strides, one output per channel (a
  // batch normalization standing alone before a 1x1 convolution), which go
  // as the product with a prologue when their epilogue allows: channel tails
  // (13, 300, 520), k beyond one k block of the product (300, 520, 1024),
  // few rows (4 and 3 pixels: the few-row products), more than 2048 output
  // channels (two n blocks), SAME, no epilogue, a residual after the
  // product; and the ones that do not take a prologue (Elu, LeakyRelu, a
  // multiplier of 2).
  auto scale = [](Case c) {
    c.window = 1;
    return c;
  };
  for (const Case& c : {
           scale({1, 7, 9, 13, 1, 21, 1, "VALID", {"BiasAdd", "Relu"}}),
           scale({8,
                  14,
                  14,
                  300,
                  1,
                  128,
                  1,
                  "VALID",
                  {"BiasAdd", "Relu"},
                  {"BiasAdd", "Relu"}}),
           scale({1, 2, 2, 520, 1, 40, 1, "SAME", {"Relu6"}, {}}),
           scale({1, 1, 3, 64, 1, 2100, 1, "VALID", {"BiasAdd"}, {"BiasAdd"}}),
           scale({2, 10, 11, 1024, 1, 32, 1, "VALID", {}, {"Add", "Relu"}}),
           scale({2, 17, 5, 96, 1, 40, 1, "VALID", {"BiasAdd", "Elu"}}),
           scale({1, 9, 9, 40, 1, 24, 1, "VALID", {"LeakyRelu"}}),
           scale({2, 8, 8, 24, 2, 16, 1, "VALID", {"BiasAdd", "Relu"}}),
       }) {
    cases.push_back(c);
  }
  // With an expansion: whole (small) and banded (the expansion or the
  // depthwise output beyond 2^17 floats), bands of one image at batch 1 and
  // 3 (a batch that is not a multiple of 4), MobileNetV2's stride-2 block
  // with its Pad folded (EXPLICIT), SAME at both strides, VALID, a
  // dilation, a multiplier, a 5x5 window, paddings so wide that whole bands
  // read only padding, and every epilogue on each of the three.
  auto expanded = [](Case c, int64_t x,
                     std::vector<std::string> ops = {"BiasAdd", "Relu6"}) {
    c.x = x;
    c.expand_ops = std::move(ops);
    return c;
  };
  Case mobilenet_v2{2, 48, 48, 96, 1, 24, 2, "EXPLICIT"};
  mobilenet_v2.pads = {0, 1, 0, 1};
  Case dilated{1, 50, 44, 40, 1, 24, 1, "SAME", {"BiasAdd", "Relu"}};
  dilated.dilation = 2;
  Case padded{1, 20, 23, 96, 1, 20, 1, "EXPLICIT", {"BiasAdd"}, {"Relu"}};
  padded.pads = {30, 41, 2, 5};
  Case tall_window{3, 37, 29, 144, 1, 32, 2, "SAME", {"HardSwish"}};
  tall_window.window = 5;
  for (const Case& c : {
           expanded({1, 7, 9, 13, 1, 21}, 5),
           expanded({2, 6, 5, 8, 2, 3, 2, "VALID"}, 3, {"Relu"}),
           expanded(mobilenet_v2, 16),
           expanded({1, 48, 48, 96, 1, 24, 2, "SAME"}, 16),
           expanded({1,
                     60,
                     52,
                     48,
                     1,
                     24,
                     1,
                     "SAME",
                     {"BiasAdd", "Relu6"},
                     {"BiasAdd", "Add"}},
                    24, {"BiasAdd", "Swish"}),
           expanded({3, 30, 31, 64, 2, 40, 2, "VALID", {"Elu"}, {"BiasAdd"}}, 7,
                    {"LeakyRelu"}),
           expanded(dilated, 12, {"BiasAdd", "HardSwish"}),
           expanded(padded, 9, {"BiasAdd", "Elu"}),
           expanded(tall_window, 24, {}),
       }) {
    cases.push_back(c);
    // And without the 1x1 product after it.
    cases.push_back(c);
    cases.back().pointwise = false;
  }
  return cases;
}

TEST(SeparableConvTest, EqualsTheTwoKernelsBitForBit) {
  unsigned seed = 10;
  for (const Case& c : Cases()) {
    SCOPED_TRACE(CaseName(c));
    const Operands o = Make(c, seed += 10);
    StatusOr<Tensor> want = Separately(c, o, 0);
    ASSERT_TRUE(want.ok()) << want.status();
    for (int threads : {0, 1, 2, 3, 4}) {
      StatusOr<Tensor> got = Fused(c, o, threads);
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_EQ(got->shape(), want->shape()) << "threads " << threads;
      ASSERT_EQ(std::memcmp(got->data<float>(), want->data<float>(),
                            sizeof(float) * got->NumElements()),
                0)
          << "threads " << threads;
    }
  }
}

// A NaN or an infinity in the input reaches the outputs the two kernels let
// it reach, in both the whole and the banded computation.
TEST(SeparableConvTest, NanAndInfinitiesAsTheTwoKernels) {
  Case small_expanded{1, 9, 8, 16, 1, 8};
  small_expanded.x = 4;
  Case banded_expanded{2, 40, 40, 48, 1, 24, 2};
  banded_expanded.x = 8;
  Case banded_alone = banded_expanded;
  banded_alone.pointwise = false;
  Case scale{4, 12, 12, 96, 1, 24, 1, "VALID", {"BiasAdd", "Relu"}};
  scale.window = 1;
  for (Case c : {Case{1, 9, 8, 16, 1, 8}, Case{2, 40, 40, 48, 1, 24},
                 small_expanded, banded_expanded, banded_alone, scale}) {
    SCOPED_TRACE(CaseName(c));
    Operands o = Make(c, 77);
    float* x = o.input.data<float>();
    x[5] = std::numeric_limits<float>::quiet_NaN();
    x[o.input.NumElements() / 2] = std::numeric_limits<float>::infinity();
    x[o.input.NumElements() - 3] = -std::numeric_limits<float>::infinity();
    StatusOr<Tensor> want = Separately(c, o, 2);
    StatusOr<Tensor> got = Fused(c, o, 2);
    ASSERT_TRUE(want.ok() && got.ok());
    int nan = 0;
    for (int64_t i = 0; i < want->NumElements(); ++i) {
      nan += std::isnan(want->data<float>()[i]);
    }
    EXPECT_GT(nan, 0);  // the case does reach some outputs
    ExpectTensorEqual(*got, *want);
  }
}

TEST(SeparableConvTest, EmptyShapes) {
  // No images, no output channels or no rows: an empty output, as the
  // separate kernels give.
  Case no_rows{1, 0, 5, 8, 1, 4, 1, "VALID"};
  no_rows.window = 1;
  std::vector<Case> cases = {Case{0, 5, 5, 8, 1, 4}, Case{1, 5, 5, 8, 1, 0},
                             no_rows};
  for (int i = 0; i < 3; ++i) {
    for (bool pointwise : {true, false}) {
      cases.push_back(cases[i]);
      cases.back().x = 3;
      cases.back().pointwise = pointwise;
    }
  }
  for (Case c : cases) {
    SCOPED_TRACE(CaseName(c));
    c.pointwise_ops = {"BiasAdd", "Relu"};
    const Operands o = Make(c, 5);
    StatusOr<Tensor> want = Separately(c, o, 2);
    StatusOr<Tensor> got = Fused(c, o, 2);
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectTensorEqual(*got, *want);
  }
  // No input channels: the 1x1 convolution refuses its filter, both apart
  // and fused.
  const Case c{1, 5, 5, 0, 1, 4};
  const Operands o = Make(c, 6);
  StatusOr<Tensor> apart = Separately(c, o, 0);
  StatusOr<Tensor> fused = Fused(c, o, 0);
  ASSERT_FALSE(apart.ok());
  ASSERT_FALSE(fused.ok());
  EXPECT_NE(std::string(fused.status().message()).find("(not 0)"),
            std::string::npos)
      << fused.status();
}

// The fused kernel of case `c` refuses operands `o` (with attrs `extra`)
// with an error that says `words`.
void ExpectError(const Case& c, const Operands& o, const std::string& words,
                 AttrMap extra = {}) {
  StatusOr<Tensor> got = Fused(c, o, 0, std::move(extra));
  ASSERT_FALSE(got.ok()) << words;
  EXPECT_NE(std::string(got.status().message()).find(words), std::string::npos)
      << got.status();
}

TEST(SeparableConvTest, OperandsItDoesNotTakeAreErrors) {
  const Case c{1, 6, 6, 8, 1, 4};
  Operands o = Make(c, 3);
  o.pointwise = Random(TensorShape({3, 3, 8, 4}), 4);
  ExpectError(c, o, "must be a float [1, 1, 8, K]");
  o = Make(c, 3);
  o.pointwise = Random(TensorShape({1, 1, 7, 4}), 4);
  ExpectError(c, o, "must be a float [1, 1, 8, K]");
  o = Make(c, 3);
  o.depthwise_args[0] = Random(TensorShape({5}), 4);
  ExpectError(c, o, "bias (input 3)");
  o = Make(c, 3);
  o.pointwise_args[0] = Random(TensorShape({5}), 4);
  ExpectError(c, o, "bias (input 4)");
  ExpectError(c, Make(c, 3), "NHWC",
              {{"data_format", AttrValue::String("NCHW")}});
  Case tanh = c;
  tanh.depthwise_ops = {"Tanh"};
  ExpectError(c, Make(tanh, 3), "depthwise_fused_ops [Tanh] is not supported",
              {{"depthwise_fused_ops", AttrValue::StringList({"Tanh"})}});
}

TEST(SeparableConvTest, ExpansionOperandsItDoesNotTakeAreErrors) {
  Case c{1, 6, 6, 8, 1, 4};
  c.x = 5;
  Operands o = Make(c, 3);
  o.expand = Random(TensorShape({1, 1, 4, 8}), 4);
  ExpectError(c, o, "expansion filter (input 1) has shape [1,1,4,8]");
  o = Make(c, 3);
  o.expand = Random(TensorShape({3, 1, 5, 8}), 4);
  ExpectError(c, o, "must be a float [1, 1, 5, K]");
  o = Make(c, 3);
  o.input = Random(TensorShape({6, 6, 5}), 4);
  ExpectError(c, o, "must be 4-D");
  o = Make(c, 3);
  o.expand_args[0] = Random(TensorShape({5}), 4);
  ExpectError(c, o, "bias (input 4)");
  o = Make(c, 3);
  o.depthwise_args[0] = Random(TensorShape({5}), 4);
  ExpectError(c, o, "bias (input 5)");
  o = Make(c, 3);
  o.pointwise = Random(TensorShape({1, 1, 7, 4}), 4);
  ExpectError(c, o, "pointwise filter (input 3)");
  // Without the 1x1 product: the depthwise bias comes right after the
  // expansion's.
  c.pointwise = false;
  o = Make(c, 3);
  o.depthwise_args[0] = Random(TensorShape({5}), 4);
  ExpectError(c, o, "bias (input 4)");
  o = Make(c, 3);
  o.expand_args[0] = Random(TensorShape({5}), 4);
  ExpectError(c, o, "bias (input 3)");
  o = Make(c, 3);
  o.expand = Random(TensorShape({1, 1, 4, 8}), 4);
  ExpectError(c, o, "expansion filter (input 1) has shape [1,1,4,8]");
  c.pointwise = true;
  // An expansion without input channels, as the 1x1 convolution refuses.
  Case empty = c;
  empty.x = 1;
  o = Make(empty, 3);
  o.input = Tensor(DT_FLOAT, TensorShape({1, 6, 6, 0}));
  o.expand = Tensor(DT_FLOAT, TensorShape({1, 1, 0, 8}));
  ExpectError(c, o, "(not 0)");
}

}  // namespace
}  // namespace weft
