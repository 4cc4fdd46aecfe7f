// PlaceholderV2, the placeholder of TensorFlow graphs before GraphDef
// version 23, behaves as Placeholder does: it is a graph input with its
// declared shape (refined by load-time input shapes), it is fed like one,
// and running without a feed says it must be fed.
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "executor/session.h"
#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/graph_signature.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"

namespace weft {
// Named so that its helpers stay distinct from other test files' in a
// unity build.
namespace placeholder_v2_test {
namespace {

using ::testing::HasSubstr;

// x: PlaceholderV2 float [-1, 2] -> r = Relu(x).
constexpr char kGraph[] = R"(
node { name: "x" op: "PlaceholderV2"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
node { name: "r" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
)";

std::shared_ptr<const Graph> LoadGraph(ShapeInferenceOptions shapes = {}) {
  auto def = ParseTextGraphDef(kGraph, "v2.pbtxt");
  EXPECT_TRUE(def.ok()) << def.status();
  ImportOptions io;
  io.source_name = "v2.pbtxt";
  auto g = ImportGraphDef(*def, io);
  EXPECT_TRUE(g.ok()) << g.status();
  shapes.source_name = "v2.pbtxt";
  Status s = InferShapes(g->get(), shapes);
  EXPECT_TRUE(s.ok()) << s;
  return std::shared_ptr<const Graph>(std::move(*g));
}

TEST(PlaceholderV2Test, IsAGraphInputWithItsShape) {
  GraphSignature sig = DescribeGraph(*LoadGraph());
  ASSERT_EQ(sig.inputs.size(), 1u);
  EXPECT_EQ(sig.inputs[0].name, "x");
  EXPECT_EQ(sig.inputs[0].op, "PlaceholderV2");
  EXPECT_EQ(sig.inputs[0].shape, PartialTensorShape({-1, 2}));
  EXPECT_FALSE(sig.inputs[0].has_default);
  ShapeInferenceOptions shapes;
  shapes.input_shapes["x"] = PartialTensorShape({3, 2});
  sig = DescribeGraph(*LoadGraph(shapes));
  ASSERT_EQ(sig.outputs.size(), 1u);
  EXPECT_EQ(sig.outputs[0].shape, PartialTensorShape({3, 2}));
}

TEST(PlaceholderV2Test, IsFedAndMustBeFed) {
  SessionOptions options;
  options.source_name = "v2.pbtxt";
  auto session = Session::Create(LoadGraph(), options);
  ASSERT_TRUE(session.ok()) << session.status();
  Tensor x(DT_FLOAT, TensorShape({1, 2}));
  x.data<float>()[0] = -1.5f;
  x.data<float>()[1] = 2.5f;
  auto out = (*session)->Run({{"x", x}}, {"r"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<float>()[0], 0.0f);
  EXPECT_EQ((*out)[0].data<float>()[1], 2.5f);
  out = (*session)->Run({}, {"r"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("node 'x' (PlaceholderV2) must be fed"));
}

}  // namespace
}  // namespace placeholder_v2_test
}  // namespace weft
