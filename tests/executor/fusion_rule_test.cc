// The fusion rule alone (executor/optimizer/fusion_rule.h): Conv2D +
// BiasAdd + Relu and MatMul + Mul + AddV2 + Relu6 become one fused node
// named after the chain, standing in for its last node, with the values of
// the unoptimized graph; a product whose value also goes elsewhere, or
// whose bias is not constant, stays. Also the vocabulary `weft ops` reads.
#include "executor/optimizer/fusion_rule.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "executor/graph_optimizer.h"
#include "gtest/gtest.h"
#include "tests/executor/rewrite_rule_testutil.h"

namespace weft {
namespace fusion_rule_test {
namespace {

using rewrite_rule_test::ExpectNear;
using rewrite_rule_test::FindNode;
using rewrite_rule_test::FloatConstText;
using rewrite_rule_test::GraphFromText;
using rewrite_rule_test::RunOptimized;
using rewrite_rule_test::RunRule;
using rewrite_rule_test::RunUnoptimized;
using rewrite_rule_test::Values;

std::vector<std::string> StringList(const Node* n, const std::string& attr) {
  std::vector<std::string> v;
  EXPECT_TRUE(GetNodeAttr(n->attrs(), attr, &v).ok()) << attr;
  return v;
}

TEST(FusionRuleTest, ConvBiasReluBecomesOneFusedConv) {
  const std::string text = absl::StrCat(
      FloatConstText("w", Values(TensorShape({3, 3, 2, 4}), -1, 1, 41)),
      FloatConstText("b", Values(TensorShape({4}), -1, 1, 42)), R"pb(
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
                dim { size: 1 }
                dim { size: 6 }
                dim { size: 5 }
                dim { size: 2 }
              }
            }
          }
        }
        node {
          name: "conv"
          op: "Conv2D"
          input: "x"
          input: "w"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
          attr {
            key: "strides"
            value { list { i: 1 i: 1 i: 1 i: 1 } }
          }
          attr {
            key: "padding"
            value { s: "SAME" }
          }
        }
        node {
          name: "bias"
          op: "BiasAdd"
          input: "conv"
          input: "b"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "relu"
          op: "Relu"
          input: "bias"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
      )pb");
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({1, 6, 5, 2}), -2, 2, 43);
  FusionRule rule;
  EXPECT_EQ(rule.name(), "fusion");
  auto optimized = RunRule(rule, *g, {{"x", x}}, {"relu"});
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(optimized->stats().fused, 1);
  EXPECT_EQ(optimized->stats().fused_away, 2);
  // The fetch of the chain's last node follows the fused node.
  EXPECT_EQ(optimized->fetches(),
            std::vector<std::string>{"conv+BiasAdd+Relu"});
  const Node* fused = FindNode(*optimized, "conv+BiasAdd+Relu");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op(), "_FusedConv2D");
  EXPECT_EQ(StringList(fused, "fused_ops"),
            (std::vector<std::string>{"BiasAdd", "Relu"}));
  EXPECT_EQ(StringList(fused, kFusedNodesAttr),
            (std::vector<std::string>{"conv", "bias", "relu"}));
  for (const char* gone : {"conv", "bias", "relu"}) {
    EXPECT_EQ(FindNode(*optimized, gone), nullptr) << gone;
  }
  // The fused kernel adds the bias in its own loop: equal up to rounding.
  ExpectNear(RunOptimized(optimized, {{"x", x}})[0],
             RunUnoptimized(g, {{"x", x}}, {"relu"})[0], 1e-5f);
}

TEST(FusionRuleTest, ScaleFoldsIntoTheFilterAndAddsBecomeTheBias) {
  const Tensor w = Values(TensorShape({4, 3}), -1, 1, 51);
  const Tensor s = Values(TensorShape({3}), 0.5f, 2, 52);
  const std::string text =
      absl::StrCat(FloatConstText("w", w), FloatConstText("s", s), R"pb(
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
                dim { size: 4 }
              }
            }
          }
        }
        node {
          name: "c"
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
                float_val: 0.25
              }
            }
          }
        }
        node {
          name: "mm"
          op: "MatMul"
          input: "x"
          input: "w"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "mul"
          op: "Mul"
          input: "mm"
          input: "s"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "add"
          op: "AddV2"
          input: "c"
          input: "mul"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "r6"
          op: "Relu6"
          input: "add"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
      )pb");
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({2, 4}), -3, 3, 53);
  auto optimized = RunRule(FusionRule(), *g, {{"x", x}}, {"r6"});
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(optimized->stats().fused, 1);
  EXPECT_EQ(optimized->stats().fused_away, 3);
  const std::string name = "mm+Mul+AddV2+Relu6";
  const Node* fused = FindNode(*optimized, name);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op(), "_FusedMatMul");
  EXPECT_EQ(StringList(fused, "fused_ops"),
            (std::vector<std::string>{"BiasAdd", "Relu6"}));
  // The new filter is w with column j times s[j] (one float product each);
  // the bias is 0 * s + 0.25 = 0.25 per channel.
  const Node* filter = FindNode(*optimized, name + "/filter");
  const Node* bias = FindNode(*optimized, name + "/bias");
  ASSERT_NE(filter, nullptr);
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(fused->input(1).node, filter);
  EXPECT_EQ(fused->input(2).node, bias);
  const Tensor* fv = optimized->ConstValue(filter);
  ASSERT_NE(fv, nullptr);
  ASSERT_EQ(fv->NumElements(), 12);
  for (int k = 0; k < 4; ++k) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(fv->data<float>()[k * 3 + j],
                w.data<float>()[k * 3 + j] * s.data<float>()[j]);
    }
  }
  const Tensor* bv = optimized->ConstValue(bias);
  ASSERT_NE(bv, nullptr);
  ASSERT_EQ(bv->NumElements(), 3);
  for (int j = 0; j < 3; ++j) EXPECT_EQ(bv->data<float>()[j], 0.25f);
  // Scaling the filter instead of the product rounds differently.
  ExpectNear(RunOptimized(optimized, {{"x", x}})[0],
             RunUnoptimized(g, {{"x", x}}, {"r6"})[0], 1e-5f);
}

TEST(FusionRuleTest, ChainsThatMustNotFuse) {
  // conv's value also goes to `peek`, which is fetched; mm's bias is a
  // placeholder, not a constant.
  const std::string text = absl::StrCat(
      FloatConstText("w", Values(TensorShape({1, 1, 2, 3}), -1, 1, 61)),
      FloatConstText("b", Values(TensorShape({3}), -1, 1, 62)),
      FloatConstText("m", Values(TensorShape({2, 3}), -1, 1, 63)), R"pb(
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
                dim { size: 1 }
                dim { size: 4 }
                dim { size: 4 }
                dim { size: 2 }
              }
            }
          }
        }
        node {
          name: "conv"
          op: "Conv2D"
          input: "x"
          input: "w"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
          attr {
            key: "strides"
            value { list { i: 1 i: 1 i: 1 i: 1 } }
          }
          attr {
            key: "padding"
            value { s: "SAME" }
          }
        }
        node {
          name: "bias"
          op: "BiasAdd"
          input: "conv"
          input: "b"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "peek"
          op: "Identity"
          input: "conv"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "v"
          op: "Placeholder"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
          attr {
            key: "shape"
            value { shape { dim { size: 2 } } }
          }
        }
        node {
          name: "mm"
          op: "MatMul"
          input: "m"
          input: "m"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
          attr {
            key: "transpose_b"
            value { b: true }
          }
        }
        node {
          name: "mm_bias"
          op: "BiasAdd"
          input: "mm"
          input: "v"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
      )pb");
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({1, 4, 4, 2}), -1, 1, 64);
  const Tensor v = Values(TensorShape({2}), -1, 1, 65);
  EXPECT_EQ(RunRule(FusionRule(), *g, {{"x", x}, {"v", v}},
                    {"bias", "peek", "mm_bias"}),
            nullptr);
}

TEST(FusionRuleTest, VocabularyMatchesWhatTheRuleFuses) {
  for (const char* head : {"Conv2D", "DepthwiseConv2dNative", "MatMul"}) {
    EXPECT_TRUE(IsFusionHead(head)) << head;
  }
  EXPECT_FALSE(IsFusionHead("Conv3D"));
  EXPECT_FALSE(IsFusionHead("BatchMatMulV2"));
  EXPECT_EQ(FusedOpName("Conv2D"), "_FusedConv2D");
  EXPECT_EQ(FusedOpName("MatMul"), "_FusedMatMul");
  for (const char* link :
       {"BiasAdd", "Add", "AddV2", "Sub", "Mul", "FusedBatchNormV3", "Relu",
        "Relu6", "Elu", "LeakyRelu"}) {
    EXPECT_TRUE(IsFusionLink(link)) << link;
  }
  for (const char* other : {"Sigmoid", "Tanh", "Identity", "Pad"}) {
    EXPECT_FALSE(IsFusionLink(other)) << other;
  }
}

}  // namespace
}  // namespace fusion_rule_test
}  // namespace weft
