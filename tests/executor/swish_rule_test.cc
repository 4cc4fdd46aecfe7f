// The swish rule alone (executor/optimizer/swish_rule.h): x * Sigmoid(x)
// and x * Sigmoid(beta * x) become one _Swish node, bit-identical to the
// nodes it replaces; a Sigmoid whose value also goes elsewhere, a gate
// multiplying another tensor and a non-scalar beta stay.
#include "executor/optimizer/swish_rule.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "executor/graph_optimizer.h"
#include "gtest/gtest.h"
#include "tests/executor/rewrite_rule_testutil.h"

namespace weft {
namespace swish_rule_test {
namespace {

using rewrite_rule_test::CountOps;
using rewrite_rule_test::ExpectSameBits;
using rewrite_rule_test::FindNode;
using rewrite_rule_test::FloatConstText;
using rewrite_rule_test::GraphFromText;
using rewrite_rule_test::RunOptimized;
using rewrite_rule_test::RunRule;
using rewrite_rule_test::RunUnoptimized;
using rewrite_rule_test::Values;

constexpr char kX[] = R"pb(
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
          dim { size: 3 }
          dim { size: 7 }
        }
      }
    }
  }
)pb";

TEST(SwishRuleTest, SigmoidTimesXBecomesOneSwish) {
  const std::string text = absl::StrCat(kX, R"pb(
    node {
      name: "sig"
      op: "Sigmoid"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "swish"
      op: "Mul"
      input: "x"
      input: "sig"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "beta"
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
            tensor_shape {}
            float_val: 1.5
          }
        }
      }
    }
    node {
      name: "bx"
      op: "Mul"
      input: "beta"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "sig2"
      op: "Sigmoid"
      input: "bx"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "swish2"
      op: "Mul"
      input: "sig2"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb");
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({3, 7}), -12, 12, 71);
  const std::vector<std::string> fetches = {"swish", "swish2"};
  SwishRule rule;
  EXPECT_EQ(rule.name(), "swish");
  auto optimized = RunRule(rule, *g, {{"x", x}}, fetches);
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(optimized->stats().fused, 2);
  EXPECT_EQ(optimized->stats().fused_away, 3);
  EXPECT_EQ(optimized->fetches(),
            (std::vector<std::string>{"sig+swish", "bx+sig2+swish2"}));
  EXPECT_EQ(CountOps(*optimized, "_Swish"), 2);
  EXPECT_EQ(CountOps(*optimized, "Sigmoid"), 0);
  EXPECT_EQ(CountOps(*optimized, "Mul"), 0);
  const Node* plain = FindNode(*optimized, "sig+swish");
  const Node* scaled = FindNode(*optimized, "bx+sig2+swish2");
  ASSERT_NE(plain, nullptr);
  ASSERT_NE(scaled, nullptr);
  float beta = 0;
  ASSERT_TRUE(GetNodeAttr(plain->attrs(), "beta", &beta).ok());
  EXPECT_EQ(beta, 1.0f);
  ASSERT_TRUE(GetNodeAttr(scaled->attrs(), "beta", &beta).ok());
  EXPECT_EQ(beta, 1.5f);
  std::vector<std::string> originals;
  ASSERT_TRUE(GetNodeAttr(scaled->attrs(), kFusedNodesAttr, &originals).ok());
  EXPECT_EQ(originals, (std::vector<std::string>{"bx", "sig2", "swish2"}));
  // The same operations per element: bit for bit.
  std::vector<Tensor> off = RunUnoptimized(g, {{"x", x}}, fetches);
  std::vector<Tensor> on = RunOptimized(optimized, {{"x", x}});
  ASSERT_EQ(off.size(), 2u);
  ASSERT_EQ(on.size(), 2u);
  ExpectSameBits(on[0], off[0]);
  ExpectSameBits(on[1], off[1]);
}

TEST(SwishRuleTest, PatternsThatMustStay) {
  // sig's value also goes to `other`; `gate` multiplies z, not the
  // Sigmoid's input; the beta of `bv` is a vector, not a scalar.
  const std::string text = absl::StrCat(
      kX, FloatConstText("bv", Values(TensorShape({7}), 0.5f, 2, 72)), R"pb(
        node {
          name: "z"
          op: "Placeholder"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
          attr {
            key: "shape"
            value {
              shape {
                dim { size: 3 }
                dim { size: 7 }
              }
            }
          }
        }
        node {
          name: "sig"
          op: "Sigmoid"
          input: "x"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "swish"
          op: "Mul"
          input: "x"
          input: "sig"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "other"
          op: "Neg"
          input: "sig"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "sig2"
          op: "Sigmoid"
          input: "x"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "gate"
          op: "Mul"
          input: "z"
          input: "sig2"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "bx"
          op: "Mul"
          input: "bv"
          input: "x"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "sig3"
          op: "Sigmoid"
          input: "bx"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "vector_beta"
          op: "Mul"
          input: "x"
          input: "sig3"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
      )pb");
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({3, 7}), -4, 4, 73);
  EXPECT_EQ(RunRule(SwishRule(), *g, {{"x", x}, {"z", x}},
                    {"swish", "other", "gate", "vector_beta"}),
            nullptr);
}

}  // namespace
}  // namespace swish_rule_test
}  // namespace weft
