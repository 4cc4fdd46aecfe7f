#include "graph/import.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace weft {
namespace {

std::string OutputName(const Node* n, int index) {
  return index == 0 ? n->name() : absl::StrCat(n->name(), ":", index);
}

}  // namespace

StatusOr<ParsedInput> ParseNodeInput(absl::string_view input) {
  ParsedInput out;
  if (!input.empty() && input[0] == '^') {
    out.is_control = true;
    input.remove_prefix(1);
  }
  size_t colon = input.rfind(':');
  absl::string_view name = input;
  if (colon != absl::string_view::npos && !out.is_control) {
    name = input.substr(0, colon);
    absl::string_view digits = input.substr(colon + 1);
    if (digits.empty() || !absl::SimpleAtoi(digits, &out.index) ||
        out.index < 0 || digits[0] == '+' || digits[0] == '-') {
      return errors::InvalidArgument("malformed input '", input,
                                     "': expected 'node' or 'node:index'");
    }
  }
  if (name.empty()) {
    return errors::InvalidArgument("malformed input '", input,
                                   "': empty node name");
  }
  out.node = std::string(name);
  return out;
}

StatusOr<std::unique_ptr<Graph>> ImportGraphDef(const GraphDef& graph_def,
                                                const ImportOptions& options) {
  const OpRegistry* registry =
      options.registry ? options.registry : OpRegistry::Global();
  const std::string& src = options.source_name;
  auto graph = std::make_unique<Graph>();
  graph->versions() = graph_def.versions;
  graph->library() = graph_def.library;

  absl::flat_hash_set<std::string> functions;
  for (const FunctionDef& f : graph_def.library.function) {
    functions.insert(f.signature.name);
  }

  // Pass 1: nodes, validated against their ops.
  for (const NodeDef& def : graph_def.node) {
    if (def.name.empty()) {
      return errors::InvalidArgument(src, ": a node of op '", def.op,
                                     "' has an empty name");
    }
    std::string where =
        absl::StrCat(src, ": node '", def.name, "' (", def.op, ")");
    if (functions.contains(def.op)) {
      return errors::Unimplemented(
          where, ": calls function '", def.op,
          "' from the graph's library; weft cannot run function calls yet "
          "(freeze the graph with functions inlined)");
    }
    auto reg = registry->LookUp(def.op);
    if (!reg.ok()) return AddContext(reg.status(), where);
    NodeDef validated = def;
    auto types = ValidateNode((*reg)->op_def, &validated);
    if (!types.ok()) {
      // ValidateNode names the node itself; add only the file.
      return AddContext(types.status(), src);
    }
    auto added = graph->AddNode(std::move(validated), *reg, *std::move(types));
    if (!added.ok()) return AddContext(added.status(), src);
  }

  // Pass 2: edges. ValidateNode has checked that data inputs come first and
  // that their count fits the signature.
  for (const auto& node_ptr : graph->nodes()) {
    Node* dst = node_ptr.get();
    std::string where = absl::StrCat(src, ": node ", dst->DebugName());
    int data_index = 0;
    for (const std::string& text : dst->def().input) {
      auto parsed = ParseNodeInput(text);
      if (!parsed.ok()) return AddContext(parsed.status(), where);
      Node* producer = graph->FindNode(parsed->node);
      if (producer == nullptr) {
        return errors::InvalidArgument(where, ": input '", text,
                                       "' names unknown node '", parsed->node,
                                       "'");
      }
      if (parsed->is_control) {
        graph->AddControlEdge(producer, dst);
        continue;
      }
      if (data_index >= dst->num_inputs()) {
        return errors::InvalidArgument(where, ": has more data inputs than ",
                                       "the ", dst->num_inputs(),
                                       " its op declares");
      }
      if (parsed->index >= producer->num_outputs()) {
        return errors::InvalidArgument(
            where, ": input ", data_index, " '", text, "' asks for output ",
            parsed->index, " of node ", producer->DebugName(), ", which has ",
            producer->num_outputs(), " output",
            producer->num_outputs() == 1 ? "" : "s");
      }
      DataType produced = producer->output_type(parsed->index);
      DataType expected = dst->input_type(data_index);
      if (produced != expected) {
        return errors::InvalidArgument(
            where, ": input ", data_index, " expects ", DataTypeName(expected),
            " but '", OutputName(producer, parsed->index), "' from ",
            producer->DebugName(), " is ", DataTypeName(produced));
      }
      graph->AddEdge(producer, parsed->index, dst, data_index);
      ++data_index;
    }
  }

  auto order = graph->TopologicalOrder();
  if (!order.ok()) return AddContext(order.status(), src);
  return graph;
}

}  // namespace weft
