#include "graph/function_library.h"

#include <algorithm>
#include <memory>
#include <type_traits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/import.h"

namespace weft {
namespace {

bool IsCallOp(absl::string_view op) {
  return op == "PartitionedCall" || op == "StatefulPartitionedCall";
}

const AttrValue* FindAttr(const AttrMap& attrs, absl::string_view name) {
  auto it = attrs.find(name);
  return it == attrs.end() ? nullptr : &it->second;
}

// The flat dtypes of `args` (an op's or a function's inputs or outputs) under
// `attrs`, and the flat range each arg covers. `defaults` supplies attrs the
// node leaves out (an op's declared defaults); it may be null.
Status FlattenArgs(const std::vector<OpDef::ArgDef>& args, const AttrMap& attrs,
                   const OpDef* defaults, std::vector<DataType>* types,
                   std::vector<std::pair<int, int>>* ranges) {
  auto lookup = [&](const std::string& name) -> const AttrValue* {
    if (const AttrValue* v = FindAttr(attrs, name)) return v;
    if (defaults != nullptr) {
      const OpDef::AttrDef* def = defaults->FindAttr(name);
      if (def != nullptr && def->default_value) return &*def->default_value;
    }
    return nullptr;
  };
  for (const OpDef::ArgDef& arg : args) {
    const int begin = static_cast<int>(types->size());
    if (!arg.type_list_attr.empty()) {
      const AttrValue* v = lookup(arg.type_list_attr);
      if (v == nullptr) {
        return errors::InvalidArgument("arg '", arg.name, "': attr '",
                                       arg.type_list_attr, "' is not set");
      }
      for (DataType t : v->list->type) types->push_back(t);
    } else {
      DataType t = arg.type;
      if (!arg.type_attr.empty()) {
        const AttrValue* v = lookup(arg.type_attr);
        if (v == nullptr || v->kind != AttrValue::Kind::kType) {
          return errors::InvalidArgument("arg '", arg.name, "': attr '",
                                         arg.type_attr, "' is not set");
        }
        t = v->type;
      }
      int64_t n = 1;
      if (!arg.number_attr.empty()) {
        const AttrValue* v = lookup(arg.number_attr);
        if (v == nullptr || v->kind != AttrValue::Kind::kInt || v->i < 0) {
          return errors::InvalidArgument("arg '", arg.name, "': attr '",
                                         arg.number_attr, "' is not set");
        }
        n = v->i;
      }
      for (int64_t i = 0; i < n; ++i) types->push_back(t);
    }
    if (ranges != nullptr) {
      ranges->emplace_back(begin, static_cast<int>(types->size()));
    }
  }
  return Status();
}

// Replaces placeholder attrs ("$T") with the call's values, inside function
// attrs too.
Status BindAttrs(const AttrMap& bindings, AttrMap* attrs) {
  for (auto& [name, value] : *attrs) {
    if (value.kind == AttrValue::Kind::kPlaceholder) {
      const AttrValue* bound = FindAttr(bindings, value.s);
      if (bound == nullptr) {
        return errors::InvalidArgument("attr '", name, "' is placeholder '$",
                                       value.s,
                                       "', which the call does not set");
      }
      value = *bound;
    } else if (value.kind == AttrValue::Kind::kFunc && value.func != nullptr) {
      NameAttrList f = *value.func;
      WEFT_RETURN_IF_ERROR(BindAttrs(bindings, &f.attr));
      value = AttrValue::Func(std::move(f));
    } else if (value.kind == AttrValue::Kind::kList &&
               !value.list->func.empty()) {
      for (NameAttrList& f : value.list->func) {
        WEFT_RETURN_IF_ERROR(BindAttrs(bindings, &f.attr));
      }
    }
  }
  return Status();
}

std::string TensorName(absl::string_view node, int index) {
  return index == 0 ? std::string(node) : absl::StrCat(node, ":", index);
}

// The ':'-separated parts of a body input ("arg", "node:out:0"): up to
// three, `size` 4 when there are more. Without a vector per input.
struct InputParts {
  absl::string_view part[3];
  size_t size = 0;
};

InputParts SplitInput(absl::string_view text) {
  InputParts out;
  size_t start = 0;
  while (true) {
    if (out.size == 3) {
      out.size = 4;
      return out;
    }
    const size_t colon = text.find(':', start);
    out.part[out.size++] = text.substr(
        start, colon == absl::string_view::npos ? colon : colon - start);
    if (colon == absl::string_view::npos) return out;
    start = colon + 1;
  }
}

// Builds one instantiation: the body's nodes with inputs re-spelled from the
// function-body form ("arg", "node:out_arg:k") into graph tensor names.
class Instantiator {
 public:
  Instantiator(const FunctionLibrary& library, const OpRegistry* registry)
      : library_(library), registry_(registry) {}

  // The flat input and output dtypes of `f` under its attrs.
  Status Signature(const FunctionDef& fdef, const NameAttrList& f,
                   std::vector<DataType>* inputs,
                   std::vector<std::pair<int, int>>* input_ranges,
                   std::vector<DataType>* outputs,
                   std::vector<std::pair<int, int>>* output_ranges) {
    WEFT_RETURN_IF_ERROR(FlattenArgs(fdef.signature.input_arg, f.attr, nullptr,
                                     inputs, input_ranges));
    return FlattenArgs(fdef.signature.output_arg, f.attr, nullptr, outputs,
                       output_ranges);
  }

  StatusOr<InstantiatedFunction> Run(const NameAttrList& f,
                                     absl::string_view prefix,
                                     const std::vector<std::string>& inputs) {
    const FunctionDef* fdef = FindFunction(library_, f.name);
    if (fdef == nullptr) {
      return errors::NotFound("function '", f.name,
                              "' is not in the graph's library");
    }
    const std::string where = absl::StrCat("function '", f.name, "'");
    InstantiatedFunction out;
    std::vector<std::pair<int, int>> in_ranges, out_ranges;
    WEFT_RETURN_IF_ERROR_CTX(Signature(*fdef, f, &out.input_types, &in_ranges,
                                       &out.output_types, &out_ranges),
                             where);
    if (inputs.size() != out.input_types.size()) {
      return errors::InvalidArgument(where, ": called with ", inputs.size(),
                                     " inputs; its signature takes ",
                                     out.input_types.size());
    }
    // Argument names -> their flat input range.
    absl::flat_hash_map<std::string, std::pair<int, int>> args;
    for (size_t k = 0; k < fdef->signature.input_arg.size(); ++k) {
      args[fdef->signature.input_arg[k].name] = in_ranges[k];
    }
    // Body node names -> their output arg ranges by arg name.
    absl::flat_hash_map<std::string,
                        absl::flat_hash_map<std::string, std::pair<int, int>>>
        node_outputs;
    out.nodes.reserve(fdef->node_def.size());
    for (const NodeDef& body : fdef->node_def) {
      // Spelled only for an error (it was a tenth of inlining a model).
      auto node_where = [&] {
        return absl::StrCat(where, ": node '", body.name, "' (", body.op, ")");
      };
      NodeDef node = body;
      WEFT_RETURN_IF_ERROR_CTX(BindAttrs(f.attr, &node.attr), node_where());
      const std::vector<OpDef::ArgDef>* output_args = nullptr;
      const OpDef* defaults = nullptr;
      if (const FunctionDef* callee = FindFunction(library_, node.op)) {
        output_args = &callee->signature.output_arg;
      } else {
        auto reg = registry_->LookUp(node.op);
        if (!reg.ok()) return AddContext(reg.status(), node_where());
        output_args = &(*reg)->op_def.output_arg;
        defaults = &(*reg)->op_def;
      }
      std::vector<DataType> types;
      std::vector<std::pair<int, int>> ranges;
      WEFT_RETURN_IF_ERROR_CTX(
          FlattenArgs(*output_args, node.attr, defaults, &types, &ranges),
          node_where());
      auto& by_arg = node_outputs[body.name];
      for (size_t k = 0; k < output_args->size(); ++k) {
        by_arg[(*output_args)[k].name] = ranges[k];
      }
      node.name = absl::StrCat(prefix, body.name);
      out.nodes.push_back(std::move(node));
    }
    // Inputs, now that every node's outputs are known.
    auto resolve = [&](absl::string_view text) -> StatusOr<std::string> {
      const InputParts parts = SplitInput(text);
      auto arg = args.find(parts.part[0]);
      if (arg != args.end() && parts.size <= 2) {
        int k = 0;
        if (parts.size == 2 && !absl::SimpleAtoi(parts.part[1], &k)) {
          return errors::InvalidArgument("malformed input '", text, "'");
        }
        if (k < 0 || arg->second.first + k >= arg->second.second) {
          return errors::InvalidArgument("input '", text, "' is out of range");
        }
        return inputs[arg->second.first + k];
      }
      auto node = node_outputs.find(parts.part[0]);
      if (node == node_outputs.end()) {
        return errors::InvalidArgument("input '", text,
                                       "' names no argument or node");
      }
      const std::string renamed = absl::StrCat(prefix, parts.part[0]);
      if (parts.size == 1) return renamed;
      if (parts.size == 2) {  // graph form "node:i"
        int i = 0;
        if (!absl::SimpleAtoi(parts.part[1], &i) || i < 0) {
          return errors::InvalidArgument("malformed input '", text, "'");
        }
        return TensorName(renamed, i);
      }
      auto range = node->second.find(parts.part[1]);
      int k = 0;
      if (parts.size != 3 || range == node->second.end() ||
          !absl::SimpleAtoi(parts.part[2], &k) || k < 0 ||
          range->second.first + k >= range->second.second) {
        return errors::InvalidArgument(
            "input '", text, "' names no output of node '", parts.part[0], "'");
      }
      return TensorName(renamed, range->second.first + k);
    };
    for (size_t n = 0; n < out.nodes.size(); ++n) {
      NodeDef& node = out.nodes[n];
      for (std::string& input : node.input) {
        if (!input.empty() && input[0] == '^') {
          const std::string target = input.substr(1);
          if (!node_outputs.contains(target)) {
            return errors::InvalidArgument(
                where, ": node '", fdef->node_def[n].name, "': control input '",
                input, "' names no node");
          }
          input = absl::StrCat("^", prefix, target);
          continue;
        }
        auto resolved = resolve(input);
        if (!resolved.ok()) {
          return AddContext(
              resolved.status(),
              absl::StrCat(where, ": node '", fdef->node_def[n].name, "'"));
        }
        input = *std::move(resolved);
      }
    }
    for (size_t k = 0; k < fdef->signature.output_arg.size(); ++k) {
      const std::string& name = fdef->signature.output_arg[k].name;
      if (out_ranges[k].second - out_ranges[k].first != 1) {
        return errors::Unimplemented(where, ": output '", name,
                                     "' is a list; weft runs functions whose "
                                     "outputs are single tensors");
      }
      auto ret = fdef->ret.find(name);
      if (ret == fdef->ret.end()) {
        return errors::InvalidArgument(where, ": output '", name,
                                       "' has no 'ret' entry");
      }
      auto resolved = resolve(ret->second);
      if (!resolved.ok()) {
        return AddContext(resolved.status(),
                          absl::StrCat(where, ": output '", name, "'"));
      }
      out.outputs.push_back(*std::move(resolved));
    }
    for (const auto& [name, node] : fdef->control_ret) {
      if (!node_outputs.contains(node)) {
        return errors::InvalidArgument(where, ": control output '", name,
                                       "' names no node '", node, "'");
      }
      out.control_outputs.push_back(absl::StrCat(prefix, node));
    }
    return out;
  }

 private:
  const FunctionLibrary& library_;
  const OpRegistry* registry_;
};

// More calls inlined, or nodes after inlining, than this is not a graph but
// a call tree multiplying itself (each function calling the next one twice
// grows the graph 2^depth-fold: every call gets its own copy of the body).
constexpr int64_t kMaxInlinedCalls = int64_t{1} << 16;
constexpr size_t kMaxInlinedNodes = size_t{1} << 20;

// Expands calls depth first into `out`; `stack` holds the functions being
// expanded, to refuse recursion.
class Inliner {
 public:
  Inliner(const FunctionLibrary& library, const OpRegistry* registry,
          absl::string_view source)
      : library_(library), registry_(registry), source_(source) {}

  // Appends `node` to `out`, or, for a call, the callee's body (calls in it
  // expanded too).
  Status Expand(NodeDef node, std::vector<std::string>* stack,
                std::vector<NodeDef>* out) {
    NameAttrList f;
    auto is_call = GetFunctionCall(library_, node, &f);
    if (is_call.ok() && !*is_call) {
      out->push_back(std::move(node));
      return Status();
    }
    const std::string where =
        absl::StrCat(source_, ": node '", node.name, "' (", node.op, ")");
    if (!is_call.ok()) return AddContext(is_call.status(), where);
    for (const std::string& caller : *stack) {
      if (caller == f.name) {
        return errors::InvalidArgument(
            where, ": function '", f.name, "' calls itself (",
            absl::StrJoin(*stack, " -> "), " -> ", f.name,
            "); recursive functions cannot be inlined");
      }
    }
    std::vector<std::string> data, control;
    for (const std::string& input : node.input) {
      (!input.empty() && input[0] == '^' ? control : data).push_back(input);
    }
    const std::string prefix = absl::StrCat(node.name, "/");
    if (calls_ >= kMaxInlinedCalls) {
      return errors::InvalidArgument(where, ": inlining function '", f.name,
                                     "' makes more than ", kMaxInlinedCalls,
                                     " calls");
    }
    ++calls_;
    auto instantiated = Instantiator(library_, registry_).Run(f, prefix, data);
    if (!instantiated.ok()) return AddContext(instantiated.status(), where);
    InstantiatedFunction body = *std::move(instantiated);
    if (out->size() + body.nodes.size() > kMaxInlinedNodes) {
      return errors::InvalidArgument(where, ": inlining function '", f.name,
                                     "' makes the graph more than ",
                                     kMaxInlinedNodes, " nodes");
    }
    // A call's declared Tin/Tout must agree with the body's signature.
    if (const AttrValue* tin = FindAttr(node.attr, "Tin");
        tin != nullptr && IsCallOp(node.op) &&
        tin->list->type != body.input_types) {
      return errors::InvalidArgument(where, ": attr 'Tin' is [",
                                     TypeList(tin->list->type),
                                     "] but function '", f.name, "' takes [",
                                     TypeList(body.input_types), "]");
    }
    if (const AttrValue* tout = FindAttr(node.attr, "Tout");
        tout != nullptr && IsCallOp(node.op) &&
        tout->list->type != body.output_types) {
      return errors::InvalidArgument(where, ": attr 'Tout' is [",
                                     TypeList(tout->list->type),
                                     "] but function '", f.name, "' returns [",
                                     TypeList(body.output_types), "]");
    }
    if (!control.empty()) {
      // The call's control inputs gate the whole body, as they would gate
      // the call.
      NodeDef gate;
      gate.name = absl::StrCat(prefix, "_weft_call_inputs");
      gate.op = "NoOp";
      gate.input = control;
      gate.device = node.device;
      out->push_back(std::move(gate));
      for (NodeDef& n : body.nodes) {
        n.input.push_back(absl::StrCat("^", prefix, "_weft_call_inputs"));
      }
    }
    stack->push_back(f.name);
    for (NodeDef& n : body.nodes) {
      if (n.device.empty()) n.device = node.device;
      WEFT_RETURN_IF_ERROR(Expand(std::move(n), stack, out));
    }
    stack->pop_back();
    NodeDef result;
    result.name = node.name;
    result.device = node.device;
    if (body.outputs.empty()) {
      result.op = "NoOp";
    } else {
      result.op = "IdentityN";
      result.input = body.outputs;
      result.attr["T"] = AttrValue::TypeList(body.output_types);
    }
    for (const std::string& c : body.control_outputs) {
      result.input.push_back(absl::StrCat("^", c));
    }
    out->push_back(std::move(result));
    return Status();
  }

 private:
  static std::string TypeList(const std::vector<DataType>& types) {
    std::vector<std::string> names;
    for (DataType t : types) names.push_back(DataTypeName(t));
    return absl::StrJoin(names, ", ");
  }

  const FunctionLibrary& library_;
  const OpRegistry* registry_;
  const std::string source_;
  int64_t calls_ = 0;  // calls inlined so far
};

}  // namespace

const FunctionDef* FindFunction(const FunctionLibrary& library,
                                absl::string_view name) {
  for (const FunctionDef& f : library.function) {
    if (f.signature.name == name) return &f;
  }
  return nullptr;
}

StatusOr<bool> GetFunctionCall(const FunctionLibrary& library,
                               const NodeDef& node, NameAttrList* f) {
  if (IsCallOp(node.op)) {
    const AttrValue* attr = FindAttr(node.attr, "f");
    if (attr == nullptr || attr->kind != AttrValue::Kind::kFunc ||
        attr->func == nullptr) {
      return errors::InvalidArgument("attr 'f' names no function");
    }
    *f = *attr->func;
    return true;
  }
  if (FindFunction(library, node.op) != nullptr) {
    f->name = node.op;
    f->attr = node.attr;
    return true;
  }
  return false;
}

bool HasFunctionCalls(const GraphDef& graph_def) {
  absl::flat_hash_set<absl::string_view> functions;
  for (const FunctionDef& f : graph_def.library.function) {
    functions.insert(f.signature.name);
  }
  for (const NodeDef& node : graph_def.node) {
    if (IsCallOp(node.op) || functions.contains(node.op)) return true;
  }
  return false;
}

StatusOr<InstantiatedFunction> InstantiateFunction(
    const FunctionLibrary& library, const NameAttrList& f,
    absl::string_view prefix, const std::vector<std::string>& inputs,
    const OpRegistry* registry) {
  return Instantiator(library, registry).Run(f, prefix, inputs);
}

namespace {

// InlineFunctionCalls of a GraphDef read (const) or consumed (an rvalue,
// whose nodes and library move into the result).
template <typename Def>
StatusOr<GraphDef> InlineCalls(Def&& graph_def, const OpRegistry* registry,
                               absl::string_view source_name) {
  GraphDef out;
  out.versions = graph_def.versions;
  out.node.reserve(graph_def.node.size());
  Inliner inliner(graph_def.library, registry, source_name);
  std::vector<std::string> stack;
  for (auto& node : graph_def.node) {
    if constexpr (std::is_lvalue_reference_v<Def>) {
      WEFT_RETURN_IF_ERROR(inliner.Expand(node, &stack, &out.node));
    } else {
      WEFT_RETURN_IF_ERROR(inliner.Expand(std::move(node), &stack, &out.node));
    }
  }
  out.library = std::forward<Def>(graph_def).library;
  return out;
}

}  // namespace

StatusOr<GraphDef> InlineFunctionCalls(const GraphDef& graph_def,
                                       const OpRegistry* registry,
                                       absl::string_view source_name) {
  return InlineCalls(graph_def, registry, source_name);
}

StatusOr<GraphDef> InlineFunctionCalls(GraphDef&& graph_def,
                                       const OpRegistry* registry,
                                       absl::string_view source_name) {
  return InlineCalls(std::move(graph_def), registry, source_name);
}

StatusOr<FunctionGraph> FunctionBodyGraph(
    const FunctionLibrary& library, const NameAttrList& f,
    absl::string_view prefix,
    const std::vector<PartialTensorShape>& input_shapes,
    const OpRegistry* registry) {
  const FunctionDef* fdef = FindFunction(library, f.name);
  if (fdef == nullptr) {
    return errors::NotFound("function '", f.name,
                            "' is not in the graph's library");
  }
  FunctionGraph out;
  std::vector<DataType> outputs;
  WEFT_RETURN_IF_ERROR_CTX(FlattenArgs(fdef->signature.input_arg, f.attr,
                                       nullptr, &out.input_types, nullptr),
                           absl::StrCat("function '", f.name, "'"));
  for (size_t i = 0; i < out.input_types.size(); ++i) {
    NodeDef arg;
    arg.name = absl::StrCat(prefix, "_arg", i);
    arg.op = "Placeholder";
    arg.attr["dtype"] = AttrValue::Type(out.input_types[i]);
    arg.attr["shape"] = AttrValue::Shape(
        i < input_shapes.size() ? input_shapes[i] : PartialTensorShape());
    out.feeds.push_back(arg.name);
    out.graph_def.node.push_back(std::move(arg));
  }
  WEFT_ASSIGN_OR_RETURN(
      InstantiatedFunction body,
      InstantiateFunction(library, f, prefix, out.feeds, registry));
  for (NodeDef& n : body.nodes) out.graph_def.node.push_back(std::move(n));
  out.fetches = std::move(body.outputs);
  out.targets = std::move(body.control_outputs);
  out.output_types = std::move(body.output_types);
  out.graph_def.library = library;
  return out;
}

std::vector<bool> PassedThroughInputs(const FunctionGraph& fn) {
  absl::flat_hash_map<absl::string_view, const NodeDef*> by_name;
  for (const NodeDef& n : fn.graph_def.node) by_name[n.name] = &n;
  std::vector<bool> out(fn.feeds.size(), false);
  for (size_t i = 0; i < fn.feeds.size() && i < fn.fetches.size(); ++i) {
    auto t = ParseNodeInput(fn.fetches[i]);
    // Identity's data input is its first; a chain longer than the graph
    // would be a cycle, which import refuses anyway.
    for (size_t hops = 0; t.ok() && !t->is_control && t->index == 0 &&
                          hops <= fn.graph_def.node.size();
         ++hops) {
      if (t->node == fn.feeds[i]) {
        out[i] = true;
        break;
      }
      auto it = by_name.find(t->node);
      if (it == by_name.end() || it->second->op != "Identity" ||
          it->second->input.empty()) {
        break;
      }
      t = ParseNodeInput(it->second->input[0]);
    }
  }
  return out;
}

FunctionGraph LoopStepGraph(const FunctionGraph& body,
                            const FunctionGraph& cond) {
  FunctionGraph step = body;
  for (const NodeDef& n : cond.graph_def.node) {
    const auto feed = std::find(cond.feeds.begin(), cond.feeds.end(), n.name);
    if (feed == cond.feeds.end()) {
      step.graph_def.node.push_back(n);
      continue;
    }
    const size_t i = feed - cond.feeds.begin();
    NodeDef read;
    read.name = n.name;
    read.op = "Identity";
    read.device = n.device;
    read.input = {body.fetches[i]};
    read.attr["T"] = AttrValue::Type(cond.input_types[i]);
    step.graph_def.node.push_back(std::move(read));
  }
  step.fetches.insert(step.fetches.end(), cond.fetches.begin(),
                      cond.fetches.end());
  step.targets.insert(step.targets.end(), cond.targets.begin(),
                      cond.targets.end());
  step.output_types.insert(step.output_types.end(), cond.output_types.begin(),
                           cond.output_types.end());
  return step;
}

}  // namespace weft
