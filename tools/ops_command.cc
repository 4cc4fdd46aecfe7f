// weft ops [NAME]: the registered ops, their specs, and their kernels.
// weft ops --used-by GRAPH... [--header]: what those graphs need, as a list
// or as the ops_to_register.h of a selective build (tools/ops_to_register.h).
// weft ops --missing: how many of tf2onnx's TensorFlow ops (the anchor list of
// tests/ops/testdata/tf2onnx_anchor_ops.txt) weft registers, and which not.
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/kernel_registry.h"
#include "ops/op_def_util.h"
#include "ops/op_registry.h"
#include "tools/cli.h"
#include "tools/ops_to_register.h"

namespace weft::cli {
namespace {

constexpr char kHelp[] =
    "usage: weft ops [--json] [--load LIB.so ...] [NAME]\n"
    "       weft ops --missing\n"
    "       weft ops --used-by [--header | --json] [--load LIB.so ...] "
    "GRAPH...\n"
    "\n"
    "Lists the registered ops with their specs (inputs, outputs, attrs) and,\n"
    "for each, the kernels registered for it (device and dtype constraints).\n"
    "With NAME, shows that op only.\n"
    "\n"
    "With --used-by, lists the ops and kernel classes that the GraphDef files\n"
    "GRAPH... (.pb, .pbtxt, SavedModel directories: every signature) need:\n"
    "their nodes, their function libraries, and what the graph optimizer\n"
    "makes of them (_FusedConv2D, ...), with the kernels this weft would\n"
    "select on each of its device types. With --header, prints them as the\n"
    "ops_to_register.h of a selective build:\n"
    "  weft ops --used-by model.pb --header > ops_to_register.h\n"
    "  cmake -DWEFT_SELECTIVE_REGISTRATION=$PWD/ops_to_register.h ...\n"
    "\n"
    "  --json              machine-readable output\n"
    "  --used-by           what GRAPH... need instead of every op\n"
    "  --header            with --used-by: print ops_to_register.h\n"
    "  --missing           the anchor coverage line, then the tf2onnx ops\n"
    "                      weft does not register (those left out on\n"
    "                      purpose with the reason)\n"
    "\n"
    "The listing ends with \"anchor coverage: N of M tf2onnx ops\": how many\n"
    "of the TensorFlow ops tf2onnx 1.17 converts weft registers.\n";

// The anchor list: tf2onnx's TensorFlow op handlers, written by
// tests/ops/gen_tf2onnx_anchor_ops.py. `left_out` is empty for the ops weft
// aims to register, else why it leaves the op out on purpose.
struct AnchorOp {
  const char* name;
  const char* left_out;
};
constexpr AnchorOp kAnchorOps[] = {
#include "tools/tf2onnx_anchor_ops.inc"
};

// "anchor coverage: N of M tf2onnx ops (...)"; `missing` gets the anchor ops
// weft does not register.
std::string AnchorCoverage(std::vector<const AnchorOp*>* missing) {
  int registered = 0;
  int goal = 0;
  int goal_registered = 0;
  for (const AnchorOp& op : kAnchorOps) {
    const bool in_goal = op.left_out[0] == '\0';
    const bool found = OpRegistry::Global()->LookUp(op.name).ok();
    registered += found ? 1 : 0;
    goal += in_goal ? 1 : 0;
    goal_registered += found && in_goal ? 1 : 0;
    if (!found) missing->push_back(&op);
  }
  const int total = static_cast<int>(std::size(kAnchorOps));
  return absl::StrCat("anchor coverage: ", registered, " of ", total,
                      " tf2onnx ops (", goal_registered, " of the ", goal,
                      " weft aims at, ", total - goal,
                      " left out on purpose; --missing lists the rest)\n");
}

int MissingMain() {
  std::vector<const AnchorOp*> missing;
  std::string out = AnchorCoverage(&missing);
  std::string left_out;
  int goal_missing = 0;
  int left_out_missing = 0;
  for (const AnchorOp* op : missing) {
    if (op->left_out[0] == '\0') {
      ++goal_missing;
    } else {
      ++left_out_missing;
      absl::StrAppend(&left_out, "  ", op->name, " (", op->left_out, ")\n");
    }
  }
  absl::StrAppend(&out, "missing (", goal_missing, "):\n");
  for (const AnchorOp* op : missing) {
    if (op->left_out[0] == '\0') absl::StrAppend(&out, "  ", op->name, "\n");
  }
  absl::StrAppend(&out, "left out on purpose (", left_out_missing, "):\n",
                  left_out);
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

std::vector<std::string> KernelSummaries(const std::string& op) {
  std::vector<std::string> out;
  for (const KernelDef* k : KernelRegistry::Global()->KernelsForOp(op)) {
    out.push_back(SummarizeKernelDef(*k));
  }
  return out;
}

int UsedByMain(const Args& args) {
  if (args.positional().empty()) {
    return UsageError("ops", "--used-by expects at least one GRAPH file");
  }
  if (args.Has("header") && args.Has("json")) {
    return UsageError("ops", "--header and --json exclude each other");
  }
  OpsToRegister selection;
  for (const std::string& path : args.positional()) {
    if (Status s = AddGraphFile(path, &selection); !s.ok()) {
      return ReportError("ops", s);
    }
  }
  for (const std::string& note : selection.notes) {
    std::fprintf(stderr, "weft ops: note: %s\n", note.c_str());
  }
  std::string out;
  if (args.Has("header")) {
    out = OpsToRegisterHeader(selection);
  } else if (args.Has("json")) {
    out = "{\"ops\": [";
    for (const std::string& op : selection.ops) {
      if (out.back() != '[') out += ", ";
      AppendJsonString(&out, op);
    }
    out += "],\n \"kernel_classes\": [";
    for (const std::string& k : selection.kernel_classes) {
      if (out.back() != '[') out += ", ";
      AppendJsonString(&out, k);
    }
    out += "]}\n";
  } else {
    absl::StrAppend(&out, "ops (", selection.ops.size(), "):\n");
    for (const std::string& op : selection.ops) {
      absl::StrAppend(&out, "  ", op, "\n");
    }
    absl::StrAppend(&out, "kernel classes (", selection.kernel_classes.size(),
                    "):\n");
    for (const std::string& k : selection.kernel_classes) {
      absl::StrAppend(&out, "  ", k, "\n");
    }
  }
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace

int OpsMain(const std::vector<std::string>& argv) {
  Args args(argv);
  args.Flag("help", false);
  args.Flag("json", false);
  args.Flag("used-by", false);
  args.Flag("header", false);
  args.Flag("missing", false);
  DeclareLoadFlag(&args);
  if (Status s = args.Parse(); !s.ok()) return UsageError("ops", s.message());
  if (args.Has("help")) {
    std::fputs(kHelp, stdout);
    std::fputs(kLoadFlagHelp, stdout);
    return kExitOk;
  }
  if (Status s = LoadRequestedOpLibraries(args); !s.ok()) {
    return ReportError("ops", s);
  }
  if (Status s = OpRegistry::Global()->StaticRegistrationStatus(); !s.ok()) {
    return ReportError("ops", s);
  }
  if (args.Has("used-by")) return UsedByMain(args);
  if (args.Has("missing")) return MissingMain();
  if (args.Has("header")) {
    return UsageError("ops", "--header needs --used-by GRAPH...");
  }
  if (args.positional().size() > 1) {
    return UsageError("ops", "expected at most one op NAME");
  }
  std::vector<const OpRegistrationData*> ops;
  if (args.positional().empty()) {
    ops = OpRegistry::Global()->ListOps();
  } else {
    auto found = OpRegistry::Global()->LookUp(args.positional()[0]);
    if (!found.ok()) return ReportError("ops", found.status());
    ops.push_back(*found);
  }

  std::string out;
  if (args.Has("json")) {
    out = "[";
    for (size_t k = 0; k < ops.size(); ++k) {
      const OpDef& def = ops[k]->op_def;
      if (k > 0) out += ",\n ";
      out += "{\"name\": ";
      AppendJsonString(&out, def.name);
      out += ", \"spec\": ";
      AppendJsonString(&out, OpDefToString(def));
      out += ", \"kernels\": [";
      std::vector<std::string> kernels = KernelSummaries(def.name);
      for (size_t j = 0; j < kernels.size(); ++j) {
        if (j > 0) out += ", ";
        AppendJsonString(&out, kernels[j]);
      }
      out += "]}";
    }
    out += "]\n";
  } else {
    for (const OpRegistrationData* reg : ops) {
      absl::StrAppend(&out, OpDefToString(reg->op_def));
      if (!out.empty() && out.back() != '\n') out += '\n';
      std::vector<std::string> kernels = KernelSummaries(reg->op_def.name);
      if (kernels.empty()) {
        out += "  kernels: none\n";
      } else {
        for (const std::string& k : kernels) {
          absl::StrAppend(&out, "  kernel ", k, "\n");
        }
      }
    }
    if (args.positional().empty()) {
      std::vector<const AnchorOp*> missing;
      out += AnchorCoverage(&missing);
    }
  }
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace weft::cli
