// The element-wise fusion rule alone (executor/optimizer/
// elementwise_fusion_rule.h): a Keras LSTM cell's and GRU cell's gate nodes
// become one _FusedElementwise with an output per value read outside, bit
// for bit the nodes' values; what must stay apart stays apart (a node read
// through one outside the group, which would close a cycle; a fetched
// value; an operand that broadcasts; a lone node), and unknown dimensions
// that differ at run time still give the nodes' values and shapes. Gates
// split apart first (Split, SplitV, StridedSlice on the last axis, after a
// BiasAdd or Add) are read in place, the split and the add taken in, unless
// something else reads them.
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
using rewrite_rule_test::IntConstText;
using rewrite_rule_test::PartialFloatPlaceholderText;
using rewrite_rule_test::RunOptimized;
using rewrite_rule_test::RunRule;
using rewrite_rule_test::RunUnoptimized;
using rewrite_rule_test::Values;

// The cell's nodes after its gates (z[0] .. z[3]) and state c_prev.
std::string LstmGatesText(const std::vector<std::string>& z) {
  std::string text;
  text += FloatOpText("i", "Sigmoid", {z[0]});
  text += FloatOpText("f", "Sigmoid", {z[1]});
  text += FloatOpText("g", "Tanh", {z[2]});
  text += FloatOpText("o", "Sigmoid", {z[3]});
  text += FloatOpText("fc", "Mul", {"f", "c_prev"});
  text += FloatOpText("ig", "Mul", {"i", "g"});
  text += FloatOpText("c", "AddV2", {"fc", "ig"});
  text += FloatOpText("tc", "Tanh", {"c"});
  text += FloatOpText("h", "Mul", {"o", "tc"});
  text += FloatOpText("c_out", "Identity", {"c"});
  text += FloatOpText("h_out", "Identity", {"h"});
  return text;
}

// Keras' LSTM cell after the gate Split: c = f * c_prev + i * g with
// sigmoid gates and a tanh candidate, h = o * tanh(c); both read outside
// (the Identity nodes a loop body returns).
std::string LstmCellText(const std::vector<int64_t>& dims) {
  std::string text;
  for (const char* p : {"zi", "zf", "zg", "zo", "c_prev"}) {
    text += PartialFloatPlaceholderText(p, dims);
  }
  return text + LstmGatesText({"zi", "zf", "zg", "zo"});
}

// The cell as Keras writes it: z (rows x 4 units) plus a bias, split into
// the four gates along the last axis by `split` ("Split" or "SplitV"),
// with the add a BiasAdd or an AddV2.
std::string SplitLstmCellText(int64_t rows, int64_t units,
                              const std::string& split,
                              const std::string& add) {
  std::string text =
      PartialFloatPlaceholderText("z", {rows, 4 * units}) +
      PartialFloatPlaceholderText("c_prev", {rows, units}) +
      FloatConstText("bias", Values(TensorShape({4 * units}), -2, 2, 9)) +
      IntConstText("axis", {}, {-1}) + FloatOpText("zb", add, {"z", "bias"});
  if (split == "Split") {
    text += FloatOpText("gates", "Split", {"axis", "zb"},
                        "attr { key: 'num_split' value { i: 4 } } ");
  } else {
    const int u = static_cast<int>(units);
    text += IntConstText("sizes", {4}, {u, u, -1, u}) +
            FloatOpText("gates", "SplitV", {"zb", "sizes", "axis"},
                        "attr { key: 'num_split' value { i: 4 } } "
                        "attr { key: 'Tlen' value { type: DT_INT32 } } ");
  }
  return text + LstmGatesText({"gates:0", "gates:1", "gates:2", "gates:3"});
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

// BiasAdd (or AddV2) then Split (or SplitV) into the gates: the fused node
// reads z and the bias in column ranges and adds them part by part, the
// split and the add taken in; the same bits as the nodes.
TEST(ElementwiseFusionRuleTest, GatesSplitAfterABiasAreReadInPlace) {
  for (const char* split : {"Split", "SplitV"}) {
    for (const char* add : {"BiasAdd", "AddV2"}) {
      for (int64_t rows : {3, -1}) {
        SCOPED_TRACE(absl::StrCat(split, " ", add, " rows ", rows));
        auto graph = GraphFromText(SplitLstmCellText(rows, 40, split, add));
        const Feeds feeds = {
            {"z", Values(TensorShape({3, 160}), -6, 6, 1)},
            {"c_prev", Values(TensorShape({3, 40}), -6, 6, 2)}};
        const std::vector<std::string> fetches = {"h_out", "c_out"};
        ElementwiseFusionRule rule;
        auto optimized = RunRule(rule, *graph, feeds, fetches);
        ASSERT_NE(optimized, nullptr);
        EXPECT_EQ(CountOps(*optimized, "_FusedElementwise"), 1);
        for (const char* op : {split, add, "Sigmoid", "Tanh", "Mul"}) {
          EXPECT_EQ(CountOps(*optimized, op), 0) << op;
        }
        // The cell's 8, the split and the add.
        EXPECT_EQ(optimized->stats().fused_away, 10);
        const std::vector<Tensor> expected =
            RunUnoptimized(graph, feeds, fetches);
        const std::vector<Tensor> actual = RunOptimized(optimized, feeds);
        ASSERT_EQ(actual.size(), 2u);
        ExpectSameBits(actual[0], expected[0]);
        ExpectSameBits(actual[1], expected[1]);
      }
    }
  }
}

// A GRU's recurrent part sliced three ways by StridedSlice (x[:, :33],
// x[:, 33:66], x[:, 66:]) and added to the input part's Split: the slices
// are read in place.
TEST(ElementwiseFusionRuleTest, StridedSlicesOfTheLastAxis) {
  std::string text = PartialFloatPlaceholderText("xw", {-1, 99}) +
                     PartialFloatPlaceholderText("hu", {-1, 99}) +
                     PartialFloatPlaceholderText("h_prev", {-1, 33}) +
                     IntConstText("axis", {}, {1}) +
                     FloatOpText("x", "Split", {"axis", "xw"},
                                 "attr { key: 'num_split' value { i: 3 } } ") +
                     IntConstText("stride", {2}, {1, 1});
  const int bounds[][2] = {{0, 33}, {33, 66}, {66, 0}};
  for (int k = 0; k < 3; ++k) {
    const std::string b = absl::StrCat("begin", k), e = absl::StrCat("end", k);
    text += IntConstText(b, {2}, {0, bounds[k][0]}) +
            IntConstText(e, {2}, {0, bounds[k][1]}) +
            FloatOpText(
                absl::StrCat("hs", k), "StridedSlice", {"hu", b, e, "stride"},
                absl::StrCat("attr { key: 'Index' value { type: DT_INT32 } } "
                             "attr { key: 'begin_mask' value { i: 1 } } "
                             "attr { key: 'end_mask' value { i: ",
                             k == 2 ? 3 : 1, " } } "));
  }
  text += FloatOpText("az", "AddV2", {"x:0", "hs0"});
  text += FloatOpText("ar", "AddV2", {"x:1", "hs1"});
  text += FloatOpText("z", "Sigmoid", {"az"});
  text += FloatOpText("r", "Sigmoid", {"ar"});
  text += FloatOpText("rh", "Mul", {"r", "hs2"});
  text += FloatOpText("ah", "AddV2", {"x:2", "rh"});
  text += FloatOpText("cand", "Tanh", {"ah"});
  text += FloatOpText("zh", "Mul", {"z", "h_prev"});
  text += FloatOpText("h", "AddV2", {"zh", "cand"});
  text += FloatOpText("h_out", "Identity", {"h"});
  auto graph = GraphFromText(text);
  const Feeds feeds = {{"xw", Values(TensorShape({2, 99}), -5, 5, 3)},
                       {"hu", Values(TensorShape({2, 99}), -5, 5, 4)},
                       {"h_prev", Values(TensorShape({2, 33}), -5, 5, 5)}};
  ElementwiseFusionRule rule;
  auto optimized = RunRule(rule, *graph, feeds, {"h_out"});
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(CountOps(*optimized, "_FusedElementwise"), 1);
  EXPECT_EQ(CountOps(*optimized, "StridedSlice"), 0);
  EXPECT_EQ(CountOps(*optimized, "Split"), 0);
  ExpectSameBits(RunOptimized(optimized, feeds)[0],
                 RunUnoptimized(graph, feeds, {"h_out"})[0]);
}

// A split or add that something outside the group also reads stays a
// node: a gate read by a Relu keeps the Split (the group reads its
// outputs), the biased z fetched keeps the BiasAdd (the group reads its
// columns in place). Rows that differ at run time from c_prev's (1 and 3,
// both unknown when optimizing) still give the nodes' values.
TEST(ElementwiseFusionRuleTest, RangesReadElsewhereStay) {
  struct Case {
    const char* what;
    std::string extra;
    std::vector<std::string> fetches;
    const char* stays;
    const char* gone;  // null: nothing but the cell's nodes
  };
  const Case cases[] = {
      {"a gate read by a Relu",
       FloatOpText("r", "Relu", {"gates:1"}),
       {"h_out", "r"},
       "Split",
       nullptr},
      {"the biased z fetched", "", {"h_out", "zb"}, "BiasAdd", "Split"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    auto graph =
        GraphFromText(SplitLstmCellText(-1, 8, "Split", "BiasAdd") + c.extra);
    const Feeds feeds = {{"z", Values(TensorShape({1, 32}), -6, 6, 6)},
                         {"c_prev", Values(TensorShape({3, 8}), -6, 6, 7)}};
    ElementwiseFusionRule rule;
    auto optimized = RunRule(rule, *graph, feeds, c.fetches);
    ASSERT_NE(optimized, nullptr);
    EXPECT_EQ(CountOps(*optimized, "_FusedElementwise"), 1);
    EXPECT_EQ(CountOps(*optimized, c.stays), 1);
    if (c.gone != nullptr) EXPECT_EQ(CountOps(*optimized, c.gone), 0);
    const std::vector<Tensor> expected =
        RunUnoptimized(graph, feeds, c.fetches);
    const std::vector<Tensor> actual = RunOptimized(optimized, feeds);
    ASSERT_EQ(actual.size(), expected.size());
    EXPECT_EQ(actual[0].shape(), TensorShape({3, 8}));
    for (size_t i = 0; i < actual.size(); ++i) {
      ExpectSameBits(actual[i], expected[i]);
    }
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
