#include "graph/shape_inference_pass.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/function_shapes.h"
#include "graph/shape_values.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

bool IsPlaceholder(const Node* n) {
  return n->op() == "Placeholder" || n->op() == "PlaceholderV2" ||
         n->op() == "PlaceholderWithDefault";
}

// Ops whose output 0 is their input 0 unchanged, so a constant passes
// through them.
bool ForwardsValue(const Node* n) {
  const std::string& op = n->op();
  return op == "Identity" || op == "StopGradient" || op == "Snapshot" ||
         op == "PreventGradient";
}

// Merges a caller-given placeholder shape into the one the graph declares.
StatusOr<PartialTensorShape> MergeShapes(const PartialTensorShape& declared,
                                         const PartialTensorShape& given) {
  if (declared.unknown_rank()) return given;
  if (given.unknown_rank()) return declared;
  if (declared.dims() != given.dims()) {
    return errors::InvalidArgument("rank ", given.dims(), " differs from ",
                                   declared.dims());
  }
  std::vector<int64_t> dims(declared.dims());
  for (int i = 0; i < declared.dims(); ++i) {
    int64_t a = declared.dim_size(i), b = given.dim_size(i);
    if (a >= 0 && b >= 0 && a != b) {
      return errors::InvalidArgument("dimension ", i, " is ", b, ", not ", a);
    }
    dims[i] = a >= 0 ? a : b;
  }
  return PartialTensorShape::Build(dims);
}

}  // namespace

Status InferShapes(Graph* graph, const ShapeInferenceOptions& options) {
  const std::string& src = options.source_name;
  // Given shapes by placeholder node; a signature key (Graph::aliases)
  // stands for the placeholder whose output it names.
  absl::flat_hash_map<const Node*, const PartialTensorShape*> given_shapes;
  for (const auto& [name, shape] : options.input_shapes) {
    const std::string& tensor = graph->ResolveAlias(name);
    const Node* n =
        graph->FindNode(&tensor == &name ? absl::string_view(name)
                                         : absl::string_view(tensor).substr(
                                               0, tensor.find(':')));
    if (n == nullptr || !IsPlaceholder(n)) {
      return errors::InvalidArgument(
          src, ": an input shape is given for '", name, "', which is ",
          n == nullptr ? "not a node of the graph"
                       : absl::StrCat("a ", n->op(), ", not a placeholder"));
    }
    given_shapes[n] = &shape;
  }
  WEFT_ASSIGN_OR_RETURN(std::vector<int> order, graph->TopologicalOrder());

  // Known constant value of each node's output 0, when it has one.
  std::vector<const Tensor*> const_value(graph->num_nodes(), nullptr);
  // What is known of each node's output 0 as a shape (graph/shape_values.h).
  std::vector<ShapeValue> shape_value(graph->num_nodes());
  std::vector<ShapeValue> input_values;
  std::vector<PartialTensorShape> input_shapes;
  std::vector<const Tensor*> input_tensors;
  std::vector<PartialTensorShape> input_tensors_as_shapes;
  for (int id : order) {
    Node* node = graph->node(id);
    const int n_in = node->num_inputs();
    input_shapes.assign(n_in, PartialTensorShape());
    input_tensors.assign(n_in, nullptr);
    input_tensors_as_shapes.assign(n_in, PartialTensorShape());
    input_values.assign(n_in, ShapeValue());
    for (int i = 0; i < n_in; ++i) {
      const Endpoint& e = node->input(i);
      input_shapes[i] = graph->output_shape(e.node, e.index);
      if (e.index != 0) continue;
      input_tensors[i] = const_value[e.node->id()];
      // A shape's value, even when partly known (a Shape node's).
      input_values[i] = shape_value[e.node->id()];
      input_tensors_as_shapes[i] = input_values[i].vector;
    }

    shape_inference::InferenceContext ctx(node->def(), node->op_def(),
                                          input_shapes, input_tensors,
                                          input_tensors_as_shapes);
    WEFT_RETURN_IF_ERROR_CTX(ctx.Run(node->op_registration().shape_fn), src);
    for (int i = 0; i < node->num_outputs(); ++i) {
      auto shape = ctx.ToPartialTensorShape(ctx.output(i));
      if (!shape.ok()) {
        return AddContext(
            shape.status(),
            absl::StrCat(src, ": node ", node->DebugName(), ": output ", i));
      }
      graph->set_output_shape(node, i, *std::move(shape));
    }
    shape_value[id] =
        InferShapeValue(*node, input_values, input_tensors, input_shapes);
    if (IsFunctionalControlFlowOp(node->op())) {
      WEFT_RETURN_IF_ERROR(
          InferControlFlowShapes(graph, node, input_shapes, src));
    }

    if (IsPlaceholder(node)) {
      auto given = given_shapes.find(node);
      if (given != given_shapes.end()) {
        auto merged = MergeShapes(graph->output_shape(node, 0), *given->second);
        if (!merged.ok()) {
          return errors::InvalidArgument(
              src, ": node ", node->DebugName(), ": given input shape ",
              given->second->DebugString(), " does not fit the declared shape ",
              graph->output_shape(node, 0).DebugString(), ": ",
              merged.status().message());
        }
        graph->set_output_shape(node, 0, *std::move(merged));
      }
    } else if (node->op() == "Const") {
      auto it = node->attrs().find("value");
      if (it != node->attrs().end() && it->second.tensor.IsInitialized()) {
        const_value[id] = &it->second.tensor;
      }
    } else if (ForwardsValue(node) && n_in > 0) {
      const_value[id] = input_tensors[0];
      shape_value[id] = input_values[0];
    }
  }
  return Status();
}

}  // namespace weft
