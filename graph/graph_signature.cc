#include "graph/graph_signature.h"

#include "absl/strings/str_cat.h"
#include "graph/import.h"

namespace weft {
namespace {

bool IsPlaceholder(const Node& n) {
  return n.op() == "Placeholder" || n.op() == "PlaceholderV2" ||
         n.op() == "PlaceholderWithDefault";
}

GraphTensorInfo Describe(const Graph& graph, const Node& n, int index) {
  GraphTensorInfo info;
  info.name = index == 0 ? n.name() : absl::StrCat(n.name(), ":", index);
  info.node = n.name();
  info.index = index;
  info.op = n.op();
  info.dtype = n.output_type(index);
  info.shape = graph.output_shape(&n, index);
  return info;
}

bool HasConsumers(const Node& n) {
  if (!n.control_outputs().empty()) return true;
  for (int i = 0; i < n.num_outputs(); ++i) {
    if (!n.consumers(i).empty()) return true;
  }
  return false;
}

}  // namespace

GraphSignature DescribeGraph(const Graph& graph) {
  GraphSignature sig;
  if (!graph.aliases().empty()) {
    // A SavedModel signature: its keys, in key order, are the interface.
    auto describe = [&](const std::vector<TensorAlias>& aliases,
                        std::vector<GraphTensorInfo>* out) {
      for (const TensorAlias& a : aliases) {
        auto info = DescribeGraphTensor(graph, a.tensor, "");
        if (!info.ok()) continue;  // the loader checked every tensor
        info->name = a.key;
        out->push_back(*std::move(info));
      }
    };
    describe(graph.aliases().inputs, &sig.inputs);
    describe(graph.aliases().outputs, &sig.outputs);
    return sig;
  }
  for (const auto& node : graph.nodes()) {
    const Node& n = *node;
    if (IsPlaceholder(n)) {
      GraphTensorInfo info = Describe(graph, n, 0);
      info.has_default = n.op() == "PlaceholderWithDefault";
      sig.inputs.push_back(std::move(info));
      continue;
    }
    if (HasConsumers(n)) continue;
    for (int i = 0; i < n.num_outputs(); ++i) {
      sig.outputs.push_back(Describe(graph, n, i));
    }
  }
  return sig;
}

StatusOr<GraphTensorInfo> DescribeGraphTensor(const Graph& graph,
                                              absl::string_view name,
                                              absl::string_view source_name) {
  const std::string given(name);
  const std::string& tensor = graph.ResolveAlias(given);
  if (&tensor != &given) {
    auto info = DescribeGraphTensor(graph, tensor, source_name);
    if (info.ok()) info->name = given;
    return info;
  }
  auto parsed = ParseNodeInput(name);
  if (!parsed.ok() || parsed->is_control) {
    return errors::InvalidArgument(
        source_name, ": tensor name '", name,
        "' is malformed: expected 'node' or 'node:index'");
  }
  const Node* n = graph.FindNode(parsed->node);
  if (n == nullptr) {
    return errors::NotFound(source_name, ": no node '", parsed->node,
                            "' in the graph");
  }
  if (parsed->index >= n->num_outputs()) {
    return errors::InvalidArgument(source_name, ": tensor '", name, "': node ",
                                   n->DebugName(), " has ", n->num_outputs(),
                                   " output", n->num_outputs() == 1 ? "" : "s");
  }
  GraphTensorInfo info = Describe(graph, *n, parsed->index);
  info.has_default = n->op() == "PlaceholderWithDefault";
  return info;
}

}  // namespace weft
