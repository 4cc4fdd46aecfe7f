// The scalar fusion rule alone (executor/optimizer/scalar_fusion_rule.h):
// a TensorFlow 2 loop step's counters and cond (two AddV2, two Less and a
// LogicalAnd on int32 scalars, the cond reading the counters through the
// Identity nodes the body returns them by) become one _FusedScalars with an
// output per value read outside, the nodes' values; what must stay apart
// stays apart (a value that is not a scalar, a float node, a fetched node,
// a node of unknown shape, a lone node).
#include "executor/optimizer/scalar_fusion_rule.h"

#include <array>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/executor/rewrite_rule_testutil.h"

namespace weft {
namespace scalar_fusion_rule_test {
namespace {

using rewrite_rule_test::CountOps;
using rewrite_rule_test::ExpectSameBits;
using rewrite_rule_test::Feeds;
using rewrite_rule_test::FloatOpText;
using rewrite_rule_test::FloatPlaceholderText;
using rewrite_rule_test::GraphFromText;
using rewrite_rule_test::IntConstText;
using rewrite_rule_test::RunOptimized;
using rewrite_rule_test::RunRule;
using rewrite_rule_test::RunUnoptimized;

// An int32 Placeholder; `shape` is GraphDef text ("" for a scalar,
// "unknown_rank: true", "dim { size: 2 }").
std::string IntPlaceholderText(const std::string& name,
                               const std::string& shape = "") {
  return absl::StrCat(
      "node { name: '", name,
      "' op: 'Placeholder' attr { key: 'dtype' value { type: DT_INT32 } } "
      "attr { key: 'shape' value { shape { ",
      shape, " } } } }\n");
}

// A node of `op` reading `inputs`, with T = DT_INT32 unless `typed` is
// false (LogicalAnd has no T).
std::string IntOpText(const std::string& name, const std::string& op,
                      const std::vector<std::string>& inputs,
                      bool typed = true) {
  std::string text = absl::StrCat("node { name: '", name, "' op: '", op, "' ");
  for (const std::string& in : inputs)
    absl::StrAppend(&text, "input: '", in, "' ");
  if (typed)
    absl::StrAppend(&text, "attr { key: 'T' value { type: DT_INT32 } } ");
  return text + "}\n";
}

Tensor Int(int32_t v) {
  Tensor t(DT_INT32, TensorShape());
  t.data<int32_t>()[0] = v;
  return t;
}

// The step: body i + 1 and step + 1 returned through Identity nodes, cond
// (step' < max) && (i' < n) reading them.
std::string LoopStepText(const std::string& n_shape) {
  return IntPlaceholderText("i") + IntPlaceholderText("step") +
         IntPlaceholderText("max") + IntPlaceholderText("n", n_shape) +
         IntConstText("one", {}, {1}) +
         IntOpText("add", "AddV2", {"i", "one"}) +
         IntOpText("add_1", "AddV2", {"step", "one"}) +
         IntOpText("i_out", "Identity", {"add"}) +
         IntOpText("step_out", "Identity", {"add_1"}) +
         IntOpText("less_1", "Less", {"step_out", "max"}) +
         IntOpText("less", "Less", {"i_out", "n"}) +
         IntOpText("and", "LogicalAnd", {"less_1", "less"}, false) +
         "node { name: 'holds' op: 'Identity' input: 'and' attr { key: 'T' "
         "value { type: DT_BOOL } } }\n";
}

TEST(ScalarFusionRuleTest, ALoopStepsCountersAndCondBecomeOneNode) {
  auto graph = GraphFromText(LoopStepText(""));
  const std::vector<std::string> fetches = {"i_out", "step_out", "holds"};
  for (const auto& [i, step, max, n] : std::vector<std::array<int32_t, 4>>{
           {0, 0, 10, 32}, {31, 3, 10, 32}, {4, 9, 10, 32}}) {
    const Feeds feeds = {
        {"i", Int(i)}, {"step", Int(step)}, {"max", Int(max)}, {"n", Int(n)}};
    ScalarFusionRule rule;
    auto optimized = RunRule(rule, *graph, feeds, fetches);
    ASSERT_NE(optimized, nullptr);
    EXPECT_EQ(CountOps(*optimized, "_FusedScalars"), 1);
    for (const char* op : {"AddV2", "Less", "LogicalAnd"}) {
      EXPECT_EQ(CountOps(*optimized, op), 0) << op;
    }
    EXPECT_EQ(optimized->stats().fused_away, 4);
    const std::vector<Tensor> expected = RunUnoptimized(graph, feeds, fetches);
    const std::vector<Tensor> actual = RunOptimized(optimized, feeds);
    ASSERT_EQ(actual.size(), 3u);
    for (int k = 0; k < 3; ++k) ExpectSameBits(actual[k], expected[k]);
  }
}

TEST(ScalarFusionRuleTest, WhatMustStayApart) {
  struct Case {
    const char* what;
    std::string text;
    std::vector<std::string> fetches;
    Feeds feeds;
  };
  Tensor pair(DT_INT32, TensorShape({2}));
  pair.data<int32_t>()[0] = 3;
  pair.data<int32_t>()[1] = 40;
  const Feeds scalars = {{"i", Int(1)}, {"step", Int(2)}, {"max", Int(5)}};
  Feeds with_pair = scalars;
  with_pair.push_back({"n", pair});
  Feeds with_scalar = scalars;
  with_scalar.push_back({"n", Int(7)});
  const Case cases[] = {
      // n is a vector: less and and are not scalars; the rest is a group.
      {"not a scalar",
       LoopStepText("dim { size: 2 }"),
       {"i_out", "step_out", "holds"},
       with_pair},
      // n's shape is unknown: so are less's and and's.
      {"unknown shape",
       LoopStepText("unknown_rank: true"),
       {"i_out", "step_out", "holds"},
       with_scalar},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    auto graph = GraphFromText(c.text);
    ScalarFusionRule rule;
    auto optimized = RunRule(rule, *graph, c.feeds, c.fetches);
    // add_1 and less_1 still make a group; less and and stay nodes.
    ASSERT_NE(optimized, nullptr);
    EXPECT_EQ(CountOps(*optimized, "_FusedScalars"), 1);
    EXPECT_EQ(CountOps(*optimized, "LogicalAnd"), 1);
    EXPECT_EQ(CountOps(*optimized, "Less"), 1);
    const std::vector<Tensor> expected =
        RunUnoptimized(graph, c.feeds, c.fetches);
    const std::vector<Tensor> actual = RunOptimized(optimized, c.feeds);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t k = 0; k < actual.size(); ++k) {
      ExpectSameBits(actual[k], expected[k]);
    }
  }
  // Nothing to group: a float AddV2 (outside the vocabulary) between two
  // int nodes; a fetched node; a lone node.
  const Case alone[] = {
      {"float",
       FloatPlaceholderText("x", TensorShape()) + IntPlaceholderText("i") +
           IntConstText("one", {}, {1}) +
           FloatOpText("y", "AddV2", {"x", "x"}) +
           IntOpText("add", "AddV2", {"i", "one"}),
       {"y", "add"},
       {}},
      {"fetched",
       IntPlaceholderText("i") + IntConstText("one", {}, {1}) +
           IntOpText("add", "AddV2", {"i", "one"}) +
           IntOpText("add_1", "AddV2", {"add", "one"}),
       {"add", "add_1"},
       {}},
  };
  for (const Case& c : alone) {
    SCOPED_TRACE(c.what);
    auto graph = GraphFromText(c.text);
    ScalarFusionRule rule;
    Feeds feeds = {{"i", Int(3)}};
    if (std::string(c.what) == "float") {
      Tensor x(DT_FLOAT, TensorShape());
      x.data<float>()[0] = 1.5f;
      feeds.push_back({"x", x});
    }
    EXPECT_EQ(RunRule(rule, *graph, feeds, c.fetches), nullptr);
  }
}

}  // namespace
}  // namespace scalar_fusion_rule_test
}  // namespace weft
