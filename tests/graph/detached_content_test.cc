// Large tensor payloads cut out of a binary GraphDef before protobuf parses
// it (graph/internal/detached_content.h): what is cut, what is left in place
// where protobuf's reading would be ambiguous, and that a parse gives the
// same graph either way.
#include "graph/internal/detached_content.h"

#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph_def_testutil.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using graph_internal::DetachedContent;
using graph_internal::DetachTensorContents;
using ::testing::StartsWith;
using namespace weft::testing::wire;  // the hand-made inputs

constexpr size_t kMin = graph_internal::kMinDetachedContentBytes;

Tensor Filled(int64_t n, float first) {
  Tensor t(DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = first + i;
  return t;
}

NodeDef Const(const std::string& name, const Tensor& value) {
  NodeDef node;
  node.name = name;
  node.op = "Const";
  node.attr["dtype"] = AttrValue::Type(DT_FLOAT);
  node.attr["value"] = AttrValue::TensorValue(value);
  return node;
}

std::string Serialized(const GraphDef& graph) {
  auto bytes = SerializeGraphDef(graph, GraphFormat::kBinary);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : std::string();
}

// The wire bytes of a TensorProto: float, shape [n], then `fields`.
std::string TensorBytes(int64_t n, const std::string& fields) {
  return VarintField(kTensorDtype, 1) +
         BytesField(kTensorShape,
                    BytesField(kShapeDim, VarintField(kDimSize, n))) +
         fields;
}

std::string FloatBytes(int64_t n, float first) {
  Tensor t = Filled(n, first);
  return std::string(static_cast<const char*>(t.raw_data()), n * sizeof(float));
}

// A graph of one node `name` whose attr entries are `entries` (each an
// AttrEntry's bytes).
std::string OneNode(const std::string& name,
                    const std::vector<std::string>& entries) {
  std::string node = BytesField(kNodeName, name) + BytesField(kNodeOp, "Foo");
  for (const std::string& e : entries) node += BytesField(kNodeAttr, e);
  return BytesField(kGraphNode, node);
}

std::string Entry(const std::string& key, const std::string& value) {
  return BytesField(kEntryKey, key) + BytesField(kEntryValue, value);
}

std::vector<float> Floats(int64_t n, float first) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = first + i;
  return v;
}

std::vector<float> Values(const AttrValue& attr) {
  const Tensor& t = attr.tensor;
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

TEST(DetachedContentTest, CutsLargePayloadsAndTheParseIsTheSame) {
  GraphDef graph;
  graph.node.push_back(Const("small", Filled(16, 1)));
  graph.node.push_back(Const("big", Filled(4096, 2)));
  NodeDef two = Const("two", Filled(2048, 3));
  two.op = "Foo";
  two.attr["other"] = AttrValue::TensorValue(Filled(1024, 4));  // 4 KiB
  two.attr["tiny"] = AttrValue::TensorValue(Filled(3, 5));
  graph.node.push_back(two);
  graph.node.push_back(Const("empty", Tensor(DT_FLOAT, TensorShape({0}))));
  graph.node.push_back(Const("last", Filled(1500, 6)));
  const std::string bytes = Serialized(graph);

  std::string rest;
  std::vector<DetachedContent> detached;
  ASSERT_TRUE(DetachTensorContents(bytes, kMin, &rest, &detached));
  // Node 1's "value"; node 2's "other" and "value" (entries 1 and 3 of
  // dtype, other, tiny, value); node 4's "value".
  ASSERT_EQ(detached.size(), 4u);
  EXPECT_EQ(detached[0].node, 1);
  EXPECT_EQ(detached[0].entry, 1);
  EXPECT_EQ(detached[1].node, 2);
  EXPECT_EQ(detached[1].entry, 1);
  EXPECT_EQ(detached[2].node, 2);
  EXPECT_EQ(detached[2].entry, 3);
  EXPECT_EQ(detached[3].node, 4);
  EXPECT_EQ(detached[3].entry, 1);
  EXPECT_EQ(detached[0].bytes, FloatBytes(4096, 2));
  EXPECT_EQ(detached[1].bytes, FloatBytes(1024, 4));
  EXPECT_EQ(detached[3].bytes, FloatBytes(1500, 6));
  // The payloads are views of the input, not copies.
  EXPECT_GE(detached[0].bytes.data(), bytes.data());
  EXPECT_LT(detached[0].bytes.data(), bytes.data() + bytes.size());
  size_t cut = 0;
  for (const DetachedContent& d : detached) cut += d.bytes.size();
  EXPECT_LT(rest.size(), bytes.size() - cut + 64);

  auto parsed = ParseBinaryGraphDef(bytes, "g.pb");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  weft::testing::ExpectGraphDefsEqual(*parsed, graph);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(
                parsed->node[1].attr["value"].tensor.raw_data()) %
                kTensorAlignment,
            0u);
  // The cut tensors share one slab, in file order at 64-byte steps (the
  // small ones have buffers of their own).
  const char* big =
      static_cast<const char*>(parsed->node[1].attr["value"].tensor.raw_data());
  EXPECT_EQ(parsed->node[2].attr["other"].tensor.raw_data(), big + 4096 * 4);
  EXPECT_EQ(parsed->node[2].attr["value"].tensor.raw_data(),
            big + (4096 + 1024) * 4);
  EXPECT_EQ(parsed->node[4].attr["value"].tensor.raw_data(),
            big + (4096 + 1024 + 2048) * 4);
}

TEST(DetachedContentTest, NothingLargeEnoughLeavesTheBytesAlone) {
  GraphDef graph;
  graph.node.push_back(Const("a", Filled(kMin / sizeof(float) - 1, 1)));
  std::string rest = "stale";
  std::vector<DetachedContent> detached(1);
  EXPECT_FALSE(DetachTensorContents(Serialized(graph), kMin, &rest, &detached));
  EXPECT_TRUE(rest.empty());
  EXPECT_TRUE(detached.empty());
  // Exactly the threshold is cut.
  graph.node.push_back(Const("b", Filled(kMin / sizeof(float), 1)));
  EXPECT_TRUE(DetachTensorContents(Serialized(graph), kMin, &rest, &detached));
  ASSERT_EQ(detached.size(), 1u);
  EXPECT_EQ(detached[0].node, 1);
}

// Where protobuf merges or overrides, the payload stays for protobuf to
// read, and the parse keeps protobuf's meaning.
TEST(DetachedContentTest, AmbiguousMessagesStayInPlace) {
  const int64_t n = 2048;
  const std::string a = FloatBytes(n, 10), b = FloatBytes(n, 20);
  // Two tensor_content fields: the last one counts.
  const std::string twice = OneNode(
      "twice",
      {Entry("value",
             BytesField(kAttrTensor,
                        TensorBytes(n, BytesField(kTensorContent, a) +
                                           BytesField(kTensorContent, b))))});
  // A tensor, then another member of the AttrValue oneof: an int.
  const std::string replaced =
      OneNode("replaced",
              {Entry("value",
                     BytesField(kAttrTensor,
                                TensorBytes(n, BytesField(kTensorContent, a))) +
                         VarintField(kAttrI, 7))});
  // An entry with its value given twice: protobuf merges the two.
  const std::string merged = OneNode(
      "merged",
      {BytesField(kEntryKey, "value") +
       BytesField(kEntryValue,
                  BytesField(kAttrTensor,
                             TensorBytes(n, BytesField(kTensorContent, a)))) +
       BytesField(kEntryValue,
                  BytesField(kAttrTensor,
                             TensorBytes(n, BytesField(kTensorContent, b))))});
  // tensor_content with the wrong wire type: an unknown field to protobuf.
  const std::string wrong_type = OneNode(
      "wrong_type",
      {Entry("value",
             BytesField(kAttrTensor,
                        TensorBytes(0, VarintField(kTensorContent, 1))))});
  for (const std::string& bytes : {twice, replaced, merged, wrong_type}) {
    std::string rest;
    std::vector<DetachedContent> detached;
    EXPECT_FALSE(DetachTensorContents(bytes, kMin, &rest, &detached));
  }

  auto graph = ParseBinaryGraphDef(twice, "g.pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(Values(graph->node[0].attr["value"]), Floats(n, 20));
  graph = ParseBinaryGraphDef(replaced, "g.pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->node[0].attr["value"].kind, AttrValue::Kind::kInt);
  EXPECT_EQ(graph->node[0].attr["value"].i, 7);

  // Beside an ambiguous node, a plain one is still cut, and each keeps its
  // meaning.
  const std::string plain = OneNode(
      "plain",
      {Entry("value",
             BytesField(kAttrTensor,
                        TensorBytes(n, BytesField(kTensorContent, a))))});
  std::string rest;
  std::vector<DetachedContent> detached;
  ASSERT_TRUE(DetachTensorContents(twice + plain, kMin, &rest, &detached));
  ASSERT_EQ(detached.size(), 1u);
  EXPECT_EQ(detached[0].node, 1);
  graph = ParseBinaryGraphDef(twice + plain, "g.pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(Values(graph->node[0].attr["value"])[0], 20.0f);
  EXPECT_EQ(Values(graph->node[1].attr["value"])[0], 10.0f);
}

// The entry count includes entries the conversion drops (_output_shapes)
// and entries with no tensor.
TEST(DetachedContentTest, EntriesAreCountedInFileOrder) {
  const int64_t n = 1024;
  const std::string bytes = OneNode(
      "n", {Entry("_output_shapes", ""), Entry("x", VarintField(kAttrI, 3)),
            Entry("value",
                  BytesField(kAttrTensor,
                             TensorBytes(n, BytesField(kTensorContent,
                                                       FloatBytes(n, 1)))))});
  std::string rest;
  std::vector<DetachedContent> detached;
  ASSERT_TRUE(DetachTensorContents(bytes, kMin, &rest, &detached));
  ASSERT_EQ(detached.size(), 1u);
  EXPECT_EQ(detached[0].entry, 2);
  GraphParseOptions options;
  options.tensor.keep_output_shapes_attrs = false;
  auto graph = ParseBinaryGraphDef(bytes, "g.pb", options);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->node[0].attr.count("_output_shapes"), 0u);
  EXPECT_EQ(graph->node[0].attr["x"].i, 3);
  EXPECT_EQ(Values(graph->node[0].attr["value"]), Floats(n, 1));
}

// A payload whose size does not fit its shape is the same error as before.
TEST(DetachedContentTest, ContentSizeErrorsStillNameTheNode) {
  const std::string bytes = OneNode(
      "bad",
      {Entry("value",
             BytesField(kAttrTensor,
                        TensorBytes(10, BytesField(kTensorContent,
                                                   FloatBytes(2048, 0)))))});
  auto graph = ParseBinaryGraphDef(bytes, "g.pb");
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(std::string(graph.status().message()),
              StartsWith("g.pb: node 'bad' (Foo): attr 'value': "
                         "tensor_content has 8192 bytes but shape [10]"));
}

// Every truncation of a graph with cut payloads fails cleanly or parses,
// never reads past the end.
TEST(DetachedContentTest, EveryTruncation) {
  GraphDef graph;
  graph.node.push_back(Const("a", Filled(1100, 1)));
  graph.node.push_back(Const("b", Filled(5, 1)));
  graph.node.push_back(Const("c", Filled(1030, 1)));
  const std::string bytes = Serialized(graph);
  for (size_t len = 0; len < bytes.size(); ++len) {
    const std::string cut = bytes.substr(0, len);
    std::string rest;
    std::vector<DetachedContent> detached;
    if (DetachTensorContents(cut, kMin, &rest, &detached)) {
      for (const DetachedContent& d : detached) {
        ASSERT_GE(d.bytes.data(), cut.data());
        ASSERT_LE(d.bytes.data() + d.bytes.size(), cut.data() + cut.size());
      }
    }
    auto parsed = ParseBinaryGraphDef(cut, "t.pb");
    if (!parsed.ok()) {
      EXPECT_THAT(std::string(parsed.status().message()), StartsWith("t.pb"))
          << len;
    }
  }
}

}  // namespace
}  // namespace weft
