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
using rewrite_rule_test::FloatPlaceholderText;
using rewrite_rule_test::GraphFromText;
using rewrite_rule_test::RunOptimized;
using rewrite_rule_test::RunRule;
using rewrite_rule_test::RunUnoptimized;
using rewrite_rule_test::Values;

// A float node `name` = op(inputs), as GraphDef text.
std::string Op(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs) {
  std::string text =
      absl::StrCat("node { name: \"", name, "\" op: \"", op, "\" ");
  for (const std::string& in : inputs) {
    absl::StrAppend(&text, "input: \"", in, "\" ");
  }
  return absl::StrCat(text, "attr { key: \"T\" value { type: DT_FLOAT } } }\n");
}

std::string Scalar(const std::string& name, float value) {
  Tensor t(DT_FLOAT, TensorShape({}));
  t.data<float>()[0] = value;
  return FloatConstText(name, t);
}

const TensorShape kShape({3, 37});

// tf.nn.gelu(x, approximate=False) as TensorFlow 2.21 writes it, prefixed.
std::string ExactGelu(const std::string& p, const std::string& x) {
  return absl::StrCat(Scalar(p + "half", 0.5f), Scalar(p + "c", 0.70710677f),
                      Op(p + "mul", "Mul", {p + "half", x}),
                      Op(p + "neg", "Neg", {x}),
                      Op(p + "mul_1", "Mul", {p + "neg", p + "c"}),
                      Op(p + "erfc", "Erfc", {p + "mul_1"}),
                      Op(p + "gelu", "Mul", {p + "mul", p + "erfc"}));
}

// tf.nn.gelu(x, approximate=True) as TensorFlow 2.21 writes it, prefixed.
std::string TanhGelu(const std::string& p, const std::string& x) {
  return absl::StrCat(Scalar(p + "cubic", 0.044715f), Scalar(p + "half", 0.5f),
                      Scalar(p + "three", 3.0f),
                      Scalar(p + "scale", 0.7978846f), Scalar(p + "one", 1.0f),
                      Op(p + "mul", "Mul", {p + "half", x}),
                      Op(p + "pow", "Pow", {x, p + "three"}),
                      Op(p + "mul_1", "Mul", {p + "cubic", p + "pow"}),
                      Op(p + "add", "AddV2", {x, p + "mul_1"}),
                      Op(p + "mul_2", "Mul", {p + "scale", p + "add"}),
                      Op(p + "tanh", "Tanh", {p + "mul_2"}),
                      Op(p + "add_1", "AddV2", {p + "one", p + "tanh"}),
                      Op(p + "gelu", "Mul", {p + "mul", p + "add_1"}));
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
      FloatPlaceholderText("x", kShape), Scalar("half", 0.5f),
      Scalar("one", 1.0f), Scalar("sqrt2", 1.4142135f),
      Scalar("c", 0.70710677f), Scalar("minus_c", -0.70710677f),
      Scalar("cubic", 0.044715f), Scalar("scale", 0.7978846f),
      // a: the Erf form
      Op("a/div", "RealDiv", {"x", "sqrt2"}), Op("a/erf", "Erf", {"a/div"}),
      Op("a/add", "AddV2", {"a/erf", "one"}),
      Op("a/half", "Mul", {"a/add", "half"}),
      Op("a/gelu", "Mul", {"x", "a/half"}),
      // b: Erfc(x * -c)
      Op("b/half", "Mul", {"x", "half"}), Op("b/mul", "Mul", {"x", "minus_c"}),
      Op("b/erfc", "Erfc", {"b/mul"}),
      Op("b/gelu", "Mul", {"b/erfc", "b/half"}),
      // c: Erfc(Neg(x * c))
      Op("c/half", "Mul", {"half", "x"}), Op("c/mul", "Mul", {"c", "x"}),
      Op("c/neg", "Neg", {"c/mul"}), Op("c/erfc", "Erfc", {"c/neg"}),
      Op("c/gelu", "Mul", {"c/half", "c/erfc"}),
      // d: the tanh form with x * (x * x) and Add
      Op("d/half", "Mul", {"x", "half"}), Op("d/sq", "Mul", {"x", "x"}),
      Op("d/cube", "Mul", {"x", "d/sq"}),
      Op("d/term", "Mul", {"d/cube", "cubic"}),
      Op("d/inner", "Add", {"d/term", "x"}),
      Op("d/arg", "Mul", {"d/inner", "scale"}), Op("d/tanh", "Tanh", {"d/arg"}),
      Op("d/sum", "Add", {"d/tanh", "one"}),
      Op("d/gelu", "Mul", {"d/sum", "d/half"}));
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
      ExactGelu("p/", "x"), Op("p/other", "Neg", {"p/erfc"}),
      Op("p/sum", "AddV2", {"p/gelu", "p/other"}), Scalar("q/half", 0.5f),
      Scalar("q/c", 0.7f), Op("q/mul", "Mul", {"q/half", "x"}),
      Op("q/neg", "Neg", {"x"}), Op("q/mul_1", "Mul", {"q/neg", "q/c"}),
      Op("q/erfc", "Erfc", {"q/mul_1"}),
      Op("q/gelu", "Mul", {"q/mul", "q/erfc"}), Scalar("r/half", 0.5f),
      Scalar("r/c", 0.70710677f), Op("r/mul", "Mul", {"r/half", "z"}),
      Op("r/neg", "Neg", {"x"}), Op("r/mul_1", "Mul", {"r/neg", "r/c"}),
      Op("r/erfc", "Erfc", {"r/mul_1"}),
      Op("r/gelu", "Mul", {"r/mul", "r/erfc"}), ExactGelu("s/", "x"));
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
