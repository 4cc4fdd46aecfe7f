#include "graph/import.h"

#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "gtest/gtest.h"

namespace weft {
namespace import_test {

using ::testing::HasSubstr;

StatusOr<std::unique_ptr<Graph>> ImportText(const std::string& text) {
  auto def = ParseTextGraphDef(text, "test.pbtxt");
  if (!def.ok()) return def.status();
  ImportOptions options;
  options.source_name = "test.pbtxt";
  return ImportGraphDef(*def, options);
}

constexpr char kPlaceholderX[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
)";

TEST(ImportTest, BuildsEdgesControlEdgesAndDefaults) {
  auto g = ImportText(std::string(kPlaceholderX) + R"(
node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "add" op: "AddV2" input: "x" input: "y:0" input: "^gate"
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "gate" op: "NoOp" }
node { name: "out" op: "Identity" input: "add" attr { key: "T" value { type: DT_FLOAT } } }
)");
  ASSERT_TRUE(g.ok()) << g.status();
  Graph& graph = **g;
  EXPECT_EQ(graph.num_nodes(), 5);
  Node* add = graph.FindNode("add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->num_inputs(), 2);
  EXPECT_EQ(add->input(0).node->name(), "x");
  EXPECT_EQ(add->input(1).node->name(), "y");
  ASSERT_EQ(add->control_inputs().size(), 1u);
  EXPECT_EQ(add->control_inputs()[0]->name(), "gate");
  ASSERT_EQ(add->consumers(0).size(), 1u);
  EXPECT_EQ(add->consumers(0)[0].node->name(), "out");
  EXPECT_EQ(add->output_type(0), DT_FLOAT);
  // Placeholder's `shape` attr defaults to unknown rank.
  Node* x = graph.FindNode("x");
  EXPECT_TRUE(x->attrs().count("shape"));
  auto order = graph.TopologicalOrder();
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(order->size(), 5u);
  // Inputs are re-spelled from edges on export.
  GraphDef back = graph.ToGraphDef();
  EXPECT_THAT(back.node[2].input, ::testing::ElementsAre("x", "y", "^gate"));
}

TEST(ImportTest, UnknownOpSuggestsCloseNames) {
  auto g = ImportText(std::string(kPlaceholderX) + R"(
node { name: "m" op: "Identiti" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
)");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("test.pbtxt: node 'm' (Identiti): "));
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("Identity"));
}

TEST(ImportTest, UnknownInputNode) {
  auto g = ImportText(R"(
node { name: "m" op: "Identity" input: "nope" attr { key: "T" value { type: DT_FLOAT } } }
)");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(std::string(g.status().message()),
            "test.pbtxt: node 'm' (Identity): input 'nope' names unknown node "
            "'nope'");
}

TEST(ImportTest, InputIndexOutOfRange) {
  auto g = ImportText(std::string(kPlaceholderX) + R"(
node { name: "m" op: "Identity" input: "x:3" attr { key: "T" value { type: DT_FLOAT } } }
)");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(std::string(g.status().message()),
            "test.pbtxt: node 'm' (Identity): input 0 'x:3' asks for output 3 "
            "of node 'x' (Placeholder), which has 1 output");
}

TEST(ImportTest, DtypeMismatch) {
  auto g = ImportText(std::string(kPlaceholderX) + R"(
node { name: "m" op: "Identity" input: "x" attr { key: "T" value { type: DT_INT32 } } }
)");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(std::string(g.status().message()),
            "test.pbtxt: node 'm' (Identity): input 0 expects int32 but 'x' "
            "from 'x' (Placeholder) is float");
}

TEST(ImportTest, DuplicateNames) {
  auto g = ImportText(std::string(kPlaceholderX) + kPlaceholderX);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("test.pbtxt: duplicate node name 'x'"));
}

TEST(ImportTest, CycleNamesItsNodes) {
  auto g = ImportText(R"(
node { name: "a" op: "Identity" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "c" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
)");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("test.pbtxt: graph has a cycle: "));
  // Every node of the cycle is named, in data-flow order.
  EXPECT_THAT(std::string(g.status().message()),
              ::testing::AnyOf(HasSubstr("'a' -> 'b' -> 'c' -> 'a'"),
                               HasSubstr("'b' -> 'c' -> 'a' -> 'b'"),
                               HasSubstr("'c' -> 'a' -> 'b' -> 'c'")));
}

TEST(ImportTest, ControlCycleIsACycleToo) {
  auto g = ImportText(R"(
node { name: "a" op: "NoOp" input: "^b" }
node { name: "b" op: "NoOp" input: "^a" }
)");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("cycle"));
}

TEST(ImportTest, InvalidAttr) {
  auto g = ImportText(R"(
node { name: "p" op: "Placeholder" attr { key: "dtype" value { i: 3 } } }
)");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("test.pbtxt: node 'p' (Placeholder): attr 'dtype'"));
}

// Calls are inlined (tests/graph/function_library_test.cc has the rest): a
// call of a function without outputs keeps its name as a NoOp.
TEST(ImportTest, FunctionCallsAreInlined) {
  auto g = ImportText(R"(
node { name: "call" op: "my_fn" }
library { function { signature { name: "my_fn" } } }
)");
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_NE((*g)->FindNode("call"), nullptr);
  EXPECT_EQ((*g)->FindNode("call")->op(), "NoOp");
}

TEST(ImportTest, MalformedInputStrings) {
  for (const char* bad : {"x:", "x:a", ":1", "x:-1", "x:+1", "^"}) {
    auto parsed = ParseNodeInput(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
  }
  auto ok = ParseNodeInput("scope/x:12");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->node, "scope/x");
  EXPECT_EQ(ok->index, 12);
  auto ctrl = ParseNodeInput("^gate");
  ASSERT_TRUE(ctrl.ok());
  EXPECT_TRUE(ctrl->is_control);
  EXPECT_EQ(ctrl->node, "gate");
}

TEST(ImportTest, DataInputAfterControlInput) {
  auto g = ImportText(std::string(kPlaceholderX) + R"(
node { name: "g" op: "NoOp" }
node { name: "m" op: "Identity" input: "^g" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
)");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("data input 'x' follows control input '^g'"));
}

TEST(ImportTest, WrongInputCount) {
  auto g = ImportText(std::string(kPlaceholderX) + R"(
node { name: "m" op: "Identity" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
)");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("node 'm' (Identity)"));
}

TEST(ImportTest, DeepChainImportsWithoutRecursion) {
  std::string text = kPlaceholderX;
  std::string prev = "x";
  for (int i = 0; i < 20000; ++i) {
    std::string name = "n" + std::to_string(i);
    text += "node { name: \"" + name + "\" op: \"Identity\" input: \"" + prev +
            "\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
    prev = name;
  }
  auto g = ImportText(text);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ((*g)->num_nodes(), 20001);
}

// A control input named twice is one edge, whether the waiting node or the
// awaited one has the longer list (AddControlEdge looks in the shorter).
TEST(ImportTest, RepeatedControlInputsAreOneEdge) {
  std::string text;
  std::string wide_in = "node { name: \"all\" op: \"NoOp\"";
  for (int i = 0; i < 40; ++i) {
    const std::string name = "g" + std::to_string(i);
    text += "node { name: \"" + name + "\" op: \"NoOp\" }\n";
    wide_in += " input: \"^" + name + "\" input: \"^" + name + "\"";
  }
  text += wide_in + " }\n";
  // g0 is awaited by `all` and by forty more nodes, each naming it twice.
  for (int i = 0; i < 40; ++i) {
    text += "node { name: \"w" + std::to_string(i) +
            "\" op: \"NoOp\" input: \"^g0\" input: \"^g0\" }\n";
  }
  auto g = ImportText(text);
  ASSERT_TRUE(g.ok()) << g.status();
  const Node* all = (*g)->FindNode("all");
  const Node* g0 = (*g)->FindNode("g0");
  ASSERT_NE(all, nullptr);
  ASSERT_NE(g0, nullptr);
  EXPECT_EQ(all->control_inputs().size(), 40u);
  EXPECT_EQ(g0->control_outputs().size(), 41u);
  for (int i = 0; i < 40; ++i) {
    const Node* w = (*g)->FindNode("w" + std::to_string(i));
    ASSERT_NE(w, nullptr);
    ASSERT_EQ(w->control_inputs().size(), 1u);
    EXPECT_EQ(w->control_inputs()[0], g0);
  }
  const Node* g1 = (*g)->FindNode("g1");
  ASSERT_NE(g1, nullptr);
  ASSERT_EQ(g1->control_outputs().size(), 1u);
  EXPECT_EQ(g1->control_outputs()[0], all);
}

}  // namespace import_test
}  // namespace weft
