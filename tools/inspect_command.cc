// weft inspect GRAPH: what a graph file holds and what weft makes of it.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "kernels/kernel_registry.h"
#include "tools/cli.h"

namespace weft::cli {
namespace {

constexpr char kHelp[] =
    "usage: weft inspect GRAPH [--input NAME:SHAPE ...] [--format F]\n"
    "                          [--load LIB.so ...]\n"
    "\n"
    "Loads a TensorFlow graph file (.pb binary or .pbtxt text), validates\n"
    "it and infers shapes, then prints its inputs (placeholders) and outputs\n"
    "(nodes nobody consumes) with dtypes and shapes, the op histogram, node\n"
    "count, parameters held in constants, and ops that have no kernel yet.\n"
    "\n"
    "  --input NAME:SHAPE  give a placeholder a shape, e.g. x:1,224,224,3\n"
    "                      ('?' or -1 for an unknown dim, '' for a scalar);\n"
    "                      repeatable\n"
    "  --format F          text (default), json, or dot (Graphviz)\n";

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

struct Summary {
  std::vector<const Node*> inputs;
  std::vector<std::pair<const Node*, int>> outputs;
  std::map<std::string, int> histogram;
  int64_t const_params = 0;
  int64_t const_bytes = 0;
  std::vector<std::string> ops_without_kernel;
};

Summary Summarize(const Graph& g) {
  Summary s;
  for (const auto& node : g.nodes()) {
    s.histogram[node->op()]++;
    if (node->op() == "Placeholder" || node->op() == "PlaceholderWithDefault") {
      s.inputs.push_back(node.get());
    }
    if (node->op() == "Const") {
      auto it = node->attrs().find("value");
      if (it != node->attrs().end() && it->second.tensor.IsInitialized()) {
        s.const_params += it->second.tensor.NumElements();
        s.const_bytes += it->second.tensor.TotalBytes();
      }
    }
    bool consumed = !node->control_outputs().empty();
    for (int i = 0; i < node->num_outputs(); ++i) {
      consumed = consumed || !node->consumers(i).empty();
    }
    for (int i = 0; !consumed && i < node->num_outputs(); ++i) {
      s.outputs.emplace_back(node.get(), i);
    }
  }
  for (const auto& [op, count] : s.histogram) {
    if (KernelRegistry::Global()->KernelsForOp(op).empty()) {
      s.ops_without_kernel.push_back(op);
    }
  }
  return s;
}

std::string TensorName(const Node* n, int i) {
  return i == 0 ? n->name() : absl::StrCat(n->name(), ":", i);
}

void PrintText(const std::string& path, const Graph& g, const Summary& s) {
  std::string out = absl::StrCat(path, ": ", g.num_nodes(), " nodes, ",
                                 s.const_params, " parameters in constants (",
                                 s.const_bytes, " bytes)\n");
  absl::StrAppend(&out, "inputs:\n");
  for (const Node* n : s.inputs) {
    absl::StrAppend(&out, "  ", n->name(), ": ",
                    DataTypeName(n->output_type(0)), " ",
                    g.output_shape(n, 0).DebugString(), "\n");
  }
  absl::StrAppend(&out, "outputs:\n");
  for (const auto& [n, i] : s.outputs) {
    absl::StrAppend(&out, "  ", TensorName(n, i), ": ",
                    DataTypeName(n->output_type(i)), " ",
                    g.output_shape(n, i).DebugString(), " (", n->op(), ")\n");
  }
  absl::StrAppend(&out, "ops:\n");
  for (const auto& [op, count] : s.histogram) {
    absl::StrAppend(&out, "  ", op, ": ", count, "\n");
  }
  absl::StrAppend(&out, "ops without a kernel: ",
                  s.ops_without_kernel.empty()
                      ? "none"
                      : absl::StrJoin(s.ops_without_kernel, ", "),
                  "\n");
  std::fputs(out.c_str(), stdout);
}

void AppendJsonTensorInfo(std::string* out, const Graph& g, const Node* n,
                          int i) {
  absl::StrAppend(out, "{\"name\": ");
  AppendJsonString(out, TensorName(n, i));
  absl::StrAppend(out, ", \"op\": ");
  AppendJsonString(out, n->op());
  absl::StrAppend(out, ", \"dtype\": ");
  AppendJsonString(out, DataTypeName(n->output_type(i)));
  const PartialTensorShape& shape = g.output_shape(n, i);
  absl::StrAppend(out, ", \"shape\": ");
  if (shape.unknown_rank()) {
    absl::StrAppend(out, "null");
  } else {
    absl::StrAppend(out, "[", absl::StrJoin(shape.dim_sizes(), ", "), "]");
  }
  absl::StrAppend(out, "}");
}

void PrintJson(const std::string& path, const Graph& g, const Summary& s) {
  std::string out = "{\"file\": ";
  AppendJsonString(&out, path);
  absl::StrAppend(&out, ", \"nodes\": ", g.num_nodes(),
                  ", \"const_parameters\": ", s.const_params,
                  ", \"const_bytes\": ", s.const_bytes, ", \"inputs\": [");
  for (size_t k = 0; k < s.inputs.size(); ++k) {
    if (k > 0) out += ", ";
    AppendJsonTensorInfo(&out, g, s.inputs[k], 0);
  }
  out += "], \"outputs\": [";
  for (size_t k = 0; k < s.outputs.size(); ++k) {
    if (k > 0) out += ", ";
    AppendJsonTensorInfo(&out, g, s.outputs[k].first, s.outputs[k].second);
  }
  out += "], \"ops\": {";
  bool first = true;
  for (const auto& [op, count] : s.histogram) {
    if (!first) out += ", ";
    first = false;
    AppendJsonString(&out, op);
    absl::StrAppend(&out, ": ", count);
  }
  out += "}, \"ops_without_kernel\": [";
  for (size_t k = 0; k < s.ops_without_kernel.size(); ++k) {
    if (k > 0) out += ", ";
    AppendJsonString(&out, s.ops_without_kernel[k]);
  }
  out += "]}\n";
  std::fputs(out.c_str(), stdout);
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
      absl::StrAppend(&out, "  n", e.node->id(), " -> n", n->id(),
                      " [label=");
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
  DeclareLoadFlag(&args);
  if (Status s = args.Parse(); !s.ok()) return UsageError("inspect", s.message());
  if (args.Has("help")) {
    std::fputs(kHelp, stdout);
    std::fputs(kLoadFlagHelp, stdout);
    return kExitOk;
  }
  if (Status s = LoadRequestedOpLibraries(args); !s.ok()) {
    return ReportError("inspect", s);
  }
  if (args.positional().size() != 1) {
    return UsageError("inspect", "expected exactly one GRAPH file");
  }
  std::string format = args.Get("format", "text");
  if (format != "text" && format != "json" && format != "dot") {
    return UsageError("inspect", absl::StrCat("unknown --format '", format,
                                              "' (text, json or dot)"));
  }
  ShapeInferenceOptions shape_options;
  for (const std::string& spec : args.GetAll("input")) {
    auto parsed = ParseInputShape(spec);
    if (!parsed.ok()) return UsageError("inspect", parsed.status().message());
    shape_options.input_shapes[parsed->first] = parsed->second;
  }

  const std::string& path = args.positional()[0];
  auto graph_def = LoadGraphDef(path);
  if (!graph_def.ok()) return ReportError("inspect", graph_def.status());
  ImportOptions import_options;
  import_options.source_name = path;
  auto graph = ImportGraphDef(*graph_def, import_options);
  if (!graph.ok()) return ReportError("inspect", graph.status());
  shape_options.source_name = path;
  if (Status s = InferShapes(graph->get(), shape_options); !s.ok()) {
    return ReportError("inspect", s);
  }

  Summary summary = Summarize(**graph);
  if (format == "json") {
    PrintJson(path, **graph, summary);
  } else if (format == "dot") {
    PrintDot(**graph);
  } else {
    PrintText(path, **graph, summary);
  }
  return kExitOk;
}

}  // namespace weft::cli
