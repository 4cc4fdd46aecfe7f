// _FusedSeparableConv2D (kernels/cpu/separable_conv.h) against the two
// kernels it stands for, _FusedDepthwiseConv2dNative and then _FusedConv2D
// with a 1x1 filter: the same bits for every shape, epilogue and thread
// count, whether the depthwise output is computed whole (small layers) or
// band by band (beyond 2^17 floats), NaN and infinities included; empty
// shapes; and clear errors for the operands it does not take. Here the
// pointwise filter is an ordinary input, packed per call; the constant one
// packed once is tests/executor/separable_fusion_test.cc's.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
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
};

std::string Name(const Case& c) {
  return absl::StrCat(c.n, "x", c.h, "x", c.w, "x", c.c, " M", c.m, " K", c.k,
                      " s", c.stride, " ", c.padding, " ", c.window, "x",
                      c.window, " dw[", absl::StrJoin(c.depthwise_ops, ","),
                      "] pw[", absl::StrJoin(c.pointwise_ops, ","), "]");
}

// The operands of a case: input, both filters, then the depthwise args and
// the pointwise args as the fused ops list them.
struct Operands {
  Tensor input, depthwise, pointwise;
  std::vector<Tensor> depthwise_args, pointwise_args;
};

// The output shape of the depthwise half.
TensorShape DepthwiseShape(const Case& c) {
  auto out = [&](int64_t size) {
    return std::string(c.padding) == "SAME"
               ? (size + c.stride - 1) / c.stride
               : (size - c.window + c.stride) / c.stride;
  };
  return TensorShape({c.n, out(c.h), out(c.w), c.c * c.m});
}

Operands Make(const Case& c, unsigned seed) {
  Operands o;
  o.input = Random(TensorShape({c.n, c.h, c.w, c.c}), seed);
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

AttrMap WindowAttrs(const Case& c) {
  AttrMap a;
  a["strides"] = AttrValue::IntList({1, c.stride, c.stride, 1});
  a["padding"] = AttrValue::String(c.padding);
  return a;
}

// The two separate kernels.
StatusOr<Tensor> Separately(const Case& c, const Operands& o, int threads) {
  AttrMap d = WindowAttrs(c);
  d["fused_ops"] = AttrValue::StringList(c.depthwise_ops);
  d["num_args"] = AttrValue::Int(static_cast<int64_t>(o.depthwise_args.size()));
  std::vector<Tensor> in = {o.input, o.depthwise};
  in.insert(in.end(), o.depthwise_args.begin(), o.depthwise_args.end());
  OpRunner depthwise("_FusedDepthwiseConv2dNative", d, threads);
  WEFT_ASSIGN_OR_RETURN(std::vector<Tensor> mid, depthwise.Run(in));
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
  AttrMap a = WindowAttrs(c);
  a["depthwise_fused_ops"] = AttrValue::StringList(c.depthwise_ops);
  a["num_depthwise_args"] =
      AttrValue::Int(static_cast<int64_t>(o.depthwise_args.size()));
  a["fused_ops"] = AttrValue::StringList(c.pointwise_ops);
  a["num_args"] = AttrValue::Int(static_cast<int64_t>(o.pointwise_args.size()));
  for (auto& [key, value] : extra) a[key] = value;
  std::vector<Tensor> in = {o.input, o.depthwise, o.pointwise};
  in.insert(in.end(), o.depthwise_args.begin(), o.depthwise_args.end());
  in.insert(in.end(), o.pointwise_args.begin(), o.pointwise_args.end());
  OpRunner runner("_FusedSeparableConv2D", a, threads);
  WEFT_ASSIGN_OR_RETURN(std::vector<Tensor> out, runner.Run(in));
  return out[0];
}

// Small layers (computed whole) and large ones (banded: the depthwise output
// beyond 2^17 floats), with channel tails on every vector path, a
// multiplier, stride 2, VALID, 5x5, and every epilogue on either side.
std::vector<Case> Cases() {
  std::vector<Case> cases = {
      {1, 7, 9, 13, 1, 21},
      {2, 6, 5, 8, 2, 3, 2, "VALID"},
      {1, 12, 10, 32, 1, 16, 1, "SAME", {}, {}},
      {2, 40, 40, 48, 1, 24},  // banded: 153600 floats, 80 rows
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
  };
  return cases;
}

TEST(SeparableConvTest, EqualsTheTwoKernelsBitForBit) {
  unsigned seed = 10;
  for (const Case& c : Cases()) {
    SCOPED_TRACE(Name(c));
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
  for (Case c : {Case{1, 9, 8, 16, 1, 8}, Case{2, 40, 40, 48, 1, 24}}) {
    SCOPED_TRACE(Name(c));
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
  // No images, or no output channels: an empty output, as the two kernels
  // give.
  for (Case c : {Case{0, 5, 5, 8, 1, 4}, Case{1, 5, 5, 8, 1, 0}}) {
    SCOPED_TRACE(Name(c));
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

TEST(SeparableConvTest, OperandsItDoesNotTakeAreErrors) {
  const Case c{1, 6, 6, 8, 1, 4};
  auto expect_error = [&](Operands o, const std::string& words,
                          AttrMap extra = {}) {
    StatusOr<Tensor> got = Fused(c, o, 0, extra);
    ASSERT_FALSE(got.ok()) << words;
    EXPECT_NE(std::string(got.status().message()).find(words),
              std::string::npos)
        << got.status();
  };
  Operands o = Make(c, 3);
  o.pointwise = Random(TensorShape({3, 3, 8, 4}), 4);
  expect_error(o, "must be a float [1, 1, 8, K]");
  o = Make(c, 3);
  o.pointwise = Random(TensorShape({1, 1, 7, 4}), 4);
  expect_error(o, "must be a float [1, 1, 8, K]");
  o = Make(c, 3);
  o.depthwise_args[0] = Random(TensorShape({5}), 4);
  expect_error(o, "bias (input 3)");
  o = Make(c, 3);
  o.pointwise_args[0] = Random(TensorShape({5}), 4);
  expect_error(o, "bias (input 4)");
  expect_error(Make(c, 3), "NHWC",
               {{"data_format", AttrValue::String("NCHW")}});
  Case tanh = c;
  tanh.depthwise_ops = {"Tanh"};
  expect_error(Make(tanh, 3), "depthwise_fused_ops [Tanh] is not supported",
               {{"depthwise_fused_ops", AttrValue::StringList({"Tanh"})}});
}

}  // namespace
}  // namespace weft
