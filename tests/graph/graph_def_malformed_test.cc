// Malformed graph files: truncated, random and bit-flipped bytes, wrong wire
// types, absurd shapes, deep nesting, text syntax errors. Each must give one
// line of error that starts with the source name: never a crash, a hang or an
// allocation the input does not justify.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/saved_model_io.h"
#include "graph_def_testutil.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using weft::testing::GraphTestDataPath;
using weft::testing::ReadTestFile;
using namespace weft::testing::wire;  // NOLINT: the hand-made inputs

std::string NodeBytes(const std::string& name, const std::string& op,
                      const std::string& attr_key,
                      const std::string& attr_value) {
  std::string node = BytesField(kNodeName, name) + BytesField(kNodeOp, op);
  if (!attr_key.empty()) {
    node += BytesField(kNodeAttr, BytesField(kEntryKey, attr_key) +
                                      BytesField(kEntryValue, attr_value));
  }
  return BytesField(kGraphNode, node);
}

// One line, starting with the source name.
void ExpectCleanError(const Status& status, const std::string& source) {
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), StartsWith(source + ":"))
      << status;
  EXPECT_EQ(status.message().find('\n'), absl::string_view::npos) << status;
}

TEST(GraphDefMalformedTest, EveryTruncationOfABinaryFixture) {
  for (const char* fixture : {"consts.pb", "library.pb", "attrs.pb"}) {
    const std::string bytes = ReadTestFile(GraphTestDataPath(fixture));
    int failures = 0;
    for (size_t n = 1; n < bytes.size(); ++n) {
      auto g = ParseBinaryGraphDef(bytes.substr(0, n), "cut.pb");
      // A cut between two top-level fields is a shorter, valid graph.
      if (!g.ok()) {
        ++failures;
        ExpectCleanError(g.status(), "cut.pb");
      }
    }
    EXPECT_GT(failures, static_cast<int>(bytes.size() / 2)) << fixture;
  }
}

TEST(GraphDefMalformedTest, TruncationSaysWhere) {
  const std::string bytes = ReadTestFile(GraphTestDataPath("attrs.pb"));
  auto g = ParseBinaryGraphDef(bytes.substr(0, bytes.size() / 2), "cut.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              StartsWith("cut.pb: not a valid binary GraphDef: field 'node' "
                         "(1) at byte "));
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("remain (truncated?)"));
}

TEST(GraphDefMalformedTest, EveryTruncationOfATextFixture) {
  const std::string text = ReadTestFile(GraphTestDataPath("attrs.pbtxt"));
  for (size_t n = 1; n < text.size(); n += 7) {
    auto g = ParseTextGraphDef(text.substr(0, n), "cut.pbtxt");
    if (!g.ok()) ExpectCleanError(g.status(), "cut.pbtxt");
  }
}

TEST(GraphDefMalformedTest, RandomBytes) {
  std::mt19937 rng(1234);
  for (int i = 0; i < 3000; ++i) {
    std::string bytes(1 + rng() % 300, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    auto g = ParseGraphDef(bytes, "random.pb");
    if (!g.ok()) ExpectCleanError(g.status(), "random.pb");
  }
}

TEST(GraphDefMalformedTest, BitFlippedFixture) {
  const std::string bytes = ReadTestFile(GraphTestDataPath("consts.pb"));
  std::mt19937 rng(99);
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string corrupt = bytes;
    corrupt[i] = static_cast<char>(corrupt[i] ^ (1 + rng() % 255));
    auto g = ParseBinaryGraphDef(corrupt, "flip.pb");
    if (!g.ok()) ExpectCleanError(g.status(), "flip.pb");
  }
}

TEST(GraphDefMalformedTest, WrongWireTypes) {
  // NodeDef.name sent as a varint.
  auto g = ParseBinaryGraphDef(
      BytesField(kGraphNode,
                 VarintField(kNodeName, 5) + BytesField(kNodeOp, "Const")),
      "wire.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "wire.pb: node #0 (Const): NodeDef field 'name' (1) has wire type "
            "varint; the schema says length-delimited");

  // TensorProto.dtype sent as a 32-bit value.
  g = ParseBinaryGraphDef(
      NodeBytes("c", "Const", "value",
                BytesField(kAttrTensor, Fixed32Field(kTensorDtype, 1))),
      "wire.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "wire.pb: node 'c' (Const): attr 'value': TensorProto field "
            "'dtype' (1) has wire type 32-bit; the schema says varint");

  // GraphDef.node sent as a varint.
  g = ParseBinaryGraphDef(VarintField(kGraphNode, 3), "wire.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "wire.pb: GraphDef field 'node' (1) has wire type varint; the "
            "schema says length-delimited");

  // Wire types 6 and 7 do not exist.
  g = ParseBinaryGraphDef(std::string("\x0e\x01", 2), "wire.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "wire.pb: not a valid binary GraphDef: field 'node' (1) at byte 0 "
            "has invalid (6) wire type");
}

TEST(GraphDefMalformedTest, UnknownFieldsAreToleratedWhenThereIsAGraph) {
  // Field 99 is not in the schema: a newer TensorFlow's addition, kept aside.
  auto g = ParseBinaryGraphDef(
      NodeBytes("a", "NoOp", "", "") + VarintField(99, 1), "newer.pb");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->node.size(), 1u);
}

TEST(GraphDefMalformedTest, BytesThatAreNotAGraphDef) {
  auto g =
      ParseBinaryGraphDef(VarintField(7, 1) + VarintField(12, 3), "other.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "other.pb: not a GraphDef: it holds no GraphDef fields, only 2 "
            "unrecognized ones (field numbers 7, 12)");

  g = ParseBinaryGraphDef(VarintField(1, 1) + BytesField(2, ""),
                          "saved_model.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              StartsWith("saved_model.pb: looks like a SavedModel"));
}

TEST(GraphDefMalformedTest, InvalidUtf8InAName) {
  auto g =
      ParseBinaryGraphDef(NodeBytes("\xff\xfe", "NoOp", "", ""), "utf8.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "utf8.pb: node '\\xff\\xfe' (NoOp): name is not valid UTF-8");
  g = ParseBinaryGraphDef(NodeBytes("n", "NoOp", "\xc0\x80", ""), "utf8.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "utf8.pb: node 'n' (NoOp): an attr name is not valid UTF-8");
}

// The check skips ASCII eight bytes at a time: a bad byte or a cut-off
// sequence after a run of ASCII of every length up to two words is still
// found, and valid multi-byte characters there still pass.
TEST(GraphDefMalformedTest, InvalidUtf8AfterAsciiRuns) {
  for (int run = 0; run <= 17; ++run) {
    const std::string ascii(run, 'a');
    for (const std::string& bad :
         {std::string("\xff"), std::string("\xc3"), std::string("\xe2\x82"),
          std::string("\xed\xa0\x80") /* a surrogate */,
          std::string("\xc0\x80") /* overlong */}) {
      for (const std::string& tail :
           {std::string(), std::string("tail_name")}) {
        const std::string name = ascii + bad + tail;
        auto g = ParseBinaryGraphDef(NodeBytes(name, "NoOp", "", ""), "u.pb");
        ASSERT_FALSE(g.ok()) << run << " " << tail;
        EXPECT_THAT(std::string(g.status().message()),
                    HasSubstr("name is not valid UTF-8"));
      }
    }
    // U+00E9, U+20AC, U+1F600 after the run, then more ASCII.
    const std::string good =
        ascii + "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" + ascii;
    auto g = ParseBinaryGraphDef(NodeBytes(good, "NoOp", "", ""), "u.pb");
    EXPECT_TRUE(g.ok()) << run << ": " << g.status();
  }
}

TEST(GraphDefMalformedTest, AbsurdConstShapeInASmallFile) {
  // A [1000000, 1000000] float Const with one value: about 60 bytes.
  const std::string shape = BytesField(
      kTensorShape, BytesField(kShapeDim, VarintField(kDimSize, 1000000)) +
                        BytesField(kShapeDim, VarintField(kDimSize, 1000000)));
  const std::string one_value =
      BytesField(kTensorFloatVal, std::string("\x00\x00\x80\x3f", 4));
  const std::string file =
      NodeBytes("big", "Const", "value",
                BytesField(kAttrTensor,
                           VarintField(kTensorDtype, 1) + shape + one_value));
  ASSERT_LT(file.size(), 1024u);
  auto g = ParseBinaryGraphDef(file, "big.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "big.pb: node 'big' (Const): attr 'value': float_val gives 1 "
            "value for shape [1000000,1000000] of float (1000000000000 "
            "elements, 4000000000000 bytes once the last value is repeated); "
            "tensors filled from fewer values than elements are limited to "
            "1073741824 bytes (TensorDecodeOptions::max_filled_bytes)");

  // The same shape with a 4-byte tensor_content.
  const std::string content =
      BytesField(kTensorContent, std::string("\x00\x00\x80\x3f", 4));
  g = ParseBinaryGraphDef(
      NodeBytes("big", "Const", "value",
                BytesField(kAttrTensor,
                           VarintField(kTensorDtype, 1) + shape + content)),
      "big.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "big.pb: node 'big' (Const): attr 'value': tensor_content has 4 "
            "bytes but shape [1000000,1000000] of float needs 4000000000000");

  // And in text.
  g = ParseTextGraphDef(R"(node { name: "big" op: "Const" attr { key: "value"
      value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1000000 }
      dim { size: 1000000 } } float_val: 1 } } } })",
                        "big.pbtxt");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              StartsWith("big.pbtxt: node 'big' (Const): attr 'value': "
                         "float_val gives 1 value for shape "
                         "[1000000,1000000]"));
}

TEST(GraphDefMalformedTest, DeeplyNestedFunctionAttrs) {
  // func { attr { value { func { attr { ... } } } } }, 150 levels.
  std::string value = BytesField(kAttrFunc, BytesField(kNameAttrListName, "f"));
  for (int i = 0; i < 150; ++i) {
    value = BytesField(
        kAttrFunc,
        BytesField(kNameAttrListName, "f") +
            BytesField(kNameAttrListAttr, BytesField(kEntryKey, "a") +
                                              BytesField(kEntryValue, value)));
  }
  auto g =
      ParseBinaryGraphDef(NodeBytes("deep", "Call", "f", value), "deep.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              StartsWith("deep.pb: not a valid binary GraphDef: in "
                         "node[0].attr[0].value.func"));
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("messages are nested more than 100 levels deep"));

  std::string text = "node { name: 'deep' op: 'Call' attr { key: 'f' value { ";
  for (int i = 0; i < 150; ++i)
    text += "func { name: 'f' attr { key: 'a' value { ";
  for (int i = 0; i < 150; ++i) text += "} } } ";
  text += "} } }";
  g = ParseTextGraphDef(text, "deep.pbtxt");
  ASSERT_FALSE(g.ok());
  ExpectCleanError(g.status(), "deep.pbtxt");
  EXPECT_THAT(std::string(g.status().message()), StartsWith("deep.pbtxt:1:"));
}

TEST(GraphDefMalformedTest, TextSyntaxErrorNamesFileAndLine) {
  auto g = ParseTextGraphDef(
      "node {\n  name: \"a\"\n  op: \"Const\"\n  attr { key: \"x\" value { i: "
      "} }\n}\n",
      "graph.pbtxt");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              StartsWith("graph.pbtxt:4:30: invalid text GraphDef: "));

  g = ParseTextGraphDef("node {\n  nmae: \"a\"\n}\n", "graph.pbtxt");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "graph.pbtxt:2:7: invalid text GraphDef: Message type "
            "\"weft.graphdef.NodeDef\" has no field named \"nmae\".");

  g = ParseTextGraphDef("this is not a graph", "notes.txt");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()), StartsWith("notes.txt:1:"));
}

TEST(GraphDefMalformedTest, TextSyntaxErrorFromAFileNamesThePath) {
  char pattern[] = "/tmp/weft_bad_XXXXXX.pbtxt";
  const int fd = mkstemps(pattern, 6);
  ASSERT_GE(fd, 0);
  const std::string text = "node { name: 'a' op: 'B' }\nnode { name: }\n";
  ASSERT_EQ(write(fd, text.data(), text.size()),
            static_cast<ssize_t>(text.size()));
  close(fd);
  auto g = LoadGraphDef(pattern);
  std::remove(pattern);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              StartsWith(std::string(pattern) + ":2:14: invalid text "
                                                "GraphDef: "));
}

TEST(GraphDefMalformedTest, NodesNeedNameAndOp) {
  auto g = ParseTextGraphDef(
      "node { name: 'a' op: 'NoOp' }\nnode { op: 'Const' }", "g.pbtxt");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(), "g.pbtxt: node #1 (Const): name is empty");
  g = ParseTextGraphDef("node { name: 'a' }", "g.pbtxt");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(), "g.pbtxt: node 'a': op is empty");
}

TEST(GraphDefMalformedTest, AttrValueErrors) {
  auto g = ParseTextGraphDef(
      "node { name: 'a' op: 'X' attr { key: 'l' value { list { i: 1 s: 'x' } "
      "} } }",
      "g.pbtxt");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "g.pbtxt: node 'a' (X): attr 'l': list holds both 's' (1) and 'i' "
            "(1) entries; a list attr has one element type");
  g = ParseTextGraphDef(
      "node { name: 'a' op: 'X' attr { key: 's' value { shape { dim { size: "
      "-7 } } } } }",
      "g.pbtxt");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "g.pbtxt: node 'a' (X): attr 's': shape dimension 0 is -7; "
            "expected -1 or >= 0");
  g = ParseTextGraphDef(
      "node { name: 'a' op: 'X' attr { key: 's' value { shape { "
      "unknown_rank: true dim { size: 2 } } } } }",
      "g.pbtxt");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "g.pbtxt: node 'a' (X): attr 's': shape has unknown_rank set and "
            "also 1 dims");
  g = ParseTextGraphDef(
      "node { name: 'a' op: 'X' attr { key: 'f' value { func { name: 'fn' "
      "attr { key: 'T' value { type: DT_UINT4 } } } } } }",
      "g.pbtxt");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "g.pbtxt: node 'a' (X): attr 'f': func 'fn': attr 'T': dtype "
            "DT_UINT4 is not supported by weft");
}

TEST(GraphDefMalformedTest, FunctionErrorsNameTheFunction) {
  auto g = ParseTextGraphDef(R"(
library { function {
  signature { name: "fn" input_arg { name: "x" type: DT_FLOAT } }
  node_def { name: "c" op: "Const" attr { key: "value" value { tensor {
    dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: [1, 2, 3, 4]
  } } } }
} })",
                             "lib.pbtxt");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "lib.pbtxt: library: function 'fn': node 'c' (Const): attr "
            "'value': float_val has 4 values but shape [3] has 3 elements");
  g = ParseTextGraphDef(R"(
library { function {
  signature { name: "fn" output_arg { name: "y" type: DT_INT2 } }
} })",
                        "lib.pbtxt");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "lib.pbtxt: library: function 'fn': signature: output_arg 'y': "
            "dtype DT_INT2 is not supported by weft");
}

// A SavedModel of a Placeholder "x" and a node "call" calling library
// function `called` by op name, serving signature x -> call, whose library
// holds the FunctionDefs `functions` (serialized); `more_nodes` (GraphDef
// node fields) and `more_meta` (MetaGraphDef fields) are appended.
std::string SavedModelBytes(const std::string& called,
                            const std::vector<std::string>& functions,
                            const std::string& more_nodes = "",
                            const std::string& more_meta = "") {
  // AttrValue.type is field 6; DT_FLOAT is 1.
  const std::string x =
      NodeBytes("x", "Placeholder", "dtype", VarintField(6, 1));
  const std::string call = BytesField(
      kGraphNode, BytesField(kNodeName, "call") + BytesField(kNodeOp, called) +
                      BytesField(3, "x"));  // NodeDef.input
  std::string library;
  for (const std::string& f : functions) library += BytesField(1, f);
  const std::string graph = x + call + more_nodes + BytesField(2, library);
  // TensorInfo: name 1, dtype 2; SignatureDef: inputs 1, outputs 2.
  auto entry = [](const std::string& key, const std::string& tensor) {
    return BytesField(1, key) +
           BytesField(2, BytesField(1, tensor) + VarintField(2, 1));
  };
  const std::string signature =
      BytesField(1, entry("x", "x:0")) + BytesField(2, entry("y", "call:0"));
  // MetaGraphDef: graph_def 2, signature_def 5; SavedModel: meta_graphs 2.
  const std::string meta = BytesField(2, graph) +
                           BytesField(5, BytesField(1, "serving_default") +
                                             BytesField(2, signature)) +
                           more_meta;
  return BytesField(2, meta);
}

// A FunctionDef named `name` (signature field 1, OpDef.name field 1) with
// `rest` after it.
std::string FunctionBytes(const std::string& name, const std::string& rest) {
  return BytesField(1, BytesField(1, name)) + rest;
}

// Library functions nothing calls are neither parsed nor checked, only
// listed; one that is called and does not parse is an error that names it;
// a function whose fields do not even scan is an error wherever it is.
TEST(SavedModelMalformedTest, OnlyCalledFunctionsAreParsed) {
  // Field 3 (node_def) holding bytes that are no NodeDef: a name whose
  // length runs past the end.
  const std::string broken =
      FunctionBytes("broken", BytesField(3, "\x0a\x05ab"));
  const std::string fine = FunctionBytes("fine", "");
  auto model = ParseSavedModel(SavedModelBytes("fine", {broken, fine}), "sm.pb",
                               GraphParseOptions());
  ASSERT_TRUE(model.ok()) << model.status();
  const SavedMetaGraphDef& meta = model->meta_graphs[0];
  EXPECT_EQ(meta.uncalled_functions, std::vector<std::string>{"broken"});
  ASSERT_EQ(meta.graph_def.library.function.size(), 1u);
  EXPECT_EQ(meta.graph_def.library.function[0].signature.name, "fine");
  EXPECT_EQ(meta.graph_def.node.size(), 2u);

  model = ParseSavedModel(SavedModelBytes("broken", {broken, fine}), "sm.pb",
                          GraphParseOptions());
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(std::string(model.status().message()),
              StartsWith("sm.pb: meta_graphs[0]: graph_def: library: "
                         "function 'broken': not a valid binary FunctionDef"));

  // A length running past the end of the function.
  model = ParseSavedModel(SavedModelBytes("fine", {fine, "\x0a\x05ab"}),
                          "sm.pb", GraphParseOptions());
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().message(),
            "sm.pb: meta_graphs[0]: graph_def: library: a function does not "
            "parse as a FunctionDef");
}

// The functions only the saver's restore op calls are read in outline
// (SavedMetaGraphDef::restore_functions): each node's name, op and inputs,
// with the attrs of Const nodes and calls only, which are checked; other
// nodes' attrs are neither parsed nor checked. A function something else
// calls too is parsed whole, in the library.
TEST(SavedModelMalformedTest, RestoreFunctionIsReadInOutline) {
  auto attr = [](const std::string& key, const std::string& value) {
    return BytesField(
        kNodeAttr, BytesField(kEntryKey, key) + BytesField(kEntryValue, value));
  };
  auto node = [](const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs,
                 const std::string& attrs) {
    std::string n = BytesField(kNodeName, name) + BytesField(kNodeOp, op);
    for (const std::string& in : inputs) n += BytesField(3, in);
    return BytesField(3, n + attrs);  // FunctionDef.node_def
  };
  // A one-element DT_STRING (7) tensor; TensorProto.string_val is field 8,
  // AttrValue.type field 6.
  const std::string key_tensor =
      VarintField(kTensorDtype, 7) +
      BytesField(kTensorShape,
                 BytesField(kShapeDim, VarintField(kDimSize, 1))) +
      BytesField(8, "v/.ATTRIBUTES/VARIABLE_VALUE");
  const std::string keys =
      node("keys", "Const", {},
           attr("value", BytesField(kAttrTensor, key_tensor)) +
               attr("dtype", VarintField(6, 7)));
  // An attr value that does not parse: a length past its end.
  const std::string restore =
      node("restore", "RestoreV2", {"prefix", "keys:output:0", "keys:output:0"},
           attr("dtypes", "\x0a\x05ab"));
  const std::string fine = FunctionBytes("fine", "");
  const std::string restore_fn = FunctionBytes("restore_fn", keys + restore);
  // The top-level restore op calls restore_fn by op name; SaverDef is
  // MetaGraphDef field 3, its restore_op_name field 3.
  const std::string restore_all =
      BytesField(kGraphNode, BytesField(kNodeName, "restore_all") +
                                 BytesField(kNodeOp, "restore_fn"));
  const std::string saver = BytesField(3, BytesField(3, "restore_all"));

  auto model = ParseSavedModel(
      SavedModelBytes("fine", {fine, restore_fn}, restore_all, saver), "sm.pb",
      GraphParseOptions());
  ASSERT_TRUE(model.ok()) << model.status();
  const SavedMetaGraphDef& meta = model->meta_graphs[0];
  EXPECT_TRUE(meta.uncalled_functions.empty());
  ASSERT_EQ(meta.graph_def.library.function.size(), 1u);
  EXPECT_EQ(meta.graph_def.library.function[0].signature.name, "fine");
  ASSERT_EQ(meta.restore_functions.function.size(), 1u);
  const FunctionDef& f = meta.restore_functions.function[0];
  EXPECT_EQ(f.signature.name, "restore_fn");
  ASSERT_EQ(f.node_def.size(), 2u);
  EXPECT_EQ(f.node_def[0].name, "keys");
  EXPECT_EQ(f.node_def[0].op, "Const");
  ASSERT_EQ(f.node_def[0].attr.count("value"), 1u);
  const Tensor& t = f.node_def[0].attr.at("value").tensor;
  ASSERT_EQ(t.dtype(), DT_STRING);
  ASSERT_EQ(t.NumElements(), 1);
  EXPECT_EQ(static_cast<const std::string*>(t.raw_data())[0],
            "v/.ATTRIBUTES/VARIABLE_VALUE");
  EXPECT_EQ(f.node_def[1].name, "restore");
  EXPECT_EQ(f.node_def[1].op, "RestoreV2");
  EXPECT_EQ(
      f.node_def[1].input,
      (std::vector<std::string>{"prefix", "keys:output:0", "keys:output:0"}));
  EXPECT_TRUE(f.node_def[1].attr.empty());

  // Called by the serving path too: parsed whole, and its broken attr is an
  // error naming it.
  model = ParseSavedModel(
      SavedModelBytes("restore_fn", {fine, restore_fn}, restore_all, saver),
      "sm.pb", GraphParseOptions());
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(std::string(model.status().message()),
              StartsWith("sm.pb: meta_graphs[0]: graph_def: library: "
                         "function 'restore_fn': not a valid binary "
                         "FunctionDef"));

  // A Const of the outline is checked: its tensor's attr does not parse.
  const std::string broken_keys =
      node("keys", "Const", {}, attr("value", "\x0a\x05ab"));
  model = ParseSavedModel(
      SavedModelBytes(
          "fine", {fine, FunctionBytes("restore_fn", broken_keys + restore)},
          restore_all, saver),
      "sm.pb", GraphParseOptions());
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(std::string(model.status().message()),
              StartsWith("sm.pb: meta_graphs[0]: graph_def: library: "
                         "function 'restore_fn': node 0"));
}

// A top-level node nothing reaches is not parsed (only its name and
// inputs are read); one that is reached and does not parse is an error
// naming it.
TEST(SavedModelMalformedTest, OnlyReachedNodesAreParsed) {
  const std::string fine = FunctionBytes("fine", "");
  // A node "junk" whose attr (field 5) holds a truncated entry, and a node
  // "user" reading it.
  const std::string nodes =
      BytesField(kGraphNode,
                 BytesField(kNodeName, "junk") + BytesField(5, "\x0a\x05ab")) +
      BytesField(kGraphNode, BytesField(kNodeName, "user") +
                                 BytesField(kNodeOp, "Identity") +
                                 BytesField(3, "junk"));
  auto model = ParseSavedModel(SavedModelBytes("fine", {fine}, nodes), "sm.pb",
                               GraphParseOptions());
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->meta_graphs[0].graph_def.node.size(), 2u);
  EXPECT_EQ(model->meta_graphs[0].num_unreachable_nodes, 2);

  // A node-list collection (MetaGraphDef field 4: key 1, CollectionDef 2,
  // whose node_list is field 1 with values in field 1) naming "user"
  // reaches "junk" through its input.
  const std::string collection =
      BytesField(4, BytesField(1, "init") +
                        BytesField(2, BytesField(1, BytesField(1, "user"))));
  model = ParseSavedModel(SavedModelBytes("fine", {fine}, nodes, collection),
                          "sm.pb", GraphParseOptions());
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(std::string(model.status().message()),
              StartsWith("sm.pb: meta_graphs[0]: graph_def: node 'junk': not "
                         "a valid binary NodeDef"));
}

// The parse walks the file for the top-level nodes and the functions and
// gives protobuf the other fields; it must read what protobuf would read
// parsing the file whole. A message field given twice is one merged
// message: a second graph_def (MetaGraphDef field 2) adds its nodes, its
// library's functions and its versions; a field of the right number with
// another wire type is rejected; a scalar after the meta graphs is read.
TEST(SavedModelMalformedTest, FieldsGivenTwiceMergeAsInProtobuf) {
  const std::string fine = FunctionBytes("fine", "");
  // GraphDef: node 1, library 2 (function 1), versions 4 (producer 1).
  const std::string second_graph =
      BytesField(kGraphNode,
                 BytesField(kNodeName, "extra") + BytesField(kNodeOp, "NoOp")) +
      BytesField(2, BytesField(1, FunctionBytes("second", ""))) +
      BytesField(4, VarintField(1, 27));
  const std::string collection =
      BytesField(4, BytesField(1, "init") +
                        BytesField(2, BytesField(1, BytesField(1, "extra"))));
  std::string file = SavedModelBytes("fine", {fine}, "",
                                     BytesField(2, second_graph) + collection);
  file += VarintField(1, 3);  // SavedModel.saved_model_schema_version
  auto model = ParseSavedModel(file, "sm.pb", GraphParseOptions());
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->schema_version, 3);
  const SavedMetaGraphDef& meta = model->meta_graphs[0];
  ASSERT_EQ(meta.graph_def.node.size(), 3u);
  EXPECT_EQ(meta.graph_def.node[2].name, "extra");
  EXPECT_EQ(meta.graph_def.versions.producer, 27);
  ASSERT_EQ(meta.graph_def.library.function.size(), 1u);
  EXPECT_EQ(meta.graph_def.library.function[0].signature.name, "fine");
  EXPECT_EQ(meta.uncalled_functions, std::vector<std::string>{"second"});
  EXPECT_EQ(meta.signatures.count("serving_default"), 1u);

  // The graph, a node and a function sent as varints.
  const std::string meta_graph_as_varint =
      BytesField(2, VarintField(2, 1) + BytesField(5, ""));
  model = ParseSavedModel(meta_graph_as_varint, "sm.pb", GraphParseOptions());
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(std::string(model.status().message()),
              HasSubstr("'graph_def' (2) has wire type varint"));
  model = ParseSavedModel(BytesField(2, BytesField(2, VarintField(1, 1))),
                          "sm.pb", GraphParseOptions());
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(std::string(model.status().message()),
              HasSubstr("'node' (1) has wire type varint"));
  model = ParseSavedModel(
      BytesField(2, BytesField(2, BytesField(2, VarintField(1, 1)))), "sm.pb",
      GraphParseOptions());
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(std::string(model.status().message()),
              HasSubstr("'function' (1) has wire type varint"));

  // Every truncation of the file fails cleanly or parses.
  for (size_t n = 0; n < file.size(); ++n) {
    (void)ParseSavedModel(absl::string_view(file).substr(0, n), "sm.pb",
                          GraphParseOptions());
  }
}

}  // namespace
}  // namespace weft
