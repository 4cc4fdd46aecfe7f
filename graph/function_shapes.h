// Shape inference through function bodies: the output shapes of If, Case
// and While (and their Stateless forms) from what their functions compute,
// not only from what the node declares in `output_shapes`.
//
//  - If / Case: each branch is inferred with the node's input shapes; an
//    output dimension is known when every branch agrees on it.
//  - While: the loop variables start with the input shapes; the body is
//    inferred again with the shapes generalized by what it returns (a
//    dimension the body changes becomes unknown, a rank it changes makes
//    the rank unknown) until nothing changes. What is left is what holds in
//    every iteration: loop-invariant shapes stay known, varying dims are
//    unknown.
//
// The result is then intersected with `output_shapes` (which may know a
// dimension the bodies do not). Whole-graph shape inference calls this for
// every such node, so nested loops and conds are inferred from the inside
// out.
#ifndef WEFT_GRAPH_FUNCTION_SHAPES_H_
#define WEFT_GRAPH_FUNCTION_SHAPES_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "core/tensor_shape.h"
#include "graph/graph.h"

namespace weft {

// If, StatelessIf, Case, StatelessCase, While, StatelessWhile.
bool IsFunctionalControlFlowOp(absl::string_view op);

// Refines `node`'s output shapes on `graph` from its bodies, given the
// shapes of its inputs. Errors name the source, the node, the function and
// the body node.
Status InferControlFlowShapes(Graph* graph, const Node* node,
                              const std::vector<PartialTensorShape>& inputs,
                              absl::string_view source_name);

}  // namespace weft

#endif  // WEFT_GRAPH_FUNCTION_SHAPES_H_
