// Helpers for the graph-file tests: fixture paths and structural equality of
// GraphDefs (weft's structs define no operator== of their own).
#ifndef WEFT_TESTS_GRAPH_GRAPH_DEF_TESTUTIL_H_
#define WEFT_TESTS_GRAPH_GRAPH_DEF_TESTUTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph_def.h"

namespace weft::testing {

// tests/graph/testdata/<name>, found next to this source file so the tests
// run from any working directory.
std::string GraphTestDataPath(const std::string& name);

// Reads a whole file; fails the current test when it cannot.
std::string ReadTestFile(const std::string& path);

// A fresh directory under /tmp, removed with the files named through File().
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  // The path of `name` in the directory, removed with it.
  std::string File(const std::string& name);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

void WriteFile(const std::string& path, const std::string& bytes);

// Adds a gtest failure naming the first difference (node, attr, function,
// field) between `a` and `b`.
void ExpectGraphDefsEqual(const GraphDef& a, const GraphDef& b);

// A minimal protobuf wire-format writer for hand-made inputs.
namespace wire {

std::string Varint(uint64_t v);
std::string VarintField(int number, uint64_t v);
std::string BytesField(int number, const std::string& payload);
std::string Fixed32Field(int number, uint32_t v);

// GraphDef field numbers (graph/proto/weft_graph_def.proto).
constexpr int kGraphNode = 1;
constexpr int kNodeName = 1, kNodeOp = 2, kNodeAttr = 5;
constexpr int kEntryKey = 1, kEntryValue = 2;
constexpr int kAttrI = 3, kAttrTensor = 8, kAttrFunc = 10;
constexpr int kNameAttrListName = 1, kNameAttrListAttr = 2;
constexpr int kTensorDtype = 1, kTensorShape = 2, kTensorContent = 4,
              kTensorFloatVal = 5;
constexpr int kShapeDim = 2, kDimSize = 1;

}  // namespace wire

}  // namespace weft::testing

#endif  // WEFT_TESTS_GRAPH_GRAPH_DEF_TESTUTIL_H_
