// FreezeVariables given a graph to consume (what LoadSavedModel does: kept
// nodes and functions move, a function whose one call binds a variable is
// rewritten in place) gives exactly what the copying form gives.
#include "savedmodel/freeze_variables.h"

#include <string>
#include <vector>

#include "graph/graph_def_io.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

// `once` is called from one node and reads variable v; `twice` is called
// from two nodes, with w and with v (two specializations of one body, which
// must not be taken apart by the first); `plain` is called once and binds
// no variable, so it is kept as it is.
constexpr char kGraph[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "v" op: "VarHandleOp"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w" op: "VarHandleOp"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "call1" op: "StatefulPartitionedCall" input: "x" input: "v"
       attr { key: "Tin" value { list { type: DT_FLOAT type: DT_RESOURCE } } }
       attr { key: "Tout" value { list { type: DT_FLOAT } } }
       attr { key: "f" value { func { name: "once" } } } }
node { name: "call2" op: "StatefulPartitionedCall" input: "call1" input: "w"
       attr { key: "Tin" value { list { type: DT_FLOAT type: DT_RESOURCE } } }
       attr { key: "Tout" value { list { type: DT_FLOAT } } }
       attr { key: "f" value { func { name: "twice" } } } }
node { name: "call3" op: "StatefulPartitionedCall" input: "call2" input: "v"
       attr { key: "Tin" value { list { type: DT_FLOAT type: DT_RESOURCE } } }
       attr { key: "Tout" value { list { type: DT_FLOAT } } }
       attr { key: "f" value { func { name: "twice" } } } }
node { name: "call4" op: "PartitionedCall" input: "call3"
       attr { key: "Tin" value { list { type: DT_FLOAT } } }
       attr { key: "Tout" value { list { type: DT_FLOAT } } }
       attr { key: "f" value { func { name: "plain" } } } }
node { name: "out" op: "Identity" input: "call4"
       attr { key: "T" value { type: DT_FLOAT } } }
library {
  function {
    signature { name: "once"
                input_arg { name: "a" type: DT_FLOAT }
                input_arg { name: "h" type: DT_RESOURCE }
                output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "read" op: "ReadVariableOp" input: "h"
               attr { key: "dtype" value { type: DT_FLOAT } } }
    node_def { name: "mul" op: "Mul" input: "a" input: "read:value:0"
               attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "mul:z:0" }
  }
  function {
    signature { name: "twice"
                input_arg { name: "a" type: DT_FLOAT }
                input_arg { name: "h" type: DT_RESOURCE }
                output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "read" op: "ReadVariableOp" input: "h"
               attr { key: "dtype" value { type: DT_FLOAT } } }
    node_def { name: "add" op: "AddV2" input: "a" input: "read:value:0"
               attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "add:z:0" }
  }
  function {
    signature { name: "plain"
                input_arg { name: "a" type: DT_FLOAT }
                output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "neg" op: "Neg" input: "a"
               attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "neg:y:0" }
  }
}
)";

Tensor Vector2(float a, float b) {
  Tensor t(DT_FLOAT, TensorShape({2}));
  t.data<float>()[0] = a;
  t.data<float>()[1] = b;
  return t;
}

TEST(FreezeVariablesTest, ConsumingGivesWhatCopyingGives) {
  auto graph = ParseTextGraphDef(kGraph, "test.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::flat_hash_map<std::string, Tensor> values;
  values["v"] = Vector2(2, 3);
  values["w"] = Vector2(5, 7);
  FreezeVariablesOptions options;
  options.keep_nodes = {"x", "out"};
  options.context = "test";

  auto copied = FreezeVariables(*graph, values, options);
  ASSERT_TRUE(copied.ok()) << copied.status();
  GraphDef given_up = *graph;
  auto consumed = FreezeVariables(std::move(given_up), values, options);
  ASSERT_TRUE(consumed.ok()) << consumed.status();

  auto a = SerializeGraphDef(*copied, GraphFormat::kText);
  auto b = SerializeGraphDef(*consumed, GraphFormat::kText);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*a, *b);

  // What both give: the variables as Consts inside one specialization of
  // each function that read them, `plain` as it was, no handles left.
  std::vector<std::string> functions;
  int consts = 0;
  for (const FunctionDef& f : consumed->library.function) {
    functions.push_back(f.signature.name);
    for (const NodeDef& n : f.node_def) {
      EXPECT_NE(n.op, "ReadVariableOp") << f.signature.name;
      if (n.op == "Const") ++consts;
    }
  }
  ASSERT_EQ(functions.size(), 4u);  // sorted by name
  EXPECT_EQ(functions[0].rfind("once__frozen", 0), 0u) << functions[0];
  EXPECT_EQ(functions[1], "plain");
  EXPECT_EQ(functions[2].rfind("twice__frozen", 0), 0u) << functions[2];
  EXPECT_EQ(functions[3].rfind("twice__frozen", 0), 0u) << functions[3];
  EXPECT_EQ(consts, 3);
  for (const NodeDef& n : consumed->node) {
    EXPECT_NE(n.op, "VarHandleOp") << n.name;
  }
}

}  // namespace
}  // namespace weft
