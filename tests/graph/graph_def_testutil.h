// Helpers for the graph-file tests: fixture paths and structural equality of
// GraphDefs (weft's structs define no operator== of their own).
#ifndef WEFT_TESTS_GRAPH_GRAPH_DEF_TESTUTIL_H_
#define WEFT_TESTS_GRAPH_GRAPH_DEF_TESTUTIL_H_

#include <string>

#include "graph/graph_def.h"

namespace weft::testing {

// tests/graph/testdata/<name>, found next to this source file so the tests
// run from any working directory.
std::string GraphTestDataPath(const std::string& name);

// Reads a whole file; fails the current test when it cannot.
std::string ReadTestFile(const std::string& path);

// Adds a gtest failure naming the first difference (node, attr, function,
// field) between `a` and `b`.
void ExpectGraphDefsEqual(const GraphDef& a, const GraphDef& b);

}  // namespace weft::testing

#endif  // WEFT_TESTS_GRAPH_GRAPH_DEF_TESTUTIL_H_
