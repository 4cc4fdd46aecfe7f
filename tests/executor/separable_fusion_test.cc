// The fusion rule's separable pairs (executor/optimizer/fusion_rule.h): a
// depthwise convolution, its batch norm and Relu6, then a 1x1 convolution
// with its bias, residual and Relu become one _FusedSeparableConv2D named
// after both chains, standing in for the last node, with the constant 1x1
// filter packed once (kernels/cpu/separable_conv.h), and the values of the
// same graph optimized without the pair fusion, bit for bit; pairs that
// must stay apart stay two fused nodes. A 1x1 expansion before the
// depthwise convolution (MobileNetV2's inverted residual, its Pad folded
// by the Pad-folding rule, or its residual add of the block's input) joins
// them in one _FusedExpandSeparableConv2D, with the same bits as the graph
// optimized without it; without such a 1x1 convolution after it (the
// depthwise value read twice), or through the IdentityN of Keras' swish,
// the expansion and the depthwise convolution are one
// _FusedExpandDepthwiseConv2dNative; expansions that must stay apart stay
// out.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "executor/graph_optimizer.h"
#include "executor/optimizer/fusion_rule.h"
#include "executor/optimizer/pad_folding_rule.h"
#include "gtest/gtest.h"
#include "tests/executor/rewrite_rule_testutil.h"

namespace weft {
namespace separable_fusion_test {
namespace {

using rewrite_rule_test::CountOps;
using rewrite_rule_test::ExpectNear;
using rewrite_rule_test::ExpectSameBits;
using rewrite_rule_test::Feeds;
using rewrite_rule_test::FindNode;
using rewrite_rule_test::FloatConstText;
using rewrite_rule_test::FloatPlaceholderText;
using rewrite_rule_test::GraphFromText;
using rewrite_rule_test::RunOptimized;
using rewrite_rule_test::RunRule;
using rewrite_rule_test::RunRules;
using rewrite_rule_test::RunUnoptimized;
using rewrite_rule_test::Values;

// A float node as GraphDef text.
std::string NodeText(const std::string& name, const std::string& op,
                     const std::vector<std::string>& inputs,
                     const std::string& attrs = "") {
  std::string s = absl::StrCat("node { name: \"", name, "\" op: \"", op, "\" ");
  for (const std::string& i : inputs)
    absl::StrAppend(&s, "input: \"", i, "\" ");
  return absl::StrCat(s, "attr { key: \"T\" value { type: DT_FLOAT } } ", attrs,
                      "}\n");
}

std::string ConvAttrs(int stride, const std::string& padding) {
  return absl::StrCat("attr { key: \"strides\" value { list { i: 1 i: ", stride,
                      " i: ", stride, " i: 1 } } } ",
                      "attr { key: \"padding\" value { s: \"", padding,
                      "\" } } ");
}

// x [2, 9, 8, 6] -> depthwise 3x3 (multiplier 2) -> FusedBatchNormV3 ->
// Relu6 -> `pointwise` (a Conv2D of `pw_filter`, stride `pw_stride`) ->
// BiasAdd -> AddV2 with r [2, 9, 8, 5] -> Relu; `extra` is appended.
std::string PairText(const std::string& pw_filter = "pw", int pw_stride = 1,
                     const std::string& extra = "") {
  return absl::StrCat(
      FloatPlaceholderText("x", TensorShape({2, 9, 8, 6})),
      FloatPlaceholderText("r", TensorShape({2, 9, 8, 5})),
      FloatPlaceholderText("fed_pw", TensorShape({1, 1, 12, 5})),
      FloatConstText("dw", Values(TensorShape({3, 3, 6, 2}), -1, 1, 71)),
      FloatConstText("pw", Values(TensorShape({1, 1, 12, 5}), -1, 1, 72)),
      FloatConstText("pw3", Values(TensorShape({3, 3, 12, 5}), -1, 1, 73)),
      FloatConstText("scale", Values(TensorShape({12}), 0.5, 1.5, 74)),
      FloatConstText("offset", Values(TensorShape({12}), -1, 1, 75)),
      FloatConstText("mean", Values(TensorShape({12}), -1, 1, 76)),
      FloatConstText("var", Values(TensorShape({12}), 0.5, 2, 77)),
      FloatConstText("b", Values(TensorShape({5}), -1, 1, 78)),
      NodeText("depthwise", "DepthwiseConv2dNative", {"x", "dw"},
               ConvAttrs(1, "SAME")),
      NodeText("bn", "FusedBatchNormV3",
               {"depthwise", "scale", "offset", "mean", "var"},
               "attr { key: \"U\" value { type: DT_FLOAT } } "
               "attr { key: \"is_training\" value { b: false } } "
               "attr { key: \"epsilon\" value { f: 0.001 } } "),
      NodeText("relu6", "Relu6", {"bn"}),
      NodeText("pointwise", "Conv2D", {"relu6", pw_filter},
               ConvAttrs(pw_stride, "SAME")),
      NodeText("bias", "BiasAdd", {"pointwise", "b"}),
      pw_stride == 1 ? NodeText("add", "AddV2", {"bias", "r"})
                     : NodeText("add", "Identity", {"bias"}),
      NodeText("relu", "Relu", {"add"}), extra);
}

Feeds PairFeeds() {
  return {{"x", Values(TensorShape({2, 9, 8, 6}), -2, 2, 81)},
          {"r", Values(TensorShape({2, 9, 8, 5}), -1, 1, 82)}};
}

// The graph optimized by Pad folding and fusion with the environment
// variable `off` (WEFT_SEPARABLE_FUSION, WEFT_EXPAND_FUSION) set to 0,
// restoring it after.
std::shared_ptr<OptimizedGraph> With(const char* off, const Graph& g,
                                     const Feeds& feeds,
                                     const std::vector<std::string>& f) {
  const char* old = std::getenv(off);
  const std::string saved = old == nullptr ? "" : old;
  setenv(off, "0", 1);
  const PadFoldingRule pads;
  const FusionRule fusion;
  auto optimized = RunRules({&pads, &fusion}, g, feeds, f);
  if (old == nullptr) {
    unsetenv(off);
  } else {
    setenv(off, saved.c_str(), 1);
  }
  return optimized;
}

// The optimized graph with the pair fusion off.
std::shared_ptr<OptimizedGraph> WithoutPairs(
    const Graph& g, const Feeds& feeds, const std::vector<std::string>& f) {
  return With("WEFT_SEPARABLE_FUSION", g, feeds, f);
}

// An int32 constant of `shape` holding `values`, as GraphDef text.
std::string IntConstText(const std::string& name,
                         const std::vector<int64_t>& shape,
                         const std::vector<int>& values) {
  std::string dims;
  for (int64_t d : shape) absl::StrAppend(&dims, "dim { size: ", d, " } ");
  std::string vals;
  for (int v : values) absl::StrAppend(&vals, "int_val: ", v, " ");
  return absl::StrCat("node { name: \"", name, "\" op: \"Const\" ",
                      "attr { key: \"dtype\" value { type: DT_INT32 } } ",
                      "attr { key: \"value\" value { tensor { dtype: DT_INT32 ",
                      "tensor_shape { ", dims, "} ", vals, "} } } }\n");
}

// Keras' swish of `x` as its custom gradient writes it, named `name`:
// x * Sigmoid(x), then IdentityN(result, x) of which only the result is
// read.
std::string KerasSwishText(const std::string& name, const std::string& x) {
  return absl::StrCat(
      NodeText(name + "_sig", "Sigmoid", {x}),
      NodeText(name + "_mul", "Mul", {x, name + "_sig"}), "node { name: \"",
      name, "\" op: \"IdentityN\" input: \"", name, "_mul\" input: \"", x,
      "\" attr { key: \"T\" value { list { type: DT_FLOAT type: DT_FLOAT } "
      "} } }\n");
}

// An inverted residual: x [2, 11, 10, 6] -> `expand` (a Conv2D of
// `ex_filter` at stride `ex_stride`) -> FusedBatchNormV3 -> Relu6 ->
// (stride 2: a Pad of one row and column after, as Keras writes it) ->
// depthwise 3x3 at `stride` (VALID after the Pad, else SAME) -> BiasAdd ->
// Relu6 -> pointwise 1x1 to 6 channels -> BiasAdd -> (stride 1: AddV2 of
// x, the residual). The last node is "out"; `extra` is appended.
std::string BlockText(int stride, const std::string& ex_filter = "ex",
                      int ex_stride = 1, const std::string& extra = "",
                      bool keras_swish = false) {
  const std::string bn_attrs =
      "attr { key: \"U\" value { type: DT_FLOAT } } "
      "attr { key: \"is_training\" value { b: false } } "
      "attr { key: \"epsilon\" value { f: 0.001 } } ";
  std::string text = absl::StrCat(
      FloatPlaceholderText("x", TensorShape({2, 11, 10, 6})),
      FloatPlaceholderText("fed_ex", TensorShape({1, 1, 6, 24})),
      FloatConstText("ex", Values(TensorShape({1, 1, 6, 24}), -1, 1, 91)),
      FloatConstText("ex3", Values(TensorShape({3, 3, 6, 24}), -1, 1, 92)),
      FloatConstText("scale", Values(TensorShape({24}), 0.5, 1.5, 93)),
      FloatConstText("offset", Values(TensorShape({24}), -1, 1, 94)),
      FloatConstText("mean", Values(TensorShape({24}), -1, 1, 95)),
      FloatConstText("var", Values(TensorShape({24}), 0.5, 2, 96)),
      FloatConstText("dw", Values(TensorShape({3, 3, 24, 1}), -1, 1, 97)),
      FloatConstText("db", Values(TensorShape({24}), -1, 1, 98)),
      FloatConstText("pw", Values(TensorShape({1, 1, 24, 6}), -1, 1, 99)),
      FloatConstText("pb", Values(TensorShape({6}), -1, 1, 100)),
      IntConstText("p", {4, 2}, {0, 0, 0, 1, 0, 1, 0, 0}),
      NodeText("expand", "Conv2D", {"x", ex_filter},
               ConvAttrs(ex_stride, "SAME")),
      NodeText("bn", "FusedBatchNormV3",
               {"expand", "scale", "offset", "mean", "var"}, bn_attrs),
      keras_swish ? KerasSwishText("relu6", "bn")
                  : NodeText("relu6", "Relu6", {"bn"}));
  if (stride == 2) {
    absl::StrAppend(
        &text,
        NodeText("pad", "Pad", {"relu6", "p"},
                 "attr { key: \"Tpaddings\" value { type: DT_INT32 } } "),
        NodeText("depthwise", "DepthwiseConv2dNative", {"pad", "dw"},
                 ConvAttrs(2, "VALID")));
  } else {
    absl::StrAppend(&text, NodeText("depthwise", "DepthwiseConv2dNative",
                                    {"relu6", "dw"}, ConvAttrs(1, "SAME")));
  }
  absl::StrAppend(
      &text, NodeText("dbias", "BiasAdd", {"depthwise", "db"}),
      NodeText("drelu6", "Relu6", {"dbias"}),
      NodeText("pointwise", "Conv2D", {"drelu6", "pw"}, ConvAttrs(1, "SAME")),
      stride == 1 ? NodeText("pbias", "BiasAdd", {"pointwise", "pb"}) +
                        NodeText("out", "AddV2", {"pbias", "x"})
                  : NodeText("out", "BiasAdd", {"pointwise", "pb"}),
      extra);
  return text;
}

Feeds BlockFeeds() {
  return {{"x", Values(TensorShape({2, 11, 10, 6}), -2, 2, 101)}};
}

std::vector<std::string> StringList(const Node* n, const std::string& attr) {
  std::vector<std::string> v;
  EXPECT_TRUE(GetNodeAttr(n->attrs(), attr, &v).ok()) << attr;
  return v;
}

TEST(SeparableFusionTest, DepthwiseThenOneByOneBecomesOneNode) {
  ASSERT_EQ(unsetenv("WEFT_SEPARABLE_FUSION"), 0);
  auto g = GraphFromText(PairText());
  ASSERT_NE(g, nullptr);
  const Feeds feeds = PairFeeds();
  auto optimized = RunRule(FusionRule(), *g, feeds, {"relu"});
  ASSERT_NE(optimized, nullptr);
  const std::string name =
      "depthwise+FusedBatchNormV3+Relu6+pointwise+BiasAdd+AddV2+Relu";
  EXPECT_EQ(optimized->fetches(), std::vector<std::string>{name});
  EXPECT_EQ(optimized->stats().fused, 1);
  EXPECT_EQ(optimized->stats().fused_away, 6);
  const Node* fused = FindNode(*optimized, name);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op(), "_FusedSeparableConv2D");
  EXPECT_EQ(StringList(fused, "depthwise_fused_ops"),
            (std::vector<std::string>{"BiasAdd", "Relu6"}));
  EXPECT_EQ(StringList(fused, "fused_ops"),
            (std::vector<std::string>{"BiasAdd", "Add", "Relu"}));
  EXPECT_EQ(StringList(fused, kFusedNodesAttr),
            (std::vector<std::string>{"depthwise", "bn", "relu6", "pointwise",
                                      "bias", "add", "relu"}));
  EXPECT_EQ(CountOps(*optimized, "_FusedDepthwiseConv2dNative"), 0);
  EXPECT_EQ(CountOps(*optimized, "_FusedConv2D"), 0);

  // Without the pair fusion: two fused nodes, and the same bits (the batch
  // norm is folded into the filter the same way in both).
  auto apart = WithoutPairs(*g, feeds, {"relu"});
  ASSERT_NE(apart, nullptr);
  EXPECT_EQ(CountOps(*apart, "_FusedSeparableConv2D"), 0);
  EXPECT_EQ(CountOps(*apart, "_FusedDepthwiseConv2dNative"), 1);
  EXPECT_EQ(CountOps(*apart, "_FusedConv2D"), 1);
  const Tensor got = RunOptimized(optimized, feeds)[0];
  ExpectSameBits(got, RunOptimized(apart, feeds)[0]);
  // And the unoptimized graph's values up to the folded scale's rounding.
  ExpectNear(got, RunUnoptimized(g, feeds, {"relu"})[0], 1e-5f);
}

TEST(SeparableFusionTest, PairsThatMustStayApart) {
  ASSERT_EQ(unsetenv("WEFT_SEPARABLE_FUSION"), 0);
  struct Pair {
    const char* why;
    std::string text;
    Feeds feeds;
    std::vector<std::string> fetches;
  };
  Feeds fed = PairFeeds();
  fed.push_back({"fed_pw", Values(TensorShape({1, 1, 12, 5}), -1, 1, 83)});
  const std::vector<Pair> pairs = {
      {"a 3x3 second convolution", PairText("pw3"), PairFeeds(), {"relu"}},
      {"a strided 1x1 convolution", PairText("pw", 2), PairFeeds(), {"relu"}},
      {"a fed 1x1 filter", PairText("fed_pw"), fed, {"relu"}},
      {"the depthwise value fetched too",
       PairText(),
       PairFeeds(),
       {"relu", "relu6"}},
      {"the depthwise value read twice",
       PairText("pw", 1, NodeText("peek", "Identity", {"relu6"})),
       PairFeeds(),
       {"relu", "peek"}},
  };
  for (const Pair& p : pairs) {
    SCOPED_TRACE(p.why);
    auto g = GraphFromText(p.text);
    ASSERT_NE(g, nullptr);
    auto optimized = RunRule(FusionRule(), *g, p.feeds, p.fetches);
    ASSERT_NE(optimized, nullptr);
    EXPECT_EQ(CountOps(*optimized, "_FusedSeparableConv2D"), 0);
    EXPECT_EQ(CountOps(*optimized, "_FusedDepthwiseConv2dNative"), 1);
    const std::vector<Tensor> got = RunOptimized(optimized, p.feeds);
    const std::vector<Tensor> want = RunUnoptimized(g, p.feeds, p.fetches);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) ExpectNear(got[i], want[i], 1e-5f);
  }
}

TEST(SeparableFusionTest, ExpansionJoinsThePair) {
  ASSERT_EQ(unsetenv("WEFT_SEPARABLE_FUSION"), 0);
  ASSERT_EQ(unsetenv("WEFT_EXPAND_FUSION"), 0);
  for (int stride : {1, 2}) {
    SCOPED_TRACE(absl::StrCat("stride ", stride));
    auto g = GraphFromText(BlockText(stride));
    ASSERT_NE(g, nullptr);
    const Feeds feeds = BlockFeeds();
    const PadFoldingRule pads;
    const FusionRule fusion;
    auto optimized = RunRules({&pads, &fusion}, *g, feeds, {"out"});
    ASSERT_NE(optimized, nullptr);
    const std::string name = absl::StrCat(
        "expand+FusedBatchNormV3+Relu6+depthwise+BiasAdd+Relu6+pointwise+",
        stride == 1 ? "BiasAdd+AddV2" : "BiasAdd");
    EXPECT_EQ(optimized->fetches(), std::vector<std::string>{name});
    EXPECT_EQ(optimized->stats().fused, 1);
    const Node* fused = FindNode(*optimized, name);
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(fused->op(), "_FusedExpandSeparableConv2D");
    for (const char* op : {"_FusedConv2D", "_FusedDepthwiseConv2dNative",
                           "_FusedSeparableConv2D", "Pad"}) {
      EXPECT_EQ(CountOps(*optimized, op), 0) << op;
    }
    EXPECT_EQ(StringList(fused, "expand_fused_ops"),
              (std::vector<std::string>{"BiasAdd", "Relu6"}));
    EXPECT_EQ(StringList(fused, "depthwise_fused_ops"),
              (std::vector<std::string>{"BiasAdd", "Relu6"}));
    EXPECT_EQ(StringList(fused, "fused_ops"),
              stride == 1 ? (std::vector<std::string>{"BiasAdd", "Add"})
                          : (std::vector<std::string>{"BiasAdd"}));
    std::vector<std::string> originals = {"expand", "bn", "relu6"};
    if (stride == 2) originals.push_back("pad");
    for (const char* n : {"depthwise", "dbias", "drelu6", "pointwise"}) {
      originals.push_back(n);
    }
    if (stride == 1) originals.push_back("pbias");
    originals.push_back("out");
    EXPECT_EQ(StringList(fused, kFusedNodesAttr), originals);

    // Without the expansion: the expansion's fused node and the pair, the
    // same bits.
    auto apart = With("WEFT_EXPAND_FUSION", *g, feeds, {"out"});
    ASSERT_NE(apart, nullptr);
    EXPECT_EQ(CountOps(*apart, "_FusedExpandSeparableConv2D"), 0);
    EXPECT_EQ(CountOps(*apart, "_FusedSeparableConv2D"), 1);
    EXPECT_EQ(CountOps(*apart, "_FusedConv2D"), 1);
    const Tensor got = RunOptimized(optimized, feeds)[0];
    ExpectSameBits(got, RunOptimized(apart, feeds)[0]);
    ExpectNear(got, RunUnoptimized(g, feeds, {"out"})[0], 1e-4f);
  }
}

// The depthwise value read by a second node: no 1x1 convolution to take
// in, so the expansion and the depthwise convolution alone; and Keras'
// swish as the expansion's activation, its IdentityN absorbed too.
TEST(SeparableFusionTest, ExpansionJoinsTheDepthwiseConvolutionAlone) {
  ASSERT_EQ(unsetenv("WEFT_SEPARABLE_FUSION"), 0);
  ASSERT_EQ(unsetenv("WEFT_EXPAND_FUSION"), 0);
  for (bool keras_swish : {false, true}) {
    SCOPED_TRACE(keras_swish ? "Keras' swish" : "Relu6");
    auto g = GraphFromText(BlockText(
        2, "ex", 1, NodeText("peek", "Neg", {"drelu6"}), keras_swish));
    ASSERT_NE(g, nullptr);
    const Feeds feeds = BlockFeeds();
    const std::vector<std::string> fetches = {"out", "peek"};
    const PadFoldingRule pads;
    const FusionRule fusion;
    auto optimized = RunRules({&pads, &fusion}, *g, feeds, fetches);
    ASSERT_NE(optimized, nullptr);
    EXPECT_EQ(CountOps(*optimized, "_FusedExpandDepthwiseConv2dNative"), 1);
    EXPECT_EQ(CountOps(*optimized, "_FusedExpandSeparableConv2D"), 0);
    EXPECT_EQ(CountOps(*optimized, "_FusedConv2D"), 1);  // the 1x1 product
    EXPECT_EQ(CountOps(*optimized, "IdentityN"), 0);
    const std::string name =
        keras_swish ? "expand+FusedBatchNormV3+Sigmoid+Mul+IdentityN+depthwise+"
                      "BiasAdd+Relu6"
                    : "expand+FusedBatchNormV3+Relu6+depthwise+BiasAdd+Relu6";
    const Node* fused = FindNode(*optimized, name);
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(fused->op(), "_FusedExpandDepthwiseConv2dNative");
    EXPECT_EQ(
        StringList(fused, "expand_fused_ops"),
        (std::vector<std::string>{"BiasAdd", keras_swish ? "Swish" : "Relu6"}));
    EXPECT_EQ(StringList(fused, "fused_ops"),
              (std::vector<std::string>{"BiasAdd", "Relu6"}));
    auto apart = With("WEFT_EXPAND_FUSION", *g, feeds, fetches);
    ASSERT_NE(apart, nullptr);
    EXPECT_EQ(CountOps(*apart, "_FusedExpandDepthwiseConv2dNative"), 0);
    const std::vector<Tensor> got = RunOptimized(optimized, feeds);
    const std::vector<Tensor> want = RunOptimized(apart, feeds);
    const std::vector<Tensor> plain = RunUnoptimized(g, feeds, fetches);
    ASSERT_EQ(got.size(), 2u);
    ASSERT_EQ(want.size(), 2u);
    ASSERT_EQ(plain.size(), 2u);
    for (int i = 0; i < 2; ++i) {
      ExpectSameBits(got[i], want[i]);
      ExpectNear(got[i], plain[i], 1e-4f);
    }
  }
}

TEST(SeparableFusionTest, ExpansionsThatMustStayApart) {
  ASSERT_EQ(unsetenv("WEFT_SEPARABLE_FUSION"), 0);
  ASSERT_EQ(unsetenv("WEFT_EXPAND_FUSION"), 0);
  struct Block {
    const char* why;
    std::string text;
    Feeds feeds;
    std::vector<std::string> fetches;
  };
  Feeds fed = BlockFeeds();
  fed.push_back({"fed_ex", Values(TensorShape({1, 1, 6, 24}), -1, 1, 102)});
  const std::vector<Block> blocks = {
      {"a 3x3 expansion", BlockText(1, "ex3"), BlockFeeds(), {"out"}},
      {"a strided expansion", BlockText(2, "ex", 2), BlockFeeds(), {"out"}},
      {"a fed expansion filter", BlockText(1, "fed_ex"), fed, {"out"}},
      {"the expansion fetched too",
       BlockText(2),
       BlockFeeds(),
       {"out", "relu6"}},
      {"the expansion read twice",
       BlockText(1, "ex", 1, NodeText("peek", "Identity", {"relu6"})),
       BlockFeeds(),
       {"out", "peek"}},
      {"the padded expansion read twice",
       BlockText(2, "ex", 1, NodeText("peek", "Identity", {"pad"})),
       BlockFeeds(),
       {"out", "peek"}},
  };
  for (const Block& b : blocks) {
    SCOPED_TRACE(b.why);
    auto g = GraphFromText(b.text);
    ASSERT_NE(g, nullptr);
    const PadFoldingRule pads;
    const FusionRule fusion;
    auto optimized = RunRules({&pads, &fusion}, *g, b.feeds, b.fetches);
    ASSERT_NE(optimized, nullptr);
    EXPECT_EQ(CountOps(*optimized, "_FusedExpandSeparableConv2D"), 0);
    EXPECT_EQ(CountOps(*optimized, "_FusedSeparableConv2D"), 1);
    const std::vector<Tensor> got = RunOptimized(optimized, b.feeds);
    const std::vector<Tensor> want = RunUnoptimized(g, b.feeds, b.fetches);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) ExpectNear(got[i], want[i], 1e-4f);
  }
}

}  // namespace
}  // namespace separable_fusion_test
}  // namespace weft
