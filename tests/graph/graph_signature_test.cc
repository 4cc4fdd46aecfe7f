// DescribeGraph and DescribeGraphTensor (graph/graph_signature.h), and
// DiagnoseGraphDef (graph/import.h), on small graphs written out here: the
// expected inputs, outputs, shapes and problems follow from reading them.
#include "graph/graph_signature.h"

#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// x float [?,4] -> Relu -> r; r -> Identity (out); d is a
// PlaceholderWithDefault over a Const; unused float placeholder p;
// NoOp `after` depends on out by control edge, so out is consumed;
// a two-output Split whose outputs are both unconsumed.
constexpr char kGraph[] = R"(
node { name: "x" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 4 } } } } }
node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {}
                                       int_val: 3 } } } }
node { name: "d" op: "PlaceholderWithDefault" input: "c"
  attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "shape" value { shape {} } } }
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "r" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Identity" input: "r"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "after" op: "NoOp" input: "^out" }
node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {}
                                       int_val: 1 } } } }
node { name: "s" op: "Split" input: "axis" input: "r"
  attr { key: "T" value { type: DT_FLOAT } } attr { key: "num_split" value { i: 2 } } }
node { name: "dd" op: "Identity" input: "d" attr { key: "T" value { type: DT_INT32 } } }
)";

std::unique_ptr<Graph> Load(const std::string& text,
                            ShapeInferenceOptions shapes = {}) {
  auto def = ParseTextGraphDef(text, "g.pbtxt");
  EXPECT_TRUE(def.ok()) << def.status();
  ImportOptions options;
  options.source_name = "g.pbtxt";
  auto g = ImportGraphDef(*def, options);
  EXPECT_TRUE(g.ok()) << g.status();
  shapes.source_name = "g.pbtxt";
  Status s = InferShapes(g->get(), shapes);
  EXPECT_TRUE(s.ok()) << s;
  return *std::move(g);
}

std::vector<std::string> Names(const std::vector<GraphTensorInfo>& v) {
  std::vector<std::string> names;
  for (const auto& t : v) names.push_back(t.name);
  return names;
}

TEST(GraphSignatureTest, InputsAreEveryPlaceholder) {
  auto g = Load(kGraph);
  GraphSignature sig = DescribeGraph(*g);
  ASSERT_THAT(Names(sig.inputs), ElementsAre("x", "d", "p"));
  EXPECT_EQ(sig.inputs[0].dtype, DT_FLOAT);
  EXPECT_EQ(sig.inputs[0].shape, PartialTensorShape({-1, 4}));
  EXPECT_FALSE(sig.inputs[0].has_default);
  EXPECT_EQ(sig.inputs[1].op, "PlaceholderWithDefault");
  EXPECT_EQ(sig.inputs[1].dtype, DT_INT32);
  EXPECT_EQ(sig.inputs[1].shape, PartialTensorShape::Scalar());
  EXPECT_TRUE(sig.inputs[1].has_default);
  EXPECT_TRUE(sig.inputs[2].shape.unknown_rank());
}

TEST(GraphSignatureTest, OutputsAreWhatNothingConsumes) {
  auto g = Load(kGraph);
  GraphSignature sig = DescribeGraph(*g);
  // out feeds a control edge, after has no outputs, p is an input.
  ASSERT_THAT(Names(sig.outputs), ElementsAre("s", "s:1", "dd"));
  EXPECT_EQ(sig.outputs[1].node, "s");
  EXPECT_EQ(sig.outputs[1].index, 1);
  EXPECT_EQ(sig.outputs[1].op, "Split");
  // [?,4] split in two along axis 1.
  EXPECT_EQ(sig.outputs[1].shape, PartialTensorShape({-1, 2}));
  EXPECT_EQ(sig.outputs[2].dtype, DT_INT32);
  EXPECT_FALSE(sig.outputs[2].has_default);
}

TEST(GraphSignatureTest, ShapesFollowLoadTimeInputShapes) {
  ShapeInferenceOptions shapes;
  shapes.input_shapes["x"] = PartialTensorShape({6, 4});
  auto g = Load(kGraph, shapes);
  GraphSignature sig = DescribeGraph(*g);
  EXPECT_EQ(sig.inputs[0].shape, PartialTensorShape({6, 4}));
  EXPECT_EQ(sig.outputs[0].shape, PartialTensorShape({6, 2}));
}

TEST(GraphSignatureTest, AnyTensorByName) {
  auto g = Load(kGraph);
  auto out = DescribeGraphTensor(*g, "out", "g.pbtxt");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->name, "out");
  EXPECT_EQ(out->shape, PartialTensorShape({-1, 4}));
  auto s1 = DescribeGraphTensor(*g, "s:1", "g.pbtxt");
  ASSERT_TRUE(s1.ok());
  EXPECT_EQ(s1->index, 1);
  auto d = DescribeGraphTensor(*g, "d:0", "g.pbtxt");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->name, "d");
  EXPECT_TRUE(d->has_default);

  auto missing = DescribeGraphTensor(*g, "nope", "g.pbtxt");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("g.pbtxt: no node 'nope' in the graph"));
  auto slot = DescribeGraphTensor(*g, "s:2", "g.pbtxt");
  EXPECT_EQ(slot.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(slot.status().message(),
              HasSubstr("node 's' (Split) has 2 outputs"));
  for (const char* bad : {"s:", ":1", "^s", "s:-1", ""}) {
    EXPECT_EQ(DescribeGraphTensor(*g, bad, "g.pbtxt").status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

ImportDiagnosis Diagnose(const std::string& text) {
  auto def = ParseTextGraphDef(text, "g.pbtxt");
  EXPECT_TRUE(def.ok()) << def.status();
  ImportOptions options;
  options.source_name = "g.pbtxt";
  return DiagnoseGraphDef(*def, options);
}

TEST(DiagnoseGraphDefTest, ReportsEveryProblemInNodeOrder) {
  ImportDiagnosis d = Diagnose(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "a" op: "OpOne" input: "x" }
node { name: "b" op: "OpTwo" input: "a" }
node { name: "t" op: "Relu" input: "x" attr { key: "T" value { type: DT_STRING } } }
node { name: "u" op: "Relu" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "v" op: "Relu" input: "zzz" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "x" op: "NoOp" }
)");
  using Kind = ImportProblem::Kind;
  ASSERT_EQ(d.problems.size(), 5u);
  EXPECT_EQ(d.problems[0].kind, Kind::kUnknownOp);
  EXPECT_EQ(d.problems[0].node, "a");
  EXPECT_EQ(d.problems[0].op, "OpOne");
  EXPECT_THAT(d.problems[0].status.message(),
              HasSubstr("g.pbtxt: node 'a' (OpOne): unknown op 'OpOne'"));
  EXPECT_EQ(d.problems[1].kind, Kind::kUnknownOp);
  EXPECT_EQ(d.problems[1].op, "OpTwo");
  EXPECT_EQ(d.problems[2].kind, Kind::kInvalidNode);
  EXPECT_EQ(d.problems[2].node, "t");
  EXPECT_THAT(d.problems[2].status.message(), HasSubstr("attr 'T'"));
  // The duplicate x: pass 1 sees it before any edge is made.
  EXPECT_EQ(d.problems[3].kind, Kind::kInvalidNode);
  EXPECT_THAT(d.problems[3].status.message(),
              HasSubstr("duplicate node name 'x'"));
  // u reads a, which did not import: no problem of its own. v reads a node
  // that does not exist at all.
  EXPECT_EQ(d.problems[4].kind, Kind::kBadInput);
  EXPECT_EQ(d.problems[4].node, "v");
  EXPECT_THAT(d.problems[4].status.message(),
              HasSubstr("names unknown node 'zzz'"));
  // The nodes that validated are there to look at.
  ASSERT_NE(d.graph, nullptr);
  EXPECT_NE(d.graph->FindNode("u"), nullptr);
  EXPECT_EQ(d.graph->FindNode("a"), nullptr);
}

TEST(DiagnoseGraphDefTest, AgreesWithImportOnTheFirstProblem) {
  const std::string text = R"(
node { name: "a" op: "OpOne" }
node { name: "b" op: "OpTwo" }
)";
  auto def = ParseTextGraphDef(text, "g.pbtxt");
  ASSERT_TRUE(def.ok());
  ImportOptions options;
  options.source_name = "g.pbtxt";
  auto imported = ImportGraphDef(*def, options);
  ImportDiagnosis d = DiagnoseGraphDef(*def, options);
  ASSERT_FALSE(imported.ok());
  ASSERT_EQ(d.problems.size(), 2u);
  EXPECT_EQ(imported.status(), d.problems[0].status);
}

TEST(DiagnoseGraphDefTest, CyclesAndCleanGraphs) {
  ImportDiagnosis cycle = Diagnose(R"(
node { name: "a" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
)");
  ASSERT_EQ(cycle.problems.size(), 1u);
  EXPECT_EQ(cycle.problems[0].kind, ImportProblem::Kind::kCycle);
  EXPECT_THAT(cycle.problems[0].status.message(), HasSubstr("g.pbtxt"));

  ImportDiagnosis clean = Diagnose(kGraph);
  EXPECT_TRUE(clean.problems.empty());
  EXPECT_EQ(clean.graph->num_nodes(), 10);
}

}  // namespace
}  // namespace weft
