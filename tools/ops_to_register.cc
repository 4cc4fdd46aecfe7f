#include "tools/ops_to_register.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <system_error>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "device/cpu_device.h"
#include "executor/graph_optimizer.h"
#include "graph/graph.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "kernels/kernel_registry.h"
#include "ops/op_def_util.h"
#include "ops/op_registry.h"
#include "savedmodel/saved_model.h"

namespace weft::cli {
namespace {

// The kernel `node` (validated) selects on each device type that has
// kernels for its op. A device without a matching kernel adds nothing: the
// full build could not run the node there either.
void AddSelectedKernels(const NodeDef& node, const OpDef& op_def,
                        OpsToRegister* out) {
  const KernelRegistry& kernels = *KernelRegistry::Global();
  absl::flat_hash_set<std::string> devices;
  for (const KernelRegistration* reg :
       kernels.RegistrationsForOp(op_def.name)) {
    devices.insert(reg->def.device_type);
  }
  for (const std::string& device : devices) {
    auto found = kernels.FindKernel(node, op_def, device);
    if (found.ok() && !(*found)->kernel_class_name.empty()) {
      out->kernel_classes.insert((*found)->kernel_class_name);
    }
  }
}

void AddAllKernels(absl::string_view op, OpsToRegister* out) {
  for (const KernelRegistration* reg :
       KernelRegistry::Global()->RegistrationsForOp(op)) {
    if (!reg->kernel_class_name.empty()) {
      out->kernel_classes.insert(reg->kernel_class_name);
    }
  }
}

// A node as the file writes it (in the graph or a function body). Calls to
// library functions add nothing here: the function's body is added itself.
Status AddNodeAsWritten(const NodeDef& def, absl::string_view where,
                        bool in_function,
                        const absl::flat_hash_set<std::string>& functions,
                        OpsToRegister* out) {
  if (functions.contains(def.op)) return Status();
  const std::string label =
      absl::StrCat(where, ": node '", def.name, "' (", def.op, ")");
  auto reg = OpRegistry::Global()->LookUp(def.op);
  if (!reg.ok()) return AddContext(reg.status(), label);
  out->ops.insert(def.op);
  NodeDef validated = def;
  auto types = ValidateNode((*reg)->op_def, &validated);
  if (types.ok()) {
    AddSelectedKernels(validated, (*reg)->op_def, out);
  } else if (in_function) {
    // Attrs bound per call ("$T"): which kernel a call selects is unknown.
    AddAllKernels(def.op, out);
  } else {
    return AddContext(types.status(), where);
  }
  return Status();
}

// Adds the fused op `fused` and the kernels a node of it selects on the CPU
// (the only device with fused kernels), the node written as the optimizer
// would write it from `head`: the head's attrs the fused op has, then
// `attrs`, and `inputs`. Nothing when this weft has no such op; the node's
// validation error when it does not validate. The head is given by its
// name and attrs (a node of a function body is a NodeDef only).
Status AddCandidate(const std::string& head_name, const AttrMap& head_attrs,
                    const std::string& fused, const std::string& suffix,
                    const AttrMap& attrs, std::vector<std::string> inputs,
                    OpsToRegister* out) {
  auto reg = OpRegistry::Global()->LookUp(fused);
  if (!reg.ok()) return Status();
  const OpDef& op_def = (*reg)->op_def;
  NodeDef def;
  def.name = head_name + suffix;
  def.op = fused;
  for (const OpDef::AttrDef& a : op_def.attr) {
    auto it = head_attrs.find(a.name);
    if (it != head_attrs.end()) def.attr[a.name] = it->second;
  }
  for (const auto& [name, value] : attrs) def.attr[name] = value;
  def.input = std::move(inputs);
  WEFT_RETURN_IF_ERROR(ValidateNode(op_def, &def).status());
  out->ops.insert(fused);
  AddSelectedKernels(def, op_def, out);
  return Status();
}

Status AddCandidate(const Node& head, const std::string& fused,
                    const std::string& suffix, const AttrMap& attrs,
                    std::vector<std::string> inputs, OpsToRegister* out) {
  return AddCandidate(head.name(), head.attrs(), fused, suffix, attrs,
                      std::move(inputs), out);
}

// An element-wise node that another reads (elementwise_fusion_rule.h): a
// one-step _FusedElementwise stands for the group it may join. A body node
// whose T is the function's attr ("$T") may be float in some call; a node
// of another dtype is not rewritten.
void AddElementwiseCandidate(const std::string& name, const AttrMap& attrs,
                             OpsToRegister* out) {
  AttrMap program = {{"N", AttrValue::Int(1)},
                     {"num_outputs", AttrValue::Int(1)},
                     {"ops", AttrValue::StringList({"Neg"})},
                     {"operands", AttrValue::IntList({0, -1})},
                     {"results", AttrValue::IntList({1})}};
  auto t = attrs.find("T");
  if (t != attrs.end() && t->second.kind == AttrValue::Kind::kPlaceholder) {
    program["T"] = AttrValue::Type(DT_FLOAT);
  }
  AddCandidate(name, attrs, "_FusedElementwise", "/elementwise_candidate",
               program, {"x"}, out)
      .IgnoreError();
}

// An integer or boolean node of the scalar fusion's vocabulary
// (scalar_fusion_rule.h): whether it joins a group depends on shapes known
// only once a loop's body and cond are one step, so any such node counts.
// The kernel has no type constraint: one program stands for all.
void AddScalarCandidate(const std::string& name, OpsToRegister* out) {
  const AttrMap program = {{"Tin", AttrValue::TypeList({DT_BOOL})},
                           {"Tout", AttrValue::TypeList({DT_BOOL})},
                           {"ops", AttrValue::StringList({"LogicalNot"})},
                           {"operands", AttrValue::IntList({0, -1})},
                           {"results", AttrValue::IntList({1})}};
  AddCandidate(name, {}, "_FusedScalars", "/scalar_candidate", program, {"x"},
               out)
      .IgnoreError();
}

// Whether a consumer of output 0 of `node` is one of `ops`.
bool ReadBy(const Node& node, bool (*ops)(absl::string_view)) {
  for (const Endpoint& c : node.consumers(0)) {
    if (ops(c.node->op())) return true;
  }
  return false;
}

bool IsDenseBiasNext(absl::string_view op) {
  return op == "Reshape" || op == "BiasAdd" || op == "Add" || op == "AddV2";
}

// Rule-derived fusions: the fused op a float32 node may become when what
// reads it could be absorbed, whether or not the signature analysed below
// lets the optimizer fuse it.
Status AddFusionCandidates(const Graph& graph, OpsToRegister* out) {
  const AttrMap one_bias = {{"num_args", AttrValue::Int(1)},
                            {"fused_ops", AttrValue::StringList({"BiasAdd"})}};
  for (const auto& node : graph.nodes()) {
    if (IsScalarFusionOp(node->op()) && node->num_outputs() == 1 &&
        (node->output_type(0) == DT_INT32 || node->output_type(0) == DT_INT64 ||
         node->output_type(0) == DT_BOOL)) {
      AddScalarCandidate(node->name(), out);
    }
    if (node->num_outputs() < 1 || node->output_type(0) != DT_FLOAT) {
      continue;
    }
    // A product and the chain after it (fusion_rule.h), with one bias.
    if (IsFusionHead(node->op()) && ReadBy(*node, IsFusionLink)) {
      const std::string fused = FusedOpName(node->op());
      Status s = AddCandidate(*node, fused, "/fusion_candidate", one_bias,
                              {"input", "filter", "bias"}, out);
      if (!s.ok()) {
        return errors::Internal("node ", node->DebugName(), ": fusing into '",
                                fused, "': ", s.message());
      }
    }
    // A product by a constant kernel followed by a Reshape or a bias: a
    // _FusedMatMul between two Reshapes (dense_bias_rule.h).
    if (IsDenseBiasProduct(node->op()) && ReadBy(*node, IsDenseBiasNext)) {
      AddCandidate(*node, "_FusedMatMul", "/dense_candidate", one_bias,
                   {"input", "kernel", "bias"}, out)
          .IgnoreError();  // an integer or adjoint product: not rewritten
    }
    // A Mul by a constant per channel followed by a bias or an activation
    // (a batch normalization standing alone): a 1x1 depthwise convolution
    // (fusion_rule.h).
    if (node->op() == "Mul" && ReadBy(*node, IsFusionLink)) {
      AttrMap attrs = one_bias;
      attrs["strides"] = AttrValue::IntList({1, 1, 1, 1});
      attrs["padding"] = AttrValue::String("VALID");
      AddCandidate(*node, "_FusedDepthwiseConv2dNative", "/scale_candidate",
                   attrs, {"input", "filter", "bias"}, out)
          .IgnoreError();  // not a float tensor: not rewritten
    }
    // Element-wise nodes, one reading another: a _FusedElementwise
    // (elementwise_fusion_rule.h).
    if (IsElementwiseFusionOp(node->op()) &&
        ReadBy(*node, IsElementwiseFusionOp)) {
      AddElementwiseCandidate(node->name(), node->attrs(), out);
    }
    // A depthwise convolution and the 1x1 convolution after it: one
    // _FusedSeparableConv2D, or with a 1x1 expansion before it one
    // _FusedExpandSeparableConv2D (fusion_rule.h).
    if (node->op() == "DepthwiseConv2dNative") {
      AddCandidate(*node, "_FusedSeparableConv2D", "/separable_candidate",
                   {{"num_depthwise_args", AttrValue::Int(0)},
                    {"num_args", AttrValue::Int(0)}},
                   {"input", "depthwise_filter", "pointwise_filter"}, out)
          .IgnoreError();  // an NCHW depthwise convolution: not fused
      AddCandidate(
          *node, "_FusedExpandSeparableConv2D", "/expand_candidate",
          {{"num_expand_args", AttrValue::Int(0)},
           {"num_depthwise_args", AttrValue::Int(0)},
           {"num_args", AttrValue::Int(0)}},
          {"input", "expand_filter", "depthwise_filter", "pointwise_filter"},
          out)
          .IgnoreError();  // as above
    }
  }
  return Status();
}

// Runs the graph optimizer as a session would on the signature that feeds
// every Placeholder and fetches every output nobody consumes, and adds the
// optimized graph's nodes.
Status AddOptimizedGraph(const Graph& graph, absl::string_view source,
                         OpsToRegister* out) {
  std::vector<std::string> feeds, fetches, targets;
  std::vector<const Node*> live;
  for (const auto& node : graph.nodes()) {
    const Node* n = node.get();
    if (n->op() == "Placeholder") {
      feeds.push_back(n->name());
      continue;
    }
    live.push_back(n);
    bool consumed = !n->control_outputs().empty();
    for (int o = 0; o < n->num_outputs(); ++o) {
      consumed = consumed || !n->consumers(o).empty();
    }
    if (consumed) continue;
    if (n->num_outputs() == 0) targets.push_back(n->name());
    for (int o = 0; o < n->num_outputs(); ++o) {
      fetches.push_back(absl::StrCat(n->name(), ":", o));
    }
  }
  if (fetches.empty() && targets.empty()) return Status();
  CpuDevice cpu("cpu:0", /*arena=*/nullptr);
  GraphOptimizerOptions options;
  options.source_name = std::string(source);
  options.cpu = &cpu;
  options.place = [&cpu](const Node*) -> Device* { return &cpu; };
  WEFT_ASSIGN_OR_RETURN(
      std::unique_ptr<OptimizedGraph> optimized,
      OptimizeGraph(graph, live, feeds, fetches, targets, options));
  if (optimized == nullptr) return Status();
  for (const auto& node : optimized->graph().nodes()) {
    out->ops.insert(node->op());
    AddSelectedKernels(node->def(), node->op_def(), out);
  }
  return Status();
}

void AppendStringLiteral(std::string* out, absl::string_view s) {
  out->push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') out->push_back('\\');
    out->push_back(c);
  }
  out->push_back('"');
}

void AppendNameList(std::string* out, absl::string_view name,
                    const std::set<std::string>& names) {
  absl::StrAppend(out, "inline constexpr const char* ", name, "[] = {\n");
  // C++ has no empty arrays; "" matches no op and no kernel class.
  if (names.empty()) *out += "    \"\",  // none\n";
  for (const std::string& n : names) {
    *out += "    ";
    AppendStringLiteral(out, n);
    *out += ",\n";
  }
  *out += "};\n";
}

}  // namespace

Status AddGraphDef(const GraphDef& graph_def, absl::string_view source,
                   OpsToRegister* out) {
  absl::flat_hash_set<std::string> functions;
  for (const FunctionDef& f : graph_def.library.function) {
    functions.insert(f.signature.name);
  }
  for (const NodeDef& def : graph_def.node) {
    WEFT_RETURN_IF_ERROR(
        AddNodeAsWritten(def, source, /*in_function=*/false, functions, out));
  }
  for (const FunctionDef& f : graph_def.library.function) {
    const std::string where =
        absl::StrCat(source, ": function '", f.signature.name, "'");
    for (const NodeDef& def : f.node_def) {
      WEFT_RETURN_IF_ERROR(
          AddNodeAsWritten(def, where, /*in_function=*/true, functions, out));
    }
    // The bodies are optimized when a call's kernel is made
    // (executor/control_flow.h): element-wise nodes reading each other
    // there may become a _FusedElementwise too, and integer and boolean
    // scalar nodes a _FusedScalars.
    absl::flat_hash_set<absl::string_view> elementwise;
    for (const NodeDef& def : f.node_def) {
      if (IsElementwiseFusionOp(def.op)) elementwise.insert(def.name);
      // A loop's counters and conds: a _FusedScalars.
      if (IsScalarFusionOp(def.op)) AddScalarCandidate(def.name, out);
    }
    for (const NodeDef& def : f.node_def) {
      if (!IsElementwiseFusionOp(def.op)) continue;
      for (const std::string& in : def.input) {
        // "node:output:index" in a body; "^node" is a control input.
        const absl::string_view src =
            absl::string_view(in).substr(0, std::min(in.find(':'), in.size()));
        if (elementwise.contains(src)) {
          AddElementwiseCandidate(def.name, def.attr, out);
          break;
        }
      }
    }
  }
  out->sources.push_back(std::string(source));

  ImportOptions import_options;
  import_options.source_name = std::string(source);
  auto graph_or = ImportGraphDef(graph_def, import_options);
  if (!graph_or.ok()) {
    // What this weft cannot import yet (calls of library functions it does
    // not inline) it cannot run either; the ops above are still what the
    // graph is made of.
    if (graph_or.status().code() != absl::StatusCode::kUnimplemented) {
      return graph_or.status();
    }
    out->notes.push_back(absl::StrCat(
        graph_or.status().message(),
        "; what the graph optimizer would make of it is not included"));
    return Status();
  }
  std::unique_ptr<Graph> graph = *std::move(graph_or);
  ShapeInferenceOptions shape_options;
  shape_options.source_name = std::string(source);
  WEFT_RETURN_IF_ERROR(InferShapes(graph.get(), shape_options));
  WEFT_RETURN_IF_ERROR(AddOptimizedGraph(*graph, source, out));
  WEFT_RETURN_IF_ERROR(AddFusionCandidates(*graph, out));
  return Status();
}

Status AddGraphFile(const std::string& path, OpsToRegister* out) {
  if (IsSavedModelDirectory(path)) {
    // Every runnable signature of the serving meta graph, variables frozen
    // (so the fusions the optimizer makes with constant weights count).
    WEFT_ASSIGN_OR_RETURN(SavedModelDef model, ReadSavedModel(path));
    SavedModelLoadOptions load;
    WEFT_ASSIGN_OR_RETURN(const SavedMetaGraphDef* meta,
                          FindMetaGraph(model, load.tags, path));
    for (const std::string& key : RunnableSignatures(*meta)) {
      load.signature = key;
      WEFT_ASSIGN_OR_RETURN(LoadedSavedModel loaded,
                            LoadSavedModel(path, load));
      WEFT_RETURN_IF_ERROR(AddGraphDef(
          loaded.graph_def, absl::StrCat(path, " (signature ", key, ")"), out));
    }
    return Status();
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return errors::InvalidArgument(
        path,
        ": is a directory but not a SavedModel (no saved_model.pb or "
        "saved_model.pbtxt); `weft ops --used-by` reads GraphDef files (.pb, "
        ".pbtxt) and SavedModel directories");
  }
  WEFT_ASSIGN_OR_RETURN(GraphDef graph_def, LoadGraphDef(path));
  return AddGraphDef(graph_def, path, out);
}

std::string OpsToRegisterHeader(const OpsToRegister& selection) {
  std::string out =
      "// ops_to_register.h: the ops and kernel classes a selective build of "
      "weft\n// registers (cmake -DWEFT_SELECTIVE_REGISTRATION=<this file>). "
      "Written by\n// `weft ops --used-by GRAPH... --header` from:\n";
  for (const std::string& s : selection.sources) {
    absl::StrAppend(&out, "//   ", s, "\n");
  }
  absl::StrAppend(&out, "// ", selection.ops.size(), " ops, ",
                  selection.kernel_classes.size(),
                  " kernel classes. Regenerate it when the graphs change.\n");
  out +=
      "#ifndef WEFT_OPS_TO_REGISTER_H_\n"
      "#define WEFT_OPS_TO_REGISTER_H_\n"
      "\n"
      "namespace weft_ops_to_register {\n"
      "\n";
  AppendNameList(&out, "kOps", selection.ops);
  out += "\n";
  AppendNameList(&out, "kKernelClasses", selection.kernel_classes);
  out +=
      "\n"
      "constexpr bool Equal(const char* a, const char* b) {\n"
      "  while (*a != '\\0' && *a == *b) {\n"
      "    ++a;\n"
      "    ++b;\n"
      "  }\n"
      "  return *a == *b;\n"
      "}\n"
      "\n"
      "template <int N>\n"
      "constexpr bool Contains(const char* const (&names)[N], const char* "
      "name) {\n"
      "  for (const char* n : names) {\n"
      "    if (Equal(n, name)) return true;\n"
      "  }\n"
      "  return false;\n"
      "}\n"
      "\n"
      "}  // namespace weft_ops_to_register\n"
      "\n"
      "constexpr bool ShouldRegisterOp(const char* name) {\n"
      "  return weft_ops_to_register::Contains(weft_ops_to_register::kOps, "
      "name);\n"
      "}\n"
      "\n"
      "constexpr bool ShouldRegisterOpKernel(const char* kernel_class) {\n"
      "  return weft_ops_to_register::Contains(\n"
      "      weft_ops_to_register::kKernelClasses, kernel_class);\n"
      "}\n"
      "\n"
      "#endif  // WEFT_OPS_TO_REGISTER_H_\n";
  return out;
}

}  // namespace weft::cli
