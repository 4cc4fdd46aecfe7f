// What a loaded graph takes and gives, for hosts that know nothing about it
// beforehand: the tensors a run may feed (its placeholders) and the tensors
// worth fetching (the outputs of nodes nothing consumes), each with its
// dtype and the shape shape inference gave it. Any other node output can be
// looked up by name. The C API (weft_graph_input, weft_graph_output,
// weft_graph_find_tensor), `weft.hpp` and the Python package read graphs
// through these two functions.
//
// Shapes are the graph's inferred shapes (Graph::output_shape), so they
// already reflect the input shapes given when the graph was loaded
// (ShapeInferenceOptions::input_shapes): load with `x: [1, 224, 224, 3]`
// and every output shape downstream of x is as specific as that allows.
// A graph loaded from a SavedModel describes its signature instead: the
// signature's input and output keys, in key order, each naming the tensor
// it stands for (Graph::aliases).
#ifndef WEFT_GRAPH_GRAPH_SIGNATURE_H_
#define WEFT_GRAPH_GRAPH_SIGNATURE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "graph/graph.h"

namespace weft {

// One tensor of a graph: output `index` of node `node`.
struct GraphTensorInfo {
  // How a run names it: "node" for output 0, "node:1" for output 1.
  std::string name;
  std::string node;
  int index = 0;
  std::string op;  // the node's op, e.g. "Placeholder", "Softmax"
  DataType dtype = DT_INVALID;
  // Unknown rank, or dims with -1 where a size is unknown (e.g. the batch).
  PartialTensorShape shape;
  // The node is a PlaceholderWithDefault: a run may leave it unfed and
  // gets the default. (Never true in GraphSignature::outputs, which hold
  // no placeholders.)
  bool has_default = false;
};

struct GraphSignature {
  // Every Placeholder and PlaceholderWithDefault, in node order: what a run
  // may feed (a Placeholder that a fetch depends on must be fed).
  std::vector<GraphTensorInfo> inputs;
  // Every output of every node that has no data or control consumer, in
  // node order, except placeholders (an unused input is no result) and
  // nodes without outputs (NoOp). What a host that knows nothing else
  // would fetch: for a frozen Keras model, its output layers.
  std::vector<GraphTensorInfo> outputs;
};

// Reads `graph` once (one pass over its nodes); `graph` must be imported
// and shape-inferred (as weft_graph_load_file leaves it).
GraphSignature DescribeGraph(const Graph& graph);

// Any node output by name: "node" (output 0) or "node:k", or a signature
// key (the result keeps the key as its name). Errors name
// `source_name` (the graph file) and the name: NotFound "graph.pb: no node
// 'probz' in the graph", InvalidArgument for malformed names or an output
// index the node does not have ("node 'probs' (Softmax) has 1 output").
StatusOr<GraphTensorInfo> DescribeGraphTensor(const Graph& graph,
                                              absl::string_view name,
                                              absl::string_view source_name);

}  // namespace weft

#endif  // WEFT_GRAPH_GRAPH_SIGNATURE_H_
