// weft inspect GRAPH: what a graph file holds and what weft makes of it.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "device/device.h"
#include "executor/control_flow.h"
#include "graph/graph_def_io.h"
#include "graph/graph_signature.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "kernels/kernel_registry.h"
#include "savedmodel/saved_model.h"
#include "tools/cli.h"
#include "tools/saved_model_summary.h"

namespace weft::cli {
namespace {

constexpr char kHelp[] =
    "usage: weft inspect GRAPH [--input NAME:SHAPE ...] [--format F]\n"
    "                          [--device D] [--load LIB.so ...]\n"
    "                          [--signature KEY] [--tag TAGS]\n"
    "\n"
    "GRAPH may be a SavedModel directory: then its meta graphs' tags, every\n"
    "signature with input and output keys, dtypes and shapes, and the\n"
    "variables' count and bytes come first, and the rest describes the\n"
    "graph of one signature (--signature, --tag) with its variables frozen.\n"
    "\n"
    "Loads a TensorFlow graph file (.pb binary or .pbtxt text), validates\n"
    "it and infers shapes, then prints its inputs (placeholders) and outputs\n"
    "(nodes nobody consumes) with dtypes and shapes, the op histogram, node\n"
    "count, parameters held in constants, and the ops whose nodes have no\n"
    "kernel on the device. A graph that does not import still gets its\n"
    "summary: every unknown op (with its node count and first node), every\n"
    "attr, dtype or input error, and the kernels missing for the nodes that\n"
    "validated, all at once. Exits 1 when the graph does not import or a node\n"
    "cannot run on the device (`weft run` stops at the first problem).\n"
    "\n"
    "  --input NAME:SHAPE  give a placeholder a shape, e.g. x:1,224,224,3\n"
    "                      ('?' or -1 for an unknown dim, '' for a scalar);\n"
    "                      repeatable\n"
    "  --format F          text (default), json, or dot (Graphviz)\n"
    "  --device D          cpu (default) or cuda: whose kernels to look up\n"
    "                      (with cuda, nodes without a CUDA kernel run on the\n"
    "                      CPU; only those without either fail)\n";

StatusOr<std::pair<std::string, PartialTensorShape>> ParseInputShape(
    const std::string& text) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return errors::InvalidArgument("--input '", text,
                                   "': expected NAME:SHAPE, e.g. x:1,28,28");
  }
  std::string name = text.substr(0, colon);
  std::vector<int64_t> dims;
  std::string dims_text = text.substr(colon + 1);
  if (!dims_text.empty()) {
    for (absl::string_view d : absl::StrSplit(dims_text, ',')) {
      int64_t v;
      if (d == "?") {
        v = -1;
      } else if (!absl::SimpleAtoi(d, &v) || v < -1) {
        return errors::InvalidArgument("--input '", text, "': bad dimension '",
                                       d, "'");
      }
      dims.push_back(v);
    }
  }
  auto shape = PartialTensorShape::Build(dims);
  if (!shape.ok()) return AddContext(shape.status(), "--input");
  return std::make_pair(name, *shape);
}

// Nodes of one op that share a problem: how many, the first, and the
// first's message.
struct OpTally {
  int count = 0;
  std::string first_node;
  std::string message;
};

void Tally(std::map<std::string, OpTally>* tallies, const std::string& op,
           const std::string& node, const Status& status) {
  OpTally& t = (*tallies)[op];
  if (t.count++ == 0) {
    t.first_node = node;
    t.message = std::string(status.message());
  }
}

// Everything inspect prints. The file's own facts (node count, op
// histogram, constants) come from the GraphDef, so they are there even when
// the graph does not import; inputs and outputs need the imported,
// shape-inferred graph.
struct Summary {
  int nodes = 0;
  std::map<std::string, int> histogram;
  int64_t const_params = 0;
  int64_t const_bytes = 0;
  bool imported = false;
  GraphSignature signature;  // when imported
  // Import problems: unknown ops by op, the others one by one.
  std::map<std::string, OpTally> unknown_ops;
  std::vector<ImportProblem> node_errors;
  // Nodes with no kernel for the chosen device type, by op.
  std::string device_type;
  std::map<std::string, OpTally> without_kernel;
  // Nodes that no device of the run could execute (for CUDA, those without
  // a CPU kernel either): the graph cannot run.
  int unrunnable_nodes = 0;
};

void SummarizeFile(const GraphDef& def, Summary* s) {
  s->nodes = static_cast<int>(def.node.size());
  for (const NodeDef& node : def.node) {
    s->histogram[node.op]++;
    if (node.op != "Const") continue;
    auto it = node.attr.find("value");
    if (it != node.attr.end() && it->second.tensor.IsInitialized()) {
      s->const_params += it->second.tensor.NumElements();
      s->const_bytes += it->second.tensor.TotalBytes();
    }
  }
}

void SummarizeProblems(const std::string& path,
                       std::vector<ImportProblem> problems, Summary* s) {
  for (ImportProblem& p : problems) {
    if (p.kind == ImportProblem::Kind::kUnknownOp) {
      // The registry's words without the file and node, which the tally
      // shows: "unknown op 'MatMull'; did you mean 'MatMul'?".
      absl::string_view message = p.status.message();
      absl::ConsumePrefix(
          &message, absl::StrCat(path, ": node '", p.node, "' (", p.op, "): "));
      Tally(&s->unknown_ops, p.op, p.node, Status(p.status.code(), message));
    } else {
      s->node_errors.push_back(std::move(p));
    }
  }
}

// Looks up every node's kernel as a session would: on `device_type`, and
// for CUDA, where a node without a CUDA kernel runs on the CPU, on the CPU
// as well.
void SummarizeKernels(const Graph& g, const std::string& device_type,
                      Summary* s) {
  const KernelRegistry* kernels = KernelRegistry::Global();
  for (const auto& node : g.nodes()) {
    // If, Case and While run their bodies' plans, not a kernel.
    if (IsControlFlowOp(node->op())) continue;
    auto found = kernels->FindKernel(node->def(), node->op_def(), device_type);
    if (found.ok()) continue;
    Tally(&s->without_kernel, node->op(), node->name(), found.status());
    if (device_type == DEVICE_CPU ||
        !kernels->FindKernel(node->def(), node->op_def(), DEVICE_CPU).ok()) {
      ++s->unrunnable_nodes;
    }
  }
}

std::string Plural(int n, const char* word) {
  return absl::StrCat(n, " ", word, n == 1 ? "" : "s");
}

void AppendTallies(std::string* out, const std::map<std::string, OpTally>& t,
                   bool with_message) {
  if (t.empty()) {
    absl::StrAppend(out, " none\n");
    return;
  }
  absl::StrAppend(out, "\n");
  for (const auto& [op, tally] : t) {
    absl::StrAppend(out, "  ", op, ": ", Plural(tally.count, "node"),
                    ", first '", tally.first_node, "'");
    if (with_message) absl::StrAppend(out, ": ", tally.message);
    absl::StrAppend(out, "\n");
  }
}

void AppendTensorText(std::string* out, const GraphTensorInfo& t,
                      bool with_op) {
  absl::StrAppend(out, "  ", t.name, ": ", DataTypeName(t.dtype), " ",
                  t.shape.DebugString());
  if (with_op) absl::StrAppend(out, " (", t.op, ")");
  absl::StrAppend(out, "\n");
}

void PrintText(const std::string& path, const Summary& s) {
  std::string out =
      absl::StrCat(path, ": ", s.nodes, " nodes, ", s.const_params,
                   " parameters in constants (", s.const_bytes, " bytes)\n");
  if (s.imported) {
    absl::StrAppend(&out, "inputs:\n");
    for (const auto& t : s.signature.inputs) AppendTensorText(&out, t, false);
    absl::StrAppend(&out, "outputs:\n");
    for (const auto& t : s.signature.outputs) AppendTensorText(&out, t, true);
  } else {
    absl::StrAppend(&out, "does not import: inputs and outputs unknown\n");
  }
  absl::StrAppend(&out, "ops:\n");
  for (const auto& [op, count] : s.histogram) {
    absl::StrAppend(&out, "  ", op, ": ", count, "\n");
  }
  absl::StrAppend(&out, "unknown ops:");
  AppendTallies(&out, s.unknown_ops, /*with_message=*/true);
  absl::StrAppend(&out, "node errors (attrs, dtypes, inputs):");
  if (s.node_errors.empty()) absl::StrAppend(&out, " none");
  absl::StrAppend(&out, "\n");
  for (const ImportProblem& p : s.node_errors) {
    absl::StrAppend(&out, "  ", p.status.message(), "\n");
  }
  absl::StrAppend(&out, "ops without a kernel on ", s.device_type, ":");
  AppendTallies(&out, s.without_kernel, /*with_message=*/true);
  std::fputs(out.c_str(), stdout);
}

void AppendJsonTensorInfo(std::string* out, const GraphTensorInfo& t) {
  absl::StrAppend(out, "{\"name\": ");
  AppendJsonString(out, t.name);
  absl::StrAppend(out, ", \"op\": ");
  AppendJsonString(out, t.op);
  absl::StrAppend(out, ", \"dtype\": ");
  AppendJsonString(out, DataTypeName(t.dtype));
  absl::StrAppend(out, ", \"shape\": ");
  if (t.shape.unknown_rank()) {
    absl::StrAppend(out, "null");
  } else {
    absl::StrAppend(out, "[", absl::StrJoin(t.shape.dim_sizes(), ", "), "]");
  }
  if (t.has_default) absl::StrAppend(out, ", \"has_default\": true");
  absl::StrAppend(out, "}");
}

void AppendJsonTensorList(std::string* out, const char* key,
                          const std::vector<GraphTensorInfo>& list,
                          bool imported) {
  absl::StrAppend(out, ", \"", key, "\": ");
  if (!imported) {
    absl::StrAppend(out, "null");
    return;
  }
  absl::StrAppend(out, "[");
  for (size_t k = 0; k < list.size(); ++k) {
    if (k > 0) absl::StrAppend(out, ", ");
    AppendJsonTensorInfo(out, list[k]);
  }
  absl::StrAppend(out, "]");
}

void AppendJsonTallies(std::string* out, const char* key,
                       const std::map<std::string, OpTally>& t,
                       bool with_message) {
  absl::StrAppend(out, ", \"", key, "\": [");
  bool first = true;
  for (const auto& [op, tally] : t) {
    if (!first) absl::StrAppend(out, ", ");
    first = false;
    absl::StrAppend(out, "{\"op\": ");
    AppendJsonString(out, op);
    absl::StrAppend(out, ", \"count\": ", tally.count, ", \"first_node\": ");
    AppendJsonString(out, tally.first_node);
    if (with_message) {
      absl::StrAppend(out, ", \"message\": ");
      AppendJsonString(out, tally.message);
    }
    absl::StrAppend(out, "}");
  }
  absl::StrAppend(out, "]");
}

const char* KindName(ImportProblem::Kind kind) {
  switch (kind) {
    case ImportProblem::Kind::kUnknownOp:
      return "unknown_op";
    case ImportProblem::Kind::kFunctionCall:
      return "function_call";
    case ImportProblem::Kind::kInvalidNode:
      return "invalid_node";
    case ImportProblem::Kind::kBadInput:
      return "bad_input";
    case ImportProblem::Kind::kCycle:
      return "cycle";
  }
  return "unknown";
}

// `saved_model`: a JSON object describing the SavedModel directory, or
// empty for a graph file.
void PrintJson(const std::string& path, const Summary& s,
               const std::string& saved_model) {
  std::string out = "{\"file\": ";
  AppendJsonString(&out, path);
  if (!saved_model.empty())
    absl::StrAppend(&out, ", \"saved_model\": ", saved_model);
  absl::StrAppend(&out, ", \"imports\": ", s.imported ? "true" : "false",
                  ", \"nodes\": ", s.nodes,
                  ", \"const_parameters\": ", s.const_params,
                  ", \"const_bytes\": ", s.const_bytes);
  AppendJsonTensorList(&out, "inputs", s.signature.inputs, s.imported);
  AppendJsonTensorList(&out, "outputs", s.signature.outputs, s.imported);
  out += ", \"ops\": {";
  bool first = true;
  for (const auto& [op, count] : s.histogram) {
    if (!first) out += ", ";
    first = false;
    AppendJsonString(&out, op);
    absl::StrAppend(&out, ": ", count);
  }
  out += "}";
  AppendJsonTallies(&out, "unknown_ops", s.unknown_ops, true);
  out += ", \"node_errors\": [";
  for (size_t k = 0; k < s.node_errors.size(); ++k) {
    const ImportProblem& p = s.node_errors[k];
    if (k > 0) out += ", ";
    out += "{\"kind\": ";
    AppendJsonString(&out, KindName(p.kind));
    out += ", \"node\": ";
    AppendJsonString(&out, p.node);
    out += ", \"op\": ";
    AppendJsonString(&out, p.op);
    out += ", \"message\": ";
    AppendJsonString(&out, p.status.message());
    out += "}";
  }
  out += "], \"device\": ";
  AppendJsonString(&out, s.device_type);
  AppendJsonTallies(&out, "ops_without_kernel", s.without_kernel, true);
  out += "}\n";
  std::fputs(out.c_str(), stdout);
}

// The one stderr line for a graph that cannot run on the device, e.g.
// "model.pb: does not import: 3 unknown ops (A, B, C), 1 node error".
std::string FailureLine(const std::string& path, const Summary& s) {
  std::vector<std::string> parts;
  if (!s.unknown_ops.empty()) {
    std::vector<std::string> ops;
    for (const auto& [op, tally] : s.unknown_ops) ops.push_back(op);
    parts.push_back(
        absl::StrCat(Plural(static_cast<int>(ops.size()), "unknown op"), " (",
                     absl::StrJoin(ops, ", "), ")"));
  }
  if (!s.node_errors.empty()) {
    parts.push_back(
        Plural(static_cast<int>(s.node_errors.size()), "node error"));
  }
  if (!s.imported) {
    return absl::StrCat(path, ": does not import: ", absl::StrJoin(parts, ", "),
                        " (the summary on stdout lists them)");
  }
  std::vector<std::string> ops;
  for (const auto& [op, tally] : s.without_kernel) ops.push_back(op);
  return absl::StrCat(path, ": ", Plural(s.unrunnable_nodes, "node"),
                      " cannot run on ", s.device_type, ": no kernel for ",
                      absl::StrJoin(ops, ", "),
                      " (the summary on stdout lists them)");
}

void PrintDot(const Graph& g) {
  std::string out = "digraph weft {\n  node [shape=box, fontsize=10];\n";
  for (const auto& n : g.nodes()) {
    absl::StrAppend(&out, "  n", n->id(), " [label=");
    AppendJsonString(&out, absl::StrCat(n->name(), "\\n", n->op()));
    out += "];\n";
  }
  for (const auto& n : g.nodes()) {
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Endpoint& e = n->input(i);
      absl::StrAppend(&out, "  n", e.node->id(), " -> n", n->id(), " [label=");
      AppendJsonString(
          &out, absl::StrCat(DataTypeName(e.node->output_type(e.index)), " ",
                             g.output_shape(e.node, e.index).DebugString()));
      out += "];\n";
    }
    for (const Node* c : n->control_inputs()) {
      absl::StrAppend(&out, "  n", c->id(), " -> n", n->id(),
                      " [style=dashed];\n");
    }
  }
  out += "}\n";
  std::fputs(out.c_str(), stdout);
}

}  // namespace

int InspectMain(const std::vector<std::string>& argv) {
  Args args(argv);
  args.Flag("help", false);
  args.Flag("input", true);
  args.Flag("format", true);
  args.Flag("device", true);
  DeclareLoadFlag(&args);
  DeclareSavedModelFlags(&args);
  if (Status s = args.Parse(); !s.ok())
    return UsageError("inspect", s.message());
  if (args.Has("help")) {
    std::fputs(kHelp, stdout);
    std::fputs(kLoadFlagHelp, stdout);
    std::fputs(kSavedModelFlagHelp, stdout);
    return kExitOk;
  }
  if (Status s = LoadRequestedOpLibraries(args); !s.ok()) {
    return ReportError("inspect", s);
  }
  if (args.positional().size() != 1) {
    return UsageError(
        "inspect", "expected exactly one GRAPH file or SavedModel directory");
  }
  std::string format = args.Get("format", "text");
  if (format != "text" && format != "json" && format != "dot") {
    return UsageError("inspect", absl::StrCat("unknown --format '", format,
                                              "' (text, json or dot)"));
  }
  Summary summary;
  const std::string device = args.Get("device", "cpu");
  if (device == "cpu") {
    summary.device_type = DEVICE_CPU;
  } else if (device == "cuda" || absl::StartsWith(device, "cuda:")) {
    summary.device_type = DEVICE_CUDA;
  } else {
    return UsageError("inspect", absl::StrCat("unknown --device '", device,
                                              "' (cpu or cuda)"));
  }
  ShapeInferenceOptions shape_options;
  for (const std::string& spec : args.GetAll("input")) {
    auto parsed = ParseInputShape(spec);
    if (!parsed.ok()) return UsageError("inspect", parsed.status().message());
    shape_options.input_shapes[parsed->first] = parsed->second;
  }

  const std::string& path = args.positional()[0];
  StatusOr<GraphDef> graph_def;
  GraphAliases aliases;
  std::string saved_model_json;
  if (IsSavedModelDirectory(path)) {
    auto model = SummarizeSavedModel(path);
    if (!model.ok()) return ReportError("inspect", model.status());
    auto loaded = LoadSavedModel(path, SavedModelFlags(args));
    if (!loaded.ok()) return ReportError("inspect", loaded.status());
    model->signature = loaded->signature_key;
    model->signature_variables = loaded->num_variables;
    model->signature_variable_bytes = loaded->variable_bytes;
    if (format == "json") {
      saved_model_json = SavedModelJson(*model);
    } else if (format == "text") {
      std::fputs(SavedModelText(*model).c_str(), stdout);
      std::printf("signature '%s', its %d variables (%lld bytes) frozen:\n",
                  loaded->signature_key.c_str(), loaded->num_variables,
                  static_cast<long long>(loaded->variable_bytes));
    }
    aliases = SignatureAliases(*loaded);
    graph_def = std::move(loaded->graph_def);
  } else {
    graph_def = LoadGraphDef(path);
  }
  if (!graph_def.ok()) return ReportError("inspect", graph_def.status());
  ImportOptions import_options;
  import_options.source_name = path;
  // Unlike `weft run`, which stops at the first problem, inspect goes on
  // and reports every one.
  ImportDiagnosis diagnosis = DiagnoseGraphDef(*graph_def, import_options);
  summary.imported = diagnosis.problems.empty();
  SummarizeFile(*graph_def, &summary);
  SummarizeProblems(path, std::move(diagnosis.problems), &summary);
  // Kernels are looked up for the nodes that validated, imported or not.
  SummarizeKernels(*diagnosis.graph, summary.device_type, &summary);
  if (summary.imported) {
    shape_options.source_name = path;
    if (Status s = InferShapes(diagnosis.graph.get(), shape_options); !s.ok()) {
      return ReportError("inspect", s);
    }
    diagnosis.graph->set_aliases(std::move(aliases));
    summary.signature = DescribeGraph(*diagnosis.graph);
  }

  if (format == "json") {
    PrintJson(path, summary, saved_model_json);
  } else if (format == "dot") {
    if (!summary.imported) {
      return ReportError("inspect",
                         summary.node_errors.empty()
                             ? errors::NotFound(FailureLine(path, summary))
                             : summary.node_errors[0].status);
    }
    PrintDot(*diagnosis.graph);
  } else {
    PrintText(path, summary);
  }
  if (!summary.imported || summary.unrunnable_nodes > 0) {
    return ReportError("inspect",
                       errors::InvalidArgument(FailureLine(path, summary)));
  }
  return kExitOk;
}

}  // namespace weft::cli
