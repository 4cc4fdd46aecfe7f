#include "savedmodel/restore_map.h"

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "graph/function_library.h"
#include "savedmodel/node_ref.h"

namespace weft {
namespace {

using savedmodel_internal::CanonicalRef;
using savedmodel_internal::ParseRef;
using savedmodel_internal::Ref;
using savedmodel_internal::RefNode;

using Slots = absl::flat_hash_map<std::string, CheckpointSlot>;
// A graph's or body's nodes by name (the nodes outlive the map).
using NodesByName = absl::flat_hash_map<absl::string_view, const NodeDef*>;
// Maps a resource or ref tensor of the body being scanned to the top-level
// variable node it is, or "" when it is none.
using Resolver = std::function<std::string(const std::string& canonical)>;

class Scanner {
 public:
  // `restore` holds the functions only the restore op calls, in outline
  // (SavedMetaGraphDef::restore_functions); calls are looked up in both.
  Scanner(const FunctionLibrary& library, const FunctionLibrary& restore,
          std::string context, Slots* slots)
      : library_(library),
        restore_(restore),
        context_(std::move(context)),
        slots_(slots) {}

  Status Scan(const std::vector<NodeDef>& nodes,
              const std::vector<const NodeDef*>& roots, bool function_form,
              const Resolver& resolve, int depth);

 private:
  // The function a node calls, in either library; false when it is no
  // call.
  StatusOr<bool> Call(const NodeDef& n, NameAttrList* call) const {
    auto is_call = GetFunctionCall(library_, n, call);
    if (is_call.ok() && !*is_call) return GetFunctionCall(restore_, n, call);
    return is_call;
  }
  const FunctionDef* Find(absl::string_view name) const {
    const FunctionDef* f = FindFunction(library_, name);
    return f != nullptr ? f : FindFunction(restore_, name);
  }

  const FunctionLibrary& library_;
  const FunctionLibrary& restore_;
  const std::string context_;
  Slots* slots_;
  // Each function body is scanned once per binding of its arguments to
  // variables (the callee name, then the variable of each argument): a
  // library where every function calls the next one twice would otherwise
  // be scanned 2^depth times. `bodies_` bounds what distinct bindings
  // remain.
  absl::flat_hash_set<std::string> scanned_;
  int64_t bodies_ = 0;
};

// More function bodies than this (each with its own variable binding) is
// not a restore op.
constexpr int64_t kMaxBodies = 1 << 16;

// Follows Identity-like nodes back from `input` within one body.
Ref Trace(const NodesByName& by_name, absl::string_view input,
          bool function_form, const NodeDef** node) {
  *node = nullptr;
  for (int hops = 0; hops < 1000; ++hops) {
    auto it = by_name.find(RefNode(input));
    if (it == by_name.end()) break;  // an argument
    const NodeDef* n = it->second;
    if ((n->op == "Identity" || n->op == "Snapshot") && !n->input.empty()) {
      input = n->input[0];
      continue;
    }
    *node = n;
    break;
  }
  return ParseRef(input, function_form);
}

// The string list a Const holds, in place (the node outlives the scan), or
// empty. Not a copy: a restore op names every variable in one Const, and
// each of its N assignments reads one element, so copying the list per
// assignment made the scan quadratic (NASNetMobile, ~1,100 variables: 40%
// of the SavedModel's load time).
absl::Span<const std::string> ConstStrings(const NodeDef* n) {
  if (n == nullptr || n->op != "Const") return {};
  auto it = n->attr.find("value");
  if (it == n->attr.end() || it->second.kind != AttrValue::Kind::kTensor ||
      it->second.tensor.dtype() != DT_STRING) {
    return {};
  }
  const Tensor& t = it->second.tensor;
  const auto* s = static_cast<const std::string*>(t.raw_data());
  if (s == nullptr) return {};
  return absl::Span<const std::string>(s, t.NumElements());
}

Status Scanner::Scan(const std::vector<NodeDef>& nodes,
                     const std::vector<const NodeDef*>& roots,
                     bool function_form, const Resolver& resolve, int depth) {
  if (depth > 32) {
    return errors::InvalidArgument(context_,
                                   ": the restore op nests calls too deep");
  }
  NodesByName by_name;
  by_name.reserve(nodes.size());
  for (const NodeDef& n : nodes) by_name[n.name] = &n;
  for (const NodeDef* n : roots) {
    const bool assign = n->op == "AssignVariableOp" || n->op == "Assign";
    if (assign && n->input.size() >= 2) {
      const NodeDef* target_node = nullptr;
      Ref target = Trace(by_name, n->input[0], function_form, &target_node);
      const std::string var = resolve(
          target_node == nullptr ? CanonicalRef(target.node, function_form)
                                 : target_node->name);
      const NodeDef* source = nullptr;
      Ref value = Trace(by_name, n->input[1], function_form, &source);
      if (var.empty() || source == nullptr || source->op != "RestoreV2" ||
          source->input.size() < 3) {
        continue;
      }
      const NodeDef* names_node = nullptr;
      const NodeDef* slices_node = nullptr;
      Trace(by_name, source->input[1], function_form, &names_node);
      Trace(by_name, source->input[2], function_form, &slices_node);
      absl::Span<const std::string> names = ConstStrings(names_node);
      absl::Span<const std::string> slices = ConstStrings(slices_node);
      if (value.index < 0 || value.index >= static_cast<int>(names.size())) {
        return errors::InvalidArgument(
            context_, ": restore node '", source->name,
            "' (RestoreV2) has no "
            "constant tensor name for output ",
            value.index, ", which restores variable '", var, "'");
      }
      CheckpointSlot slot;
      slot.key = names[value.index];
      if (value.index < static_cast<int>(slices.size())) {
        slot.slice_spec = slices[value.index];
      }
      (*slots_)[var] = std::move(slot);
      continue;
    }
    NameAttrList call;
    auto is_call = Call(*n, &call);
    if (!is_call.ok() || !*is_call) continue;
    const FunctionDef* f = Find(call.name);
    if (f == nullptr) continue;
    // The callee's argument i is the caller's data input i.
    std::vector<std::string> caller_inputs;
    for (const std::string& in : n->input) {
      if (!in.empty() && in[0] == '^') continue;
      const NodeDef* src = nullptr;
      Ref r = Trace(by_name, in, function_form, &src);
      caller_inputs.push_back(resolve(
          src == nullptr ? CanonicalRef(r.node, function_form) : src->name));
    }
    absl::flat_hash_map<std::string, std::string> arg_vars;
    for (size_t i = 0; i < f->signature.input_arg.size(); ++i) {
      if (i < caller_inputs.size() && !caller_inputs[i].empty()) {
        arg_vars[f->signature.input_arg[i].name] = caller_inputs[i];
      }
    }
    std::string binding = call.name;
    for (const std::string& v : caller_inputs)
      absl::StrAppend(&binding, "|", v);
    if (!scanned_.insert(std::move(binding)).second) continue;
    if (++bodies_ > kMaxBodies) {
      return errors::InvalidArgument(context_,
                                     ": the restore op calls more than ",
                                     kMaxBodies, " function bodies");
    }
    Resolver inner = [&arg_vars](const std::string& canonical) {
      auto it = arg_vars.find(canonical);
      return it == arg_vars.end() ? std::string() : it->second;
    };
    std::vector<const NodeDef*> body_roots;
    for (const NodeDef& b : f->node_def) body_roots.push_back(&b);
    WEFT_RETURN_IF_ERROR(Scan(f->node_def, body_roots, /*function_form=*/true,
                              inner, depth + 1));
  }
  return Status();
}

}  // namespace

StatusOr<absl::flat_hash_map<std::string, CheckpointSlot>>
MapVariablesToCheckpoint(const SavedMetaGraphDef& meta,
                         absl::string_view context) {
  Slots slots;
  if (!meta.has_saver_def || meta.saver_def.restore_op_name.empty()) {
    return slots;
  }
  std::string restore = meta.saver_def.restore_op_name;
  if (!restore.empty() && restore[0] == '^') restore.erase(0, 1);
  restore = restore.substr(0, restore.find(':'));
  const std::vector<NodeDef>& nodes = meta.graph_def.node;
  NodesByName by_name;
  by_name.reserve(nodes.size());
  for (const NodeDef& n : nodes) by_name[n.name] = &n;
  auto it = by_name.find(restore);
  if (it == by_name.end()) {
    return errors::InvalidArgument(context, ": the saver's restore op '",
                                   restore, "' is no node of the graph");
  }
  // The restore op and everything it waits for, top level.
  std::vector<const NodeDef*> roots;
  absl::flat_hash_set<absl::string_view> seen = {it->first};
  std::deque<const NodeDef*> queue = {it->second};
  while (!queue.empty()) {
    const NodeDef* n = queue.front();
    queue.pop_front();
    roots.push_back(n);
    for (const std::string& in : n->input) {
      auto s = by_name.find(RefNode(in));
      if (s != by_name.end() && seen.insert(s->first).second) {
        queue.push_back(s->second);
      }
    }
  }
  Resolver top = [&by_name](const std::string& canonical) {
    auto n = by_name.find(canonical);
    if (n == by_name.end()) return std::string();
    const std::string& op = n->second->op;
    return op == "VarHandleOp" || op == "VariableV2" || op == "Variable"
               ? canonical
               : std::string();
  };
  Scanner scanner(meta.graph_def.library, meta.restore_functions,
                  std::string(context), &slots);
  WEFT_RETURN_IF_ERROR(
      scanner.Scan(nodes, roots, /*function_form=*/false, top, 0));
  return slots;
}

Status AddCapturedVariables(
    const SavedMetaGraphDef& meta, const TrackableObjects& objects,
    const std::vector<std::string>& nodes, absl::string_view context,
    absl::flat_hash_map<std::string, CheckpointSlot>* slots) {
  NodesByName by_name;
  by_name.reserve(meta.graph_def.node.size());
  for (const NodeDef& n : meta.graph_def.node) by_name[n.name] = &n;
  for (const std::string& name : nodes) {
    auto it = by_name.find(name);
    if (it == by_name.end()) continue;
    const NodeDef& call = *it->second;
    NameAttrList f;
    auto is_call = GetFunctionCall(meta.graph_def.library, call, &f);
    if (!is_call.ok() || !*is_call) continue;
    auto captured = meta.captured_objects.find(f.name);
    if (captured == meta.captured_objects.end()) continue;
    std::vector<std::string> inputs;
    for (const std::string& in : call.input) {
      if (!in.empty() && in[0] != '^') inputs.push_back(in);
    }
    const std::vector<int>& ids = captured->second;
    if (ids.size() > inputs.size()) {
      return errors::InvalidArgument(
          context, ": node '", call.name, "' calls '", f.name, "' with ",
          inputs.size(), " inputs, but the object graph says it captures ",
          ids.size());
    }
    const size_t first = inputs.size() - ids.size();
    for (size_t k = 0; k < ids.size(); ++k) {
      const std::string var = ParseRef(inputs[first + k], false).node;
      auto v = by_name.find(var);
      if (v == by_name.end() || v->second->op != "VarHandleOp" ||
          slots->contains(var)) {
        continue;
      }
      const int id = ids[k];
      if (id < 0 || id >= static_cast<int>(objects.size())) {
        return errors::InvalidArgument(
            context, ": variable '", var, "' is object ", id,
            " of the object graph, which the checkpoint's object graph (",
            objects.size(), " objects) does not have");
      }
      auto key = objects[id].find("VARIABLE_VALUE");
      if (key == objects[id].end()) continue;
      (*slots)[var] = CheckpointSlot{key->second, ""};
    }
  }
  return Status();
}

}  // namespace weft
