// The duplicate merge rule alone (executor/optimizer/duplicate_merge_rule.h):
// equal nodes over the same inputs (NASNet's repeated Relu, AvgPool and
// MaxPool of one tensor, and what reads them in turn) run once, their
// readers reading the first, with the unoptimized graph's bits; nodes that
// differ in op, attrs, inputs or input order, fetched or fed ones,
// control-ordered ones and stateful ones stay.
#include "executor/optimizer/duplicate_merge_rule.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "executor/graph_optimizer.h"
#include "gtest/gtest.h"
#include "tests/executor/rewrite_rule_testutil.h"

namespace weft {
namespace duplicate_merge_rule_test {
namespace {

using rewrite_rule_test::CountOps;
using rewrite_rule_test::ExpectSameBits;
using rewrite_rule_test::FindNode;
using rewrite_rule_test::FloatOpText;
using rewrite_rule_test::FloatPlaceholderText;
using rewrite_rule_test::GraphFromText;
using rewrite_rule_test::RunOptimized;
using rewrite_rule_test::RunRule;
using rewrite_rule_test::RunUnoptimized;
using rewrite_rule_test::Values;

std::string PoolAttrs(int k) {
  return absl::StrCat(
      "attr { key: \"ksize\" value { list { i: 1 i: ", k, " i: ", k,
      " i: 1 } } } attr { key: \"strides\" value { list { i: 1 i: 1 i: 1 "
      "i: 1 } } } attr { key: \"padding\" value { s: \"SAME\" } } ");
}

// The Const "axis" (3), read by the Splits below.
constexpr char kAxis[] =
    "node { name: \"axis\" op: \"Const\" attr { key: \"dtype\" value { "
    "type: DT_INT32 } } attr { key: \"value\" value { tensor { dtype: "
    "DT_INT32 tensor_shape {} int_val: 3 } } } }\n";

// A Split of `input` in two along "axis".
std::string SplitText(const std::string& name, const std::string& input) {
  return absl::StrCat("node { name: \"", name,
                      "\" op: \"Split\" input: \"axis\" input: \"", input,
                      "\" attr { key: \"T\" value { type: DT_FLOAT } } attr "
                      "{ key: \"num_split\" value { i: 2 } } }\n");
}

TEST(DuplicateMergeRuleTest, EqualNodesRunOnce) {
  const std::string text = absl::StrCat(
      FloatPlaceholderText("x", TensorShape({2, 5, 6, 4})), kAxis,
      // Three Relus of x, two AvgPools of the first, one of the second: all
      // one Relu and one AvgPool.
      FloatOpText("relu_a", "Relu", {"x"}),
      FloatOpText("relu_b", "Relu", {"x"}),
      FloatOpText("relu_c", "Relu", {"x"}),
      FloatOpText("pool_a", "AvgPool", {"relu_a"}, PoolAttrs(3)),
      FloatOpText("pool_b", "AvgPool", {"relu_b"}, PoolAttrs(3)),
      FloatOpText("pool_c", "AvgPool", {"relu_a"}, PoolAttrs(3)),
      // A Split twice: the readers of each output read the first Split's.
      SplitText("split_a", "x"), SplitText("split_b", "x"),
      FloatOpText("sub_a", "Sub", {"split_a:1", "split_a"}),
      FloatOpText("sub_b", "Sub", {"split_b:1", "split_b"}),
      FloatOpText("sum", "AddN", {"pool_a", "pool_b", "pool_c", "relu_c"},
                  "attr { key: \"N\" value { i: 4 } } "),
      FloatOpText("diff", "AddV2", {"sub_a", "sub_b"}));
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({2, 5, 6, 4}), -2, 2, 11);
  DuplicateMergeRule rule;
  EXPECT_EQ(rule.name(), "duplicate_merge");
  const std::vector<std::string> fetches = {"sum", "diff"};
  auto optimized = RunRule(rule, *g, {{"x", x}}, fetches);
  ASSERT_NE(optimized, nullptr);
  // relu_b, relu_c, pool_b, pool_c, split_b and sub_b.
  EXPECT_EQ(optimized->stats().merged_duplicates, 6);
  EXPECT_EQ(CountOps(*optimized, "Relu"), 1);
  EXPECT_EQ(CountOps(*optimized, "AvgPool"), 1);
  EXPECT_EQ(CountOps(*optimized, "Split"), 1);
  EXPECT_EQ(CountOps(*optimized, "Sub"), 1);
  for (const char* gone :
       {"relu_b", "relu_c", "pool_b", "pool_c", "split_b", "sub_b"}) {
    EXPECT_EQ(FindNode(*optimized, gone), nullptr) << gone;
  }
  const std::vector<Tensor> on = RunOptimized(optimized, {{"x", x}});
  const std::vector<Tensor> off = RunUnoptimized(g, {{"x", x}}, fetches);
  ASSERT_EQ(on.size(), 2u);
  ExpectSameBits(on[0], off[0]);
  ExpectSameBits(on[1], off[1]);
}

// A stateful node (a side effect, for control edges from it).
constexpr char kNoiseText[] =
    "node { name: \"noise_shape\" op: \"Const\" attr { key: \"dtype\" value "
    "{ type: DT_INT32 } } attr { key: \"value\" value { tensor { dtype: "
    "DT_INT32 tensor_shape { dim { size: 1 } } int_val: 8 } } } }\n"
    "node { name: \"noise\" op: \"RandomUniform\" input: \"noise_shape\" attr "
    "{ key: \"T\" value { type: DT_INT32 } } attr { key: \"dtype\" value { "
    "type: DT_FLOAT } } }\n";

TEST(DuplicateMergeRuleTest, NodesThatMustStay) {
  const std::string text = absl::StrCat(
      FloatPlaceholderText("x", TensorShape({2, 5, 6, 4})),
      FloatPlaceholderText("y", TensorShape({2, 5, 6, 4})), kAxis,
      // Other attrs.
      FloatOpText("pool3", "AvgPool", {"x"}, PoolAttrs(3)),
      FloatOpText("pool2", "AvgPool", {"x"}, PoolAttrs(2)),
      FloatOpText("leaky_a", "LeakyRelu", {"x"},
                  "attr { key: \"alpha\" value { f: 0.1 } } "),
      FloatOpText("leaky_b", "LeakyRelu", {"x"},
                  "attr { key: \"alpha\" value { f: 0.2 } } "),
      // Operands in another order.
      FloatOpText("sub_xy", "Sub", {"x", "y"}),
      FloatOpText("sub_yx", "Sub", {"y", "x"}),
      // Another op on the same input.
      FloatOpText("relu", "Relu", {"x"}), FloatOpText("relu6", "Relu6", {"x"}),
      // Fetched itself: its name must stay.
      FloatOpText("neg_a", "Neg", {"x"}), FloatOpText("neg_b", "Neg", {"x"}),
      // Ordered after a side effect by a control edge.
      FloatOpText("abs_a", "Abs", {"x"}), kNoiseText,
      "node { name: \"abs_b\" op: \"Abs\" input: \"x\" input: \"^noise\" "
      "attr { key: \"T\" value { type: DT_FLOAT } } }\n",
      // Each output of a Split.
      SplitText("split", "y"), FloatOpText("exp0", "Exp", {"split"}),
      FloatOpText("exp1", "Exp", {"split:1"}),
      // A fed node equal to another.
      FloatOpText("sq_a", "Square", {"x"}),
      FloatOpText("sq_b", "Square", {"x"}),
      FloatOpText("sum", "AddN",
                  {"pool3", "pool2", "leaky_a", "leaky_b", "sub_xy", "sub_yx",
                   "relu", "relu6", "neg_a", "abs_a", "abs_b", "sq_a", "sq_b"},
                  "attr { key: \"N\" value { i: 13 } } "),
      FloatOpText("halves", "Sub", {"exp0", "exp1"}));
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({2, 5, 6, 4}), -2, 2, 21);
  const Tensor y = Values(TensorShape({2, 5, 6, 4}), -2, 2, 22);
  const Tensor sq = Values(TensorShape({2, 5, 6, 4}), 0, 1, 23);
  const std::vector<std::string> fetches = {"sum", "halves", "neg_b"};
  EXPECT_EQ(RunRule(DuplicateMergeRule(), *g,
                    {{"x", x}, {"y", y}, {"sq_b", sq}}, fetches),
            nullptr);
  // Not fed, sq_b is sq_a's duplicate.
  auto optimized = RunRule(DuplicateMergeRule(), *g, {{"x", x}, {"y", y}},
                           {"sum", "halves"});
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(optimized->stats().merged_duplicates, 1);
  EXPECT_EQ(FindNode(*optimized, "sq_b"), nullptr);
  const std::vector<Tensor> on = RunOptimized(optimized, {{"x", x}, {"y", y}});
  const std::vector<Tensor> off =
      RunUnoptimized(g, {{"x", x}, {"y", y}}, {"sum", "halves"});
  ExpectSameBits(on[0], off[0]);
  ExpectSameBits(on[1], off[1]);
}

// A control edge from a node whose past is pure only orders: the
// optimized graph drops it, so it does not keep a duplicate apart.
TEST(DuplicateMergeRuleTest, ControlEdgeFromPureNodeDoesNotKeepDuplicate) {
  const std::string text = absl::StrCat(
      FloatPlaceholderText("x", TensorShape({3, 4})),
      FloatOpText("relu", "Relu", {"x"}), FloatOpText("abs_a", "Abs", {"x"}),
      "node { name: \"abs_b\" op: \"Abs\" input: \"x\" input: \"^relu\" "
      "attr { key: \"T\" value { type: DT_FLOAT } } }\n",
      FloatOpText("sum", "AddN", {"relu", "abs_a", "abs_b"},
                  "attr { key: \"N\" value { i: 3 } } "));
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({3, 4}), -2, 2, 31);
  auto optimized = RunRule(DuplicateMergeRule(), *g, {{"x", x}}, {"sum"});
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(optimized->stats().merged_duplicates, 1);
  EXPECT_EQ(FindNode(*optimized, "abs_b"), nullptr);
  const std::vector<Tensor> on = RunOptimized(optimized, {{"x", x}});
  const std::vector<Tensor> off = RunUnoptimized(g, {{"x", x}}, {"sum"});
  ExpectSameBits(on[0], off[0]);
}

// Stateful nodes run each time: two RandomUniform of one shape stay two.
TEST(DuplicateMergeRuleTest, StatefulNodesStay) {
  const std::string text =
      "node { name: \"shape\" op: \"Const\" attr { key: \"dtype\" value { "
      "type: DT_INT32 } } attr { key: \"value\" value { tensor { dtype: "
      "DT_INT32 tensor_shape { dim { size: 1 } } int_val: 8 } } } }\n"
      "node { name: \"r1\" op: \"RandomUniform\" input: \"shape\" attr { key: "
      "\"T\" value { type: DT_INT32 } } attr { key: \"dtype\" value { type: "
      "DT_FLOAT } } }\n"
      "node { name: \"r2\" op: \"RandomUniform\" input: \"shape\" attr { key: "
      "\"T\" value { type: DT_INT32 } } attr { key: \"dtype\" value { type: "
      "DT_FLOAT } } }\n"
      "node { name: \"sum\" op: \"AddV2\" input: \"r1\" input: \"r2\" attr { "
      "key: \"T\" value { type: DT_FLOAT } } }\n";
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(RunRule(DuplicateMergeRule(), *g, {}, {"sum"}), nullptr);
}

}  // namespace
}  // namespace duplicate_merge_rule_test
}  // namespace weft
