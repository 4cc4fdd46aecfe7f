// The constant-folding rule alone (executor/optimizer/
// constant_folding_rule.h): constant subgraphs become Consts of the same
// name holding what the unoptimized graph computes, extra outputs get
// Consts of their own, and nodes that read a placeholder, read a fed value
// or have no CPU device to run on stay as they are.
#include "executor/optimizer/constant_folding_rule.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/executor/rewrite_rule_testutil.h"

namespace weft {
namespace constant_folding_rule_test {
namespace {

using rewrite_rule_test::ExpectSameBits;
using rewrite_rule_test::FindNode;
using rewrite_rule_test::GraphFromText;
using rewrite_rule_test::RunOptimized;
using rewrite_rule_test::RunRule;
using rewrite_rule_test::RunUnoptimized;
using rewrite_rule_test::Values;

// y = x + (a + b) * a: `sum` and `scaled` are constant, `y` is not.
// a + b = [4.5, -1.5, 4.25] and (a + b) * a = [6.75, 3, 1.0625], each
// exact in float32.
constexpr char kArithmetic[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value {
        shape {
          dim { size: 2 }
          dim { size: 3 }
        }
      }
    }
  }
  node {
    name: "a"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 3 } }
          float_val: 1.5
          float_val: -2
          float_val: 0.25
        }
      }
    }
  }
  node {
    name: "b"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 3 } }
          float_val: 3
          float_val: 0.5
          float_val: 4
        }
      }
    }
  }
  node {
    name: "sum"
    op: "AddV2"
    input: "a"
    input: "b"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "scaled"
    op: "Mul"
    input: "sum"
    input: "a"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "y"
    op: "AddV2"
    input: "x"
    input: "scaled"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

TEST(ConstantFoldingRuleTest, FoldsConstantSubgraphsIntoConsts) {
  auto g = GraphFromText(kArithmetic);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({2, 3}), -4, 4, 1);
  const std::vector<std::string> fetches = {"y", "scaled"};
  ConstantFoldingRule rule;
  EXPECT_EQ(rule.name(), "constant_folding");
  auto optimized = RunRule(rule, *g, {{"x", x}}, fetches);
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(optimized->stats().folded, 2);
  EXPECT_EQ(optimized->stats().fused, 0);
  // Same names, now Consts; the node reading the placeholder stays.
  for (const char* name : {"sum", "scaled"}) {
    const Node* n = FindNode(*optimized, name);
    ASSERT_NE(n, nullptr) << name;
    EXPECT_EQ(n->op(), "Const") << name;
  }
  ASSERT_NE(FindNode(*optimized, "y"), nullptr);
  EXPECT_EQ(FindNode(*optimized, "y")->op(), "AddV2");
  EXPECT_EQ(optimized->fetches(), fetches);
  // The folded value, from the arithmetic above.
  const Tensor* folded = optimized->ConstValue(FindNode(*optimized, "scaled"));
  ASSERT_NE(folded, nullptr);
  ASSERT_EQ(folded->NumElements(), 3);
  EXPECT_EQ(folded->data<float>()[0], 6.75f);
  EXPECT_EQ(folded->data<float>()[1], 3.0f);
  EXPECT_EQ(folded->data<float>()[2], 1.0625f);
  // Both fetches as the unoptimized graph computes them, bit for bit: the
  // same CPU kernels ran, only earlier.
  std::vector<Tensor> off = RunUnoptimized(g, {{"x", x}}, fetches);
  std::vector<Tensor> on = RunOptimized(optimized, {{"x", x}});
  ASSERT_EQ(off.size(), 2u);
  ASSERT_EQ(on.size(), 2u);
  ExpectSameBits(on[0], off[0]);
  ExpectSameBits(on[1], off[1]);
}

TEST(ConstantFoldingRuleTest, ExtraOutputsBecomeConstsOfTheirOwn) {
  const std::string text =
      absl::StrCat(rewrite_rule_test::FloatConstText(
                       "c", Values(TensorShape({2, 3}), -1, 1, 2)),
                   R"pb(
                     node {
                       name: "x"
                       op: "Placeholder"
                       attr {
                         key: "dtype"
                         value { type: DT_FLOAT }
                       }
                       attr {
                         key: "shape"
                         value { shape { dim { size: 3 } } }
                       }
                     }
                     node {
                       name: "u"
                       op: "Unpack"
                       input: "c"
                       attr {
                         key: "T"
                         value { type: DT_FLOAT }
                       }
                       attr {
                         key: "num"
                         value { i: 2 }
                       }
                       attr {
                         key: "axis"
                         value { i: 0 }
                       }
                     }
                     node {
                       name: "z"
                       op: "AddV2"
                       input: "u:1"
                       input: "x"
                       attr {
                         key: "T"
                         value { type: DT_FLOAT }
                       }
                     }
                   )pb");
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({3}), -1, 1, 3);
  auto optimized = RunRule(ConstantFoldingRule(), *g, {{"x", x}}, {"z"});
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(optimized->stats().folded, 1);
  const Node* second = FindNode(*optimized, "u/_folded_output_1");
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->op(), "Const");
  EXPECT_EQ(FindNode(*optimized, "z")->input(0).node, second);
  ExpectSameBits(RunOptimized(optimized, {{"x", x}})[0],
                 RunUnoptimized(g, {{"x", x}}, {"z"})[0]);
}

TEST(ConstantFoldingRuleTest, LeavesFedAndNonConstantNodesAlone) {
  auto g = GraphFromText(kArithmetic);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({2, 3}), -4, 4, 4);
  const Tensor sum = Values(TensorShape({3}), -4, 4, 5);
  // `sum` fed: its value is the caller's, so `scaled` is not constant
  // either, and `y` reads the placeholder. Nothing to rewrite.
  EXPECT_EQ(RunRule(ConstantFoldingRule(), *g, {{"x", x}, {"sum", sum}}, {"y"}),
            nullptr);
  // No CPU device to evaluate on: nothing folds.
  EXPECT_EQ(RunRule(ConstantFoldingRule(), *g, {{"x", x}}, {"y"},
                    /*cpu=*/false),
            nullptr);
}

}  // namespace
}  // namespace constant_folding_rule_test
}  // namespace weft
