// Import: GraphDef -> Graph. Checks every node against the op registry
// (attrs, defaults, dtypes), resolves "src:i" and "^ctrl" inputs into edges,
// and rejects what cannot run: unknown ops and inputs, out-of-range output
// slots, dtype mismatches, duplicate names, cycles, and calls to library
// functions. Every error names the source file and the node.
#ifndef WEFT_GRAPH_IMPORT_H_
#define WEFT_GRAPH_IMPORT_H_

#include <memory>
#include <string>

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

StatusOr<std::unique_ptr<Graph>> ImportGraphDef(const GraphDef& graph_def,
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
