// The Pad-folding rule alone (executor/optimizer/pad_folding_rule.h): a
// zero Pad of H and W before a VALID convolution becomes the convolution's
// explicit padding, with the same values bit for bit; a Pad before a SAME
// convolution, one whose value is also fetched, and a PadV2 of a nonzero
// constant stay.
#include "executor/optimizer/pad_folding_rule.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "gtest/gtest.h"
#include "tests/executor/rewrite_rule_testutil.h"

namespace weft {
namespace pad_folding_rule_test {
namespace {

using rewrite_rule_test::ExpectSameBits;
using rewrite_rule_test::FindNode;
using rewrite_rule_test::FloatConstText;
using rewrite_rule_test::GraphFromText;
using rewrite_rule_test::RunOptimized;
using rewrite_rule_test::RunRule;
using rewrite_rule_test::RunUnoptimized;
using rewrite_rule_test::Values;

// x [1, 5, 5, 2], a 3x3 filter w [3, 3, 2, 3] and the paddings
// [[0, 0], [1, 1], [2, 0], [0, 0]] (H by 1 and 1, W by 2 and 0), int32.
std::string Inputs() {
  return absl::StrCat(
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
            value {
              shape {
                dim { size: 1 }
                dim { size: 5 }
                dim { size: 5 }
                dim { size: 2 }
              }
            }
          }
        }
        node {
          name: "p"
          op: "Const"
          attr {
            key: "dtype"
            value { type: DT_INT32 }
          }
          attr {
            key: "value"
            value {
              tensor {
                dtype: DT_INT32
                tensor_shape {
                  dim { size: 4 }
                  dim { size: 2 }
                }
                int_val: 0
                int_val: 0
                int_val: 1
                int_val: 1
                int_val: 2
                int_val: 0
                int_val: 0
                int_val: 0
              }
            }
          }
        }
      )pb",
      FloatConstText("w", Values(TensorShape({3, 3, 2, 3}), -1, 1, 11)));
}

// Pad `name`_pad of x by p, then a Conv2D `name` of it with `padding`.
std::string PadConv(const std::string& name, const std::string& padding) {
  return absl::Substitute(R"pb(
                            node {
                              name: "$0_pad"
                              op: "Pad"
                              input: "x"
                              input: "p"
                              attr {
                                key: "T"
                                value { type: DT_FLOAT }
                              }
                              attr {
                                key: "Tpaddings"
                                value { type: DT_INT32 }
                              }
                            }
                            node {
                              name: "$0"
                              op: "Conv2D"
                              input: "$0_pad"
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
                                value { s: "$1" }
                              }
                            }
                          )pb",
                          name, padding);
}

TEST(PadFoldingRuleTest, ZeroPadBecomesExplicitPadding) {
  auto g = GraphFromText(absl::StrCat(Inputs(), PadConv("conv", "VALID")));
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({1, 5, 5, 2}), -2, 2, 12);
  PadFoldingRule rule;
  EXPECT_EQ(rule.name(), "pad_folding");
  auto optimized = RunRule(rule, *g, {{"x", x}}, {"conv"});
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(optimized->stats().folded_pads, 1);
  EXPECT_EQ(FindNode(*optimized, "conv_pad"), nullptr);
  const Node* conv = FindNode(*optimized, "conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->op(), "Conv2D");
  EXPECT_EQ(conv->input(0).node->name(), "x");
  std::string padding;
  ASSERT_TRUE(GetNodeAttr(conv->attrs(), "padding", &padding).ok());
  EXPECT_EQ(padding, "EXPLICIT");
  std::vector<int64_t> explicit_paddings;
  ASSERT_TRUE(
      GetNodeAttr(conv->attrs(), "explicit_paddings", &explicit_paddings).ok());
  EXPECT_EQ(explicit_paddings, (std::vector<int64_t>{0, 0, 1, 1, 2, 0, 0, 0}));
  // The padded zeros added nothing: the same values bit for bit.
  ExpectSameBits(RunOptimized(optimized, {{"x", x}})[0],
                 RunUnoptimized(g, {{"x", x}}, {"conv"})[0]);
}

TEST(PadFoldingRuleTest, PadsThatMustStay) {
  // A SAME convolution pads on its own; a Pad whose value is also fetched
  // must be computed; a PadV2 of 1 does not pad with zeros.
  const std::string text = absl::StrCat(
      Inputs(), PadConv("same", "SAME"), PadConv("fetched", "VALID"),
      R"pb(
        node {
          name: "one"
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
                float_val: 1
              }
            }
          }
        }
        node {
          name: "ones_pad"
          op: "PadV2"
          input: "x"
          input: "p"
          input: "one"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
          attr {
            key: "Tpaddings"
            value { type: DT_INT32 }
          }
        }
        node {
          name: "ones"
          op: "Conv2D"
          input: "ones_pad"
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
            value { s: "VALID" }
          }
        }
      )pb");
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({1, 5, 5, 2}), -2, 2, 13);
  EXPECT_EQ(RunRule(PadFoldingRule(), *g, {{"x", x}},
                    {"same", "fetched", "fetched_pad", "ones"}),
            nullptr);
}

}  // namespace
}  // namespace pad_folding_rule_test
}  // namespace weft
