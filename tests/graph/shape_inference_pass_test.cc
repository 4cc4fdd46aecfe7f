#include "graph/shape_inference_pass.h"

#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

StatusOr<std::unique_ptr<Graph>> Import(const std::string& text) {
  auto def = ParseTextGraphDef(text, "shapes.pbtxt");
  if (!def.ok()) return def.status();
  ImportOptions options;
  options.source_name = "shapes.pbtxt";
  return ImportGraphDef(*def, options);
}

std::string Shape(const Graph& g, const std::string& node, int i = 0) {
  const Node* n = g.FindNode(node);
  if (n == nullptr) return "<no node>";
  return g.output_shape(n, i).DebugString();
}

// x: [?,4] float; w: Const [4,3]; mm = MatMul(x, w); r = Reshape(mm, [-1]).
constexpr char kMlp[] = R"(
node { name: "x" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 4 } } } } }
node { name: "w" op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT
    tensor_shape { dim { size: 4 } dim { size: 3 } } float_val: 0.5 } } } }
node { name: "mm" op: "MatMul" input: "x" input: "w"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "shape" op: "Const"
  attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32
    tensor_shape { dim { size: 1 } } int_val: -1 } } } }
node { name: "flat" op: "Reshape" input: "mm" input: "shape"
  attr { key: "T" value { type: DT_FLOAT } } }
)";

TEST(ShapeInferencePassTest, PropagatesThroughMatMulAndConstReshape) {
  auto g = Import(kMlp);
  ASSERT_TRUE(g.ok()) << g.status();
  ShapeInferenceOptions options;
  ASSERT_TRUE(InferShapes(g->get(), options).ok());
  EXPECT_EQ(Shape(**g, "x"), "[?,4]");
  EXPECT_EQ(Shape(**g, "w"), "[4,3]");
  EXPECT_EQ(Shape(**g, "mm"), "[?,3]");
  EXPECT_EQ(Shape(**g, "flat"), "[?]");
}

TEST(ShapeInferencePassTest, GivenInputShapesRefinePlaceholders) {
  auto g = Import(kMlp);
  ASSERT_TRUE(g.ok()) << g.status();
  ShapeInferenceOptions options;
  options.input_shapes["x"] = PartialTensorShape({8, 4});
  Status s = InferShapes(g->get(), options);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(Shape(**g, "x"), "[8,4]");
  EXPECT_EQ(Shape(**g, "mm"), "[8,3]");
  // The Const shape input makes Reshape's -1 computable: 8 * 3 = 24.
  EXPECT_EQ(Shape(**g, "flat"), "[24]");
}

TEST(ShapeInferencePassTest, IncompatibleGivenShapeIsAnError) {
  auto g = Import(kMlp);
  ASSERT_TRUE(g.ok()) << g.status();
  ShapeInferenceOptions options;
  options.source_name = "shapes.pbtxt";
  options.input_shapes["x"] = PartialTensorShape({8, 5});
  Status s = InferShapes(g->get(), options);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(std::string(s.message()),
            "shapes.pbtxt: node 'x' (Placeholder): given input shape [8,5] "
            "does not fit the declared shape [?,4]: dimension 1 is 5, not 4");
}

TEST(ShapeInferencePassTest, ShapeGivenForANonPlaceholder) {
  auto g = Import(kMlp);
  ASSERT_TRUE(g.ok()) << g.status();
  ShapeInferenceOptions options;
  options.input_shapes["mm"] = PartialTensorShape({1, 3});
  Status s = InferShapes(g->get(), options);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("'mm', which is a MatMul"));
  options.input_shapes.clear();
  options.input_shapes["ghost"] = PartialTensorShape({1});
  s = InferShapes(g->get(), options);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("'ghost', which is not a node"));
}

TEST(ShapeInferencePassTest, ShapeMismatchNamesFileNodeAndShapes) {
  // The placeholder declares [?,5] but the weights are [4,3].
  std::string text = kMlp;
  text.replace(text.find("size: 4 } } } } }"), 8, "size: 5 ");
  auto bad = Import(text);
  ASSERT_TRUE(bad.ok()) << bad.status();
  ShapeInferenceOptions options;
  options.source_name = "shapes.pbtxt";
  Status s = InferShapes(bad->get(), options);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("shapes.pbtxt: node 'mm' (MatMul)"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("[?,5]"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("[4,3]"));
}

TEST(ShapeInferencePassTest, ShapeOfPartiallyKnownFeedsReshape) {
  auto g = Import(R"(
node { name: "x" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 7 } } } } }
node { name: "y" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "s" op: "Shape" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "r" op: "Reshape" input: "y" input: "s"
  attr { key: "T" value { type: DT_FLOAT } } }
)");
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(InferShapes(g->get(), ShapeInferenceOptions()).ok());
  EXPECT_EQ(Shape(**g, "s"), "[2]");
  EXPECT_EQ(Shape(**g, "r"), "[?,7]");
}

}  // namespace
}  // namespace weft

namespace weft {
namespace {

// Keras' zero state and a flattening Reshape, from pieces of Shape(x):
// b = Shape(x)[0] (StridedSlice, shrunk), zeros = Fill(Pack(b, 128), 0.0),
// flat = Reshape(x, Pack(b, 24)), tail = Shape(x)[1:] (a range),
// back = Reshape(flat, ConcatV2(Pack(b), tail)).
constexpr char kShapePieces[] = R"(
node { name: "x" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 4 } dim { size: 6 } } } } }
node { name: "shape" op: "Shape" input: "x"
  attr { key: "T" value { type: DT_FLOAT } } attr { key: "out_type" value { type: DT_INT32 } } }
node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 1 } } } }
node { name: "b" op: "StridedSlice" input: "shape" input: "zero" input: "one" input: "one"
  attr { key: "T" value { type: DT_INT32 } } attr { key: "Index" value { type: DT_INT32 } }
  attr { key: "shrink_axis_mask" value { i: 1 } } }
node { name: "units" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 128 } } } }
node { name: "state_shape" op: "Pack" input: "b" input: "units"
  attr { key: "T" value { type: DT_INT32 } } attr { key: "N" value { i: 2 } } }
node { name: "fill" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0 } } } }
node { name: "zeros" op: "Fill" input: "state_shape" input: "fill"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "inner" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 24 } } } }
node { name: "flat_shape" op: "Pack" input: "b" input: "inner"
  attr { key: "T" value { type: DT_INT32 } } attr { key: "N" value { i: 2 } } }
node { name: "flat" op: "Reshape" input: "x" input: "flat_shape"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "big" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 8 } } } }
node { name: "tail" op: "StridedSlice" input: "shape" input: "one" input: "big" input: "one"
  attr { key: "T" value { type: DT_INT32 } } attr { key: "Index" value { type: DT_INT32 } } }
node { name: "b_vec" op: "Pack" input: "b"
  attr { key: "T" value { type: DT_INT32 } } attr { key: "N" value { i: 1 } } }
node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "back_shape" op: "ConcatV2" input: "b_vec" input: "tail" input: "axis"
  attr { key: "T" value { type: DT_INT32 } } attr { key: "N" value { i: 2 } }
  attr { key: "Tidx" value { type: DT_INT32 } } }
node { name: "back" op: "Reshape" input: "flat" input: "back_shape"
  attr { key: "T" value { type: DT_FLOAT } } }
)";

TEST(ShapeInferencePassTest, ShapesBuiltFromPiecesOfShape) {
  auto g = Import(kShapePieces);
  ASSERT_TRUE(g.ok()) << g.status();
  ShapeInferenceOptions options;
  Status s = InferShapes(g->get(), options);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(Shape(**g, "zeros"), "[?,128]");
  EXPECT_EQ(Shape(**g, "flat"), "[?,24]");
  EXPECT_EQ(Shape(**g, "back"), "[?,4,6]");
  // With the batch given, every piece is known.
  options.input_shapes["x"] = PartialTensorShape({3, 4, 6});
  auto known = Import(kShapePieces);
  ASSERT_TRUE(known.ok()) << known.status();
  s = InferShapes(known->get(), options);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(Shape(**known, "zeros"), "[3,128]");
  EXPECT_EQ(Shape(**known, "back"), "[3,4,6]");
}

}  // namespace
}  // namespace weft
