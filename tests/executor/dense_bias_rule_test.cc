// The dense bias rule alone (executor/optimizer/dense_bias_rule.h): the
// product, Reshape and bias Keras writes for a Dense or EinsumDense layer
// over [batch, tokens, features] become a _FusedMatMul between two
// Reshapes with the separate nodes' values bit for bit; a bias that varies
// along the tokens, an Add that broadcasts, a fetched Reshape, a fed kernel
// and an adjoint x stay as they are.
#include "executor/optimizer/dense_bias_rule.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "executor/graph_optimizer.h"
#include "gtest/gtest.h"
#include "tests/executor/rewrite_rule_testutil.h"

namespace weft {
namespace dense_bias_rule_test {
namespace {

using rewrite_rule_test::CountOps;
using rewrite_rule_test::ExpectSameBits;
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

// A float Placeholder of [?, dims...]: the batch unknown, as in a model.
std::string BatchPlaceholder(const std::string& name,
                             const std::vector<int>& dims) {
  std::string shape = "dim { size: -1 } ";
  for (int d : dims) absl::StrAppend(&shape, "dim { size: ", d, " } ");
  return absl::StrCat("node { name: '", name,
                      "' op: 'Placeholder' attr { key: 'dtype' value { type: "
                      "DT_FLOAT } } attr { key: 'shape' value { shape { ",
                      shape, "} } } }\n");
}

std::string Reshape(const std::string& name, const std::string& in,
                    const std::string& shape) {
  return FloatOpText(name, "Reshape", {in, shape},
                     "attr { key: 'Tshape' value { type: DT_INT32 } } ");
}

std::string BoolAttr(const std::string& name, bool value) {
  return absl::StrCat("attr { key: '", name,
                      "' value { b: ", value ? "true" : "false", " } } ");
}

// Runs the rule on `text` fetching `fetch`, and checks the rewrite (when
// `fused`) and that the values are the unoptimized graph's bit for bit.
// x is [rows, 3, 8] with rows = 2 and 0.
void Check(const std::string& text, const std::string& fetch, bool fused) {
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  DenseBiasRule rule;
  EXPECT_EQ(rule.name(), "dense_bias");
  for (int64_t rows : {2, 0}) {
    SCOPED_TRACE(absl::StrCat("rows ", rows));
    const Tensor x = Values(TensorShape({rows, 3, 8}), -2, 2, 21);
    auto optimized = RunRule(rule, *g, {{"x", x}}, {fetch});
    if (!fused) {
      EXPECT_EQ(optimized, nullptr);
      return;
    }
    ASSERT_NE(optimized, nullptr);
    EXPECT_EQ(optimized->stats().fused, 1);
    EXPECT_EQ(CountOps(*optimized, "_FusedMatMul"), 1);
    EXPECT_EQ(CountOps(*optimized, "BiasAdd"), 0);
    EXPECT_EQ(CountOps(*optimized, "AddV2"), 0);
    EXPECT_EQ(CountOps(*optimized, "BatchMatMulV2"), 0);
    EXPECT_EQ(CountOps(*optimized, "MatMul"), 0);
    std::vector<Tensor> off = RunUnoptimized(g, {{"x", x}}, {fetch});
    std::vector<Tensor> on = RunOptimized(optimized, {{"x", x}});
    ASSERT_EQ(on.size(), 1u);
    ExpectSameBits(on[0], off[0]);
  }
}

// Keras' Tensordot: x flattened, MatMul, Reshape back, BiasAdd; the fused
// node is named after the MatMul and lists the three nodes.
TEST(DenseBiasRuleTest, TensordotBiasMovesIntoTheProduct) {
  const std::string text = absl::StrCat(
      BatchPlaceholder("x", {3, 8}), IntConstText("flat", {2}, {-1, 8}),
      IntConstText("back", {3}, {-1, 3, 6}),
      FloatConstText("w", Values(TensorShape({8, 6}), -1, 1, 22)),
      FloatConstText("b", Values(TensorShape({6}), -1, 1, 23)),
      Reshape("d/x2", "x", "flat"),
      FloatOpText("d/mm", "MatMul", {"d/x2", "w"}),
      Reshape("d/r", "d/mm", "back"),
      FloatOpText("d/out", "BiasAdd", {"d/r", "b"}));
  Check(text, "d/out", true);
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  auto optimized =
      RunRule(DenseBiasRule(), *g,
              {{"x", Values(TensorShape({2, 3, 8}), -2, 2, 21)}}, {"d/out"});
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(optimized->stats().fused_away, 2);
  const Node* fused = FindNode(*optimized, "d/mm+BiasAdd");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op(), "_FusedMatMul");
  std::vector<std::string> originals;
  ASSERT_TRUE(GetNodeAttr(fused->attrs(), kFusedNodesAttr, &originals).ok());
  EXPECT_EQ(absl::StrJoin(originals, ","), "d/mm,d/r,d/out");
}

// EinsumDense's query projection: a BatchMatMulV2 over [?, 3, 8], a Reshape
// into 2 heads of 3, and the [2, 3] bias added, on either side, a [3]
// bias shared by the heads and a [2, 1] one per head.
TEST(DenseBiasRuleTest, HeadsBiasOverTheReshapedProduct) {
  for (const std::string bias_shape : {"2x3", "3", "2x1", "1x2x3"}) {
    for (bool bias_first : {false, true}) {
      SCOPED_TRACE(absl::StrCat(bias_shape, bias_first ? " bias first" : ""));
      const TensorShape b_shape = bias_shape == "2x3" ? TensorShape({2, 3})
                                  : bias_shape == "3" ? TensorShape({3})
                                  : bias_shape == "2x1"
                                      ? TensorShape({2, 1})
                                      : TensorShape({1, 2, 3});
      const std::string text = absl::StrCat(
          BatchPlaceholder("x", {3, 8}),
          IntConstText("heads", {4}, {-1, 3, 2, 3}),
          FloatConstText("w", Values(TensorShape({8, 6}), -1, 1, 24)),
          FloatConstText("b", Values(b_shape, -1, 1, 25)),
          FloatOpText("q/mm", "BatchMatMulV2", {"x", "w"}),
          Reshape("q/r", "q/mm", "heads"),
          FloatOpText("q/add", "AddV2",
                      bias_first ? std::vector<std::string>{"b", "q/r"}
                                 : std::vector<std::string>{"q/r", "b"}));
      Check(text, "q/add", true);
    }
  }
}

// EinsumDense's output projection: no Reshape, the kernel transposed.
TEST(DenseBiasRuleTest, BatchMatMulThenBias) {
  for (bool adj_y : {false, true}) {
    SCOPED_TRACE(adj_y ? "adj_y" : "");
    const std::string text = absl::StrCat(
        BatchPlaceholder("x", {3, 8}),
        FloatConstText(
            "w", Values(adj_y ? TensorShape({4, 8}) : TensorShape({8, 4}), -1,
                        1, 26)),
        FloatConstText("b", Values(TensorShape({4}), -1, 1, 27)),
        FloatOpText("o/mm", "BatchMatMulV2", {"x", "w"},
                    BoolAttr("adj_y", adj_y)),
        FloatOpText("o/out", "BiasAdd", {"o/mm", "b"}));
    Check(text, "o/out", true);
  }
}

// What must stay: a bias varying along the tokens (not a per-feature
// bias), an Add that broadcasts its value to a larger shape, a fetched
// Reshape, a fed kernel, an adjoint x, and a MatMul followed directly by
// its bias (the fusion rule's).
TEST(DenseBiasRuleTest, OtherPatternsStay) {
  const std::string common = absl::StrCat(
      BatchPlaceholder("x", {3, 8}), IntConstText("heads", {4}, {-1, 3, 2, 3}),
      FloatConstText("w", Values(TensorShape({8, 6}), -1, 1, 28)));
  {
    SCOPED_TRACE("bias along the tokens");
    Check(absl::StrCat(
              common,
              FloatConstText("b", Values(TensorShape({3, 1, 3}), -1, 1, 29)),
              FloatOpText("mm", "BatchMatMulV2", {"x", "w"}),
              Reshape("r", "mm", "heads"),
              FloatOpText("add", "AddV2", {"r", "b"})),
          "add", false);
  }
  {
    SCOPED_TRACE("an Add that broadcasts");
    Check(absl::StrCat(
              BatchPlaceholder("x", {3, 8}),
              IntConstText("cols", {3}, {-1, 3, 1}),
              FloatConstText("w1", Values(TensorShape({8, 1}), -1, 1, 30)),
              FloatConstText("b", Values(TensorShape({4}), -1, 1, 31)),
              FloatOpText("mm", "BatchMatMulV2", {"x", "w1"}),
              Reshape("r", "mm", "cols"),
              FloatOpText("add", "AddV2", {"r", "b"})),
          "add", false);
  }
  {
    SCOPED_TRACE("a fetched Reshape");
    const std::string text = absl::StrCat(
        common, FloatConstText("b", Values(TensorShape({2, 3}), -1, 1, 32)),
        FloatOpText("mm", "BatchMatMulV2", {"x", "w"}),
        Reshape("r", "mm", "heads"), FloatOpText("add", "AddV2", {"r", "b"}));
    auto g = GraphFromText(text);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(RunRule(DenseBiasRule(), *g,
                      {{"x", Values(TensorShape({2, 3, 8}), -2, 2, 21)}},
                      {"add", "r"}),
              nullptr);
  }
  {
    SCOPED_TRACE("a fed kernel");
    const std::string text =
        absl::StrCat(BatchPlaceholder("x", {3, 8}),
                     FloatPlaceholderText("w", TensorShape({8, 4})),
                     FloatConstText("b", Values(TensorShape({4}), -1, 1, 33)),
                     FloatOpText("mm", "BatchMatMulV2", {"x", "w"}),
                     FloatOpText("out", "BiasAdd", {"mm", "b"}));
    auto g = GraphFromText(text);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(RunRule(DenseBiasRule(), *g,
                      {{"x", Values(TensorShape({2, 3, 8}), -2, 2, 21)},
                       {"w", Values(TensorShape({8, 4}), -1, 1, 34)}},
                      {"out"}),
              nullptr);
  }
  {
    SCOPED_TRACE("an adjoint x");
    Check(absl::StrCat(
              BatchPlaceholder("x", {3, 8}),
              FloatConstText("w", Values(TensorShape({3, 4}), -1, 1, 35)),
              FloatConstText("b", Values(TensorShape({4}), -1, 1, 36)),
              FloatOpText("mm", "BatchMatMulV2", {"x", "w"},
                          BoolAttr("adj_x", true)),
              FloatOpText("out", "BiasAdd", {"mm", "b"})),
          "out", false);
  }
  {
    SCOPED_TRACE("MatMul then BiasAdd");
    Check(absl::StrCat(
              BatchPlaceholder("x", {3, 8}), IntConstText("flat", {2}, {-1, 8}),
              FloatConstText("w", Values(TensorShape({8, 4}), -1, 1, 37)),
              FloatConstText("b", Values(TensorShape({4}), -1, 1, 38)),
              Reshape("x2", "x", "flat"),
              FloatOpText("mm", "MatMul", {"x2", "w"}),
              FloatOpText("out", "BiasAdd", {"mm", "b"})),
          "out", false);
  }
}

}  // namespace
}  // namespace dense_bias_rule_test
}  // namespace weft
