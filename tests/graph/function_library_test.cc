// Function calls inlined at import (graph/function_library.h): body nodes
// renamed under the call, placeholder attrs bound, the call's name kept by
// an IdentityN, control inputs gating the body, nested calls, and errors
// naming the call and the body node; function bodies as graphs of their
// own, and which of their inputs they pass through.
#include "graph/function_library.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

StatusOr<std::unique_ptr<Graph>> ImportText(const std::string& text) {
  auto def = ParseTextGraphDef(text, "test.pbtxt");
  if (!def.ok()) return def.status();
  ImportOptions options;
  options.source_name = "test.pbtxt";
  return ImportGraphDef(*def, options);
}

// scale(v: T) -> v * 2 (as T), with T a placeholder attr; twice(v) calls
// scale twice through PartitionedCall and a direct call.
constexpr char kLibrary[] = R"(
library {
  function {
    signature {
      name: "scale"
      input_arg { name: "v" type_attr: "T" }
      output_arg { name: "out" type_attr: "T" }
      attr { name: "T" type: "type" }
    }
    node_def {
      name: "two" op: "Const"
      attr { key: "dtype" value { placeholder: "T" } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } }
    }
    node_def {
      name: "mul" op: "Mul" input: "v" input: "two:output:0"
      attr { key: "T" value { placeholder: "T" } }
    }
    ret { key: "out" value: "mul:z:0" }
  }
  function {
    signature {
      name: "twice"
      input_arg { name: "a" type: DT_FLOAT }
      output_arg { name: "b" type: DT_FLOAT }
      output_arg { name: "c" type: DT_FLOAT }
    }
    node_def {
      name: "first" op: "PartitionedCall" input: "a"
      attr { key: "Tin" value { list { type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "f" value { func { name: "scale" attr { key: "T" value { type: DT_FLOAT } } } } }
    }
    node_def {
      name: "second" op: "scale" input: "first:output:0"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    ret { key: "b" value: "second:out:0" }
    ret { key: "c" value: "a" }
  }
}
)";

TEST(FunctionLibraryTest, NestedCallsAreInlinedUnderTheCallsName) {
  auto g = ImportText(std::string(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node {
  name: "call" op: "StatefulPartitionedCall" input: "x"
  attr { key: "Tin" value { list { type: DT_FLOAT } } }
  attr { key: "Tout" value { list { type: DT_FLOAT type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "twice" } } }
  attr { key: "_read_only_resource_inputs" value { list { } } }
}
node { name: "y" op: "Identity" input: "call:1" attr { key: "T" value { type: DT_FLOAT } } }
)") + kLibrary);
  ASSERT_TRUE(g.ok()) << g.status();
  const Graph& graph = **g;
  // The call keeps its name as an IdentityN of the body's outputs.
  const Node* call = graph.FindNode("call");
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->op(), "IdentityN");
  EXPECT_EQ(call->num_outputs(), 2);
  // ... whose output 0 is the nested call's, itself an IdentityN.
  EXPECT_EQ(call->input(0).node->name(), "call/second");
  EXPECT_EQ(call->input(0).node->input(0).node->name(), "call/second/mul");
  EXPECT_EQ(call->input(1).node->name(), "x");  // "c" returns the argument
  // Nested bodies nest the prefix; placeholder attrs took float.
  for (const char* name : {"call/first/mul", "call/first/two",
                           "call/second/mul", "call/second/two"}) {
    const Node* n = graph.FindNode(name);
    ASSERT_NE(n, nullptr) << name;
    EXPECT_EQ(n->output_type(0), DT_FLOAT) << name;
  }
  EXPECT_EQ(graph.FindNode("call/first/mul")->input(0).node->name(), "x");
  EXPECT_EQ(graph.FindNode("call/second/mul")->input(0).node->name(),
            "call/first");
  EXPECT_EQ(graph.FindNode("y")->input(0).node, call);
  EXPECT_EQ(graph.FindNode("y")->input(0).index, 1);
  // The library stays, for If, Case and While bodies.
  EXPECT_EQ(graph.library().function.size(), 2u);
}

TEST(FunctionLibraryTest, ControlInputsGateTheBody) {
  auto g = ImportText(std::string(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "before" op: "NoOp" }
node {
  name: "call" op: "scale" input: "x" input: "^before"
  attr { key: "T" value { type: DT_FLOAT } }
}
)") + kLibrary);
  ASSERT_TRUE(g.ok()) << g.status();
  for (const char* name : {"call/two", "call/mul"}) {
    const Node* n = (*g)->FindNode(name);
    ASSERT_NE(n, nullptr) << name;
    ASSERT_EQ(n->control_inputs().size(), 1u) << name;
    EXPECT_EQ(n->control_inputs()[0]->name(), "call/_weft_call_inputs");
    EXPECT_EQ(n->control_inputs()[0]->control_inputs()[0]->name(), "before");
  }
}

TEST(FunctionLibraryTest, ErrorsNameTheCallAndTheBodyNode) {
  auto g = ImportText(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node {
  name: "call" op: "PartitionedCall" input: "x"
  attr { key: "Tin" value { list { type: DT_FLOAT } } }
  attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "broken" } } }
}
library { function {
  signature { name: "broken" input_arg { name: "v" type: DT_FLOAT }
              output_arg { name: "out" type: DT_FLOAT } }
  node_def { name: "bad" op: "NoSuchOp" input: "v" }
  ret { key: "out" value: "bad:y:0" }
} }
)");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("test.pbtxt: node 'call' (PartitionedCall): function "
                        "'broken': node 'bad' (NoSuchOp)"));
}

TEST(FunctionLibraryTest, MismatchedTinIsRefused) {
  auto g = ImportText(std::string(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node {
  name: "call" op: "PartitionedCall" input: "x"
  attr { key: "Tin" value { list { type: DT_INT32 } } }
  attr { key: "Tout" value { list { type: DT_FLOAT type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "twice" } } }
}
)") + kLibrary);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("node 'call' (PartitionedCall): attr 'Tin' is [int32] "
                        "but function 'twice' takes [float]"));
}

TEST(FunctionLibraryTest, UnboundPlaceholderAttrIsNamed) {
  auto g = ImportText(std::string(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "scale" input: "x" }
)") + kLibrary);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("node 'call' (scale): function 'scale'"));
}

TEST(FunctionLibraryTest, RecursionIsRefused) {
  auto g = ImportText(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "loop_forever" input: "x" }
library { function {
  signature { name: "loop_forever" input_arg { name: "v" type: DT_FLOAT }
              output_arg { name: "out" type: DT_FLOAT } }
  node_def { name: "again" op: "loop_forever" input: "v" }
  ret { key: "out" value: "again:out:0" }
} }
)");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("function 'loop_forever' calls itself"));
}

TEST(FunctionLibraryTest, BodyGraphFeedsAndFetches) {
  auto def = ParseTextGraphDef(kLibrary, "test.pbtxt");
  ASSERT_TRUE(def.ok()) << def.status();
  NameAttrList f;
  f.name = "twice";
  auto body =
      FunctionBodyGraph(def->library, f, "loop/body/",
                        {PartialTensorShape({2, 3})}, OpRegistry::Global());
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(body->feeds, std::vector<std::string>({"loop/body/_arg0"}));
  EXPECT_EQ(body->fetches,
            std::vector<std::string>({"loop/body/second", "loop/body/_arg0"}));
  EXPECT_EQ(body->output_types, std::vector<DataType>({DT_FLOAT, DT_FLOAT}));
  ImportOptions options;
  auto graph = ImportGraphDef(body->graph_def, options);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_NE((*graph)->FindNode("loop/body/second/mul"), nullptr);
}

// step(k, w, x, n) -> (k + 1, w, x * w, n): a loop body in TensorFlow's
// shape. w goes out through two Identity nodes (the second with a control
// input, as TensorFlow writes them), n directly; k and x change; x's output
// reads a node that only looks like a pass-through (output 1 of an
// IdentityN).
constexpr char kStep[] = R"(
library {
  function {
    signature {
      name: "step"
      input_arg { name: "k" type: DT_INT32 }
      input_arg { name: "w" type: DT_FLOAT }
      input_arg { name: "x" type: DT_FLOAT }
      input_arg { name: "n" type: DT_INT32 }
      output_arg { name: "k1" type: DT_INT32 }
      output_arg { name: "w1" type: DT_FLOAT }
      output_arg { name: "x1" type: DT_FLOAT }
      output_arg { name: "n1" type: DT_INT32 }
    }
    node_def {
      name: "one" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } }
    }
    node_def { name: "next" op: "AddV2" input: "k" input: "one:output:0"
               attr { key: "T" value { type: DT_INT32 } } }
    node_def { name: "mul" op: "Mul" input: "x" input: "w"
               attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "pair" op: "IdentityN" input: "w" input: "mul:z:0"
               attr { key: "T" value { list { type: DT_FLOAT type: DT_FLOAT } } } }
    node_def { name: "w_a" op: "Identity" input: "w"
               attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "w_b" op: "Identity" input: "w_a:output:0" input: "^next"
               attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "k1" value: "next:z:0" }
    ret { key: "w1" value: "w_b:output:0" }
    ret { key: "x1" value: "pair:output:1" }
    ret { key: "n1" value: "n" }
  }
}
)";

// kStep's function "step" as a loop body graph.
StatusOr<FunctionGraph> StepBody() {
  WEFT_ASSIGN_OR_RETURN(GraphDef def, ParseTextGraphDef(kStep, "test.pbtxt"));
  NameAttrList f;
  f.name = "step";
  return FunctionBodyGraph(def.library, f, "loop/body/", {},
                           OpRegistry::Global());
}

// A loop's step: the body, then cond reading the body's results through
// Identity nodes in place of its placeholders; the signature is the body's
// with cond's predicate fetched last.
TEST(FunctionLibraryTest, LoopStepGraphRunsCondOnTheBodysResults) {
  auto body = StepBody();
  ASSERT_TRUE(body.ok()) << body.status();
  FunctionGraph cond;
  cond.input_types = body->input_types;
  for (int i = 0; i < 4; ++i) {
    NodeDef arg;
    arg.name = absl::StrCat("loop/cond/_arg", i);
    arg.op = "Placeholder";
    arg.attr["dtype"] = AttrValue::Type(cond.input_types[i]);
    cond.feeds.push_back(arg.name);
    cond.graph_def.node.push_back(arg);
  }
  NodeDef less;
  less.name = "loop/cond/less";
  less.op = "Less";
  less.input = {"loop/cond/_arg0", "loop/cond/_arg3"};  // k < n
  less.attr["T"] = AttrValue::Type(DT_INT32);
  cond.graph_def.node.push_back(less);
  cond.fetches = {"loop/cond/less"};
  cond.output_types = {DT_BOOL};

  const FunctionGraph step = LoopStepGraph(*body, cond);
  EXPECT_EQ(step.feeds, body->feeds);
  std::vector<std::string> fetches = body->fetches;
  fetches.push_back("loop/cond/less");
  EXPECT_EQ(step.fetches, fetches);
  std::vector<DataType> types = body->output_types;
  types.push_back(DT_BOOL);
  EXPECT_EQ(step.output_types, types);
  for (int i = 0; i < 4; ++i) {
    const std::string name = absl::StrCat("loop/cond/_arg", i);
    const NodeDef* read = nullptr;
    for (const NodeDef& n : step.graph_def.node) {
      if (n.name == name) read = &n;
    }
    ASSERT_NE(read, nullptr) << name;
    EXPECT_EQ(read->op, "Identity");
    EXPECT_EQ(read->input, std::vector<std::string>{body->fetches[i]});
  }
  // It imports as a graph of its own.
  auto graph = ImportGraphDef(step.graph_def, ImportOptions());
  EXPECT_TRUE(graph.ok()) << graph.status();
}

TEST(FunctionLibraryTest, PassedThroughInputsFollowIdentities) {
  auto body = StepBody();
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(PassedThroughInputs(*body),
            std::vector<bool>({false, true, false, true}));
  // The same body with x's output read from output 0 of the IdentityN (w):
  // still not x's input.
  body->fetches[2] = "loop/body/pair";
  EXPECT_EQ(PassedThroughInputs(*body),
            std::vector<bool>({false, true, false, true}));
  // A function with fewer outputs than inputs: the missing ones are not
  // passed through.
  body->fetches.resize(2);
  EXPECT_EQ(PassedThroughInputs(*body),
            std::vector<bool>({false, true, false, false}));
}

}  // namespace
}  // namespace weft
