// Import: GraphDef -> Graph. Checks every node against the op registry
// (attrs, defaults, dtypes), resolves "src:i" and "^ctrl" inputs into edges,
// and rejects what cannot run: unknown ops and inputs, out-of-range output
// slots, dtype mismatches, duplicate names, cycles, and calls to library
// functions. Every error names the source file and the node.
#ifndef WEFT_GRAPH_IMPORT_H_
#define WEFT_GRAPH_IMPORT_H_

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"
#include "graph/graph_def.h"
#include "ops/op_registry.h"

namespace weft {

struct ImportOptions {
  // Prefixes every error: usually the graph file's path.
  std::string source_name = "graph";
  // Where ops are looked up; the process-wide registry by default.
  const OpRegistry* registry = nullptr;
};

// Stops at the first problem and returns it: what running a graph needs.
StatusOr<std::unique_ptr<Graph>> ImportGraphDef(const GraphDef& graph_def,
                                                const ImportOptions& options);
// The same, consuming `graph_def`: its nodes and library move into the
// graph rather than being copied (what a caller done with it passes).
StatusOr<std::unique_ptr<Graph>> ImportGraphDef(GraphDef&& graph_def,
                                                const ImportOptions& options);

// One reason a GraphDef does not import, as DiagnoseGraphDef reports it.
struct ImportProblem {
  enum class Kind {
    kUnknownOp,     // no op is registered under the node's op name
    kFunctionCall,  // the op names a function of the graph's library
    kInvalidNode,   // attrs or dtypes do not fit the op, or a duplicate name
    kBadInput,      // an input names no node or a missing output, or its
                    // dtype differs from what the op expects
    kCycle,         // the graph has a cycle (found only when nothing else
                    // is wrong)
  };
  Kind kind = Kind::kInvalidNode;
  std::string node;  // the node's name; empty for kCycle (the status names
                     // the nodes of the cycle)
  std::string op;    // that node's op; empty for kCycle
  // The error ImportGraphDef would fail with for this problem, naming the
  // source, the node and what is wrong.
  Status status;
};

struct ImportDiagnosis {
  // Every node that validated and the edges between them. When `problems`
  // is not empty this graph is incomplete: look at its nodes (their ops,
  // attrs and dtypes), but do not infer shapes on it or run it.
  std::unique_ptr<Graph> graph;
  // In node order; empty when the graph imports.
  std::vector<ImportProblem> problems;
};

// The same checks as ImportGraphDef, going on past each problem so that one
// call reports all of them, e.g. every unknown op of a graph at once (`weft
// inspect`). An input that names a node which itself failed to validate is
// not reported again.
ImportDiagnosis DiagnoseGraphDef(const GraphDef& graph_def,
                                 const ImportOptions& options);

// Splits a NodeDef input string into its parts: "^a" is a control input,
// "a:2" output 2 of a, "a" output 0 of a. InvalidArgument on malformed text
// ("a:", "a:x", ":1", "a:-1").
struct ParsedInput {
  std::string node;
  int index = 0;
  bool is_control = false;
};
StatusOr<ParsedInput> ParseNodeInput(absl::string_view input);

}  // namespace weft

#endif  // WEFT_GRAPH_IMPORT_H_
