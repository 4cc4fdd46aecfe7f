#include "executor/const_values.h"

#include "core/types.h"

namespace weft {

StatusOr<const Tensor*> ConstNodeValue(const Node& node,
                                       absl::string_view source_name) {
  auto it = node.attrs().find("value");
  if (it == node.attrs().end() || !it->second.tensor.IsInitialized()) {
    return errors::InvalidArgument(source_name, ": node ", node.DebugName(),
                                   ": attr 'value' holds no tensor");
  }
  const Tensor& value = it->second.tensor;
  if (value.dtype() != node.output_type(0)) {
    return errors::InvalidArgument(
        source_name, ": node ", node.DebugName(), ": attr 'value' is ",
        DataTypeName(value.dtype()), " but attr 'dtype' says ",
        DataTypeName(node.output_type(0)));
  }
  return &value;
}

Status CollectConstValues(const Graph& graph, absl::string_view source_name,
                          std::vector<const Tensor*>* values) {
  values->assign(graph.num_nodes(), nullptr);
  for (const auto& node : graph.nodes()) {
    if (node->op() != "Const") continue;
    WEFT_ASSIGN_OR_RETURN(const Tensor* value,
                          ConstNodeValue(*node, source_name));
    // A Const with a control input runs as a kernel, after that input, as
    // in TensorFlow: TF1 graphs order constants after asserts that way.
    if (node->control_inputs().empty()) (*values)[node->id()] = value;
  }
  return Status();
}

}  // namespace weft
