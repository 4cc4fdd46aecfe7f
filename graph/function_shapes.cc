#include "graph/function_shapes.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/function_library.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"

namespace weft {
namespace {

// A shape both `a` and `b` are instances of, as specific as possible.
PartialTensorShape Generalize(const PartialTensorShape& a,
                              const PartialTensorShape& b) {
  if (a.unknown_rank() || b.unknown_rank() || a.dims() != b.dims()) {
    return PartialTensorShape();
  }
  std::vector<int64_t> dims(a.dims());
  for (int i = 0; i < a.dims(); ++i) {
    dims[i] = a.dim_size(i) == b.dim_size(i) ? a.dim_size(i) : -1;
  }
  return *PartialTensorShape::Build(dims);
}

// What both say, when they agree; else `declared`.
PartialTensorShape Intersect(const PartialTensorShape& declared,
                             const PartialTensorShape& inferred) {
  if (declared.unknown_rank()) return inferred;
  if (inferred.unknown_rank()) return declared;
  if (declared.dims() != inferred.dims()) return declared;
  std::vector<int64_t> dims(declared.dims());
  for (int i = 0; i < declared.dims(); ++i) {
    const int64_t a = declared.dim_size(i), b = inferred.dim_size(i);
    if (a >= 0 && b >= 0 && a != b) return declared;
    dims[i] = a >= 0 ? a : b;
  }
  return *PartialTensorShape::Build(dims);
}

bool SameShapes(const std::vector<PartialTensorShape>& a,
                const std::vector<PartialTensorShape>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] == b[i])) return false;
  }
  return true;
}

// The shapes `f` returns given its inputs' shapes.
StatusOr<std::vector<PartialTensorShape>> BodyShapes(
    const FunctionLibrary& library, const Node& node, absl::string_view role,
    const NameAttrList& f, const std::vector<PartialTensorShape>& inputs,
    absl::string_view source) {
  const std::string where =
      absl::StrCat(source, ": node ", node.DebugName(), ": ", role,
                   " function '", f.name, "'");
  auto body =
      FunctionBodyGraph(library, f, absl::StrCat(node.name(), "/", role, "/"),
                        inputs, OpRegistry::Global());
  if (!body.ok()) return AddContext(body.status(), where);
  ImportOptions import_options;
  import_options.source_name = std::string(source);
  auto graph = ImportGraphDef(body->graph_def, import_options);
  if (!graph.ok()) return AddContext(graph.status(), where);
  ShapeInferenceOptions shape_options;
  shape_options.source_name = std::string(source);
  WEFT_RETURN_IF_ERROR_CTX(InferShapes(graph->get(), shape_options), where);
  std::vector<PartialTensorShape> out;
  for (const std::string& fetch : body->fetches) {
    WEFT_ASSIGN_OR_RETURN(ParsedInput parsed, ParseNodeInput(fetch));
    const Node* n = (*graph)->FindNode(parsed.node);
    if (n == nullptr || parsed.index >= n->num_outputs()) {
      return errors::Internal(where, ": output '", fetch, "' is missing");
    }
    out.push_back((*graph)->output_shape(n, parsed.index));
  }
  return out;
}

}  // namespace

bool IsFunctionalControlFlowOp(absl::string_view op) {
  return op == "If" || op == "StatelessIf" || op == "Case" ||
         op == "StatelessCase" || op == "While" || op == "StatelessWhile";
}

Status InferControlFlowShapes(Graph* graph, const Node* node,
                              const std::vector<PartialTensorShape>& inputs,
                              absl::string_view source_name) {
  const FunctionLibrary& library = graph->library();
  const absl::string_view op = node->op();
  std::vector<PartialTensorShape> inferred;
  if (op == "While" || op == "StatelessWhile") {
    NameAttrList body;
    WEFT_RETURN_IF_ERROR_CTX(GetNodeAttr(node->attrs(), "body", &body),
                             source_name, ": node ", node->DebugName());
    std::vector<PartialTensorShape> vars = inputs;
    // Each round either makes a dimension or a rank unknown or stops, so
    // this ends; the cap only bounds the work on very wide loops.
    for (int round = 0; round < 16; ++round) {
      WEFT_ASSIGN_OR_RETURN(
          std::vector<PartialTensorShape> next,
          BodyShapes(library, *node, "body", body, vars, source_name));
      if (next.size() != vars.size()) break;  // kernel creation reports it
      std::vector<PartialTensorShape> general(vars.size());
      for (size_t i = 0; i < vars.size(); ++i) {
        general[i] = Generalize(vars[i], next[i]);
      }
      const bool stable = SameShapes(general, vars);
      vars = std::move(general);
      if (stable) break;
      if (round == 15) vars.assign(vars.size(), PartialTensorShape());
    }
    inferred = std::move(vars);
  } else {
    std::vector<NameAttrList> branches;
    std::vector<std::string> roles;
    if (op == "If" || op == "StatelessIf") {
      NameAttrList then_f, else_f;
      WEFT_RETURN_IF_ERROR_CTX(
          GetNodeAttr(node->attrs(), "then_branch", &then_f), source_name,
          ": node ", node->DebugName());
      WEFT_RETURN_IF_ERROR_CTX(
          GetNodeAttr(node->attrs(), "else_branch", &else_f), source_name,
          ": node ", node->DebugName());
      branches = {then_f, else_f};
      roles = {"then", "else"};
    } else if (op == "Case" || op == "StatelessCase") {
      auto it = node->attrs().find("branches");
      if (it != node->attrs().end()) branches = it->second.list->func;
      for (size_t i = 0; i < branches.size(); ++i) {
        roles.push_back(absl::StrCat("branch", i));
      }
    } else {
      return Status();
    }
    const std::vector<PartialTensorShape> args(inputs.begin() + 1,
                                               inputs.end());
    for (size_t b = 0; b < branches.size(); ++b) {
      WEFT_ASSIGN_OR_RETURN(
          std::vector<PartialTensorShape> shapes,
          BodyShapes(library, *node, roles[b], branches[b], args, source_name));
      if (b == 0) {
        inferred = std::move(shapes);
        continue;
      }
      if (shapes.size() != inferred.size()) return Status();
      for (size_t i = 0; i < shapes.size(); ++i) {
        inferred[i] = Generalize(inferred[i], shapes[i]);
      }
    }
  }
  if (static_cast<int>(inferred.size()) != node->num_outputs()) {
    return Status();  // the kernel names the mismatch when it is created
  }
  for (int i = 0; i < node->num_outputs(); ++i) {
    graph->set_output_shape(
        node, i, Intersect(graph->output_shape(node, i), inferred[i]));
  }
  return Status();
}

}  // namespace weft
