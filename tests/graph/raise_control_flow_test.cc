// Lowered control flow raised at import (graph/raise_control_flow.h): the
// TensorFlow fixtures in tests/models/control_flow_test.cc check the values;
// these check the rewrite itself and its errors on hand-written graphs.
#include "graph/raise_control_flow.h"

#include <string>

#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "gtest/gtest.h"

namespace weft {
namespace raise_control_flow_test {

using ::testing::HasSubstr;

StatusOr<std::unique_ptr<Graph>> ImportText(const std::string& text) {
  auto def = ParseTextGraphDef(text, "test.pbtxt");
  if (!def.ok()) return def.status();
  ImportOptions options;
  options.source_name = "test.pbtxt";
  return ImportGraphDef(*def, options);
}

constexpr char kFloat[] = R"(attr { key: "T" value { type: DT_FLOAT } })";

// v = x; while v < 10: v = v * 2, written as TF1 lays it out.
std::string Loop(const std::string& extra = "") {
  return std::string(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "ten" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 10 } } } }
node { name: "w/Enter" op: "Enter" input: "x" )") +
         kFloat + R"(
  attr { key: "frame_name" value { s: "w/while_context" } } }
node { name: "w/Enter_1" op: "Enter" input: "ten" )" +
         kFloat + R"(
  attr { key: "frame_name" value { s: "w/while_context" } }
  attr { key: "is_constant" value { b: true } } }
node { name: "w/Merge" op: "Merge" input: "w/Enter" input: "w/NextIteration" )" +
         kFloat + R"( attr { key: "N" value { i: 2 } } }
node { name: "w/Less" op: "Less" input: "w/Merge" input: "w/Enter_1" )" +
         kFloat + R"( }
node { name: "w/LoopCond" op: "LoopCond" input: "w/Less" }
node { name: "w/Switch" op: "Switch" input: "w/Merge" input: "w/LoopCond" )" +
         kFloat + R"( }
node { name: "w/Identity" op: "Identity" input: "w/Switch:1" )" +
         kFloat +
         R"( }
node { name: "w/two" op: "Const" input: "^w/Identity"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
node { name: "w/mul" op: "Mul" input: "w/Identity" input: "w/two" )" +
         kFloat + R"( }
node { name: "w/NextIteration" op: "NextIteration" input: "w/mul" )" +
         kFloat + R"( }
node { name: "w/Exit" op: "Exit" input: "w/Switch" )" +
         kFloat + R"( }
node { name: "after" op: "ControlTrigger" input: "^w/Exit" }
)" + extra;
}

TEST(RaiseControlFlowTest, LoopBecomesWhile) {
  auto g = ImportText(Loop());
  ASSERT_TRUE(g.ok()) << g.status();
  const Node* loop = (*g)->FindNode("w");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->op(), "While");
  // The loop variable, then the constant Enter's value.
  ASSERT_EQ(loop->num_inputs(), 2);
  EXPECT_EQ(loop->input(0).node->name(), "x");
  EXPECT_EQ(loop->input(1).node->name(), "ten");
  // The Exit keeps its name, reading the While.
  const Node* exit = (*g)->FindNode("w/Exit");
  ASSERT_NE(exit, nullptr);
  EXPECT_EQ(exit->op(), "Identity");
  EXPECT_EQ(exit->input(0).node, loop);
  EXPECT_EQ((*g)->FindNode("after")->op(), "NoOp");
  for (const char* gone : {"w/Merge", "w/Switch", "w/mul", "w/Less"}) {
    EXPECT_EQ((*g)->FindNode(gone), nullptr) << gone;
  }
  // The body keeps the original node names.
  bool found = false;
  for (const FunctionDef& f : (*g)->library().function) {
    for (const NodeDef& n : f.node_def) found |= n.name == "w/mul";
  }
  EXPECT_TRUE(found);
}

// A node that reads a value inside the loop belongs to the loop, as in
// TensorFlow: it runs in the body each iteration and is no node of the
// outer graph.
TEST(RaiseControlFlowTest, NodeReadingInsideTheLoopRunsInTheBody) {
  auto g = ImportText(Loop(R"(
node { name: "peek" op: "Identity" input: "w/mul" attr { key: "T" value { type: DT_FLOAT } } }
)"));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ((*g)->FindNode("peek"), nullptr);
  bool in_body = false;
  for (const FunctionDef& f : (*g)->library().function) {
    for (const NodeDef& n : f.node_def) in_body |= n.name == "peek";
  }
  EXPECT_TRUE(in_body);
}

TEST(RaiseControlFlowTest, EnterWithoutMergeIsNamed) {
  auto g = ImportText(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "e" op: "Enter" input: "x" attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "frame_name" value { s: "f" } } }
)");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("test.pbtxt: lowered loop frame 'f': Enter 'e' feeds "
                        "no two-input Merge"));
}

// A TF1 cond: the predicate read directly by one Switch and through an
// Identity by the others is one conditional.
TEST(RaiseControlFlowTest, CondBecomesIf) {
  auto g = ImportText(std::string(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "c/Switch" op: "Switch" input: "p" input: "p" attr { key: "T" value { type: DT_BOOL } } }
node { name: "c/switch_t" op: "Identity" input: "c/Switch:1" attr { key: "T" value { type: DT_BOOL } } }
node { name: "c/pred_id" op: "Identity" input: "p" attr { key: "T" value { type: DT_BOOL } } }
node { name: "c/Neg/Switch" op: "Switch" input: "x" input: "c/pred_id" )") +
                      kFloat + R"( }
node { name: "c/Neg" op: "Neg" input: "c/Neg/Switch:1" )" +
                      kFloat + R"( }
node { name: "c/Merge" op: "Merge" input: "c/Neg/Switch" input: "c/Neg" )" +
                      kFloat + R"( attr { key: "N" value { i: 2 } } }
)");
  ASSERT_TRUE(g.ok()) << g.status();
  const Node* cond = (*g)->FindNode("c");
  ASSERT_NE(cond, nullptr);
  EXPECT_EQ(cond->op(), "If");
  EXPECT_EQ((*g)->FindNode("c/Merge")->op(), "Identity");
  EXPECT_EQ((*g)->FindNode("c/Merge")->input(0).node, cond);
}

}  // namespace raise_control_flow_test
}  // namespace weft
