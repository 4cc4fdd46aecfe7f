// The GELU rule alone (executor/optimizer/gelu_rule.h): the nodes
// tf.nn.gelu writes, exact and tanh-approximated, and the variants the rule
// names, become one _Gelu node whose values are those of the nodes within
// their own rounding; a pattern whose intermediate is used or fetched, or
// whose constant or operand is another, stays.
#include "executor/optimizer/gelu_rule.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "executor/graph_optimizer.h"
#include "gtest/gtest.h"
#include "tests/executor/rewrite_rule_testutil.h"

namespace weft {
namespace gelu_rule_test {
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

const TensorShape kShape({3, 37});

// tf.nn.gelu(x, approximate=False) as TensorFlow 2.21 writes it, prefixed.
std::string ExactGelu(const std::string& p, const std::string& x) {
  return absl::StrCat(FloatScalarText(p + "half", 0.5f),
                      FloatScalarText(p + "c", 0.70710677f),
                      FloatOpText(p + "mul", "Mul", {p + "half", x}),
                      FloatOpText(p + "neg", "Neg", {x}),
                      FloatOpText(p + "mul_1", "Mul", {p + "neg", p + "c"}),
                      FloatOpText(p + "erfc", "Erfc", {p + "mul_1"}),
                      FloatOpText(p + "gelu", "Mul", {p + "mul", p + "erfc"}));
}

// tf.nn.gelu(x, approximate=True) as TensorFlow 2.21 writes it, prefixed.
std::string TanhGelu(const std::string& p, const std::string& x) {
  return absl::StrCat(
      FloatScalarText(p + "cubic", 0.044715f),
      FloatScalarText(p + "half", 0.5f), FloatScalarText(p + "three", 3.0f),
      FloatScalarText(p + "scale", 0.7978846f),
      FloatScalarText(p + "one", 1.0f),
      FloatOpText(p + "mul", "Mul", {p + "half", x}),
      FloatOpText(p + "pow", "Pow", {x, p + "three"}),
      FloatOpText(p + "mul_1", "Mul", {p + "cubic", p + "pow"}),
      FloatOpText(p + "add", "AddV2", {x, p + "mul_1"}),
      FloatOpText(p + "mul_2", "Mul", {p + "scale", p + "add"}),
      FloatOpText(p + "tanh", "Tanh", {p + "mul_2"}),
      FloatOpText(p + "add_1", "AddV2", {p + "one", p + "tanh"}),
      FloatOpText(p + "gelu", "Mul", {p + "mul", p + "add_1"}));
}

TEST(GeluRuleTest, TensorFlowsTwoFormsBecomeOneGeluEach) {
  const std::string text =
      absl::StrCat(FloatPlaceholderText("x", kShape), ExactGelu("e/", "x"),
                   TanhGelu("t/", "x"));
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(kShape, -4, 4, 5);
  const std::vector<std::string> fetches = {"e/gelu", "t/gelu"};
  GeluRule rule;
  EXPECT_EQ(rule.name(), "gelu");
  auto optimized = RunRule(rule, *g, {{"x", x}}, fetches);
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(optimized->stats().fused, 2);
  EXPECT_EQ(optimized->stats().fused_away, 4 + 7);
  EXPECT_EQ(CountOps(*optimized, "_Gelu"), 2);
  EXPECT_EQ(CountOps(*optimized, "Erfc"), 0);
  EXPECT_EQ(CountOps(*optimized, "Tanh"), 0);
  EXPECT_EQ(CountOps(*optimized, "Mul"), 0);
  const std::string exact_name = "e/mul+e/neg+e/mul_1+e/erfc+e/gelu";
  const std::string tanh_name =
      "t/mul+t/pow+t/mul_1+t/add+t/mul_2+t/tanh+t/add_1+t/gelu";
  EXPECT_EQ(optimized->fetches(),
            (std::vector<std::string>{exact_name, tanh_name}));
  const Node* exact = FindNode(*optimized, exact_name);
  const Node* approx = FindNode(*optimized, tanh_name);
  ASSERT_NE(exact, nullptr);
  ASSERT_NE(approx, nullptr);
  bool approximate = true;
  ASSERT_TRUE(GetNodeAttr(exact->attrs(), "approximate", &approximate).ok());
  EXPECT_FALSE(approximate);
  ASSERT_TRUE(GetNodeAttr(approx->attrs(), "approximate", &approximate).ok());
  EXPECT_TRUE(approximate);
  std::vector<std::string> originals;
  ASSERT_TRUE(GetNodeAttr(exact->attrs(), kFusedNodesAttr, &originals).ok());
  EXPECT_EQ(originals, (std::vector<std::string>{"e/mul", "e/neg", "e/mul_1",
                                                 "e/erfc", "e/gelu"}));
  // The nodes round at each step (and 1 + tanh(y) cancels below -3): the
  // same values within a few float ulps on [-4, 4].
  std::vector<Tensor> off = RunUnoptimized(g, {{"x", x}}, fetches);
  std::vector<Tensor> on = RunOptimized(optimized, {{"x", x}});
  ASSERT_EQ(off.size(), 2u);
  ASSERT_EQ(on.size(), 2u);
  ExpectNear(on[0], off[0], 1e-6f);
  ExpectNear(on[1], off[1], 1e-6f);
}

TEST(GeluRuleTest, TheVariantsItNames) {
  // x * (0.5 * (1 + Erf(x / sqrt 2))), with the sums and products in the
  // other operand order; Erfc(x * -c); Erfc(Neg(x * c)); the tanh form's
  // cube as x * (x * x).
  const std::string text = absl::StrCat(
      FloatPlaceholderText("x", kShape), FloatScalarText("half", 0.5f),
      FloatScalarText("one", 1.0f), FloatScalarText("sqrt2", 1.4142135f),
      FloatScalarText("c", 0.70710677f),
      FloatScalarText("minus_c", -0.70710677f),
      FloatScalarText("cubic", 0.044715f), FloatScalarText("scale", 0.7978846f),
      // a: the Erf form
      FloatOpText("a/div", "RealDiv", {"x", "sqrt2"}),
      FloatOpText("a/erf", "Erf", {"a/div"}),
      FloatOpText("a/add", "AddV2", {"a/erf", "one"}),
      FloatOpText("a/half", "Mul", {"a/add", "half"}),
      FloatOpText("a/gelu", "Mul", {"x", "a/half"}),
      // b: Erfc(x * -c)
      FloatOpText("b/half", "Mul", {"x", "half"}),
      FloatOpText("b/mul", "Mul", {"x", "minus_c"}),
      FloatOpText("b/erfc", "Erfc", {"b/mul"}),
      FloatOpText("b/gelu", "Mul", {"b/erfc", "b/half"}),
      // c: Erfc(Neg(x * c))
      FloatOpText("c/half", "Mul", {"half", "x"}),
      FloatOpText("c/mul", "Mul", {"c", "x"}),
      FloatOpText("c/neg", "Neg", {"c/mul"}),
      FloatOpText("c/erfc", "Erfc", {"c/neg"}),
      FloatOpText("c/gelu", "Mul", {"c/half", "c/erfc"}),
      // d: the tanh form with x * (x * x) and Add
      FloatOpText("d/half", "Mul", {"x", "half"}),
      FloatOpText("d/sq", "Mul", {"x", "x"}),
      FloatOpText("d/cube", "Mul", {"x", "d/sq"}),
      FloatOpText("d/term", "Mul", {"d/cube", "cubic"}),
      FloatOpText("d/inner", "Add", {"d/term", "x"}),
      FloatOpText("d/arg", "Mul", {"d/inner", "scale"}),
      FloatOpText("d/tanh", "Tanh", {"d/arg"}),
      FloatOpText("d/sum", "Add", {"d/tanh", "one"}),
      FloatOpText("d/gelu", "Mul", {"d/sum", "d/half"}));
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(kShape, -4, 4, 6);
  const std::vector<std::string> fetches = {"a/gelu", "b/gelu", "c/gelu",
                                            "d/gelu"};
  auto optimized = RunRule(GeluRule(), *g, {{"x", x}}, fetches);
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(optimized->stats().fused, 4);
  EXPECT_EQ(CountOps(*optimized, "_Gelu"), 4);
  EXPECT_EQ(CountOps(*optimized, "Mul"), 0);
  std::vector<Tensor> off = RunUnoptimized(g, {{"x", x}}, fetches);
  std::vector<Tensor> on = RunOptimized(optimized, {{"x", x}});
  ASSERT_EQ(on.size(), 4u);
  for (int i = 0; i < 4; ++i) ExpectNear(on[i], off[i], 1e-6f);
}

TEST(GeluRuleTest, PatternsThatMustStay) {
  // p: the Erfc's value also goes elsewhere; q: 0.7 is not 1/sqrt(2); r:
  // the half multiplies z, not x; s: the Erfc is fetched.
  const std::string text = absl::StrCat(
      FloatPlaceholderText("x", kShape), FloatPlaceholderText("z", kShape),
      ExactGelu("p/", "x"), FloatOpText("p/other", "Neg", {"p/erfc"}),
      FloatOpText("p/sum", "AddV2", {"p/gelu", "p/other"}),
      FloatScalarText("q/half", 0.5f), FloatScalarText("q/c", 0.7f),
      FloatOpText("q/mul", "Mul", {"q/half", "x"}),
      FloatOpText("q/neg", "Neg", {"x"}),
      FloatOpText("q/mul_1", "Mul", {"q/neg", "q/c"}),
      FloatOpText("q/erfc", "Erfc", {"q/mul_1"}),
      FloatOpText("q/gelu", "Mul", {"q/mul", "q/erfc"}),
      FloatScalarText("r/half", 0.5f), FloatScalarText("r/c", 0.70710677f),
      FloatOpText("r/mul", "Mul", {"r/half", "z"}),
      FloatOpText("r/neg", "Neg", {"x"}),
      FloatOpText("r/mul_1", "Mul", {"r/neg", "r/c"}),
      FloatOpText("r/erfc", "Erfc", {"r/mul_1"}),
      FloatOpText("r/gelu", "Mul", {"r/mul", "r/erfc"}), ExactGelu("s/", "x"));
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(kShape, -4, 4, 7);
  const Tensor z = Values(kShape, -4, 4, 8);
  const std::vector<std::string> fetches = {"p/sum", "q/gelu", "r/gelu",
                                            "s/gelu", "s/erfc"};
  auto optimized = RunRule(GeluRule(), *g, {{"x", x}, {"z", z}}, fetches);
  EXPECT_EQ(optimized, nullptr) << "rewrote a pattern that must stay";
}

}  // namespace
}  // namespace gelu_rule_test
}  // namespace weft
