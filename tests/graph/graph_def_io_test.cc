// Loading the TensorFlow-made fixtures of tests/graph/testdata (written by
// scripts/gen_graph_fixtures.py) in both formats, checking them against the
// .expected files TensorFlow's own decoder produced, and round trips.
#include "graph/graph_def_io.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "core/dtype_traits.h"
#include "gmock/gmock.h"
#include "graph_def_testutil.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using weft::testing::ExpectGraphDefsEqual;
using weft::testing::GraphTestDataPath;
using weft::testing::ReadTestFile;
using weft::testing::TempDir;
using weft::testing::WriteFile;

const NodeDef* FindNode(const std::vector<NodeDef>& nodes,
                        const std::string& name) {
  for (const NodeDef& n : nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

std::string HexDecode(const std::string& hex) {
  if (hex == "-") return "";
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// Compares element `i` of `t` with the text TensorFlow wrote for it (see the
// format in scripts/gen_graph_fixtures.py).
void ExpectElement(const Tensor& t, int64_t i, const std::string& want,
                   const std::string& where) {
  const void* data = t.raw_data();
  switch (t.dtype()) {
    case DT_FLOAT:
      EXPECT_EQ(static_cast<const float*>(data)[i],
                static_cast<float>(std::strtod(want.c_str(), nullptr)))
          << where;
      break;
    case DT_DOUBLE:
      EXPECT_EQ(static_cast<const double*>(data)[i],
                std::strtod(want.c_str(), nullptr))
          << where;
      break;
    case DT_HALF:
      EXPECT_EQ(static_cast<float>(static_cast<const half*>(data)[i]),
                static_cast<float>(std::strtod(want.c_str(), nullptr)))
          << where;
      break;
    case DT_BFLOAT16:
      EXPECT_EQ(static_cast<float>(static_cast<const bfloat16*>(data)[i]),
                static_cast<float>(std::strtod(want.c_str(), nullptr)))
          << where;
      break;
    case DT_INT8:
      EXPECT_EQ(static_cast<const int8_t*>(data)[i], std::stoll(want)) << where;
      break;
    case DT_INT16:
      EXPECT_EQ(static_cast<const int16_t*>(data)[i], std::stoll(want))
          << where;
      break;
    case DT_INT32:
      EXPECT_EQ(static_cast<const int32_t*>(data)[i], std::stoll(want))
          << where;
      break;
    case DT_INT64:
      EXPECT_EQ(static_cast<const int64_t*>(data)[i], std::stoll(want))
          << where;
      break;
    case DT_UINT8:
      EXPECT_EQ(static_cast<const uint8_t*>(data)[i], std::stoull(want))
          << where;
      break;
    case DT_UINT16:
      EXPECT_EQ(static_cast<const uint16_t*>(data)[i], std::stoull(want))
          << where;
      break;
    case DT_UINT32:
      EXPECT_EQ(static_cast<const uint32_t*>(data)[i], std::stoull(want))
          << where;
      break;
    case DT_UINT64:
      EXPECT_EQ(static_cast<const uint64_t*>(data)[i], std::stoull(want))
          << where;
      break;
    case DT_BOOL:
      EXPECT_EQ(static_cast<const bool*>(data)[i], want == "1") << where;
      break;
    case DT_COMPLEX64:
    case DT_COMPLEX128: {
      std::vector<std::string> parts = absl::StrSplit(want, ',');
      ASSERT_EQ(parts.size(), 2u) << where;
      const double re = std::strtod(parts[0].c_str(), nullptr);
      const double im = std::strtod(parts[1].c_str(), nullptr);
      if (t.dtype() == DT_COMPLEX64) {
        const complex64 v = static_cast<const complex64*>(data)[i];
        EXPECT_EQ(v.real(), static_cast<float>(re)) << where;
        EXPECT_EQ(v.imag(), static_cast<float>(im)) << where;
      } else {
        const complex128 v = static_cast<const complex128*>(data)[i];
        EXPECT_EQ(v.real(), re) << where;
        EXPECT_EQ(v.imag(), im) << where;
      }
      break;
    }
    case DT_STRING:
      EXPECT_EQ(static_cast<const std::string*>(data)[i], HexDecode(want))
          << where;
      break;
    default:
      ADD_FAILURE() << where << ": unexpected dtype "
                    << DataTypeName(t.dtype());
  }
}

// Checks `graph` against FIXTURE.expected: producer, every node's name, op
// and inputs in order, every Const's dtype, shape and values, and each
// function's body size and outputs.
void ExpectMatchesTensorFlow(const GraphDef& graph,
                             const std::string& fixture) {
  std::istringstream lines(
      ReadTestFile(GraphTestDataPath(fixture + ".expected")));
  std::string line;
  size_t node_index = 0;
  size_t consts = 0;
  size_t functions = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    const std::string where = fixture + ": " + line.substr(0, 80);
    if (f[0] == "producer") {
      EXPECT_EQ(graph.versions.producer, std::stoi(f[1])) << where;
    } else if (f[0] == "node") {
      ASSERT_LT(node_index, graph.node.size()) << where;
      const NodeDef& node = graph.node[node_index++];
      EXPECT_EQ(node.name, f[1]) << where;
      EXPECT_EQ(node.op, f[2]) << where;
      std::vector<std::string> inputs;
      if (f[3] != "-") inputs = absl::StrSplit(f[3], ',');
      EXPECT_EQ(node.input, inputs) << where;
    } else if (f[0] == "const") {
      ++consts;
      const NodeDef* node = FindNode(graph.node, f[1]);
      ASSERT_NE(node, nullptr) << where;
      auto value = node->attr.find("value");
      ASSERT_NE(value, node->attr.end()) << where;
      ASSERT_EQ(value->second.kind, AttrValue::Kind::kTensor) << where;
      const Tensor& t = value->second.tensor;
      EXPECT_EQ(DataTypeName(t.dtype()), f[2]) << where;
      std::vector<int64_t> dims;
      if (f[3] != "scalar") {
        for (absl::string_view d : absl::StrSplit(f[3], ',')) {
          dims.push_back(std::stoll(std::string(d)));
        }
      }
      EXPECT_EQ(std::vector<int64_t>(t.shape().dim_sizes().begin(),
                                     t.shape().dim_sizes().end()),
                dims)
          << where;
      const size_t n = f.size() - 4;
      ASSERT_EQ(static_cast<size_t>(t.NumElements()), n) << where;
      for (size_t i = 0; i < n; ++i) {
        ExpectElement(t, static_cast<int64_t>(i), f[4 + i],
                      where + " element " + std::to_string(i));
      }
    } else if (f[0] == "function") {
      ++functions;
      const FunctionDef* fn = nullptr;
      for (const FunctionDef& candidate : graph.library.function) {
        if (candidate.signature.name == f[1]) fn = &candidate;
      }
      ASSERT_NE(fn, nullptr) << where;
      EXPECT_EQ(fn->node_def.size(), std::stoul(f[2])) << where;
      std::vector<std::string> rets;
      for (const auto& [name, value] : fn->ret) rets.push_back(name);
      std::vector<std::string> want;
      if (f[3] != "-") want = absl::StrSplit(f[3], ',');
      EXPECT_EQ(rets, want) << where;
    } else {
      ADD_FAILURE() << "unknown line in " << fixture << ".expected: " << line;
    }
  }
  EXPECT_EQ(node_index, graph.node.size()) << fixture;
  EXPECT_EQ(functions, graph.library.function.size()) << fixture;
  EXPECT_GT(node_index + consts, 0u) << fixture << ": empty expectations";
}

class FixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureTest, BinaryMatchesTensorFlow) {
  auto graph = LoadGraphDef(GraphTestDataPath(GetParam() + ".pb"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  ExpectMatchesTensorFlow(*graph, GetParam());
}

TEST_P(FixtureTest, TextMatchesTensorFlow) {
  auto graph = LoadGraphDef(GraphTestDataPath(GetParam() + ".pbtxt"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  ExpectMatchesTensorFlow(*graph, GetParam());
}

TEST_P(FixtureTest, BinaryAndTextAgree) {
  auto binary = LoadGraphDef(GraphTestDataPath(GetParam() + ".pb"));
  auto text = LoadGraphDef(GraphTestDataPath(GetParam() + ".pbtxt"));
  ASSERT_TRUE(binary.ok()) << binary.status();
  ASSERT_TRUE(text.ok()) << text.status();
  ExpectGraphDefsEqual(*binary, *text);
}

TEST_P(FixtureTest, RoundTripsThroughBothFormats) {
  auto original = LoadGraphDef(GraphTestDataPath(GetParam() + ".pb"));
  ASSERT_TRUE(original.ok()) << original.status();
  for (GraphFormat format : {GraphFormat::kBinary, GraphFormat::kText}) {
    SCOPED_TRACE(GraphFormatName(format));
    auto bytes = SerializeGraphDef(*original, format);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    auto reloaded = format == GraphFormat::kBinary
                        ? ParseBinaryGraphDef(*bytes, "exported")
                        : ParseTextGraphDef(*bytes, "exported");
    ASSERT_TRUE(reloaded.ok()) << reloaded.status();
    ExpectGraphDefsEqual(*original, *reloaded);
    ExpectMatchesTensorFlow(*reloaded, GetParam());
    // Deterministic output: exporting the reloaded graph gives equal bytes.
    auto again = SerializeGraphDef(*reloaded, format);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(*again, *bytes);
  }
}

INSTANTIATE_TEST_SUITE_P(GraphDefIo, FixtureTest,
                         ::testing::Values("mlp_frozen", "consts", "attrs",
                                           "library"));

TEST(GraphDefIoTest, FrozenKerasMlpHasItsStructure) {
  auto graph = LoadGraphDef(GraphTestDataPath("mlp_frozen.pb"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  const NodeDef* x = FindNode(graph->node, "x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->op, "Placeholder");
  ASSERT_EQ(x->attr.count("shape"), 1u);
  EXPECT_EQ(x->attr.at("shape").shape, PartialTensorShape({-1, 4}));
  EXPECT_EQ(x->attr.at("dtype").type, DT_FLOAT);
  const NodeDef* kernel = FindNode(
      graph->node, "sequential_1/hidden_1/Cast/ReadVariableOp/resource");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->attr.at("value").tensor.shape(), TensorShape({4, 8}));
}

TEST(GraphDefIoTest, AttrsOfEveryKind) {
  auto graph = LoadGraphDef(GraphTestDataPath("attrs.pbtxt"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->versions.producer, 2);
  EXPECT_EQ(graph->versions.min_consumer, 1);
  EXPECT_EQ(graph->versions.bad_consumers, (std::vector<int>{5, 7}));
  const NodeDef* probe = FindNode(graph->node, "probe");
  ASSERT_NE(probe, nullptr);
  EXPECT_EQ(probe->device, "/device:CPU:0");
  EXPECT_EQ(probe->input, (std::vector<std::string>{"a", "a:0", "^gate"}));
  const AttrMap& a = probe->attr;
  // The values the generator script sets.
  EXPECT_TRUE(a.at("s") == AttrValue::String("SAME"));
  EXPECT_TRUE(a.at("i") == AttrValue::Int(-42));
  EXPECT_TRUE(a.at("f") == AttrValue::Float(0.25f));
  EXPECT_TRUE(a.at("b") == AttrValue::Bool(true));
  EXPECT_TRUE(a.at("type") == AttrValue::Type(DT_HALF));
  EXPECT_TRUE(a.at("shape") ==
              AttrValue::Shape(PartialTensorShape({2, -1, 3})));
  EXPECT_TRUE(a.at("shape_unknown_rank") ==
              AttrValue::Shape(PartialTensorShape::UnknownRank()));
  EXPECT_TRUE(a.at("shape_scalar") == AttrValue::Shape(PartialTensorShape({})));
  ASSERT_EQ(a.at("tensor").kind, AttrValue::Kind::kTensor);
  const Tensor& t = a.at("tensor").tensor;
  ASSERT_EQ(t.dtype(), DT_INT32);
  EXPECT_EQ(t.shape(), TensorShape({3}));
  EXPECT_EQ(t.data<int32_t>()[2], 3);
  EXPECT_TRUE(a.at("list_s") == AttrValue::StringList({"a", "bc"}));
  EXPECT_TRUE(a.at("list_i") == AttrValue::IntList({1, -2, 3}));
  EXPECT_TRUE(a.at("list_f") == AttrValue::FloatList({1.5f, -0.5f}));
  EXPECT_TRUE(a.at("list_b") == AttrValue::BoolList({true, false}));
  EXPECT_TRUE(a.at("list_type") == AttrValue::TypeList({DT_FLOAT, DT_INT64}));
  EXPECT_TRUE(a.at("list_shape") ==
              AttrValue::ShapeList(
                  {PartialTensorShape({1}), PartialTensorShape({-1, 2})}));
  ASSERT_EQ(a.at("list_tensor").list->tensor.size(), 2u);
  EXPECT_EQ(a.at("list_tensor").list->tensor[0].data<float>()[0], 3.0f);
  EXPECT_EQ(a.at("list_tensor").list->tensor[1].data<std::string>()[0], "q");
  EXPECT_TRUE(a.at("list_empty") == AttrValue::EmptyList());
  ASSERT_EQ(a.at("func").kind, AttrValue::Kind::kFunc);
  EXPECT_EQ(a.at("func").func->name, "some_fn");
  EXPECT_TRUE(a.at("func").func->attr.at("T") == AttrValue::Type(DT_FLOAT));
  ASSERT_EQ(a.at("list_func").list->func.size(), 2u);
  EXPECT_EQ(a.at("list_func").list->func[1].name, "other_fn");
  EXPECT_TRUE(a.at("placeholder") == AttrValue::Placeholder("T"));
}

TEST(GraphDefIoTest, LibraryFunctionsAreKept) {
  auto graph = LoadGraphDef(GraphTestDataPath("library.pb"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  const NodeDef* call = FindNode(graph->node, "PartitionedCall");
  ASSERT_NE(call, nullptr);
  ASSERT_EQ(call->attr.at("f").kind, AttrValue::Kind::kFunc);
  const std::string callee = call->attr.at("f").func->name;
  const FunctionDef* fn = nullptr;
  for (const FunctionDef& f : graph->library.function) {
    if (f.signature.name == callee) fn = &f;
  }
  ASSERT_NE(fn, nullptr) << callee;
  ASSERT_EQ(fn->signature.input_arg.size(), 1u);
  EXPECT_EQ(fn->signature.input_arg[0].type, DT_FLOAT);
  ASSERT_EQ(fn->signature.output_arg.size(), 1u);
  EXPECT_EQ(fn->ret.count(fn->signature.output_arg[0].name), 1u);
  // The while loop's body and condition are functions too, named by the
  // While node's func attrs.
  const NodeDef* loop = FindNode(graph->node, "while");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->attr.at("body").kind, AttrValue::Kind::kFunc);
  EXPECT_EQ(loop->attr.at("cond").kind, AttrValue::Kind::kFunc);
}

TEST(GraphDefIoTest, DetectsFormatFromContent) {
  EXPECT_EQ(DetectGraphFormat(ReadTestFile(GraphTestDataPath("consts.pb"))),
            GraphFormat::kBinary);
  EXPECT_EQ(DetectGraphFormat(ReadTestFile(GraphTestDataPath("consts.pbtxt"))),
            GraphFormat::kText);
  EXPECT_EQ(DetectGraphFormat("\n# comment\nnode { name: \"a\" op: \"B\" }"),
            GraphFormat::kText);
  auto parsed =
      ParseGraphDef(ReadTestFile(GraphTestDataPath("attrs.pb")), "<memory>");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->node.size(), 3u);
  parsed =
      ParseGraphDef(ReadTestFile(GraphTestDataPath("attrs.pbtxt")), "<memory>");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->node.size(), 3u);
}

TEST(GraphDefIoTest, FormatFromPath) {
  EXPECT_EQ(GraphFormatFromPath("a/model.pb"), GraphFormat::kBinary);
  EXPECT_EQ(GraphFormatFromPath("model.PBTXT"), GraphFormat::kText);
  EXPECT_EQ(GraphFormatFromPath("model.txt"), GraphFormat::kText);
  EXPECT_EQ(GraphFormatFromPath("model.graphdef"), GraphFormat::kBinary);
  EXPECT_EQ(GraphFormatFromPath("model"), std::nullopt);
  EXPECT_EQ(GraphFormatFromPath("dir.pb/model"), std::nullopt);
  EXPECT_EQ(GraphFormatFromPath("model.onnx"), std::nullopt);
}

TEST(GraphDefIoTest, SaveAndLoadBothFormats) {
  auto graph = LoadGraphDef(GraphTestDataPath("library.pbtxt"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  TempDir dir;
  const std::string pb = dir.File("out.pb");
  const std::string pbtxt = dir.File("out.pbtxt");
  ASSERT_TRUE(SaveGraphDef(*graph, pb, GraphFormat::kBinary).ok());
  ASSERT_TRUE(SaveGraphDef(*graph, pbtxt, GraphFormat::kText).ok());
  EXPECT_EQ(DetectGraphFormat(ReadTestFile(pb)), GraphFormat::kBinary);
  EXPECT_EQ(DetectGraphFormat(ReadTestFile(pbtxt)), GraphFormat::kText);
  for (const std::string& path : {pb, pbtxt}) {
    auto reloaded = LoadGraphDef(path);
    ASSERT_TRUE(reloaded.ok()) << reloaded.status();
    ExpectGraphDefsEqual(*graph, *reloaded);
  }
}

TEST(GraphDefIoTest, ContentWinsOverAMisleadingExtension) {
  TempDir dir;
  const std::string text_named_pb = dir.File("really_text.pb");
  WriteFile(text_named_pb, ReadTestFile(GraphTestDataPath("attrs.pbtxt")));
  auto graph = LoadGraphDef(text_named_pb);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->node.size(), 3u);

  const std::string binary_named_txt = dir.File("really_binary.pbtxt");
  WriteFile(binary_named_txt, ReadTestFile(GraphTestDataPath("attrs.pb")));
  graph = LoadGraphDef(binary_named_txt);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->node.size(), 3u);

  const std::string no_extension = dir.File("graph");
  WriteFile(no_extension, ReadTestFile(GraphTestDataPath("attrs.pb")));
  graph = LoadGraphDef(no_extension);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->node.size(), 3u);
}

TEST(GraphDefIoTest, FileErrorsNameThePath) {
  auto missing = LoadGraphDef("/nonexistent/dir/model.pb");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("'/nonexistent/dir/model.pb'"));
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("No such file"));

  TempDir dir;
  auto directory = LoadGraphDef(dir.path());
  ASSERT_FALSE(directory.ok());
  EXPECT_THAT(std::string(directory.status().message()),
              HasSubstr("is a directory"));

  const std::string empty = dir.File("empty.pb");
  WriteFile(empty, "");
  auto loaded = LoadGraphDef(empty);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            empty + ": is empty (0 bytes); expected a GraphDef");

  GraphDef graph;
  Status saved =
      SaveGraphDef(graph, "/nonexistent/dir/out.pb", GraphFormat::kBinary);
  ASSERT_FALSE(saved.ok());
  EXPECT_THAT(std::string(saved.message()),
              StartsWith("cannot write graph file "
                         "'/nonexistent/dir/out.pb'"));
}

TEST(GraphDefIoTest, ExportRefusesTensorsWithoutData) {
  GraphDef graph;
  NodeDef node;
  node.name = "c";
  node.op = "Const";
  node.attr["value"] = AttrValue::TensorValue(Tensor());  // no buffer
  graph.node.push_back(node);
  auto bytes = SerializeGraphDef(graph, GraphFormat::kBinary);
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(std::string(bytes.status().message()),
              StartsWith("node 'c' (Const): attr 'value': tensor "));
  EXPECT_THAT(std::string(bytes.status().message()), HasSubstr("no buffer"));
}

TEST(GraphDefIoTest, ExportedGraphKeepsFunctionSignatureDetails) {
  GraphDef graph;
  FunctionDef f;
  f.signature.name = "fn";
  OpDef::ArgDef in;
  in.name = "x";
  in.type_attr = "T";
  f.signature.input_arg.push_back(in);
  OpDef::AttrDef attr;
  attr.name = "T";
  attr.type = "type";
  attr.default_value = AttrValue::Type(DT_FLOAT);
  attr.allowed_values = AttrValue::TypeList({DT_FLOAT, DT_DOUBLE});
  f.signature.attr.push_back(attr);
  f.signature.is_stateful = true;
  f.control_output = {"side_effect"};
  f.control_ret = {{"side_effect", "n"}};
  f.arg_attr[0]["_output_shapes"] =
      AttrValue::ShapeList({PartialTensorShape({2})});
  f.resource_arg_unique_id[0] = 3;
  NodeDef n;
  n.name = "n";
  n.op = "Identity";
  n.input = {"x"};
  n.attr["T"] = AttrValue::Placeholder("T");
  f.node_def.push_back(n);
  f.ret = {{"y", "n:output:0"}};
  graph.library.function.push_back(f);
  graph.library.gradient.emplace_back("fn", "fn_grad");
  graph.library.registered_gradients.emplace_back("fn_grad", "SomeOp");
  for (GraphFormat format : {GraphFormat::kBinary, GraphFormat::kText}) {
    auto bytes = SerializeGraphDef(graph, format);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    auto back = format == GraphFormat::kBinary
                    ? ParseBinaryGraphDef(*bytes, "x")
                    : ParseTextGraphDef(*bytes, "x");
    ASSERT_TRUE(back.ok()) << back.status();
    ExpectGraphDefsEqual(graph, *back);
  }
}

// A parse for running may leave the functions' per-argument attrs out
// (TensorDecodeOptions::keep_function_arg_attrs); the rest of the function
// is the same.
TEST(GraphDefIoTest, FunctionArgAttrsLeftOutWhenAsked) {
  GraphDef graph;
  FunctionDef f;
  f.signature.name = "fn";
  OpDef::ArgDef in;
  in.name = "x";
  in.type = DT_FLOAT;
  f.signature.input_arg.push_back(in);
  f.arg_attr[0]["_user_specified_name"] = AttrValue::String("x");
  NodeDef n;
  n.name = "n";
  n.op = "Identity";
  n.input = {"x"};
  n.attr["T"] = AttrValue::Type(DT_FLOAT);
  f.node_def.push_back(n);
  f.ret = {{"y", "n:output:0"}};
  graph.library.function.push_back(f);
  auto bytes = SerializeGraphDef(graph, GraphFormat::kBinary);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  GraphParseOptions options;
  options.tensor.keep_function_arg_attrs = false;
  auto lean = ParseBinaryGraphDef(*bytes, "x", options);
  ASSERT_TRUE(lean.ok()) << lean.status();
  ASSERT_EQ(lean->library.function.size(), 1u);
  EXPECT_TRUE(lean->library.function[0].arg_attr.empty());
  graph.library.function[0].arg_attr.clear();
  ExpectGraphDefsEqual(graph, *lean);
  auto full = ParseBinaryGraphDef(*bytes, "x");
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ(full->library.function[0].arg_attr.size(), 1u);
}

TEST(GraphDefIoTest, ScalarsExportAsTypedValues) {
  GraphDef graph;
  NodeDef c;
  c.name = "half_of_one";
  c.op = "Const";
  Tensor v(DT_FLOAT, TensorShape({}));
  v.data<float>()[0] = 0.5f;
  c.attr["value"] = AttrValue::TensorValue(v);
  graph.node.push_back(c);
  auto text = SerializeGraphDef(graph, GraphFormat::kText);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr("float_val: 0.5"));
  EXPECT_THAT(*text, ::testing::Not(HasSubstr("tensor_content")));
}

TEST(GraphDefIoTest, RepeatedAttrKeyKeepsTheLastValue) {
  // As in a protobuf map, which TensorFlow's NodeDef.attr is.
  auto graph = ParseTextGraphDef(
      "node { name: 'a' op: 'X' attr { key: 'k' value { i: 1 } } "
      "attr { key: 'k' value { i: 2 } } }",
      "dup.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_TRUE(graph->node[0].attr.at("k") == AttrValue::Int(2));
}

// Files past protobuf's default 64 MiB message limit load.
TEST(GraphDefIoTest, LoadsGraphsLargerThanProtobufsDefaultLimit) {
  constexpr int64_t kElements = (80 << 20) / 4;  // 80 MiB of floats
  Tensor big(DT_FLOAT, TensorShape({kElements}));
  float* data = big.data<float>();
  for (int64_t i = 0; i < kElements; ++i) data[i] = static_cast<float>(i % 97);
  GraphDef graph;
  NodeDef c;
  c.name = "big";
  c.op = "Const";
  c.attr["dtype"] = AttrValue::Type(DT_FLOAT);
  c.attr["value"] = AttrValue::TensorValue(big);
  graph.node.push_back(std::move(c));
  auto bytes = SerializeGraphDef(graph, GraphFormat::kBinary);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_GT(bytes->size(), 80u << 20);
  auto back = ParseBinaryGraphDef(*bytes, "big.pb");
  ASSERT_TRUE(back.ok()) << back.status();
  const Tensor& t = back->node[0].attr.at("value").tensor;
  ASSERT_EQ(t.NumElements(), kElements);
  EXPECT_EQ(t.data<float>()[kElements - 1],
            static_cast<float>((kElements - 1) % 97));
}

// Not run by default: times LoadGraphDef on a ~100 MB file and prints the
// result (run with --gtest_also_run_disabled_tests). Asserts no time.
TEST(GraphDefIoTest, DISABLED_TimeLoading100MegabyteFile) {
  constexpr int64_t kElements = (100 << 20) / 4;
  Tensor big(DT_FLOAT, TensorShape({kElements}));
  float* data = big.data<float>();
  for (int64_t i = 0; i < kElements; ++i) data[i] = static_cast<float>(i);
  GraphDef graph;
  NodeDef c;
  c.name = "big";
  c.op = "Const";
  c.attr["value"] = AttrValue::TensorValue(big);
  graph.node.push_back(std::move(c));
  TempDir dir;
  const std::string path = dir.File("big.pb");
  ASSERT_TRUE(SaveGraphDef(graph, path, GraphFormat::kBinary).ok());
  for (int run = 0; run < 3; ++run) {
    const auto start = std::chrono::steady_clock::now();
    auto loaded = LoadGraphDef(path);
    const auto end = std::chrono::steady_clock::now();
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    std::printf("LoadGraphDef(100 MiB): %.1f ms\n",
                std::chrono::duration<double, std::milli>(end - start).count());
  }
}

}  // namespace
}  // namespace weft
