// The layer normalization rule alone (executor/optimizer/layer_norm_rule.h):
// the nodes Keras' LayerNormalization writes, and the tf.nn.batch_norm
// style shift, become one _LayerNorm node with the nodes' values within
// their rounding; a fetched mean, a fed gamma and another axis stay.
#include "executor/optimizer/layer_norm_rule.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "executor/graph_optimizer.h"
#include "gtest/gtest.h"
#include "tests/executor/rewrite_rule_testutil.h"

namespace weft {
namespace layer_norm_rule_test {
namespace {

using rewrite_rule_test::CountOps;
using rewrite_rule_test::ExpectNear;
using rewrite_rule_test::FindNode;
using rewrite_rule_test::FloatConstText;
using rewrite_rule_test::FloatOpText;
using rewrite_rule_test::FloatPlaceholderText;
using rewrite_rule_test::FloatScalarText;
using rewrite_rule_test::GraphFromText;
using rewrite_rule_test::RunOptimized;
using rewrite_rule_test::RunRule;
using rewrite_rule_test::RunUnoptimized;
using rewrite_rule_test::Values;

const TensorShape kShape({3, 5, 16});

// Mean(in, axis) with keep_dims, as GraphDef text.
std::string Mean(const std::string& name, const std::string& in,
                 const std::string& axis) {
  return FloatOpText(name, "Mean", {in, axis},
                     "attr { key: 'keep_dims' value { b: true } } "
                     "attr { key: 'Tidx' value { type: DT_INT32 } } ");
}

std::string IntScalar(const std::string& name, int value) {
  return rewrite_rule_test::IntConstText(name, {}, {value});
}

// Keras 3's LayerNormalization(epsilon=1e-6) of `x` over axis `axis`
// (its Const's value), prefixed; a fed gamma with `fed_gamma`.
std::string KerasLayerNorm(const std::string& p, const std::string& x, int axis,
                           bool fed_gamma = false) {
  return absl::StrCat(
      IntScalar(p + "axis", axis), FloatScalarText(p + "eps", 1e-6f),
      fed_gamma ? FloatPlaceholderText(p + "gamma", TensorShape({16}))
                : FloatConstText(p + "gamma",
                                 Values(TensorShape({16}), 0.5f, 1.5f, 11)),
      FloatConstText(p + "beta", Values(TensorShape({1, 1, 16}), -1, 1, 12)),
      Mean(p + "mean", x, p + "axis"),
      FloatOpText(p + "stop", "StopGradient", {p + "mean"}),
      FloatOpText(p + "sqdiff", "SquaredDifference", {x, p + "stop"}),
      Mean(p + "variance", p + "sqdiff", p + "axis"),
      FloatOpText(p + "add", "AddV2", {p + "variance", p + "eps"}),
      FloatOpText(p + "rsqrt", "Rsqrt", {p + "add"}),
      FloatOpText(p + "mul", "Mul", {p + "rsqrt", p + "gamma"}),
      FloatOpText(p + "mul_2", "Mul", {x, p + "mul"}),
      FloatOpText(p + "neg", "Neg", {p + "mean"}),
      FloatOpText(p + "mul_1", "Mul", {p + "neg", p + "mul"}),
      FloatOpText(p + "add_1", "AddV2", {p + "mul_1", p + "beta"}),
      FloatOpText(p + "out", "AddV2", {p + "mul_2", p + "add_1"}));
}

TEST(LayerNormRuleTest, KerasNodesBecomeOneLayerNorm) {
  const std::string text = absl::StrCat(FloatPlaceholderText("x", kShape),
                                        KerasLayerNorm("k/", "x", -1));
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  // Values far from 0 with a small spread: the variance's cancellation.
  const Tensor x = Values(kShape, 90, 110, 13);
  LayerNormRule rule;
  EXPECT_EQ(rule.name(), "layer_norm");
  auto optimized = RunRule(rule, *g, {{"x", x}}, {"k/out"});
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(optimized->stats().fused, 1);
  EXPECT_EQ(optimized->stats().fused_away, 11);
  EXPECT_EQ(CountOps(*optimized, "_LayerNorm"), 1);
  EXPECT_EQ(CountOps(*optimized, "Mean"), 0);
  EXPECT_EQ(CountOps(*optimized, "Mul"), 0);
  EXPECT_EQ(optimized->fetches(), std::vector<std::string>{"k/out+LayerNorm"});
  const Node* ln = FindNode(*optimized, "k/out+LayerNorm");
  ASSERT_NE(ln, nullptr);
  float epsilon = 0;
  ASSERT_TRUE(GetNodeAttr(ln->attrs(), "epsilon", &epsilon).ok());
  EXPECT_EQ(epsilon, 1e-6f);
  std::vector<std::string> originals;
  ASSERT_TRUE(GetNodeAttr(ln->attrs(), kFusedNodesAttr, &originals).ok());
  EXPECT_EQ(originals.size(), 12u);
  EXPECT_EQ(originals.back(), "k/out");
  std::vector<Tensor> off = RunUnoptimized(g, {{"x", x}}, {"k/out"});
  std::vector<Tensor> on = RunOptimized(optimized, {{"x", x}});
  ASSERT_EQ(on.size(), 1u);
  ExpectNear(on[0], off[0], 2e-5f);
}

TEST(LayerNormRuleTest, TheSubtractedShiftAndNoStopGradient) {
  // beta - mean * s, the mean read directly, operands swapped, axis 2.
  const std::string text = absl::StrCat(
      FloatPlaceholderText("x", kShape), IntScalar("axis", 2),
      FloatScalarText("eps", 1e-3f),
      FloatConstText("gamma", Values(TensorShape({16}), 0.5f, 1.5f, 14)),
      FloatConstText("beta", Values(TensorShape({16}), -1, 1, 15)),
      Mean("mean", "x", "axis"),
      FloatOpText("sqdiff", "SquaredDifference", {"x", "mean"}),
      Mean("variance", "sqdiff", "axis"),
      FloatOpText("add", "Add", {"eps", "variance"}),
      FloatOpText("rsqrt", "Rsqrt", {"add"}),
      FloatOpText("s", "Mul", {"gamma", "rsqrt"}),
      FloatOpText("xs", "Mul", {"s", "x"}),
      FloatOpText("ms", "Mul", {"mean", "s"}),
      FloatOpText("shift", "Sub", {"beta", "ms"}),
      FloatOpText("out", "AddV2", {"shift", "xs"}));
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(kShape, -3, 3, 16);
  auto optimized = RunRule(LayerNormRule(), *g, {{"x", x}}, {"out"});
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(CountOps(*optimized, "_LayerNorm"), 1);
  EXPECT_EQ(optimized->stats().fused_away, 9);
  std::vector<Tensor> off = RunUnoptimized(g, {{"x", x}}, {"out"});
  std::vector<Tensor> on = RunOptimized(optimized, {{"x", x}});
  ASSERT_EQ(on.size(), 1u);
  ExpectNear(on[0], off[0], 2e-5f);
}

TEST(LayerNormRuleTest, PatternsThatMustStay) {
  // a: its mean is fetched; b: gamma is fed; c: the moments run over axis
  // 1, not the last.
  const std::string text = absl::StrCat(
      FloatPlaceholderText("x", kShape), KerasLayerNorm("a/", "x", -1),
      KerasLayerNorm("b/", "x", -1, /*fed_gamma=*/true),
      KerasLayerNorm("c/", "x", 1));
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(kShape, -3, 3, 17);
  auto optimized = RunRule(
      LayerNormRule(), *g,
      {{"x", x}, {"b/gamma", Values(TensorShape({16}), 0.5f, 1.5f, 18)}},
      {"a/out", "a/mean", "b/out", "c/out"});
  EXPECT_EQ(optimized, nullptr) << "rewrote a pattern that must stay";
}

}  // namespace
}  // namespace layer_norm_rule_test
}  // namespace weft
