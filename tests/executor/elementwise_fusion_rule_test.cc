// The element-wise fusion rule alone (executor/optimizer/
// elementwise_fusion_rule.h): a Keras LSTM cell's and GRU cell's gate nodes
// become one _FusedElementwise with an output per value read outside, bit
// for bit the nodes' values; what must stay apart stays apart (a node read
// through one outside the group, which would close a cycle; a fetched
// value; an operand that broadcasts; a lone node), and unknown dimensions
// that differ at run time still give the nodes' values and shapes.
#include "executor/optimizer/elementwise_fusion_rule.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/executor/rewrite_rule_testutil.h"

namespace weft {
namespace elementwise_fusion_rule_test {
namespace {

using rewrite_rule_test::CountOps;
using rewrite_rule_test::ExpectSameBits;
using rewrite_rule_test::Feeds;
using rewrite_rule_test::FloatConstText;
using rewrite_rule_test::FloatOpText;
using rewrite_rule_test::FloatPlaceholderText;
using rewrite_rule_test::FloatScalarText;
using rewrite_rule_test::GraphFromText;
using rewrite_rule_test::PartialFloatPlaceholderText;
using rewrite_rule_test::RunOptimized;
using rewrite_rule_test::RunRule;
using rewrite_rule_test::RunUnoptimized;
using rewrite_rule_test::Values;

// Keras' LSTM cell after the gate Split: c = f * c_prev + i * g with
// sigmoid gates and a tanh candidate, h = o * tanh(c); both read outside
// (the Identity nodes a loop body returns).
std::string LstmCellText(const std::vector<int64_t>& dims) {
  std::string text;
  for (const char* p : {"zi", "zf", "zg", "zo", "c_prev"}) {
    text += PartialFloatPlaceholderText(p, dims);
  }
  text += FloatOpText("i", "Sigmoid", {"zi"});
  text += FloatOpText("f", "Sigmoid", {"zf"});
  text += FloatOpText("g", "Tanh", {"zg"});
  text += FloatOpText("o", "Sigmoid", {"zo"});
  text += FloatOpText("fc", "Mul", {"f", "c_prev"});
  text += FloatOpText("ig", "Mul", {"i", "g"});
  text += FloatOpText("c", "AddV2", {"fc", "ig"});
  text += FloatOpText("tc", "Tanh", {"c"});
  text += FloatOpText("h", "Mul", {"o", "tc"});
  text += FloatOpText("c_out", "Identity", {"c"});
  text += FloatOpText("h_out", "Identity", {"h"});
  return text;
}

Feeds LstmFeeds(const TensorShape& shape) {
  Feeds feeds;
  unsigned seed = 1;
  for (const char* p : {"zi", "zf", "zg", "zo", "c_prev"}) {
    feeds.push_back({p, Values(shape, -6, 6, seed++)});
  }
  return feeds;
}

TEST(ElementwiseFusionRuleTest, LstmCellBecomesOneNodeWithTwoOutputs) {
  for (bool known : {true, false}) {
    SCOPED_TRACE(known ? "[3,40]" : "[?,40]");
    auto graph = GraphFromText(LstmCellText({known ? 3 : -1, 40}));
    const Feeds feeds = LstmFeeds(TensorShape({3, 40}));
    const std::vector<std::string> fetches = {"h_out", "c_out"};
    ElementwiseFusionRule rule;
    auto optimized = RunRule(rule, *graph, feeds, fetches);
    ASSERT_NE(optimized, nullptr);
    EXPECT_EQ(CountOps(*optimized, "_FusedElementwise"), 1);
    for (const char* op : {"Sigmoid", "Tanh", "Mul", "AddV2"}) {
      EXPECT_EQ(CountOps(*optimized, op), 0) << op;
    }
    EXPECT_EQ(optimized->stats().fused_away, 8);
    const std::vector<Tensor> expected = RunUnoptimized(graph, feeds, fetches);
    const std::vector<Tensor> actual = RunOptimized(optimized, feeds);
    ASSERT_EQ(actual.size(), 2u);
    ExpectSameBits(actual[0], expected[0]);
    ExpectSameBits(actual[1], expected[1]);
  }
}

// Keras' GRU cell (reset_after): z and r gates, 1 - z from a scalar
// constant, and a candidate whose recurrent part r multiplies.
TEST(ElementwiseFusionRuleTest, GruCellWithAScalarConstant) {
  std::string text;
  for (const char* p : {"xz", "xr", "xh", "hz", "hr", "hh", "h_prev"}) {
    text += FloatPlaceholderText(p, TensorShape({2, 33}));
  }
  text += FloatScalarText("one", 1.0f);
  text += FloatOpText("az", "AddV2", {"xz", "hz"});
  text += FloatOpText("ar", "AddV2", {"xr", "hr"});
  text += FloatOpText("z", "Sigmoid", {"az"});
  text += FloatOpText("r", "Sigmoid", {"ar"});
  text += FloatOpText("zh", "Mul", {"z", "h_prev"});
  text += FloatOpText("omz", "Sub", {"one", "z"});
  text += FloatOpText("rh", "Mul", {"r", "hh"});
  text += FloatOpText("ah", "AddV2", {"xh", "rh"});
  text += FloatOpText("cand", "Tanh", {"ah"});
  text += FloatOpText("oc", "Mul", {"omz", "cand"});
  text += FloatOpText("h", "AddV2", {"zh", "oc"});
  text += FloatOpText("h_out", "Identity", {"h"});
  auto graph = GraphFromText(text);
  Feeds feeds;
  unsigned seed = 10;
  for (const char* p : {"xz", "xr", "xh", "hz", "hr", "hh", "h_prev"}) {
    feeds.push_back({p, Values(TensorShape({2, 33}), -5, 5, seed++)});
  }
  ElementwiseFusionRule rule;
  auto optimized = RunRule(rule, *graph, feeds, {"h_out"});
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(CountOps(*optimized, "_FusedElementwise"), 1);
  EXPECT_EQ(optimized->stats().fused_away, 10);
  ExpectSameBits(RunOptimized(optimized, feeds)[0],
                 RunUnoptimized(graph, feeds, {"h_out"})[0]);
}

// The first dimension unknown when optimizing, and different in the two
// inputs at run time: [1, 6] * [4, 6] broadcasts, and the Sigmoid's value,
// read outside, keeps its own shape [1, 6].
TEST(ElementwiseFusionRuleTest, UnknownDimensionsThatDifferAtRunTime) {
  std::string text = PartialFloatPlaceholderText("x", {-1, 6}) +
                     PartialFloatPlaceholderText("y", {-1, 6});
  text += FloatOpText("s", "Sigmoid", {"x"});
  text += FloatOpText("m", "Mul", {"s", "y"});
  text += FloatOpText("t", "Tanh", {"m"});
  text += FloatOpText("s_out", "Relu", {"s"});
  auto graph = GraphFromText(text);
  const Feeds feeds = {{"x", Values(TensorShape({1, 6}), -4, 4, 3)},
                       {"y", Values(TensorShape({4, 6}), -4, 4, 4)}};
  const std::vector<std::string> fetches = {"t", "s_out"};
  ElementwiseFusionRule rule;
  // t is fetched: the group is s and m, with s and m its outputs.
  auto optimized = RunRule(rule, *graph, feeds, fetches);
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(CountOps(*optimized, "_FusedElementwise"), 1);
  const std::vector<Tensor> expected = RunUnoptimized(graph, feeds, fetches);
  const std::vector<Tensor> actual = RunOptimized(optimized, feeds);
  EXPECT_EQ(actual[0].shape(), TensorShape({4, 6}));
  EXPECT_EQ(actual[1].shape(), TensorShape({1, 6}));
  ExpectSameBits(actual[0], expected[0]);
  ExpectSameBits(actual[1], expected[1]);
}

TEST(ElementwiseFusionRuleTest, WhatMustStayApart) {
  const TensorShape shape({3, 5});
  const Feeds feeds = {{"x", Values(shape, -3, 3, 5)},
                       {"y", Values(shape, -3, 3, 6)}};
  struct Case {
    const char* what;
    std::string nodes;
    std::vector<std::string> fetches;
  };
  // Each case's graph ends in out = Identity(m), fetched.
  const Case cases[] = {
      // m reads r, which reads s: fusing s and m would make a cycle.
      {"read through a node outside",
       FloatOpText("s", "Sigmoid", {"x"}) + FloatOpText("r", "Relu", {"s"}) +
           FloatOpText("m", "Mul", {"s", "r"}),
       {"out"}},
      // The Tanh's value is fetched: it must stay a node; the Mul alone is
      // no group.
      {"fetched",
       FloatOpText("t", "Tanh", {"x"}) + FloatOpText("m", "Mul", {"t", "y"}),
       {"out", "t"}},
      // b has shape [5]: the Mul broadcasts it, so only the Tanh fits.
      {"broadcast operand",
       FloatConstText("b", Values(TensorShape({5}), -1, 1, 7)) +
           FloatOpText("t", "Tanh", {"x"}) +
           FloatOpText("m", "Mul", {"t", "b"}),
       {"out"}},
      // Nothing element-wise reads the Sigmoid.
      {"alone",
       FloatOpText("s", "Sigmoid", {"x"}) + FloatOpText("m", "Relu", {"s"}),
       {"out"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    auto graph = GraphFromText(FloatPlaceholderText("x", shape) +
                               FloatPlaceholderText("y", shape) + c.nodes +
                               FloatOpText("out", "Identity", {"m"}));
    ElementwiseFusionRule rule;
    EXPECT_EQ(RunRule(rule, *graph, feeds, c.fetches), nullptr);
  }
}

}  // namespace
}  // namespace elementwise_fusion_rule_test
}  // namespace weft
