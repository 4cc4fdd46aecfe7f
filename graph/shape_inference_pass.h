// Whole-graph shape inference: runs every node's registered shape function in
// topological order and records each output's shape on the graph. It is
// constant-aware: a Const's value reaches its consumers (so Reshape's shape
// input gives a known output shape), and a Shape node's partially known
// result reaches consumers as a shape. Caller-given input shapes refine
// Placeholder shapes.
#ifndef WEFT_GRAPH_SHAPE_INFERENCE_PASS_H_
#define WEFT_GRAPH_SHAPE_INFERENCE_PASS_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "core/status.h"
#include "core/tensor_shape.h"
#include "graph/graph.h"

namespace weft {

struct ShapeInferenceOptions {
  // Shapes for Placeholder (or PlaceholderWithDefault) nodes, by node name
  // or by the signature key that names the placeholder (Graph::aliases).
  // Each must be compatible with the placeholder's own `shape` attr; a name
  // that is not a placeholder in the graph is an error.
  absl::flat_hash_map<std::string, PartialTensorShape> input_shapes;
  // Prefixes errors, usually the graph file's path.
  std::string source_name = "graph";
};

// Errors name the source, the node and op, the input and both shapes.
Status InferShapes(Graph* graph, const ShapeInferenceOptions& options);

}  // namespace weft

#endif  // WEFT_GRAPH_SHAPE_INFERENCE_PASS_H_
