// The filter-cropping rule alone (executor/optimizer/filter_crop_rule.h): a
// Conv2D whose window overhangs a small input gets the filter taps that
// read the input and explicit paddings that keep its outputs; the values
// match a direct evaluation of the convolution and the unoptimized graph.
// Filters every tap of which reads the input, and filters another node
// also reads, stay.
#include "executor/optimizer/filter_crop_rule.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "gtest/gtest.h"
#include "tests/executor/rewrite_rule_testutil.h"

namespace weft {
namespace filter_crop_rule_test {
namespace {

using rewrite_rule_test::ExpectNear;
using rewrite_rule_test::FindNode;
using rewrite_rule_test::FloatConstText;
using rewrite_rule_test::FloatPlaceholderText;
using rewrite_rule_test::GraphFromText;
using rewrite_rule_test::RunOptimized;
using rewrite_rule_test::RunRule;
using rewrite_rule_test::RunUnoptimized;
using rewrite_rule_test::Values;

// A Placeholder x of [n, h, w, c].
std::string Input(int64_t n, int64_t h, int64_t w, int64_t c) {
  return FloatPlaceholderText("x", TensorShape({n, h, w, c}));
}

// Conv2D `name` of `input` by filter `filter`, SAME, strides sh and sw.
std::string Conv(const std::string& name, const std::string& input,
                 const std::string& filter, int sh, int sw) {
  return absl::Substitute(R"pb(
                            node {
                              name: "$0"
                              op: "Conv2D"
                              input: "$1"
                              input: "$2"
                              attr {
                                key: "T"
                                value { type: DT_FLOAT }
                              }
                              attr {
                                key: "strides"
                                value { list { i: 1 i: $3 i: $4 i: 1 } }
                              }
                              attr {
                                key: "padding"
                                value { s: "SAME" }
                              }
                            }
                          )pb",
                          name, input, filter, sh, sw);
}

std::vector<int64_t> IntList(const Node* n, const std::string& attr) {
  std::vector<int64_t> v;
  EXPECT_TRUE(GetNodeAttr(n->attrs(), attr, &v).ok()) << attr;
  return v;
}

// SAME convolution of x [1, h, w, c] by f [kh, kw, c, k] at strides s,
// in double, straight from its definition (TensorFlow's padding split).
std::vector<double> Direct(const Tensor& x, const Tensor& f, int s) {
  const int64_t h = x.dim_size(1), w = x.dim_size(2), c = x.dim_size(3);
  const int64_t kh = f.dim_size(0), kw = f.dim_size(1), k = f.dim_size(3);
  const int64_t oh = (h + s - 1) / s, ow = (w + s - 1) / s;
  const int64_t top = std::max<int64_t>(0, (oh - 1) * s + kh - h) / 2;
  const int64_t left = std::max<int64_t>(0, (ow - 1) * s + kw - w) / 2;
  std::vector<double> out(oh * ow * k, 0.0);
  for (int64_t i = 0; i < oh; ++i) {
    for (int64_t j = 0; j < ow; ++j) {
      for (int64_t o = 0; o < k; ++o) {
        double sum = 0;
        for (int64_t a = 0; a < kh; ++a) {
          for (int64_t b = 0; b < kw; ++b) {
            const int64_t y = i * s - top + a, z = j * s - left + b;
            if (y < 0 || y >= h || z < 0 || z >= w) continue;
            for (int64_t ci = 0; ci < c; ++ci) {
              sum += double(x.data<float>()[(y * w + z) * c + ci]) *
                     f.data<float>()[((a * kw + b) * c + ci) * k + o];
            }
          }
        }
        out[(i * ow + j) * k + o] = sum;
      }
    }
  }
  return out;
}

void ExpectDirect(const Tensor& got, const std::vector<double>& want) {
  ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got.data<float>()[i], want[i], 1e-5 * (1 + std::abs(want[i])))
        << i;
  }
}

struct Case {
  const char* name;
  int64_t h, w, kh, kw;
  int stride;
  int64_t kept_h, kept_w;         // taps left
  std::vector<int64_t> paddings;  // explicit_paddings after
};

TEST(FilterCropRuleTest, OverhangingTapsGo) {
  const std::vector<Case> cases = {
      // InceptionV3's late layers at 96x96: 1x1 maps.
      {"3x3_on_1x1", 1, 1, 3, 3, 1, 1, 1, {0, 0, 0, 0, 0, 0, 0, 0}},
      {"1x3_on_1x1", 1, 1, 1, 3, 1, 1, 1, {0, 0, 0, 0, 0, 0, 0, 0}},
      {"3x1_on_1x1", 1, 1, 3, 1, 1, 1, 1, {0, 0, 0, 0, 0, 0, 0, 0}},
      // 2x2 input, 5x5 window: outputs 0 and 1 read taps 2-3 and 1-2.
      {"5x5_on_2x2", 2, 2, 5, 5, 1, 3, 3, {0, 0, 1, 1, 1, 1, 0, 0}},
      // Stride 2 on 1 row: one output reading tap 1 only; the 7 columns
      // at stride 2 give 4 outputs reading taps 0-2 (edges) and 1-2.
      {"3x3_stride2_on_1x7", 1, 7, 3, 3, 2, 1, 3, {0, 0, 0, 0, 1, 1, 0, 0}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const int64_t channels = 3, out = 4;
    const Tensor f = Values(TensorShape({c.kh, c.kw, channels, out}), -1, 1, 7);
    auto g = GraphFromText(
        absl::StrCat(Input(1, c.h, c.w, channels), FloatConstText("f", f),
                     Conv("conv", "x", "f", c.stride, c.stride)));
    ASSERT_NE(g, nullptr);
    const Tensor x = Values(TensorShape({1, c.h, c.w, channels}), -2, 2, 3);
    FilterCropRule rule;
    EXPECT_EQ(rule.name(), "filter_crop");
    auto optimized = RunRule(rule, *g, {{"x", x}}, {"conv"});
    ASSERT_NE(optimized, nullptr);
    EXPECT_EQ(optimized->stats().cropped_filters, 1);
    const Node* conv = FindNode(*optimized, "conv");
    ASSERT_NE(conv, nullptr);
    std::string padding;
    ASSERT_TRUE(GetNodeAttr(conv->attrs(), "padding", &padding).ok());
    EXPECT_EQ(padding, "EXPLICIT");
    EXPECT_EQ(IntList(conv, "explicit_paddings"), c.paddings);
    const Node* filter = conv->input(1).node;
    EXPECT_EQ(optimized->graph().output_shape(filter, 0).DebugString(),
              TensorShape({c.kept_h, c.kept_w, channels, out}).DebugString());
    const Tensor got = RunOptimized(optimized, {{"x", x}})[0];
    ExpectDirect(got, Direct(x, f, c.stride));
    ExpectNear(got, RunUnoptimized(g, {{"x", x}}, {"conv"})[0], 1e-6f);
  }
}

TEST(FilterCropRuleTest, FiltersThatMustStay) {
  const Tensor f = Values(TensorShape({1, 7, 3, 4}), -1, 1, 7);
  const Tensor x = Values(TensorShape({1, 4, 4, 3}), -2, 2, 3);
  FilterCropRule rule;
  // Every tap of a 1x7 window reads a 4-wide input for some output.
  auto g = GraphFromText(absl::StrCat(Input(1, 4, 4, 3), FloatConstText("f", f),
                                      Conv("conv", "x", "f", 1, 1)));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(RunRule(rule, *g, {{"x", x}}, {"conv"}), nullptr);
  // A 3x3 filter on a 1x1 input that a second convolution also reads.
  const Tensor f3 = Values(TensorShape({3, 3, 3, 4}), -1, 1, 7);
  const Tensor x1 = Values(TensorShape({1, 1, 1, 3}), -2, 2, 3);
  g = GraphFromText(absl::StrCat(Input(1, 1, 1, 3), FloatConstText("f", f3),
                                 Conv("a", "x", "f", 1, 1),
                                 Conv("b", "x", "f", 1, 1)));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(RunRule(rule, *g, {{"x", x1}}, {"a", "b"}), nullptr);
}

}  // namespace
}  // namespace filter_crop_rule_test
}  // namespace weft
