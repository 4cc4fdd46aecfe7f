// The atrous-convolution rule alone (executor/optimizer/atrous_conv_rule.h):
// SpaceToBatchND -> Conv2D or DepthwiseConv2dNative -> BatchToSpaceND, as
// tf.nn.convolution writes a dilated convolution, becomes the convolution
// dilated by the block with explicit paddings, and computes the values the
// three nodes computed (the reference is the unoptimized graph); patterns
// it must not take stay.
#include "executor/optimizer/atrous_conv_rule.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "gtest/gtest.h"
#include "tests/executor/rewrite_rule_testutil.h"

namespace weft {
namespace atrous_conv_rule_test {
namespace {

using rewrite_rule_test::ExpectNear;
using rewrite_rule_test::FindNode;
using rewrite_rule_test::FloatConstText;
using rewrite_rule_test::FloatOpText;
using rewrite_rule_test::FloatPlaceholderText;
using rewrite_rule_test::GraphFromText;
using rewrite_rule_test::IntConstText;
using rewrite_rule_test::RunOptimized;
using rewrite_rule_test::RunRule;
using rewrite_rule_test::RunUnoptimized;
using rewrite_rule_test::Values;

// What one pattern `name` is made of: the block, SpaceToBatchND's paddings
// (top, bottom, left, right), BatchToSpaceND's crops, and the convolution.
struct Pattern {
  std::string name;
  std::vector<int> block = {2, 2};
  std::vector<int> pads = {2, 3, 2, 3};
  std::vector<int> crops = {0, 1, 0, 1};
  std::string op = "Conv2D";
  std::string padding = "VALID";
  int stride = 1;
  // A different block for the BatchToSpaceND (empty: the same).
  std::vector<int> b2s_block;
};

// x -> `name`_s2b -> `name` (filter `filter`) -> `name`_b2s -> `name`_out
// (a Relu: what a network does next).
std::string PatternText(const Pattern& p, const std::string& filter) {
  const std::vector<int>& b2s_block =
      p.b2s_block.empty() ? p.block : p.b2s_block;
  const std::string conv_attrs = absl::Substitute(
      R"pb(
        attr {
          key: "strides"
          value { list { i: 1 i: $0 i: $0 i: 1 } }
        }
        attr {
          key: "padding"
          value { s: "$1" }
        }
      )pb",
      p.stride, p.padding);
  const std::string int_types = R"pb(
    attr {
      key: "Tblock_shape"
      value { type: DT_INT32 }
    }
  )pb";
  return absl::StrCat(
      IntConstText(p.name + "_block", {2}, p.block),
      IntConstText(p.name + "_b2s_block", {2}, b2s_block),
      IntConstText(p.name + "_pads", {2, 2}, p.pads),
      IntConstText(p.name + "_crops", {2, 2}, p.crops),
      FloatOpText(p.name + "_s2b", "SpaceToBatchND",
                  {"x", p.name + "_block", p.name + "_pads"},
                  absl::StrCat(int_types, R"pb(
                    attr {
                      key: "Tpaddings"
                      value { type: DT_INT32 }
                    })pb")),
      FloatOpText(p.name, p.op, {p.name + "_s2b", filter}, conv_attrs),
      FloatOpText(p.name + "_b2s", "BatchToSpaceND",
                  {p.name, p.name + "_b2s_block", p.name + "_crops"},
                  absl::StrCat(int_types, R"pb(
                    attr {
                      key: "Tcrops"
                      value { type: DT_INT32 }
                    })pb")),
      FloatOpText(p.name + "_out", "Relu", {p.name + "_b2s"}));
}

// x [2, 9, 9, 3]; w [3, 3, 3, 4] for Conv2D, d [3, 3, 3, 2] for the
// depthwise convolution.
std::string Inputs(int64_t size = 9) {
  return absl::StrCat(
      FloatPlaceholderText("x", TensorShape({2, size, size, 3})),
      FloatConstText("w", Values(TensorShape({3, 3, 3, 4}), -1, 1, 21)),
      FloatConstText("d", Values(TensorShape({3, 3, 3, 2}), -1, 1, 22)));
}

std::vector<int64_t> IntsAttr(const Node* n, const std::string& key) {
  std::vector<int64_t> v;
  EXPECT_TRUE(GetNodeAttr(n->attrs(), key, &v).ok()) << key;
  return v;
}

TEST(AtrousConvRuleTest, BecomesOneDilatedConvolution) {
  Pattern conv{"conv"};
  Pattern depthwise{"depthwise"};
  depthwise.op = "DepthwiseConv2dNative";
  // Rate 3 over 9 x 9, SAME as tf.nn.convolution pads it: 3 + 3, then 3
  // more at the end so that 18 is a multiple of 3, cropped again.
  depthwise.block = {3, 3};
  depthwise.pads = {3, 6, 3, 6};
  depthwise.crops = {0, 3, 0, 3};
  auto g = GraphFromText(absl::StrCat(Inputs(), PatternText(conv, "w"),
                                      PatternText(depthwise, "d")));
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({2, 9, 9, 3}), -2, 2, 23);
  AtrousConvRule rule;
  EXPECT_EQ(rule.name(), "atrous_conv");
  const std::vector<std::string> fetches = {"conv_out", "depthwise_out"};
  auto optimized = RunRule(rule, *g, {{"x", x}}, fetches);
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(optimized->stats().atrous_convs, 2);
  for (const char* name : {"conv", "depthwise"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(FindNode(*optimized, absl::StrCat(name, "_s2b")), nullptr);
    EXPECT_EQ(FindNode(*optimized, absl::StrCat(name, "_b2s")), nullptr);
    const Node* out = FindNode(*optimized, absl::StrCat(name, "_out"));
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->input(0).node->name(), name);
    const Node* n = FindNode(*optimized, name);
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->input(0).node->name(), "x");
    std::string padding;
    ASSERT_TRUE(GetNodeAttr(n->attrs(), "padding", &padding).ok());
    EXPECT_EQ(padding, "EXPLICIT");
  }
  const Node* c = FindNode(*optimized, "conv");
  EXPECT_EQ(IntsAttr(c, "dilations"), (std::vector<int64_t>{1, 2, 2, 1}));
  // Paddings less crops: 2 - 0 before, 3 - 1 after.
  EXPECT_EQ(IntsAttr(c, "explicit_paddings"),
            (std::vector<int64_t>{0, 0, 2, 2, 2, 2, 0, 0}));
  const Node* d = FindNode(*optimized, "depthwise");
  EXPECT_EQ(IntsAttr(d, "dilations"), (std::vector<int64_t>{1, 3, 3, 1}));
  EXPECT_EQ(IntsAttr(d, "explicit_paddings"),
            (std::vector<int64_t>{0, 0, 3, 3, 3, 3, 0, 0}));
  const std::vector<Tensor> got = RunOptimized(optimized, {{"x", x}});
  const std::vector<Tensor> want = RunUnoptimized(g, {{"x", x}}, fetches);
  ASSERT_EQ(got.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(got[i].shape(), want[i].shape());
    ExpectNear(got[i], want[i], 1e-5f);
  }
}

TEST(AtrousConvRuleTest, PatternsThatMustStay) {
  std::vector<Pattern> stay;
  Pattern p{"crop_beyond_padding"};  // the window would start inside x
  p.crops = {3, 1, 0, 1};
  stay.push_back(p);
  p = Pattern{"same"};  // a SAME window pads each batch on its own
  p.padding = "SAME";
  stay.push_back(p);
  p = Pattern{"strided"};
  p.stride = 2;
  stay.push_back(p);
  p = Pattern{"other_block"};
  p.b2s_block = {1, 2};
  p.crops = {0, 0, 0, 1};
  stay.push_back(p);
  std::string text = Inputs();
  std::vector<std::string> fetches;
  for (const Pattern& s : stay) {
    absl::StrAppend(&text, PatternText(s, "w"));
    fetches.push_back(s.name + "_out");
  }
  // A value of the pattern also fetched.
  for (const char* also : {"_s2b", "", "_b2s"}) {
    const std::string name = absl::StrCat("fetched", also, "_too");
    absl::StrAppend(&text, PatternText(Pattern{name}, "w"));
    fetches.insert(fetches.end(), {name + "_out", name + also});
  }
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({2, 9, 9, 3}), -2, 2, 24);
  EXPECT_EQ(RunRule(AtrousConvRule(), *g, {{"x", x}}, fetches), nullptr);
}

}  // namespace
}  // namespace atrous_conv_rule_test
}  // namespace weft
