#include "ops/op_def_util.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/op_def_builder.h"

namespace weft {
namespace op_def_util_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Range = std::pair<int, int>;

Status NoShapeFn(shape_inference::InferenceContext*) { return Status(); }

OpDef MustBuild(OpDefBuilder& b) {
  b.SetShapeFn(NoShapeFn);
  StatusOr<OpRegistrationData> data = b.Finalize();
  EXPECT_TRUE(data.ok()) << data.status();
  return data.ok() ? data->op_def : OpDef();
}

OpDef MatMulOp() {
  OpDefBuilder b("MatMul");
  b.Input("a: T")
      .Input("b: T")
      .Output("product: T")
      .Attr("transpose_a: bool = false")
      .Attr("transpose_b: bool = false")
      .Attr("T: {half, bfloat16, float, double, int32, int64}");
  return MustBuild(b);
}

NodeDef MatMulNode(DataType t) {
  NodeDef node;
  node.name = "mm";
  node.op = "MatMul";
  node.input = {"a", "b:1"};
  node.attr["T"] = AttrValue::Type(t);
  return node;
}

// ---- ValidateNode: success paths -------------------------------------------

TEST(ValidateNodeTest, FillsDefaultsAndComputesTypes) {
  NodeDef node = MatMulNode(DT_FLOAT);
  node.attr["transpose_b"] = AttrValue::Bool(true);
  StatusOr<NodeTypes> types = ValidateNode(MatMulOp(), &node);
  ASSERT_TRUE(types.ok()) << types.status();
  EXPECT_THAT(types->input_types, ElementsAre(DT_FLOAT, DT_FLOAT));
  EXPECT_THAT(types->output_types, ElementsAre(DT_FLOAT));
  EXPECT_THAT(types->input_ranges, ElementsAre(Range(0, 1), Range(1, 2)));
  EXPECT_THAT(types->output_ranges, ElementsAre(Range(0, 1)));
  // The missing default is filled; the given value is kept.
  ASSERT_EQ(node.attr.count("transpose_a"), 1u);
  EXPECT_TRUE(node.attr["transpose_a"] == AttrValue::Bool(false));
  EXPECT_TRUE(node.attr["transpose_b"] == AttrValue::Bool(true));
  EXPECT_EQ(node.attr.size(), 3u);
}

TEST(ValidateNodeTest, ControlInputsAndInternalAttrsAreAllowed) {
  NodeDef node = MatMulNode(DT_INT64);
  node.input.push_back("^init");
  node.input.push_back("^other");
  node.attr["_class"] = AttrValue::StringList({"loc:@a"});
  node.attr["_output_shapes"] = AttrValue::EmptyList();
  StatusOr<NodeTypes> types = ValidateNode(MatMulOp(), &node);
  ASSERT_TRUE(types.ok()) << types.status();
  EXPECT_THAT(types->input_types, ElementsAre(DT_INT64, DT_INT64));
}

// One op with every arg form: fixed type, type attr, N * T, N * fixed, a type
// list, and outputs of each kind.
OpDef FormsOp() {
  OpDefBuilder b("Forms");
  b.Input("fixed: float")
      .Input("typed: T")
      .Input("many: N * T")
      .Input("many_fixed: M * int64")
      .Input("list: Tin")
      .Output("out_list: Tout")
      .Output("out_many: N * bool")
      .Output("out_typed: T")
      .Attr("T: type")
      .Attr("N: int >= 1")
      .Attr("M: int >= 0")
      .Attr("Tin: list(type) >= 0")
      .Attr("Tout: list(type)");
  return MustBuild(b);
}

TEST(ValidateNodeTest, TypesForEveryArgForm) {
  NodeDef node;
  node.name = "forms";
  node.op = "Forms";
  node.attr["T"] = AttrValue::Type(DT_DOUBLE);
  node.attr["N"] = AttrValue::Int(2);
  node.attr["M"] = AttrValue::Int(0);
  node.attr["Tin"] = AttrValue::TypeList({DT_INT32, DT_STRING});
  node.attr["Tout"] = AttrValue::TypeList({DT_HALF});
  node.input = {"a", "b", "c", "d", "e", "f"};
  StatusOr<NodeTypes> types = ValidateNode(FormsOp(), &node);
  ASSERT_TRUE(types.ok()) << types.status();
  EXPECT_THAT(types->input_types,
              ElementsAre(DT_FLOAT,               // fixed
                          DT_DOUBLE,              // typed
                          DT_DOUBLE, DT_DOUBLE,   // many (N = 2)
                                                  // many_fixed (M = 0)
                          DT_INT32, DT_STRING));  // list
  EXPECT_THAT(types->input_ranges,
              ElementsAre(Range(0, 1), Range(1, 2), Range(2, 4), Range(4, 4),
                          Range(4, 6)));
  EXPECT_THAT(types->output_types,
              ElementsAre(DT_HALF, DT_BOOL, DT_BOOL, DT_DOUBLE));
  EXPECT_THAT(types->output_ranges,
              ElementsAre(Range(0, 1), Range(1, 3), Range(3, 4)));
}

TEST(ValidateNodeTest, EmptyTypeListAndFixedCount) {
  NodeDef node;
  node.name = "forms";
  node.op = "Forms";
  node.attr["T"] = AttrValue::Type(DT_FLOAT);
  node.attr["N"] = AttrValue::Int(1);
  node.attr["M"] = AttrValue::Int(3);
  node.attr["Tin"] = AttrValue::EmptyList();
  node.attr["Tout"] = AttrValue::EmptyList();
  node.input = {"a", "b", "c", "d", "e", "f"};
  StatusOr<NodeTypes> types = ValidateNode(FormsOp(), &node);
  ASSERT_TRUE(types.ok()) << types.status();
  EXPECT_THAT(types->input_types, ElementsAre(DT_FLOAT, DT_FLOAT, DT_FLOAT,
                                              DT_INT64, DT_INT64, DT_INT64));
  EXPECT_THAT(types->output_types, ElementsAre(DT_BOOL, DT_FLOAT));
  EXPECT_THAT(types->output_ranges,
              ElementsAre(Range(0, 0), Range(0, 1), Range(1, 2)));
}

// ---- ValidateNode: errors --------------------------------------------------

// An op with constraints of every kind, for the error table.
OpDef ConstrainedOp() {
  OpDefBuilder b("Foo");
  b.Input("x: N * T")
      .Output("y: T")
      .Attr("T: {float, double}")
      .Attr("N: int >= 1")
      .Attr("transpose_a: bool = false")
      .Attr("padding: {'SAME', 'VALID'} = 'SAME'")
      .Attr("strides: list(int) = []")
      .Attr("dtypes: list({float, int32}) = []")
      .Attr("shapes: list(shape) >= 1 = [[1]]")
      .Attr("alpha: float = 0.2");
  return MustBuild(b);
}

NodeDef FooNode() {
  NodeDef node;
  node.name = "x";
  node.op = "Foo";
  node.input = {"a", "b"};
  node.attr["T"] = AttrValue::Type(DT_FLOAT);
  node.attr["N"] = AttrValue::Int(2);
  return node;
}

TEST(ValidateNodeTest, ConstrainedOpAcceptsGoodNode) {
  NodeDef node = FooNode();
  node.attr["strides"] = AttrValue::IntList({1, 2});
  node.attr["dtypes"] = AttrValue::TypeList({DT_INT32, DT_FLOAT});
  StatusOr<NodeTypes> types = ValidateNode(ConstrainedOp(), &node);
  ASSERT_TRUE(types.ok()) << types.status();
  EXPECT_THAT(types->input_types, ElementsAre(DT_FLOAT, DT_FLOAT));
  EXPECT_EQ(node.attr.size(), 8u);
  EXPECT_TRUE(node.attr["padding"] == AttrValue::String("SAME"));
  EXPECT_TRUE(node.attr["alpha"] == AttrValue::Float(0.2f));
}

struct ErrorCase {
  std::string what;
  std::function<void(NodeDef*)> mutate;
  std::string message;
};

TEST(ValidateNodeTest, Errors) {
  using V = AttrValue;
  const std::vector<ErrorCase> cases = {
      {"missing attr without default", [](NodeDef* n) { n->attr.erase("T"); },
       "node 'x' (Foo): missing attr 'T' (type)"},
      {"value outside the allowed types",
       [](NodeDef* n) { n->attr["T"] = V::Type(DT_INT8); },
       "node 'x' (Foo): attr 'T' has value int8, allowed [float, double]"},
      {"list element outside the allowed types",
       [](NodeDef* n) {
         n->attr["dtypes"] = V::TypeList({DT_FLOAT, DT_BOOL});
       },
       "node 'x' (Foo): attr 'dtypes' has value bool, allowed [float, int32]"},
      {"string outside the allowed set",
       [](NodeDef* n) { n->attr["padding"] = V::String("SMAE"); },
       "node 'x' (Foo): attr 'padding' has value \"SMAE\", allowed "
       "[\"SAME\", \"VALID\"]"},
      {"int below its minimum",
       [](NodeDef* n) {
         n->attr["N"] = V::Int(0);
         n->input.clear();
       },
       "node 'x' (Foo): attr 'N' must be >= 1, got 0"},
      {"list shorter than its minimum",
       [](NodeDef* n) { n->attr["shapes"] = V::EmptyList(); },
       "node 'x' (Foo): attr 'shapes' must have length >= 1, got 0"},
      {"scalar of the wrong kind",
       [](NodeDef* n) { n->attr["transpose_a"] = V::Int(1); },
       "node 'x' (Foo): attr 'transpose_a' should be bool, got int"},
      {"float attr given an int",
       [](NodeDef* n) { n->attr["alpha"] = V::Int(1); },
       "node 'x' (Foo): attr 'alpha' should be float, got int"},
      {"list of the wrong element kind",
       [](NodeDef* n) { n->attr["strides"] = V::FloatList({1.0f}); },
       "node 'x' (Foo): attr 'strides' should be list(int), got list(float)"},
      {"scalar where a list is declared",
       [](NodeDef* n) { n->attr["strides"] = V::Int(1); },
       "node 'x' (Foo): attr 'strides' should be list(int), got int"},
      {"list where a scalar is declared",
       [](NodeDef* n) { n->attr["T"] = V::TypeList({DT_FLOAT}); },
       "node 'x' (Foo): attr 'T' should be type, got list(type)"},
      {"value never set", [](NodeDef* n) { n->attr["T"] = V(); },
       "node 'x' (Foo): attr 'T' should be type, got no value"},
      {"list with two element kinds",
       [](NodeDef* n) {
         V v = V::IntList({1});
         v.list->f.push_back(2.0f);
         n->attr["strides"] = v;
       },
       "node 'x' (Foo): attr 'strides' should be list(int), got list(mixed)"},
      {"unknown attr", [](NodeDef* n) { n->attr["bogus"] = V::Int(1); },
       "node 'x' (Foo): unknown attr 'bogus'"},
      {"placeholder", [](NodeDef* n) { n->attr["T"] = V::Placeholder("T"); },
       "node 'x' (Foo): attr 'T' is the placeholder $T; placeholders are only "
       "valid inside function bodies"},
      {"invalid dtype value",
       [](NodeDef* n) { n->attr["T"] = V::Type(static_cast<DataType>(99)); },
       "node 'x' (Foo): attr 'T' has an invalid type value 99"},
      {"too many data inputs", [](NodeDef* n) { n->input.push_back("c"); },
       "node 'x' (Foo): expects 2 data inputs, got 3"},
      {"too few data inputs (control inputs do not count)",
       [](NodeDef* n) {
         n->input = {"a", "^b", "^c"};
       },
       "node 'x' (Foo): expects 2 data inputs, got 1"},
      {"data input after a control input",
       [](NodeDef* n) {
         n->input = {"a", "^ctrl", "b"};
       },
       "node 'x' (Foo): data input 'b' follows control input '^ctrl'; control "
       "inputs must come last"},
      {"absurd length",
       [](NodeDef* n) { n->attr["N"] = V::Int(int64_t{1} << 40); },
       "node 'x' (Foo): attr 'N' = 1099511627776 is not a valid length for "
       "input 'x' (0 to 1048576)"},
      {"node of another op", [](NodeDef* n) { n->op = "Bar"; },
       "node 'x' (Bar): validated against op 'Foo'"},
  };
  const OpDef op = ConstrainedOp();
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.what);
    NodeDef node = FooNode();
    c.mutate(&node);
    StatusOr<NodeTypes> types = ValidateNode(op, &node);
    ASSERT_FALSE(types.ok());
    EXPECT_EQ(types.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(types.status().message(), c.message);
  }
}

TEST(ValidateNodeTest, MatMulMessage) {
  NodeDef node = MatMulNode(DT_INT8);
  EXPECT_EQ(ValidateNode(MatMulOp(), &node).status().message(),
            "node 'mm' (MatMul): attr 'T' has value int8, allowed [half, "
            "bfloat16, float, double, int32, int64]");
}

TEST(ValidateNodeTest, EmptyListFitsAnyListType) {
  OpDefBuilder b("Lists");
  b.Attr("a: list(int)")
      .Attr("b: list(string)")
      .Attr("c: list(shape)")
      .Attr("d: list(float)");
  OpDef op = MustBuild(b);
  NodeDef node;
  node.name = "l";
  node.op = "Lists";
  for (const char* name : {"a", "b", "c", "d"}) {
    node.attr[name] = AttrValue::EmptyList();
  }
  EXPECT_TRUE(ValidateNode(op, &node).ok());
}

TEST(ValidateNodeTest, EveryScalarAttrType) {
  OpDefBuilder b("Scalars");
  b.Attr("s: string")
      .Attr("i: int")
      .Attr("f: float")
      .Attr("b: bool")
      .Attr("t: type")
      .Attr("shape: shape")
      .Attr("tensor: tensor")
      .Attr("fn: func");
  OpDef op = MustBuild(b);
  NodeDef node;
  node.name = "s";
  node.op = "Scalars";
  node.attr["s"] = AttrValue::String("x");
  node.attr["i"] = AttrValue::Int(1);
  node.attr["f"] = AttrValue::Float(1.5f);
  node.attr["b"] = AttrValue::Bool(true);
  node.attr["t"] = AttrValue::Type(DT_UINT8);
  node.attr["shape"] = AttrValue::Shape(PartialTensorShape({2, -1}));
  node.attr["tensor"] = AttrValue::TensorValue(Tensor());
  node.attr["fn"] = AttrValue::Func(NameAttrList{"body", {}});
  StatusOr<NodeTypes> types = ValidateNode(op, &node);
  ASSERT_TRUE(types.ok()) << types.status();
  EXPECT_TRUE(types->input_types.empty());
  EXPECT_TRUE(types->output_types.empty());

  // Every scalar attr rejects a value of its neighbour's kind.
  node.attr["fn"] = AttrValue::String("body");
  EXPECT_EQ(ValidateNode(op, &node).status().message(),
            "node 's' (Scalars): attr 'fn' should be func, got string");
}

// ---- OpDefToString ---------------------------------------------------------

TEST(OpDefToStringTest, MatMul) {
  EXPECT_EQ(OpDefToString(MatMulOp()),
            "MatMul(a: T, b: T) -> (product: T)\n"
            "  attr transpose_a: bool = false\n"
            "  attr transpose_b: bool = false\n"
            "  attr T: {half, bfloat16, float, double, int32, int64}\n");
}

TEST(OpDefToStringTest, EveryFormFlagAndDefault) {
  OpDefBuilder b("Everything");
  b.Input("fixed: float")
      .Input("many: N * T")
      .Input("many_fixed: N * int64")
      .Input("list: Tlist")
      .Output("out: T")
      .Attr("T: {float, double} = DT_DOUBLE")
      .Attr("N: int >= 1 = 2")
      .Attr("Tlist: list(type) >= 0")
      .Attr("padding: {'SAME', 'VALID'} = 'SAME'")
      .Attr("note: string = 'it\\'s'")
      .Attr("eps: float = 1e-4")
      .Attr("lo: float = -inf")
      .Attr("shape: shape = [2, -1]")
      .Attr("unknown: shape = <unknown>")
      .Attr("dims: list(int) = [1, 2]")
      .Attr("names: list(string) = ['a', 'b']")
      .Attr("dtypes: list({float, int32}) = [int32]")
      .Attr("shapes: list(shape) = [[], [3]]")
      .Attr("flags: list(bool) = [true, false]")
      .Attr("empty: list(float) = []")
      .Attr("value: tensor")
      .Attr("f: func")
      .SetIsCommutative()
      .SetIsStateful()
      .Doc("Does everything.");
  OpDef op = MustBuild(b);
  EXPECT_EQ(OpDefToString(op),
            "Everything(fixed: float, many: N * T, many_fixed: N * int64, "
            "list: Tlist) -> (out: T)\n"
            "  attr T: {float, double} = double\n"
            "  attr N: int >= 1 = 2\n"
            "  attr Tlist: list(type) >= 0\n"
            "  attr padding: {'SAME', 'VALID'} = 'SAME'\n"
            "  attr note: string = 'it\\'s'\n"
            "  attr eps: float = 0.0001\n"
            "  attr lo: float = -inf\n"
            "  attr shape: shape = [2, -1]\n"
            "  attr unknown: shape = <unknown>\n"
            "  attr dims: list(int) = [1, 2]\n"
            "  attr names: list(string) = ['a', 'b']\n"
            "  attr dtypes: list({float, int32}) = [int32]\n"
            "  attr shapes: list(shape) = [[], [3]]\n"
            "  attr flags: list(bool) = [true, false]\n"
            "  attr empty: list(float) = []\n"
            "  attr value: tensor\n"
            "  attr f: func\n"
            "  flags: commutative, stateful\n"
            "  summary: Does everything.\n");
}

TEST(OpDefToStringTest, NoArgs) {
  OpDefBuilder b("NoOp");
  EXPECT_EQ(OpDefToString(MustBuild(b)), "NoOp() -> ()\n");
}

// Every attr line reads back through the builder as the same AttrDef, so the
// listing is a faithful spec.
TEST(OpDefToStringTest, AttrLinesRoundTrip) {
  const std::vector<std::string> specs = {
      "T: {float, double} = DT_DOUBLE",
      "U: numbertype",
      "N: int >= -3 = 7",
      "Tlist: list(type) >= 2 = [int8, uint16]",
      "padding: {'SAME', 'VALID', 'EXPLICIT'} = 'EXPLICIT'",
      "note: string = 'a\\\\b\\n\\t\"q\"'",
      "eps: float = 1e-4",
      "third: float = 0.333333343",
      "big: float = 3.4e38",
      "tiny: float = 1e-45",
      "hi: float = inf",
      "shape: shape = [?, 0, 5]",
      "modes: list({'x', 'y'}) >= 1 = ['y']",
      "shapes: list(shape) = [<unknown>, [1, -1]]",
      "floats: list(float) = [0.1, -2.5e-8]",
  };
  OpDefBuilder b("RoundTrip");
  for (const std::string& spec : specs) b.Attr(spec);
  OpDef op = MustBuild(b);
  const std::string text = OpDefToString(op);
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  ASSERT_EQ(lines.size(), specs.size() + 2);  // header and final newline
  for (size_t k = 0; k < specs.size(); ++k) {
    absl::string_view line = lines[k + 1];
    SCOPED_TRACE(std::string(line));
    ASSERT_TRUE(absl::ConsumePrefix(&line, "  attr "));
    OpDefBuilder again("RoundTrip");
    again.Attr(std::string(line)).SetShapeFn(NoShapeFn);
    StatusOr<OpRegistrationData> data = again.Finalize();
    ASSERT_TRUE(data.ok()) << data.status();
    const OpDef::AttrDef& want = op.attr[k];
    const OpDef::AttrDef& got = data->op_def.attr[0];
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.type, want.type);
    EXPECT_EQ(got.has_minimum, want.has_minimum);
    EXPECT_EQ(got.minimum, want.minimum);
    ASSERT_EQ(got.allowed_values.has_value(), want.allowed_values.has_value());
    if (want.allowed_values) {
      EXPECT_TRUE(*got.allowed_values == *want.allowed_values);
    }
    ASSERT_EQ(got.default_value.has_value(), want.default_value.has_value());
    if (want.default_value) {
      EXPECT_TRUE(*got.default_value == *want.default_value)
          << SummarizeAttrValue(*got.default_value) << " vs "
          << SummarizeAttrValue(*want.default_value);
    }
  }
}

TEST(OpDefToStringTest, NanDefault) {
  OpDefBuilder b("Nan");
  b.Attr("x: float = nan");
  EXPECT_EQ(OpDefToString(MustBuild(b)),
            "Nan() -> ()\n  attr x: float = nan\n");
}

}  // namespace op_def_util_test
}  // namespace weft
