#include "graph/import.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "graph/function_library.h"
#include "graph/raise_control_flow.h"

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

namespace {

// A rewrite before validation (raising lowered control flow, inlining
// calls) that failed: recorded, or returned.
Status ReportRewriteFailure(std::vector<ImportProblem>* problems,
                            Status status) {
  if (problems == nullptr) return status;
  problems->push_back({ImportProblem::Kind::kFunctionCall, "", "", status});
  return Status();
}

// Builds `graph` from `graph_def`. With `problems` null it stops at the
// first problem and returns it (ImportGraphDef); otherwise it records each
// problem there, skips what the problem spoils and goes on
// (DiagnoseGraphDef). One walk serves both, so the two cannot disagree.
// A GraphDef passed as an rvalue is consumed: its nodes and library move
// into `graph` (and through the rewrites) instead of being copied.
template <typename Def>
Status ImportInto(Def&& graph_def, const ImportOptions& options, Graph* graph,
                  std::vector<ImportProblem>* problems) {
  constexpr bool kOwned = !std::is_lvalue_reference_v<Def>;
  const OpRegistry* registry =
      options.registry ? options.registry : OpRegistry::Global();
  const std::string& src = options.source_name;
  // Lowered loops and conds become While and If
  // (graph/raise_control_flow.h); then function calls become the callees'
  // nodes (graph/function_library.h).
  if (HasLoweredControlFlow(graph_def)) {
    auto raised = RaiseLoweredControlFlow(graph_def, registry, src);
    if (!raised.ok()) return ReportRewriteFailure(problems, raised.status());
    return ImportInto(*std::move(raised), options, graph, problems);
  }
  if (HasFunctionCalls(graph_def)) {
    auto inlined =
        InlineFunctionCalls(std::forward<Def>(graph_def), registry, src);
    if (!inlined.ok()) {
      return ReportRewriteFailure(problems, inlined.status());
    }
    return ImportInto(*std::move(inlined), options, graph, problems);
  }
  graph->versions() = graph_def.versions;

  // OK when the walk goes on past the problem, else the problem itself.
  auto report = [problems](ImportProblem::Kind kind, const std::string& node,
                           const std::string& op, Status status) -> Status {
    if (problems == nullptr) return status;
    problems->push_back({kind, node, op, std::move(status)});
    return Status();
  };

  absl::flat_hash_set<std::string> functions;
  for (const FunctionDef& f : graph_def.library.function) {
    functions.insert(f.signature.name);
  }
  // Nodes that did not validate: inputs naming them are not problems of
  // their own.
  absl::flat_hash_set<std::string> dropped;

  // Pass 1: nodes, validated against their ops.
  for (auto& def : graph_def.node) {
    using Kind = ImportProblem::Kind;
    if (def.name.empty()) {
      WEFT_RETURN_IF_ERROR(
          report(Kind::kInvalidNode, def.name, def.op,
                 errors::InvalidArgument(src, ": a node of op '", def.op,
                                         "' has an empty name")));
      continue;
    }
    // Spelled only for an error: per node it was 2% of a load.
    auto where = [&] {
      return absl::StrCat(src, ": node '", def.name, "' (", def.op, ")");
    };
    if (functions.contains(def.op)) {
      WEFT_RETURN_IF_ERROR(report(
          Kind::kFunctionCall, def.name, def.op,
          errors::Unimplemented(
              where(), ": calls function '", def.op,
              "' from the graph's library; weft cannot run function calls "
              "yet (freeze the graph with functions inlined)")));
      dropped.insert(def.name);
      continue;
    }
    auto reg = registry->LookUp(def.op);
    if (!reg.ok()) {
      WEFT_RETURN_IF_ERROR(report(Kind::kUnknownOp, def.name, def.op,
                                  AddContext(reg.status(), where())));
      dropped.insert(def.name);
      continue;
    }
    NodeDef validated;
    if constexpr (kOwned) {
      validated = std::move(def);
    } else {
      validated = def;
    }
    auto types = ValidateNode((*reg)->op_def, &validated);
    if (!types.ok()) {
      // ValidateNode names the node itself; add only the file.
      WEFT_RETURN_IF_ERROR(report(Kind::kInvalidNode, validated.name,
                                  validated.op,
                                  AddContext(types.status(), src)));
      dropped.insert(validated.name);
      continue;
    }
    std::string name = validated.name;
    std::string op = validated.op;
    auto added = graph->AddNode(std::move(validated), *reg, *std::move(types));
    if (!added.ok()) {
      // A duplicate name: the first node of that name stays.
      WEFT_RETURN_IF_ERROR(report(Kind::kInvalidNode, name, op,
                                  AddContext(added.status(), src)));
    }
  }
  if constexpr (kOwned) {
    graph->library() = std::move(graph_def.library);
  } else {
    graph->library() = graph_def.library;
  }

  // Pass 2: edges. ValidateNode has checked that data inputs come first and
  // that their count fits the signature.
  bool edges_complete = true;
  for (const auto& node_ptr : graph->nodes()) {
    Node* dst = node_ptr.get();
    auto where = [&] { return absl::StrCat(src, ": node ", dst->DebugName()); };
    auto bad_input = [&](Status status) {
      edges_complete = false;
      return report(ImportProblem::Kind::kBadInput, dst->name(), dst->op(),
                    std::move(status));
    };
    int data_index = 0;
    for (const std::string& text : dst->def().input) {
      auto parsed = ParseNodeInput(text);
      if (!parsed.ok()) {
        WEFT_RETURN_IF_ERROR(bad_input(AddContext(parsed.status(), where())));
        break;  // the data slots after it cannot be matched up
      }
      const int slot = parsed->is_control ? -1 : data_index++;
      Node* producer = graph->FindNode(parsed->node);
      if (producer == nullptr) {
        if (dropped.contains(parsed->node)) {
          edges_complete = false;  // reported with the producer
          continue;
        }
        WEFT_RETURN_IF_ERROR(bad_input(errors::InvalidArgument(
            where(), ": input '", text, "' names unknown node '", parsed->node,
            "'")));
        continue;
      }
      if (parsed->is_control) {
        graph->AddControlEdge(producer, dst);
        continue;
      }
      if (slot >= dst->num_inputs()) {
        WEFT_RETURN_IF_ERROR(bad_input(errors::InvalidArgument(
            where(), ": has more data inputs than ", "the ", dst->num_inputs(),
            " its op declares")));
        break;
      }
      if (parsed->index >= producer->num_outputs()) {
        WEFT_RETURN_IF_ERROR(bad_input(errors::InvalidArgument(
            where(), ": input ", slot, " '", text, "' asks for output ",
            parsed->index, " of node ", producer->DebugName(), ", which has ",
            producer->num_outputs(), " output",
            producer->num_outputs() == 1 ? "" : "s")));
        continue;
      }
      DataType produced = producer->output_type(parsed->index);
      DataType expected = dst->input_type(slot);
      if (produced != expected) {
        WEFT_RETURN_IF_ERROR(bad_input(errors::InvalidArgument(
            where(), ": input ", slot, " expects ", DataTypeName(expected),
            " but '", OutputName(producer, parsed->index), "' from ",
            producer->DebugName(), " is ", DataTypeName(produced))));
        continue;
      }
      graph->AddEdge(producer, parsed->index, dst, slot);
    }
  }

  // A node with a missing input edge would look like part of a cycle, so
  // cycles are looked for only in a graph whose edges are all there.
  if (edges_complete) {
    auto order = graph->TopologicalOrder();
    if (!order.ok()) {
      WEFT_RETURN_IF_ERROR(report(ImportProblem::Kind::kCycle, "", "",
                                  AddContext(order.status(), src)));
    }
  }
  return Status();
}

}  // namespace

StatusOr<std::unique_ptr<Graph>> ImportGraphDef(const GraphDef& graph_def,
                                                const ImportOptions& options) {
  auto graph = std::make_unique<Graph>();
  WEFT_RETURN_IF_ERROR(ImportInto(graph_def, options, graph.get(), nullptr));
  return graph;
}

StatusOr<std::unique_ptr<Graph>> ImportGraphDef(GraphDef&& graph_def,
                                                const ImportOptions& options) {
  auto graph = std::make_unique<Graph>();
  WEFT_RETURN_IF_ERROR(
      ImportInto(std::move(graph_def), options, graph.get(), nullptr));
  return graph;
}

ImportDiagnosis DiagnoseGraphDef(const GraphDef& graph_def,
                                 const ImportOptions& options) {
  ImportDiagnosis diagnosis;
  diagnosis.graph = std::make_unique<Graph>();
  // With a problem list the walk never stops early, so its status is OK.
  ImportInto(graph_def, options, diagnosis.graph.get(), &diagnosis.problems)
      .IgnoreError();
  return diagnosis;
}

}  // namespace weft
