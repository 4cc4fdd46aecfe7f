// Reading through Identity-like nodes (executor/optimizer/
// pass_through_rule.h) and dropping control edges from nodes whose past is
// pure (RewriteContext::KeepsControlEdgesFrom): the readers and fetches of
// an Identity read its input, a function body's NoOp no longer runs, a
// Const after a pure control edge is a constant; what must stay stays (an
// Identity after or before a side effect, a fed one, a target, one that
// moves a value between devices), and the values are the graph's bit for
// bit.
#include "executor/optimizer/pass_through_rule.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "executor/graph_optimizer.h"
#include "executor/optimizer/constant_folding_rule.h"
#include "executor/session.h"
#include "gtest/gtest.h"
#include "tests/executor/rewrite_rule_testutil.h"

namespace weft {
namespace pass_through_rule_test {
namespace {

using rewrite_rule_test::CountOps;
using rewrite_rule_test::ExpectSameBits;
using rewrite_rule_test::FindNode;
using rewrite_rule_test::FloatOpText;
using rewrite_rule_test::FloatPlaceholderText;
using rewrite_rule_test::FloatScalarText;
using rewrite_rule_test::GraphFromText;
using rewrite_rule_test::RunOptimized;
using rewrite_rule_test::RunRule;
using rewrite_rule_test::RunRules;
using rewrite_rule_test::RunUnoptimized;
using rewrite_rule_test::Values;

// A NoOp `name` that runs after `after`, as GraphDef text.
std::string NoOpText(const std::string& name, const std::string& after) {
  return absl::StrCat("node { name: \"", name, "\" op: \"NoOp\" input: \"^",
                      after, "\" }\n");
}

// A RandomUniform `name` of 8 floats: a stateful node, a side effect for
// the control edges from it.
std::string NoiseText(const std::string& name) {
  return absl::StrCat(
      "node { name: \"", name,
      "_shape\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } "
      "} attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape "
      "{ dim { size: 1 } } int_val: 8 } } } }\n"
      "node { name: \"",
      name, "\" op: \"RandomUniform\" input: \"", name,
      "_shape\" attr { key: \"T\" value { type: DT_INT32 } } attr { key: "
      "\"dtype\" value { type: DT_FLOAT } } }\n");
}

// What a frozen function body looks like: its results leave through
// Identity nodes that wait for a NoOp, which waits for the Identity reads
// of captured weights (Consts once frozen).
std::string BodyText() {
  return absl::StrCat(
      FloatPlaceholderText("x", TensorShape({8})),
      FloatPlaceholderText("h", TensorShape({8})), FloatScalarText("w", 0.5f),
      FloatOpText("read_w", "Identity", {"w"}), NoOpText("noop", "read_w"),
      FloatOpText("scaled", "Mul", {"x", "read_w"}),
      FloatOpText("sum", "AddV2", {"scaled", "h"}),
      FloatOpText("act", "Tanh", {"sum"}),
      FloatOpText("out_h", "Identity", {"act", "^noop"}),
      FloatOpText("out_x", "Identity", {"x", "^noop"}),
      FloatOpText("out_grad", "StopGradient", {"sum", "^noop"}));
}

std::unique_ptr<Session> MakeSession(std::shared_ptr<const Graph> g) {
  SessionOptions options;
  options.threads = 1;
  options.source_name = "body.pbtxt";
  auto s = Session::Create(std::move(g), options);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

TEST(PassThroughRuleTest, ReadsThroughAFunctionBodysOutputs) {
  auto g = GraphFromText(BodyText());
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({8}), -2, 2, 41);
  const Tensor h = Values(TensorShape({8}), -2, 2, 42);
  const std::vector<std::string> fetches = {"out_h", "out_x", "out_grad"};
  auto optimized =
      RunRule(PassThroughRule(), *g, {{"x", x}, {"h", h}}, fetches);
  ASSERT_NE(optimized, nullptr);
  // read_w, out_h, out_x, out_grad.
  EXPECT_EQ(optimized->stats().passed_through, 4);
  EXPECT_EQ(CountOps(*optimized, "Identity"), 0);
  EXPECT_EQ(CountOps(*optimized, "StopGradient"), 0);
  EXPECT_EQ(optimized->fetches(),
            (std::vector<std::string>{"act", "x", "sum"}));
  // Nothing waits for the NoOp any more.
  const Node* noop = FindNode(*optimized, "noop");
  ASSERT_NE(noop, nullptr);
  EXPECT_TRUE(noop->control_outputs().empty());
  EXPECT_TRUE(noop->control_inputs().empty());
  const std::vector<Tensor> on = RunOptimized(optimized, {{"x", x}, {"h", h}});
  const std::vector<Tensor> off =
      RunUnoptimized(g, {{"x", x}, {"h", h}}, fetches);
  ASSERT_EQ(on.size(), 3u);
  for (int i = 0; i < 3; ++i) ExpectSameBits(on[i], off[i]);
  ExpectSameBits(on[1], x);
}

// Through a session: the body's plan runs Mul, AddV2 and Tanh alone (the
// Identity nodes and the NoOp gone; the weight is a constant), and the
// fetches keep the caller's names and values.
TEST(PassThroughRuleTest, SessionRunsOnlyTheComputingNodes) {
  auto g = GraphFromText(BodyText());
  ASSERT_NE(g, nullptr);
  auto session = MakeSession(g);
  ASSERT_NE(session, nullptr);
  const std::vector<std::string> fetches = {"out_h", "out_x", "out_grad"};
  auto callable = session->Prepare({"x", "h"}, fetches);
  ASSERT_TRUE(callable.ok()) << callable.status();
  EXPECT_EQ((*callable)->fetches(), fetches);
  // The Mul and AddV2 and Tanh may fuse into one node; no pass-through
  // node and no NoOp runs.
  for (const auto& [node, device] : (*callable)->placement()) {
    EXPECT_NE(node, "noop");
    EXPECT_EQ(node.rfind("out_", 0), std::string::npos) << node;
    EXPECT_NE(node, "read_w");
  }
  const Tensor x = Values(TensorShape({8}), -2, 2, 43);
  const Tensor h = Values(TensorShape({8}), -2, 2, 44);
  std::vector<Tensor> on;
  ASSERT_TRUE(session->Run(**callable, {x, h}, &on).ok());
  const std::vector<Tensor> off =
      RunUnoptimized(g, {{"x", x}, {"h", h}}, fetches);
  for (int i = 0; i < 3; ++i) ExpectSameBits(on[i], off[i]);
}

// A Const whose only control input comes from a pure node is a constant:
// folding computes through it, and its copy loses the edge.
TEST(PassThroughRuleTest, ConstAfterPureControlEdgeIsAConstant) {
  const std::string text = absl::StrCat(
      FloatPlaceholderText("x", TensorShape({4})),
      FloatOpText("relu", "Relu", {"x"}),
      "node { name: \"c\" op: \"Const\" input: \"^relu\" attr { key: "
      "\"dtype\" value { type: DT_FLOAT } } attr { key: \"value\" value { "
      "tensor { dtype: DT_FLOAT tensor_shape { } float_val: 3 } } } }\n",
      FloatOpText("c2", "Square", {"c"}),
      FloatOpText("y", "Mul", {"relu", "c2"}));
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  ConstantFoldingRule folding;
  PassThroughRule pass_through;
  const Tensor x = Values(TensorShape({4}), -2, 2, 45);
  auto optimized = RunRules({&folding, &pass_through}, *g, {{"x", x}}, {"y"});
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(optimized->stats().folded, 1);  // c2 = 9
  const Node* c2 = FindNode(*optimized, "c2");
  ASSERT_NE(c2, nullptr);
  EXPECT_EQ(c2->op(), "Const");
  const std::vector<Tensor> on = RunOptimized(optimized, {{"x", x}});
  ExpectSameBits(on[0], RunUnoptimized(g, {{"x", x}}, {"y"})[0]);
}

// An Identity ordered after a side effect stays with its edge, as does one
// that a node is ordered after when its own past has a side effect.
TEST(PassThroughRuleTest, EdgesToAndFromSideEffectsStay) {
  const std::string text = absl::StrCat(
      FloatPlaceholderText("x", TensorShape({8})), NoiseText("noise"),
      FloatOpText("after_noise", "Identity", {"x", "^noise"}),
      // Reads the noise, and Relu waits for it.
      FloatOpText("noisy", "Identity", {"noise"}),
      FloatOpText("relu", "Relu", {"x", "^noisy"}),
      FloatOpText("y", "AddV2", {"after_noise", "relu"}));
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({8}), -2, 2, 46);
  EXPECT_EQ(RunRule(PassThroughRule(), *g, {{"x", x}}, {"y"}), nullptr);
}

// A fed Identity gives the fed value; one that is a target keeps its name.
TEST(PassThroughRuleTest, FedAndTargetedNodesStay) {
  const std::string text = absl::StrCat(
      FloatPlaceholderText("x", TensorShape({8})),
      FloatOpText("id", "Identity", {"x"}), FloatOpText("y", "Neg", {"id"}));
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const Tensor x = Values(TensorShape({8}), -2, 2, 47);
  const Tensor fed = Values(TensorShape({8}), -2, 2, 48);
  EXPECT_EQ(RunRule(PassThroughRule(), *g, {{"x", x}, {"id", fed}}, {"y"}),
            nullptr);

  auto session = MakeSession(g);
  ASSERT_NE(session, nullptr);
  auto callable = session->Prepare({"x"}, {"y"}, {"id"});
  ASSERT_TRUE(callable.ok()) << callable.status();
  bool id_runs = false;
  for (const auto& [node, device] : (*callable)->placement()) {
    id_runs |= node == "id";
  }
  EXPECT_TRUE(id_runs);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run(**callable, {x}, &out).ok());
  ExpectSameBits(out[0], RunUnoptimized(g, {{"x", x}}, {"y"})[0]);
}

// A chain of Identity nodes, fetched at both ends and in the middle: every
// fetch is the input's tensor.
TEST(PassThroughRuleTest, ChainFetchedAnywhere) {
  std::string text = FloatPlaceholderText("x", TensorShape({3}));
  std::string prev = "x";
  for (int i = 0; i < 5; ++i) {
    const std::string name = absl::StrCat("id", i);
    absl::StrAppend(&text, FloatOpText(name, "Identity", {prev}));
    prev = name;
  }
  absl::StrAppend(&text, FloatOpText("y", "Exp", {"id4"}),
                  FloatOpText("z", "Identity", {"y"}));
  auto g = GraphFromText(text);
  ASSERT_NE(g, nullptr);
  const std::vector<std::string> fetches = {"id0", "id2", "id4", "z"};
  const Tensor x = Values(TensorShape({3}), -2, 2, 49);
  auto optimized = RunRule(PassThroughRule(), *g, {{"x", x}}, fetches);
  ASSERT_NE(optimized, nullptr);
  EXPECT_EQ(optimized->stats().passed_through, 6);
  EXPECT_EQ(optimized->fetches(),
            (std::vector<std::string>{"x", "x", "x", "y"}));
  EXPECT_EQ(FindNode(*optimized, "y")->input(0).node->name(), "x");
  const std::vector<Tensor> on = RunOptimized(optimized, {{"x", x}});
  const std::vector<Tensor> off = RunUnoptimized(g, {{"x", x}}, fetches);
  for (int i = 0; i < 4; ++i) ExpectSameBits(on[i], off[i]);
}

}  // namespace
}  // namespace pass_through_rule_test
}  // namespace weft
