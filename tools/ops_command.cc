// weft ops [NAME]: the registered ops, their specs, and their kernels.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/kernel_registry.h"
#include "ops/op_def_util.h"
#include "ops/op_registry.h"
#include "tools/cli.h"

namespace weft::cli {
namespace {

constexpr char kHelp[] =
    "usage: weft ops [--json] [--load LIB.so ...] [NAME]\n"
    "\n"
    "Lists the registered ops with their specs (inputs, outputs, attrs) and,\n"
    "for each, the kernels registered for it (device and dtype constraints).\n"
    "With NAME, shows that op only.\n"
    "\n"
    "  --json              machine-readable output\n";

std::vector<std::string> KernelSummaries(const std::string& op) {
  std::vector<std::string> out;
  for (const KernelDef* k : KernelRegistry::Global()->KernelsForOp(op)) {
    out.push_back(SummarizeKernelDef(*k));
  }
  return out;
}

}  // namespace

int OpsMain(const std::vector<std::string>& argv) {
  Args args(argv);
  args.Flag("help", false);
  args.Flag("json", false);
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
  if (args.positional().size() > 1) {
    return UsageError("ops", "expected at most one op NAME");
  }
  if (Status s = OpRegistry::Global()->StaticRegistrationStatus(); !s.ok()) {
    return ReportError("ops", s);
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
  }
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace weft::cli
