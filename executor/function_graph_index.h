// Lookups over a function's graph (graph/function_library.h's
// FunctionGraph) for the passes that recognize what a loop body computes
// before it is prepared (loop_input_projection.h, lstm_loop.h): nodes by
// name, who reads a node, where an input comes from through Identity
// nodes, and the attrs and Const values those passes test.
#ifndef WEFT_EXECUTOR_FUNCTION_GRAPH_INDEX_H_
#define WEFT_EXECUTOR_FUNCTION_GRAPH_INDEX_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/tensor.h"
#include "graph/function_library.h"
#include "graph/graph_def.h"

namespace weft {

// A read of a node's output: the reading node and its input slot (-1 for
// a control input).
struct NodeRead {
  const NodeDef* node;
  int slot;
};

// An output of a node: which node, which of its outputs.
struct NodeOutput {
  const NodeDef* node = nullptr;
  int index = 0;
};

// An index of one GraphDef, which must outlive it and not change.
class FunctionGraphIndex {
 public:
  explicit FunctionGraphIndex(const GraphDef& g);

  // The node named `name`, or null.
  const NodeDef* Find(const std::string& name) const;

  // Every read of any output of node `name`.
  const std::vector<NodeRead>& Reads(const std::string& name) const;

  // The output an input string ("node", "node:1") names, followed back
  // through Identity nodes (output 0 of each); a null node for a control
  // input, a malformed string or a name that is no node.
  NodeOutput Resolve(const std::string& input) const;

  // Resolve(n.input[slot]); null when `slot` is out of range.
  NodeOutput Input(const NodeDef& n, int slot) const;

  // The node that input `slot` of `n` comes from, through Identity nodes;
  // null when it names no node.
  const NodeDef* Source(const NodeDef& n, int slot) const {
    return Input(n, slot).node;
  }

 private:
  absl::flat_hash_map<std::string, const NodeDef*> by_name_;
  absl::flat_hash_map<std::string, std::vector<NodeRead>> reads_;
};

// Whether type attr `name` of `n` is `type`.
bool AttrIs(const NodeDef& n, const char* name, DataType type);

// The bool attr `name` of `n`, false when unset.
bool BoolAttr(const NodeDef& n, const char* name);

// The inputs of `n` that are not control inputs ("^node", listed last).
size_t DataInputs(const NodeDef& n);

// The value of a Const node, or null (also for a null `n`).
const Tensor* ConstValue(const NodeDef* n);

// The index of feed `n` in `fn`, or -1 (also for a null `n`).
int FeedIndex(const FunctionGraph& fn, const NodeDef* n);

}  // namespace weft

#endif  // WEFT_EXECUTOR_FUNCTION_GRAPH_INDEX_H_
