#include "ops/op_def_builder.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

Status NoShapeFn(shape_inference::InferenceContext*) { return Status(); }

StatusOr<OpRegistrationData> Build(
    const std::vector<std::string>& attrs,
    const std::vector<std::string>& inputs = {},
    const std::vector<std::string>& outputs = {}) {
  OpDefBuilder b("SpecTest");
  for (const std::string& a : attrs) b.Attr(a);
  for (const std::string& i : inputs) b.Input(i);
  for (const std::string& o : outputs) b.Output(o);
  b.SetShapeFn(NoShapeFn);
  return b.Finalize();
}

// ---- valid attr specs ------------------------------------------------------

struct ValidAttrCase {
  std::string spec;
  std::string name;
  std::string type;
  std::optional<AttrValue> allowed;
  std::optional<int64_t> minimum;
  std::optional<AttrValue> default_value;
};

std::vector<DataType> Alias(const char* name) {
  return DataTypeAlias(name).value();
}

std::vector<DataType> Concat(std::vector<DataType> a,
                             const std::vector<DataType>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<ValidAttrCase> ValidAttrCases() {
  using V = AttrValue;
  const float kInf = std::numeric_limits<float>::infinity();
  // clang-format off
  return {
      // Every scalar attr type.
      {"s: string", "s", "string", {}, {}, {}},
      {"i: int", "i", "int", {}, {}, {}},
      {"f: float", "f", "float", {}, {}, {}},
      {"b: bool", "b", "bool", {}, {}, {}},
      {"T: type", "T", "type", {}, {}, {}},
      {"shape: shape", "shape", "shape", {}, {}, {}},
      {"value: tensor", "value", "tensor", {}, {}, {}},
      {"f: func", "f", "func", {}, {}, {}},
      // Every list attr type.
      {"l: list(string)", "l", "list(string)", {}, {}, {}},
      {"strides: list(int)", "strides", "list(int)", {}, {}, {}},
      {"l: list(float)", "l", "list(float)", {}, {}, {}},
      {"l: list(bool)", "l", "list(bool)", {}, {}, {}},
      {"Tlist: list(type)", "Tlist", "list(type)", {}, {}, {}},
      {"l: list(shape)", "l", "list(shape)", {}, {}, {}},
      {"l: list(tensor)", "l", "list(tensor)", {}, {}, {}},
      {"l: list(func)", "l", "list(func)", {}, {}, {}},
      // Allowed sets and aliases.
      {"T: {float, double}", "T", "type", V::TypeList({DT_FLOAT, DT_DOUBLE}), {}, {}},
      {"T:{int32}", "T", "type", V::TypeList({DT_INT32}), {}, {}},
      {"T: numbertype", "T", "type", V::TypeList(Alias("numbertype")), {}, {}},
      {"T: realnumbertype", "T", "type", V::TypeList(Alias("realnumbertype")), {}, {}},
      {"T: quantizedtype", "T", "type", V::TypeList(Alias("quantizedtype")), {}, {}},
      {"T: all", "T", "type", V::TypeList(AllDataTypes()), {}, {}},
      // Aliases may be members of a set (TensorFlow's Relu uses
      // {realnumbertype, qint8}); a type repeats only once, first place wins.
      {"T: {realnumbertype, qint8}", "T", "type",
       V::TypeList(Concat(Alias("realnumbertype"), {DT_QINT8})), {}, {}},
      {"T: {half, floattype, int32}", "T", "type",
       V::TypeList({DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT32}), {}, {}},
      {"padding: {'SAME', 'VALID'}", "padding", "string", V::StringList({"SAME", "VALID"}), {}, {}},
      {"dtypes: list({float, int32})", "dtypes", "list(type)", V::TypeList({DT_FLOAT, DT_INT32}), {}, {}},
      {"T: list(numbertype)", "T", "list(type)", V::TypeList(Alias("numbertype")), {}, {}},
      {"modes: list({'a', \"b\"})", "modes", "list(string)", V::StringList({"a", "b"}), {}, {}},
      // Minimums.
      {"N: int >= 1", "N", "int", {}, 1, {}},
      {"N: int >= -1", "N", "int", {}, -1, {}},
      {"Tlist: list(type) >= 0", "Tlist", "list(type)", {}, 0, {}},
      {"shapes: list(shape) >= 1", "shapes", "list(shape)", {}, 1, {}},
      // Defaults of every kind.
      {"transpose_a: bool = false", "transpose_a", "bool", {}, {}, V::Bool(false)},
      {"b: bool = true", "b", "bool", {}, {}, V::Bool(true)},
      {"i: int = 42", "i", "int", {}, {}, V::Int(42)},
      {"i: int = -7", "i", "int", {}, {}, V::Int(-7)},
      {"N: int >= 2 = 2", "N", "int", {}, 2, V::Int(2)},
      {"x: float = 1e-4", "x", "float", {}, {}, V::Float(1e-4f)},
      {"x: float = 0.5", "x", "float", {}, {}, V::Float(0.5f)},
      {"x: float = 3", "x", "float", {}, {}, V::Float(3.0f)},
      {"x: float = -inf", "x", "float", {}, {}, V::Float(-kInf)},
      {"x: float = inf", "x", "float", {}, {}, V::Float(kInf)},
      {"s: string = 'abc'", "s", "string", {}, {}, V::String("abc")},
      {"s: string = \"abc\"", "s", "string", {}, {}, V::String("abc")},
      {"s: string = ''", "s", "string", {}, {}, V::String("")},
      {R"(s: string = 'it\'s\\\n')", "s", "string", {}, {}, V::String("it's\\\n")},
      {"padding: {'SAME', 'VALID'} = 'VALID'", "padding", "string",
       V::StringList({"SAME", "VALID"}), {}, V::String("VALID")},
      {"T: type = DT_FLOAT", "T", "type", {}, {}, V::Type(DT_FLOAT)},
      {"T: type = bfloat16", "T", "type", {}, {}, V::Type(DT_BFLOAT16)},
      {"T: {float, int32} = DT_INT32", "T", "type",
       V::TypeList({DT_FLOAT, DT_INT32}), {}, V::Type(DT_INT32)},
      {"T: numbertype = DT_HALF", "T", "type",
       V::TypeList(Alias("numbertype")), {}, V::Type(DT_HALF)},
      {"shape: shape = [2, -1]", "shape", "shape", {}, {}, V::Shape(PartialTensorShape({2, -1}))},
      {"shape: shape = [?, 3]", "shape", "shape", {}, {}, V::Shape(PartialTensorShape({-1, 3}))},
      {"shape: shape = []", "shape", "shape", {}, {}, V::Shape(PartialTensorShape({}))},
      {"shape: shape = <unknown>", "shape", "shape", {}, {}, V::Shape(PartialTensorShape::UnknownRank())},
      {"dilations: list(int) = [1, 1, 1, 1]", "dilations", "list(int)", {}, {}, V::IntList({1, 1, 1, 1})},
      {"l: list(int) = []", "l", "list(int)", {}, {}, V::EmptyList()},
      {"l: list(string) = ['a','b']", "l", "list(string)", {}, {}, V::StringList({"a", "b"})},
      {"l: list(float) = [0.5, -1, 1e3]", "l", "list(float)", {}, {}, V::FloatList({0.5f, -1.0f, 1000.0f})},
      {"l: list(bool) = [true, false]", "l", "list(bool)", {}, {}, V::BoolList({true, false})},
      {"l: list(type) = [DT_INT32, float]", "l", "list(type)", {}, {}, V::TypeList({DT_INT32, DT_FLOAT})},
      {"dtypes: list({float, int32}) >= 1 = [int32]", "dtypes", "list(type)",
       V::TypeList({DT_FLOAT, DT_INT32}), 1, V::TypeList({DT_INT32})},
      {"shapes: list(shape) = [[2, 3], [], <unknown>]", "shapes", "list(shape)", {}, {},
       V::ShapeList({PartialTensorShape({2, 3}), PartialTensorShape({}),
                     PartialTensorShape::UnknownRank()})},
      {"modes: list({'a', 'b'}) = ['b', 'a']", "modes", "list(string)",
       V::StringList({"a", "b"}), {}, V::StringList({"b", "a"})},
      // Whitespace is free.
      {"  N  :  int  >=  0  =  3  ", "N", "int", {}, 0, V::Int(3)},
  };
  // clang-format on
}

TEST(OpDefBuilderTest, ValidAttrSpecs) {
  for (const ValidAttrCase& c : ValidAttrCases()) {
    SCOPED_TRACE(c.spec);
    StatusOr<OpRegistrationData> data = Build({c.spec});
    ASSERT_TRUE(data.ok()) << data.status();
    ASSERT_EQ(data->op_def.attr.size(), 1u);
    const OpDef::AttrDef& attr = data->op_def.attr[0];
    EXPECT_EQ(attr.name, c.name);
    EXPECT_EQ(attr.type, c.type);
    ASSERT_EQ(attr.allowed_values.has_value(), c.allowed.has_value());
    if (c.allowed) {
      EXPECT_EQ(SummarizeAttrValue(*attr.allowed_values),
                SummarizeAttrValue(*c.allowed));
      EXPECT_TRUE(*attr.allowed_values == *c.allowed);
    }
    EXPECT_EQ(attr.has_minimum, c.minimum.has_value());
    if (c.minimum) {
      EXPECT_EQ(attr.minimum, *c.minimum);
    }
    ASSERT_EQ(attr.default_value.has_value(), c.default_value.has_value());
    if (c.default_value) {
      EXPECT_TRUE(*attr.default_value == *c.default_value)
          << SummarizeAttrValue(*attr.default_value) << " vs "
          << SummarizeAttrValue(*c.default_value);
    }
  }
}

TEST(OpDefBuilderTest, NanDefault) {
  StatusOr<OpRegistrationData> data = Build({"x: float = nan"});
  ASSERT_TRUE(data.ok()) << data.status();
  const AttrValue& v = *data->op_def.attr[0].default_value;
  EXPECT_EQ(v.kind, AttrValue::Kind::kFloat);
  EXPECT_TRUE(std::isnan(v.f));
}

// ---- invalid attr specs ----------------------------------------------------

struct InvalidCase {
  std::vector<std::string> attrs;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::string error;  // a substring of the message
};

std::vector<InvalidCase> InvalidAttrCases() {
  return {
      // Malformed names and structure.
      {{""}, {}, {}, "attr spec '': expected an attr name, got nothing"},
      {{"T float"},
       {},
       {},
       "expected ':' after the attr name 'T', got 'float'"},
      {{"1T: int"}, {}, {}, "invalid attr name '1T'"},
      {{"_T: int"}, {}, {}, "invalid attr name '_T'"},
      {{"T-x: int"},
       {},
       {},
       "expected ':' after the attr name 'T', got '-x: int'"},
      {{"T:"}, {}, {}, "expected an attr type, got nothing"},
      // Unknown types.
      {{"T: doubel"}, {}, {}, "unknown attr type 'doubel'"},
      {{"T: int32"}, {}, {}, "a single dtype is written '{int32}'"},
      {{"T: {float, doubel}"}, {}, {}, "unknown type 'doubel'"},
      {{"T: {DT_FLOAT}"}, {}, {}, "unknown type 'DT_FLOAT'"},
      {{"T: list(doubel)"}, {}, {}, "unknown attr type 'doubel'"},
      // Unbalanced or malformed sets and lists.
      {{"T: {float, double"}, {}, {}, "unbalanced braces"},
      {{"T: {float double}"}, {}, {}, "expected ',' or '}'"},
      {{"T: {}"}, {}, {}, "the allowed-value set '{}' is empty"},
      {{"T: {float, 'a'}"}, {}, {}, "mixes types and strings"},
      {{"T: {'a', float}"}, {}, {}, "mixes types and strings"},
      {{"T: {'a}"}, {}, {}, "unterminated string"},
      {{"T: list(int"}, {}, {}, "unbalanced parentheses"},
      {{"T: list(list(int))"}, {}, {}, "lists cannot be nested"},
      {{"T: list"}, {}, {}, "'list' needs an element type"},
      // Trailing junk.
      {{"T: type junk"}, {}, {}, "unexpected 'junk' after the attr type"},
      {{"T: {float})"}, {}, {}, "unexpected ')' after the attr type"},
      {{"N: int >= 1 2"}, {}, {}, "unexpected '2' after the attr type"},
      // Minimums.
      {{"x: float >= 1"},
       {},
       {},
       "applies only to int and list attrs, not to float"},
      {{"T: type >= 1"}, {}, {}, "not to type"},
      {{"N: int >= x"}, {}, {}, "expected an int, got 'x'"},
      {{"N: int >="}, {}, {}, "expected an int, got nothing"},
      {{"l: list(int) >= -1"}, {}, {}, "minimum length of a list must be >= 0"},
      // Defaults that do not parse.
      {{"T: type ="}, {}, {}, "expected a default value after '='"},
      {{"b: bool = 1"}, {}, {}, "expected true or false, got '1'"},
      {{"b: bool = True"}, {}, {}, "expected true or false, got 'True'"},
      {{"i: int = 1.5"}, {}, {}, "expected an int, got '1.5'"},
      {{"i: int = 99999999999999999999"}, {}, {}, "expected an int"},
      {{"x: float = abc"}, {}, {}, "expected a float, got 'abc'"},
      {{"x: float = 1e40"}, {}, {}, "out of range for float"},
      {{"s: string = abc"}, {}, {}, "expected a quoted string, got 'abc'"},
      {{"s: string = 'abc"}, {}, {}, "unterminated string"},
      {{"s: string = 'a\\qb'"}, {}, {}, "unknown escape '\\q'"},
      {{"s: string = 'abc' x"},
       {},
       {},
       "unexpected 'x' after the default value"},
      {{"T: type = DT_FLAOT"}, {}, {}, "unknown type 'DT_FLAOT'"},
      {{"T: type = numbertype"}, {}, {}, "unknown type 'numbertype'"},
      {{"shape: shape = [2, -2]"}, {}, {}, "shape dimension -2 is invalid"},
      {{"shape: shape = [2, 3"}, {}, {}, "unbalanced brackets"},
      {{"shape: shape = [2 3]"}, {}, {}, "expected ',' or ']' in shape"},
      {{"shape: shape = 2"}, {}, {}, "expected a shape like [2, -1]"},
      {{"value: tensor = 1"},
       {},
       {},
       "default values for tensor attrs are not supported"},
      {{"f: func = g"},
       {},
       {},
       "default values for func attrs are not supported"},
      {{"l: list(int) = 1"},
       {},
       {},
       "expected a list like [a, b] or [], got '1'"},
      {{"l: list(int) = [1 2]"}, {}, {}, "expected ',' or ']' in list"},
      {{"l: list(int) = [1, 2"},
       {},
       {},
       "unbalanced brackets: list has no ']'"},
      {{"l: list(int) = [1, 'a']"}, {}, {}, "expected an int, got"},
      // Defaults that parse but break the attr's constraints.
      {{"N: int >= 2 = 1"}, {}, {}, "default 1 is less than the minimum 2"},
      {{"l: list(int) >= 2 = [1]"},
       {},
       {},
       "default has 1 elements, fewer than the minimum 2"},
      {{"T: {float, double} = DT_INT32"},
       {},
       {},
       "default int32 is not in the allowed set [float, double]"},
      {{"l: list({float, double}) = [float, int8]"},
       {},
       {},
       "default int8 is not in the allowed set [float, double]"},
      {{"p: {'SAME', 'VALID'} = 'FULL'"},
       {},
       {},
       "default 'FULL' is not in the allowed set ['SAME', 'VALID']"},
      // Duplicates.
      {{"a: int", "a: float"},
       {},
       {},
       "attr spec 'a: float': name 'a' is already used by attr 'a'"},
  };
}

std::vector<InvalidCase> InvalidArgCases() {
  return {
      // Refs.
      {{"T: type"},
       {"x: Ref(T)"},
       {},
       "input spec 'x: Ref(T)': refs are not supported"},
      {{},
       {},
       {"y: Ref(float)"},
       "output spec 'y: Ref(float)': refs are not supported"},
      {{"T: type"},
       {"x: Ref(T"},
       {},
       "unbalanced parentheses: 'Ref(' has no ')'"},
      // Malformed specs.
      {{}, {""}, {}, "input spec '': expected a name, got nothing"},
      {{}, {"x float"}, {}, "expected ':' after the name 'x', got 'float'"},
      {{}, {"x:"}, {}, "expected a type or attr name, got nothing"},
      {{"N: int >= 0"},
       {"x: N *"},
       {},
       "expected a type or attr name after '*'"},
      {{"T: type"}, {"x: T junk"}, {}, "unexpected 'junk' after the type"},
      {{}, {"x: float)"}, {}, "unexpected ')' after the type"},
      {{}, {"9x: float"}, {}, "invalid name '9x'"},
      {{},
       {},
       {"y-1: float"},
       "expected ':' after the name 'y', got '-1: float'"},
      // References to attrs.
      {{}, {"x: U"}, {}, "'U' is neither a dtype nor a declared attr"},
      {{},
       {"x: doubel"},
       {},
       "'doubel' is neither a dtype nor a declared attr"},
      {{"s: string"},
       {"x: s"},
       {},
       "attr 's' is string; the dtype of input 'x' must come from a type or "
       "list(type) attr"},
      {{"T: type", "N: int"},
       {"x: N * T"},
       {},
       "attr 'N' gives the length of input 'x' and needs a minimum >= 0"},
      {{"T: type", "N: int >= -1"}, {"x: N * T"}, {}, "needs a minimum >= 0"},
      {{"T: type", "N: float"},
       {"x: N * T"},
       {},
       "attr 'N' gives the length of input 'x' and must be int, not float"},
      {{"T: type"},
       {},
       {"y: M * T"},
       "no attr named 'M' for the length of output 'y'"},
      {{"Tlist: list(type)", "N: int >= 0"},
       {"x: N * Tlist"},
       {},
       "'N * Tlist' needs a type attr, but 'Tlist' is list(type)"},
      // Duplicate names across inputs, outputs and attrs.
      {{},
       {"a: float", "a: int32"},
       {},
       "name 'a' is already used by input 'a'"},
      {{},
       {"a: float"},
       {"a: float"},
       "output spec 'a: float': name 'a' is already used by input 'a'"},
      {{"T: type"}, {"T: float"}, {}, "name 'T' is already used by attr 'T'"},
  };
}

void CheckInvalid(const std::vector<InvalidCase>& cases) {
  for (const InvalidCase& c : cases) {
    SCOPED_TRACE(c.error);
    StatusOr<OpRegistrationData> data = Build(c.attrs, c.inputs, c.outputs);
    ASSERT_FALSE(data.ok());
    EXPECT_EQ(data.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(data.status().message()), HasSubstr(c.error));
    EXPECT_THAT(std::string(data.status().message()),
                ::testing::StartsWith("op 'SpecTest': "));
  }
}

TEST(OpDefBuilderTest, InvalidAttrSpecs) { CheckInvalid(InvalidAttrCases()); }
TEST(OpDefBuilderTest, InvalidArgSpecs) { CheckInvalid(InvalidArgCases()); }

TEST(OpDefBuilderTest, ErrorNamesOpAndQuotesSpec) {
  StatusOr<OpRegistrationData> data = OpDefBuilder("Foo")
                                          .Attr("T: {float, doubel}")
                                          .SetShapeFn(NoShapeFn)
                                          .Finalize();
  EXPECT_EQ(data.status().message(),
            "op 'Foo': attr spec 'T: {float, doubel}': unknown type 'doubel'");
}

TEST(OpDefBuilderTest, FirstErrorWins) {
  StatusOr<OpRegistrationData> data = OpDefBuilder("Foo")
                                          .Input("x: U")
                                          .Attr("A: bogus")
                                          .Attr("B: bogus2")
                                          .Finalize();
  // Attrs are parsed before inputs, in declaration order.
  EXPECT_THAT(std::string(data.status().message()),
              HasSubstr("attr spec 'A: bogus'"));
}

TEST(OpDefBuilderTest, MissingShapeFunction) {
  StatusOr<OpRegistrationData> data =
      OpDefBuilder("Foo").Input("x: float").Finalize();
  EXPECT_EQ(data.status().message(),
            "op 'Foo' has no shape function; use "
            "SetShapeFn(shape_inference::UnknownShape) to declare its outputs "
            "unknown");
}

TEST(OpDefBuilderTest, OpNames) {
  for (const char* good :
       {"MatMul", "A", "Conv2D", "_Arg", "_Retval", "Op_With_Underscores9"}) {
    SCOPED_TRACE(good);
    EXPECT_TRUE(IsValidOpName(good));
    EXPECT_TRUE(OpDefBuilder(good).SetShapeFn(NoShapeFn).Finalize().ok());
  }
  for (const char* bad : {"", "matMul", "_", "__Arg", "_arg", "9Op", "Foo-Bar",
                          "Foo Bar", "Foo>Bar"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(IsValidOpName(bad));
    StatusOr<OpRegistrationData> data =
        OpDefBuilder(bad).SetShapeFn(NoShapeFn).Finalize();
    ASSERT_FALSE(data.ok());
    EXPECT_THAT(std::string(data.status().message()),
                HasSubstr(absl::StrCat("op '", bad, "': invalid op name")));
  }
}

TEST(OpDefBuilderTest, ArgAndAttrNames) {
  EXPECT_TRUE(IsValidArgOrAttrName("x"));
  EXPECT_TRUE(IsValidArgOrAttrName("Tidx"));
  EXPECT_TRUE(IsValidArgOrAttrName("transpose_a2"));
  EXPECT_FALSE(IsValidArgOrAttrName(""));
  EXPECT_FALSE(IsValidArgOrAttrName("_x"));
  EXPECT_FALSE(IsValidArgOrAttrName("2x"));
  EXPECT_FALSE(IsValidArgOrAttrName("x.y"));
}

// ---- input and output forms ------------------------------------------------

TEST(OpDefBuilderTest, EveryArgForm) {
  StatusOr<OpRegistrationData> data =
      OpDefBuilder("Forms")
          // Inputs may name attrs declared after them.
          .Input("fixed: float")
          .Input("typed: T")
          .Input("many: N * T")
          .Input("many_fixed: N * int64")
          .Input("list:Tlist")
          .Input("  spaced  :  N*T  ")
          .Output("out: T")
          .Output("outs: Tlist")
          .Attr("T: {float, double}")
          .Attr("N: int >= 1")
          .Attr("Tlist: list(type) >= 0")
          .SetShapeFn(NoShapeFn)
          .Finalize();
  ASSERT_TRUE(data.ok()) << data.status();
  const OpDef& op = data->op_def;
  ASSERT_EQ(op.input_arg.size(), 6u);
  ASSERT_EQ(op.output_arg.size(), 2u);

  struct Want {
    std::string name;
    DataType type;
    std::string type_attr, number_attr, type_list_attr;
  };
  const std::vector<Want> want_inputs = {
      {"fixed", DT_FLOAT, "", "", ""},
      {"typed", DT_INVALID, "T", "", ""},
      {"many", DT_INVALID, "T", "N", ""},
      {"many_fixed", DT_INT64, "", "N", ""},
      {"list", DT_INVALID, "", "", "Tlist"},
      {"spaced", DT_INVALID, "T", "N", ""},
  };
  for (size_t k = 0; k < want_inputs.size(); ++k) {
    SCOPED_TRACE(want_inputs[k].name);
    const OpDef::ArgDef& arg = op.input_arg[k];
    EXPECT_EQ(arg.name, want_inputs[k].name);
    EXPECT_EQ(arg.type, want_inputs[k].type);
    EXPECT_EQ(arg.type_attr, want_inputs[k].type_attr);
    EXPECT_EQ(arg.number_attr, want_inputs[k].number_attr);
    EXPECT_EQ(arg.type_list_attr, want_inputs[k].type_list_attr);
    EXPECT_FALSE(arg.is_ref);
  }
  EXPECT_EQ(op.output_arg[0].type_attr, "T");
  EXPECT_EQ(op.output_arg[1].type_list_attr, "Tlist");
}

TEST(OpDefBuilderTest, FixedTypesWinOverAttrNames) {
  // As in TensorFlow, a dtype name in an arg spec is the dtype even when an
  // attr of the same name exists.
  StatusOr<OpRegistrationData> data =
      OpDefBuilder("Foo").Input("x: half").SetShapeFn(NoShapeFn).Finalize();
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(data->op_def.input_arg[0].type, DT_HALF);
}

TEST(OpDefBuilderTest, FlagsDocAndShapeFn) {
  int calls = 0;
  OpDefBuilder b("AddN");
  b.Input("inputs: N * T")
      .Output("sum: T")
      .Attr("N: int >= 1")
      .Attr("T: numbertype")
      .SetIsCommutative()
      .SetIsAggregate()
      .SetIsStateful()
      .SetAllowsUninitializedInput()
      .SetShapeFn([&calls](shape_inference::InferenceContext*) {
        ++calls;
        return Status();
      })
      .Doc("Adds all inputs.\n\nElementwise; every input has the same shape.");
  EXPECT_EQ(b.op_name(), "AddN");
  StatusOr<OpRegistrationData> data = b.Finalize();
  ASSERT_TRUE(data.ok()) << data.status();
  const OpDef& op = data->op_def;
  EXPECT_EQ(op.name, "AddN");
  EXPECT_TRUE(op.is_commutative);
  EXPECT_TRUE(op.is_aggregate);
  EXPECT_TRUE(op.is_stateful);
  EXPECT_TRUE(op.allows_uninitialized_input);
  EXPECT_EQ(op.summary, "Adds all inputs.");
  EXPECT_EQ(op.description, "Elementwise; every input has the same shape.");
  EXPECT_TRUE(data->source.empty());
  ASSERT_TRUE(data->shape_fn);
  EXPECT_TRUE(data->shape_fn(nullptr).ok());
  EXPECT_EQ(calls, 1);

  // Finalize does not consume the builder.
  StatusOr<OpRegistrationData> again = b.Finalize();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->op_def.attr.size(), 2u);
}

TEST(OpDefBuilderTest, DefaultsAreOff) {
  StatusOr<OpRegistrationData> data =
      OpDefBuilder("NoOp").SetShapeFn(NoShapeFn).Finalize();
  ASSERT_TRUE(data.ok()) << data.status();
  const OpDef& op = data->op_def;
  EXPECT_FALSE(op.is_commutative || op.is_aggregate || op.is_stateful ||
               op.allows_uninitialized_input);
  EXPECT_TRUE(op.input_arg.empty());
  EXPECT_TRUE(op.output_arg.empty());
  EXPECT_TRUE(op.attr.empty());
  EXPECT_TRUE(op.summary.empty());
}

TEST(OpDefBuilderTest, FindAttr) {
  StatusOr<OpRegistrationData> data =
      Build({"T: type", "N: int >= 1", "s: string = 'x'"});
  ASSERT_TRUE(data.ok()) << data.status();
  const OpDef& op = data->op_def;
  ASSERT_NE(op.FindAttr("N"), nullptr);
  EXPECT_EQ(op.FindAttr("N")->type, "int");
  EXPECT_EQ(op.FindAttr("s"), &op.attr[2]);
  EXPECT_EQ(op.FindAttr("n"), nullptr);
  EXPECT_EQ(op.FindAttr(""), nullptr);
}

}  // namespace
}  // namespace weft
