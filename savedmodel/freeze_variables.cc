#include "savedmodel/freeze_variables.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/types.h"
#include "graph/function_library.h"
#include "savedmodel/node_ref.h"

namespace weft {
namespace {

// A variable as the rewrite sees it: its node name (for messages) and value.
struct VarRef {
  std::string name;
  const Tensor* value = nullptr;
};

using savedmodel_internal::FindRef;
using savedmodel_internal::ParseRef;
using savedmodel_internal::Ref;
using savedmodel_internal::RefNode;
using savedmodel_internal::SpellRef;

bool IsCall(const FunctionLibrary& library, const NodeDef& n) {
  return n.op == "PartitionedCall" || n.op == "StatefulPartitionedCall" ||
         FindFunction(library, n.op) != nullptr;
}

bool IsWrite(absl::string_view op) {
  static const absl::flat_hash_set<absl::string_view> kWrites = {
      "AssignVariableOp",
      "AssignAddVariableOp",
      "AssignSubVariableOp",
      "Assign",
      "AssignAdd",
      "AssignSub",
      "ResourceScatterAdd",
      "ResourceScatterSub",
      "ResourceScatterMul",
      "ResourceScatterDiv",
      "ResourceScatterMin",
      "ResourceScatterMax",
      "ResourceScatterUpdate",
      "ResourceScatterNdUpdate",
      "ResourceScatterNdAdd",
      "ResourceScatterNdSub",
      "ResourceStridedSliceAssign",
      "DestroyResourceOp",
  };
  return op.rfind("ResourceApply", 0) == 0 ||
         op.rfind("ResourceSparseApply", 0) == 0 || kWrites.contains(op);
}

NodeDef MakeConst(std::string name, const Tensor& value) {
  NodeDef n;
  n.name = std::move(name);
  n.op = "Const";
  n.attr["dtype"] = AttrValue::Type(value.dtype());
  n.attr["value"] = AttrValue::TensorValue(value);
  return n;
}

template <typename T>
Tensor Vector(const std::vector<int64_t>& values, DataType dtype) {
  Tensor t(dtype, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) {
    t.data<T>()[i] = static_cast<T>(values[i]);
  }
  return t;
}

// Removes list elements at the (sorted, distinct) positions `drop`.
template <typename T>
void EraseAt(std::vector<T>* v, const std::vector<int>& drop) {
  for (auto it = drop.rbegin(); it != drop.rend(); ++it) {
    if (*it >= 0 && *it < static_cast<int>(v->size())) {
      v->erase(v->begin() + *it);
    }
  }
}

void EraseListAttr(AttrMap* attrs, absl::string_view name,
                   const std::vector<int>& drop) {
  auto it = attrs->find(name);
  if (it == attrs->end() || it->second.kind != AttrValue::Kind::kList) return;
  EraseAt(&it->second.list->type, drop);
  EraseAt(&it->second.list->shape, drop);
}

class Freezer {
 public:
  // `consumable`: the same library, when the caller is done with it: a
  // function in `once` (see SpecializedOnce) is then moved out of it for
  // its one specialization instead of copied. Null: everything is copied.
  Freezer(const FunctionLibrary& library, std::string context,
          FunctionLibrary* consumable = nullptr,
          absl::flat_hash_set<std::string> once = {})
      : library_(library),
        context_(std::move(context)),
        consumable_(consumable),
        once_(std::move(once)) {}

  // Rewrites `nodes` (graph form, or a function body with its `ret`) so
  // that no node reads a handle in `bound`. Nodes that only carried handles
  // are removed.
  Status RewriteBody(std::vector<NodeDef>* nodes, bool function_form,
                     absl::flat_hash_map<std::string, VarRef> bound,
                     const std::string& where,
                     std::map<std::string, std::string>* ret, int depth);

  // `name` with the arguments in `bound_args` (flat index -> variable)
  // replaced by the variables' values, and the outputs in
  // `removed_outputs` dropped. Returns the new function's name.
  StatusOr<std::string> Specialize(const std::string& name,
                                   const std::map<int, VarRef>& bound_args,
                                   const std::set<int>& removed_outputs,
                                   const std::string& where, int depth);

  FunctionLibrary& added() { return added_; }

 private:
  Status Error(const std::string& where, const NodeDef& n,
               const std::string& what) const {
    return errors::InvalidArgument(context_, ": ", where, "node '", n.name,
                                   "' (", n.op, "): ", what);
  }
  const FunctionDef* Lookup(absl::string_view name) const {
    const FunctionDef* f = FindFunction(added_, name);
    return f != nullptr ? f : FindFunction(library_, name);
  }

  // The definition Specialize rewrites: `original` copied, or moved out of
  // the consumable library when this is its only use.
  FunctionDef TakeForSpecializing(const std::string& name,
                                  const FunctionDef& original) {
    if (consumable_ != nullptr && once_.erase(name) != 0) {
      for (FunctionDef& f : consumable_->function) {
        if (&f == &original) return std::move(f);
      }
    }
    return original;
  }

  const FunctionLibrary& library_;
  const std::string context_;
  FunctionLibrary* consumable_;
  absl::flat_hash_set<std::string> once_;
  FunctionLibrary added_;
  std::map<std::string, std::string> memo_;
};

Status Freezer::RewriteBody(std::vector<NodeDef>* nodes, bool function_form,
                            absl::flat_hash_map<std::string, VarRef> bound,
                            const std::string& where,
                            std::map<std::string, std::string>* ret,
                            int depth) {
  if (depth > 64) {
    return errors::InvalidArgument(context_, ": ", where,
                                   "functions nest more than 64 deep");
  }
  absl::flat_hash_set<std::string> removed;
  // Identity of a handle is the same handle; resolve chains to a fixpoint.
  for (bool changed = true; changed;) {
    changed = false;
    for (const NodeDef& n : *nodes) {
      if (removed.contains(n.name)) continue;
      if ((n.op != "Identity" && n.op != "Snapshot") || n.input.empty()) {
        continue;
      }
      auto it = FindRef(bound, n.input[0], function_form);
      if (it == bound.end()) continue;
      // A copy: inserting may move the map's entries.
      VarRef var = it->second;
      Ref out{n.name, function_form ? "output" : "", 0, false};
      bound[SpellRef(out, function_form)] = std::move(var);
      removed.insert(n.name);
      changed = true;
    }
  }

  // Per node: output arg renames (function form) and output renumbering
  // (While loops that lose handle-carrying outputs).
  absl::flat_hash_map<std::string, std::pair<std::string, std::string>>
      arg_renames;
  absl::flat_hash_map<std::string, std::vector<int>> renumber;
  std::vector<NodeDef> added_nodes;

  for (NodeDef& n : *nodes) {
    if (removed.contains(n.name)) continue;
    std::map<int, VarRef> uses;  // data input position -> variable
    for (size_t j = 0; j < n.input.size(); ++j) {
      if (!n.input[j].empty() && n.input[j][0] == '^') continue;
      auto it = FindRef(bound, n.input[j], function_form);
      if (it != bound.end()) uses[static_cast<int>(j)] = it->second;
    }
    if (uses.empty()) continue;
    const VarRef& var = uses.begin()->second;
    const std::string var_text = absl::StrCat("variable '", var.name, "'");
    std::vector<std::string> controls;
    for (const std::string& in : n.input) {
      if (!in.empty() && in[0] == '^') controls.push_back(in);
    }

    if (IsWrite(n.op)) {
      return Error(where, n,
                   absl::StrCat("writes ", var_text,
                                "; only inference signatures, which read "
                                "their variables, can be loaded"));
    }
    if (n.op == "ReadVariableOp") {
      DataType want = var.value->dtype();
      auto dt = n.attr.find("dtype");
      if (dt != n.attr.end() && dt->second.kind == AttrValue::Kind::kType &&
          dt->second.type != want) {
        return Error(
            where, n,
            absl::StrCat("reads ", var_text, " as ",
                         DataTypeName(dt->second.type),
                         " but the checkpoint holds ", DataTypeName(want)));
      }
      NodeDef c = MakeConst(n.name, *var.value);
      c.input = controls;
      n = std::move(c);
      if (function_form) arg_renames[n.name] = {"value", "output"};
      continue;
    }
    if (n.op == "VarIsInitializedOp") {
      Tensor t(DT_BOOL, TensorShape());
      t.data<bool>()[0] = true;
      NodeDef c = MakeConst(n.name, t);
      c.input = controls;
      n = std::move(c);
      if (function_form) arg_renames[n.name] = {"is_initialized", "output"};
      continue;
    }
    if (n.op == "VariableShape") {
      DataType out = DT_INT32;
      auto it = n.attr.find("out_type");
      if (it != n.attr.end() && it->second.kind == AttrValue::Kind::kType) {
        out = it->second.type;
      }
      std::vector<int64_t> dims(var.value->shape().dim_sizes().begin(),
                                var.value->shape().dim_sizes().end());
      Tensor t = out == DT_INT64 ? Vector<int64_t>(dims, DT_INT64)
                                 : Vector<int32_t>(dims, DT_INT32);
      NodeDef c = MakeConst(n.name, t);
      c.input = controls;
      n = std::move(c);
      continue;
    }
    if (n.op == "DisableCopyOnRead") {
      removed.insert(n.name);
      continue;
    }
    if (n.op == "ResourceGather") {
      if (uses.count(0) == 0 || uses.size() != 1 || n.input.size() < 2) {
        return Error(where, n,
                     absl::StrCat("uses ", var_text, " as its indices"));
      }
      int64_t batch_dims = 0;
      auto bd = n.attr.find("batch_dims");
      if (bd != n.attr.end() && bd->second.kind == AttrValue::Kind::kInt) {
        batch_dims = bd->second.i;
      }
      DataType tindices = DT_INT32;
      auto ti = n.attr.find("Tindices");
      if (ti != n.attr.end() && ti->second.kind == AttrValue::Kind::kType) {
        tindices = ti->second.type;
      }
      Tensor axis(DT_INT32, TensorShape());
      axis.data<int32_t>()[0] = static_cast<int32_t>(batch_dims);
      NodeDef params = MakeConst(n.name + "/frozen_params", *var.value);
      NodeDef axis_node = MakeConst(n.name + "/frozen_axis", axis);
      auto out_of = [&](const NodeDef& c) {
        return SpellRef({c.name, function_form ? "output" : "", 0, false},
                        function_form);
      };
      std::vector<std::string> inputs = {out_of(params), n.input[1],
                                         out_of(axis_node)};
      inputs.insert(inputs.end(), controls.begin(), controls.end());
      NodeDef g;
      g.name = n.name;
      g.op = "GatherV2";
      g.device = n.device;
      g.input = std::move(inputs);
      g.attr["Tparams"] = AttrValue::Type(var.value->dtype());
      g.attr["Tindices"] = AttrValue::Type(tindices);
      g.attr["Taxis"] = AttrValue::Type(DT_INT32);
      g.attr["batch_dims"] = AttrValue::Int(batch_dims);
      n = std::move(g);
      added_nodes.push_back(std::move(params));
      added_nodes.push_back(std::move(axis_node));
      continue;
    }

    std::vector<int> drop;
    for (const auto& [j, v] : uses) drop.push_back(j);
    const std::string inner =
        absl::StrCat(where, "node '", n.name, "' (", n.op, ") -> ");
    if (IsCall(library_, n) || FindFunction(added_, n.op) != nullptr) {
      const bool direct =
          n.op != "PartitionedCall" && n.op != "StatefulPartitionedCall";
      std::string callee = n.op;
      if (!direct) {
        auto f = n.attr.find("f");
        if (f == n.attr.end() || f->second.kind != AttrValue::Kind::kFunc ||
            f->second.func == nullptr) {
          return Error(where, n, "has no function attr 'f'");
        }
        callee = f->second.func->name;
      }
      WEFT_ASSIGN_OR_RETURN(std::string name,
                            Specialize(callee, uses, {}, inner, depth + 1));
      if (direct) {
        n.op = name;
      } else {
        NameAttrList f = *n.attr["f"].func;
        f.name = name;
        n.attr["f"] = AttrValue::Func(std::move(f));
        EraseListAttr(&n.attr, "Tin", drop);
      }
      n.attr.erase("_read_only_resource_inputs");
      EraseAt(&n.input, drop);
      continue;
    }
    if (n.op == "If" || n.op == "StatelessIf" || n.op == "Case" ||
        n.op == "StatelessCase") {
      if (uses.count(0) != 0) {
        return Error(where, n,
                     absl::StrCat("takes ", var_text, " as its condition"));
      }
      std::map<int, VarRef> branch_uses;
      std::vector<int> tin_drop;
      for (const auto& [j, v] : uses) {
        branch_uses[j - 1] = v;
        tin_drop.push_back(j - 1);
      }
      std::vector<std::string> branch_attrs;
      if (n.op == "If" || n.op == "StatelessIf") {
        branch_attrs = {"then_branch", "else_branch"};
      }
      for (const std::string& a : branch_attrs) {
        auto it = n.attr.find(a);
        if (it == n.attr.end() || it->second.func == nullptr) {
          return Error(where, n, absl::StrCat("has no attr '", a, "'"));
        }
        WEFT_ASSIGN_OR_RETURN(std::string name,
                              Specialize(it->second.func->name, branch_uses, {},
                                         inner, depth + 1));
        NameAttrList f = *it->second.func;
        f.name = name;
        it->second = AttrValue::Func(std::move(f));
      }
      if (branch_attrs.empty()) {
        auto it = n.attr.find("branches");
        if (it == n.attr.end() || it->second.kind != AttrValue::Kind::kList) {
          return Error(where, n, "has no attr 'branches'");
        }
        for (NameAttrList& f : it->second.list->func) {
          WEFT_ASSIGN_OR_RETURN(
              f.name, Specialize(f.name, branch_uses, {}, inner, depth + 1));
        }
      }
      EraseListAttr(&n.attr, "Tin", tin_drop);
      EraseAt(&n.input, drop);
      continue;
    }
    if (n.op == "While" || n.op == "StatelessWhile") {
      std::set<int> outs(drop.begin(), drop.end());
      for (const char* a : {"cond", "body"}) {
        auto it = n.attr.find(a);
        if (it == n.attr.end() || it->second.func == nullptr) {
          return Error(where, n, absl::StrCat("has no attr '", a, "'"));
        }
        const bool is_body = std::string(a) == "body";
        WEFT_ASSIGN_OR_RETURN(
            std::string name,
            Specialize(it->second.func->name, uses,
                       is_body ? outs : std::set<int>{}, inner, depth + 1));
        NameAttrList f = *it->second.func;
        f.name = name;
        it->second = AttrValue::Func(std::move(f));
      }
      EraseListAttr(&n.attr, "T", drop);
      EraseListAttr(&n.attr, "output_shapes", drop);
      n.attr.erase("_num_original_outputs");
      const int num_outputs = static_cast<int>(n.input.size());
      std::vector<int> map(num_outputs);
      int next = 0;
      for (int k = 0; k < num_outputs; ++k) {
        map[k] = outs.count(k) != 0 ? -1 : next++;
      }
      renumber[n.name] = std::move(map);
      EraseAt(&n.input, drop);
      continue;
    }
    return Error(where, n,
                 absl::StrCat("uses ", var_text,
                              " as a resource in a way weft cannot turn into "
                              "a constant"));
  }

  // Re-spell references to rewritten nodes; drop the removed nodes. Only
  // inputs that name a renamed or renumbered node change. The reader is
  // node `user`, or output `output` of the body when `user` is null.
  auto respell = [&](std::string* input, const NodeDef* user,
                     absl::string_view output) -> Status {
    const absl::string_view node = RefNode(*input);
    if (!arg_renames.contains(node) && !renumber.contains(node)) {
      return Status();
    }
    Ref r = ParseRef(*input, function_form);
    if (r.control) return Status();
    auto rn = arg_renames.find(r.node);
    if (rn != arg_renames.end() && r.arg == rn->second.first) {
      r.arg = rn->second.second;
    }
    auto nb = renumber.find(r.node);
    if (nb != renumber.end()) {
      if (r.index < 0 || r.index >= static_cast<int>(nb->second.size()) ||
          nb->second[r.index] < 0) {
        const std::string reader =
            user != nullptr
                ? absl::StrCat("node '", user->name, "' (", user->op, ")")
                : absl::StrCat("output '", output, "'");
        return errors::InvalidArgument(
            context_, ": ", where, reader, " reads output ", r.index,
            " of loop '", r.node,
            "', which carries a variable's handle; weft cannot freeze that");
      }
      r.index = nb->second[r.index];
    }
    *input = SpellRef(r, function_form);
    return Status();
  };
  std::vector<NodeDef> kept;
  kept.reserve(nodes->size() + added_nodes.size());
  for (NodeDef& n : *nodes) {
    if (removed.contains(n.name)) continue;
    std::vector<std::string> inputs;
    for (std::string& in : n.input) {
      if (!in.empty() && in[0] == '^' &&
          removed.contains(absl::string_view(in).substr(1))) {
        continue;
      }
      if (auto it = FindRef(bound, in, function_form); it != bound.end()) {
        return Error(
            where, n,
            absl::StrCat("reads the handle of variable '", it->second.name,
                         "' where weft cannot follow it"));
      }
      WEFT_RETURN_IF_ERROR(respell(&in, &n, {}));
      inputs.push_back(std::move(in));
    }
    n.input = std::move(inputs);
    kept.push_back(std::move(n));
  }
  for (NodeDef& n : added_nodes) kept.push_back(std::move(n));
  *nodes = std::move(kept);
  if (ret != nullptr) {
    for (auto& [name, value] : *ret) {
      if (FindRef(bound, value, function_form) != bound.end()) continue;
      WEFT_RETURN_IF_ERROR(respell(&value, nullptr, name));
    }
  }
  return Status();
}

StatusOr<std::string> Freezer::Specialize(
    const std::string& name, const std::map<int, VarRef>& bound_args,
    const std::set<int>& removed_outputs, const std::string& where, int depth) {
  std::string key = name;
  for (const auto& [i, v] : bound_args)
    absl::StrAppend(&key, "|", i, "=", v.name);
  for (int o : removed_outputs) absl::StrAppend(&key, "|out", o);
  auto memo = memo_.find(key);
  if (memo != memo_.end()) return memo->second;

  const FunctionDef* original = Lookup(name);
  if (original == nullptr) {
    return errors::InvalidArgument(context_, ": ", where, "function '", name,
                                   "' is not in the graph's library");
  }
  FunctionDef f = TakeForSpecializing(name, *original);
  const std::string inner = absl::StrCat(where, "function '", name, "': ");
  absl::flat_hash_map<std::string, VarRef> bound;
  std::vector<int> drop_args;
  for (const auto& [i, v] : bound_args) {
    if (i < 0 || i >= static_cast<int>(f.signature.input_arg.size())) {
      return errors::InvalidArgument(context_, ": ", inner, "has no input ", i,
                                     " to bind variable '", v.name, "' to");
    }
    bound[f.signature.input_arg[i].name] = v;
    drop_args.push_back(i);
  }
  WEFT_RETURN_IF_ERROR(RewriteBody(&f.node_def, /*function_form=*/true, bound,
                                   inner, &f.ret, depth));
  // Outputs that pass a handle through (a While body's loop variable).
  std::vector<int> drop_outputs(removed_outputs.begin(), removed_outputs.end());
  for (int o : drop_outputs) {
    if (o < 0 || o >= static_cast<int>(f.signature.output_arg.size())) {
      return errors::InvalidArgument(context_, ": ", inner, "has no output ",
                                     o);
    }
    f.ret.erase(f.signature.output_arg[o].name);
  }
  EraseAt(&f.signature.output_arg, drop_outputs);
  for (const auto& [out, value] : f.ret) {
    auto it = FindRef(bound, value, /*function_form=*/true);
    if (it != bound.end()) {
      return errors::InvalidArgument(context_, ": ", inner, "output '", out,
                                     "' returns the handle of "
                                     "variable '",
                                     it->second.name,
                                     "', which weft cannot freeze");
    }
  }
  EraseAt(&f.signature.input_arg, drop_args);
  auto shift = [&](uint32_t i) {
    uint32_t below = 0;
    for (int d : drop_args) below += static_cast<uint32_t>(d) < i ? 1 : 0;
    return i - below;
  };
  std::map<uint32_t, AttrMap> arg_attr;
  for (auto& [i, a] : f.arg_attr) {
    if (!bound_args.count(static_cast<int>(i))) arg_attr[shift(i)] = a;
  }
  f.arg_attr = std::move(arg_attr);
  std::map<uint32_t, uint32_t> unique_id;
  for (auto& [i, id] : f.resource_arg_unique_id) {
    if (!bound_args.count(static_cast<int>(i))) unique_id[shift(i)] = id;
  }
  f.resource_arg_unique_id = std::move(unique_id);
  std::string new_name = absl::StrCat(name, "__frozen", added_.function.size());
  f.signature.name = new_name;
  added_.function.push_back(std::move(f));
  memo_[key] = new_name;
  return new_name;
}

// Function names a node refers to: its op, and func / list(func) attrs.
void CollectFunctions(const NodeDef& n, std::vector<std::string>* out) {
  out->push_back(n.op);
  for (const auto& [name, a] : n.attr) {
    if (a.kind == AttrValue::Kind::kFunc && a.func != nullptr) {
      out->push_back(a.func->name);
    } else if (a.kind == AttrValue::Kind::kList) {
      for (const NameAttrList& f : a.list->func) out->push_back(f.name);
    }
  }
}

// The library functions whose body freezing takes up at most once: called
// from exactly one node, which is at the top level (`nodes`) or in the body
// of such a function. Freezing specializes or keeps each call site's callee
// once per time it takes up the caller's body, so one of these, once
// specialized, is needed by nothing else (Freezer::TakeForSpecializing).
absl::flat_hash_set<std::string> SpecializedOnce(
    const std::vector<NodeDef>& nodes, const FunctionLibrary& library) {
  // How many times each function's body may be taken up, 2 meaning more
  // than once; to a fixpoint, which a recursive library also reaches.
  std::vector<std::string> callees;
  for (const NodeDef& n : nodes) CollectFunctions(n, &callees);
  absl::flat_hash_map<std::string, int> top;
  for (const std::string& c : callees) top[c] = std::min(2, top[c] + 1);
  absl::flat_hash_map<std::string, int> times;
  while (true) {
    absl::flat_hash_map<std::string, int> next = top;
    for (const FunctionDef& f : library.function) {
      auto it = times.find(f.signature.name);
      if (it == times.end()) continue;
      callees.clear();
      for (const NodeDef& n : f.node_def) CollectFunctions(n, &callees);
      for (const std::string& c : callees) {
        next[c] = std::min(2, next[c] + it->second);
      }
    }
    if (next == times) break;
    times = std::move(next);
  }
  absl::flat_hash_set<std::string> once;
  for (const auto& [name, t] : times) {
    if (t == 1 && FindFunction(library, name) != nullptr) once.insert(name);
  }
  return once;
}

}  // namespace

StatusOr<absl::flat_hash_set<std::string>> NodesNeededBy(
    const GraphDef& graph_def, const std::vector<std::string>& roots,
    absl::string_view context) {
  absl::flat_hash_map<absl::string_view, const NodeDef*> by_name;
  for (const NodeDef& n : graph_def.node) by_name[n.name] = &n;
  absl::flat_hash_set<std::string> needed;
  std::deque<const NodeDef*> queue;
  for (const std::string& name : roots) {
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      return errors::InvalidArgument(context, ": no node '", name,
                                     "' in the graph");
    }
    if (needed.insert(name).second) queue.push_back(it->second);
  }
  while (!queue.empty()) {
    const NodeDef* n = queue.front();
    queue.pop_front();
    for (const std::string& in : n->input) {
      auto it = by_name.find(RefNode(in));
      if (it == by_name.end()) {
        return errors::InvalidArgument(context, ": node '", n->name, "' (",
                                       n->op, ") reads '", in,
                                       "', which is no node of the graph");
      }
      if (needed.insert(std::string(it->first)).second) {
        queue.push_back(it->second);
      }
    }
  }
  return needed;
}

bool IsVariableOp(absl::string_view op) {
  return op == "VarHandleOp" || op == "VariableV2" || op == "Variable";
}

namespace {

// FreezeVariables; `consumable` is &graph_def when the caller gave it up
// (its kept nodes and functions are then moved, not copied), else null.
StatusOr<GraphDef> Freeze(
    const GraphDef& graph_def, GraphDef* consumable,
    const absl::flat_hash_map<std::string, Tensor>& values,
    const FreezeVariablesOptions& options) {
  // What the signature needs.
  WEFT_ASSIGN_OR_RETURN(
      const absl::flat_hash_set<std::string> keep,
      NodesNeededBy(graph_def, options.keep_nodes, options.context));

  std::vector<NodeDef> nodes;
  absl::flat_hash_map<std::string, VarRef> bound;
  for (size_t i = 0; i < graph_def.node.size(); ++i) {
    const NodeDef& n = graph_def.node[i];
    if (!keep.contains(n.name)) continue;
    if (!IsVariableOp(n.op)) {
      if (consumable != nullptr) {
        nodes.push_back(std::move(consumable->node[i]));
      } else {
        nodes.push_back(n);
      }
      continue;
    }
    auto v = values.find(n.name);
    if (v == values.end()) {
      return errors::InvalidArgument(
          options.context, ": variable '", n.name, "' (", n.op,
          ") is read but the checkpoint restores no value for it");
    }
    if (n.op == "VarHandleOp") {
      bound[n.name] = VarRef{n.name, &v->second};
      continue;
    }
    NodeDef c = MakeConst(n.name, v->second);
    for (const std::string& in : n.input) c.input.push_back(in);
    nodes.push_back(std::move(c));
  }
  Freezer freezer =
      consumable != nullptr
          ? Freezer(graph_def.library, options.context, &consumable->library,
                    SpecializedOnce(nodes, graph_def.library))
          : Freezer(graph_def.library, options.context);
  WEFT_RETURN_IF_ERROR(freezer.RewriteBody(&nodes, /*function_form=*/false,
                                           bound, "", nullptr, 0));
  // The handle nodes are gone; so are control inputs that waited for them.
  absl::flat_hash_set<std::string> handle_nodes;
  for (const auto& [name, var] : bound) handle_nodes.insert(name);
  for (NodeDef& n : nodes) {
    n.input.erase(std::remove_if(n.input.begin(), n.input.end(),
                                 [&](const std::string& in) {
                                   return !in.empty() && in[0] == '^' &&
                                          handle_nodes.contains(in.substr(1));
                                 }),
                  n.input.end());
  }

  GraphDef out;
  out.versions = graph_def.versions;
  out.node = std::move(nodes);
  // Only the functions the kept nodes reach: the freezer's specializations
  // moved out (it is done with them), the graph's own functions copied, or
  // moved when the caller gave them up.
  struct Source {
    const FunctionDef* copy = nullptr;
    FunctionDef* move = nullptr;
  };
  absl::flat_hash_map<std::string, Source> all;
  for (size_t i = 0; i < graph_def.library.function.size(); ++i) {
    const FunctionDef& f = graph_def.library.function[i];
    if (consumable != nullptr) {
      all[f.signature.name] = Source{nullptr, &consumable->library.function[i]};
    } else {
      all[f.signature.name] = Source{&f, nullptr};
    }
  }
  for (FunctionDef& f : freezer.added().function) {
    all[f.signature.name] = Source{nullptr, &f};
  }
  std::vector<std::string> pending;
  for (const NodeDef& n : out.node) CollectFunctions(n, &pending);
  absl::flat_hash_set<std::string> reached;
  while (!pending.empty()) {
    std::string name = std::move(pending.back());
    pending.pop_back();
    auto it = all.find(name);
    if (it == all.end() || !reached.insert(name).second) continue;
    const Source& source = it->second;
    if (source.move != nullptr) {
      out.library.function.push_back(std::move(*source.move));
    } else {
      out.library.function.push_back(*source.copy);
    }
    const FunctionDef& f = out.library.function.back();
    for (const NodeDef& n : f.node_def) CollectFunctions(n, &pending);
  }
  std::sort(out.library.function.begin(), out.library.function.end(),
            [](const FunctionDef& a, const FunctionDef& b) {
              return a.signature.name < b.signature.name;
            });
  return out;
}

}  // namespace

StatusOr<GraphDef> FreezeVariables(
    const GraphDef& graph_def,
    const absl::flat_hash_map<std::string, Tensor>& values,
    const FreezeVariablesOptions& options) {
  return Freeze(graph_def, nullptr, values, options);
}

StatusOr<GraphDef> FreezeVariables(
    GraphDef&& graph_def,
    const absl::flat_hash_map<std::string, Tensor>& values,
    const FreezeVariablesOptions& options) {
  return Freeze(graph_def, &graph_def, values, options);
}

}  // namespace weft
