#include "kernels/kernel_registry.h"

#include <algorithm>
#include <iterator>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace weft {
namespace {

bool IsTypeAttr(const OpDef::AttrDef& attr) {
  return attr.type == "type" || attr.type == "list(type)";
}

// "T=int32, Tidx=[int32, int64]": the node's values of the op's type attrs,
// which are what kernels are selected by.
std::string TypeAttrValues(const NodeDef& node, const OpDef& op_def) {
  std::vector<std::string> parts;
  for (const OpDef::AttrDef& attr : op_def.attr) {
    if (!IsTypeAttr(attr)) continue;
    auto it = node.attr.find(attr.name);
    if (it == node.attr.end()) continue;
    const AttrValue& v = it->second;
    if (v.kind == AttrValue::Kind::kType) {
      parts.push_back(absl::StrCat(attr.name, "=", DataTypeName(v.type)));
    } else if (v.kind == AttrValue::Kind::kList) {
      parts.push_back(
          absl::StrCat(attr.name, "=", DataTypeListString(v.list->type)));
    }
  }
  return absl::StrJoin(parts, ", ");
}

// Whether every constraint of `reg` holds for `node`. Errors for
// constraints that cannot be evaluated: a registration mistake (an attr the
// op lacks, a non-type attr) or a node that was not validated.
StatusOr<bool> ConstraintsMatch(const KernelRegistration& reg,
                                const NodeDef& node, const OpDef& op_def) {
  for (const KernelDef::AttrConstraint& c : reg.def.constraints) {
    const OpDef::AttrDef* attr_def = op_def.FindAttr(c.name);
    if (attr_def == nullptr) {
      return errors::InvalidArgument(
          "kernel ", SummarizeKernelDef(reg.def), " for op '", op_def.name,
          "' registered at ", reg.source, " constrains attr '", c.name,
          "', which the op does not have");
    }
    if (!IsTypeAttr(*attr_def)) {
      return errors::InvalidArgument(
          "kernel ", SummarizeKernelDef(reg.def), " for op '", op_def.name,
          "' registered at ", reg.source, " constrains attr '", c.name,
          "' of type ", attr_def->type,
          "; only type and list(type) attrs can be constrained");
    }
    auto it = node.attr.find(c.name);
    if (it == node.attr.end()) {
      return errors::InvalidArgument(
          NodeLabel(node.name, node.op), ": has no value for attr '", c.name,
          "' (kernel lookup needs a validated node with defaults filled)");
    }
    const AttrValue& v = it->second;
    auto allowed = [&c](DataType t) {
      return std::binary_search(c.allowed_types.begin(), c.allowed_types.end(),
                                t);
    };
    if (v.kind == AttrValue::Kind::kType) {
      if (!allowed(v.type)) return false;
    } else if (v.kind == AttrValue::Kind::kList &&
               v.list->type.size() == v.list->size()) {
      for (DataType t : v.list->type) {
        if (!allowed(t)) return false;
      }
    } else {
      return errors::InvalidArgument(NodeLabel(node.name, node.op), ": attr '",
                                     c.name, "' holds a ", AttrValueTypeName(v),
                                     " but op '", op_def.name, "' declares it ",
                                     attr_def->type);
    }
  }
  return true;
}

// Sorts a def's constraints by attr name and its type lists ascending, as
// KernelDefBuilder leaves them, so that defs from other sources (plugins)
// compare and print the same. InvalidArgument for a repeated attr.
Status Canonicalize(KernelDef* def) {
  for (KernelDef::AttrConstraint& c : def->constraints) {
    std::sort(c.allowed_types.begin(), c.allowed_types.end());
    c.allowed_types.erase(
        std::unique(c.allowed_types.begin(), c.allowed_types.end()),
        c.allowed_types.end());
    if (c.allowed_types.empty()) {
      return errors::InvalidArgument("TypeConstraint on attr '", c.name,
                                     "' allows no types");
    }
  }
  std::sort(def->constraints.begin(), def->constraints.end(),
            [](const KernelDef::AttrConstraint& a,
               const KernelDef::AttrConstraint& b) { return a.name < b.name; });
  for (size_t i = 1; i < def->constraints.size(); ++i) {
    if (def->constraints[i].name == def->constraints[i - 1].name) {
      return errors::InvalidArgument("TypeConstraint on attr '",
                                     def->constraints[i].name, "' given twice");
    }
  }
  return Status();
}

// Whether `a` and `b` (same op) describe the union of one kernel set with
// another: same device, label, priority and constrained attrs, differing in
// the allowed types of at most one attr. Then merging them into one summary
// entry is exact.
bool Mergeable(const KernelDef& a, const KernelDef& b) {
  if (a.device_type != b.device_type || a.label != b.label ||
      a.priority != b.priority ||
      a.constraints.size() != b.constraints.size()) {
    return false;
  }
  int differing = 0;
  for (size_t i = 0; i < a.constraints.size(); ++i) {
    if (a.constraints[i].name != b.constraints[i].name) return false;
    if (a.constraints[i].allowed_types != b.constraints[i].allowed_types) {
      ++differing;
    }
  }
  return differing <= 1;
}

void MergeInto(const KernelDef& from, KernelDef* into) {
  for (size_t i = 0; i < into->constraints.size(); ++i) {
    std::vector<DataType> merged;
    std::set_union(into->constraints[i].allowed_types.begin(),
                   into->constraints[i].allowed_types.end(),
                   from.constraints[i].allowed_types.begin(),
                   from.constraints[i].allowed_types.end(),
                   std::back_inserter(merged));
    into->constraints[i].allowed_types = std::move(merged);
  }
}

// How kernels of one op are listed: by device type, unlabelled before
// labelled, higher priority first, then by what they accept.
using OrderKey = std::tuple<std::string, std::string, int64_t, std::string>;
OrderKey KeyOf(const KernelDef& def) {
  return OrderKey(def.device_type, def.label, -int64_t{def.priority},
                  SummarizeKernelDef(def));
}

// The summary list of one op's kernels: entries merged while exact, then
// sorted so the text does not depend on registration order; "none" when
// empty.
std::string SummarizeDefs(std::vector<KernelDef> entries) {
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t i = 0; i < entries.size() && !merged; ++i) {
      for (size_t j = i + 1; j < entries.size() && !merged; ++j) {
        if (Mergeable(entries[i], entries[j])) {
          MergeInto(entries[j], &entries[i]);
          entries.erase(entries.begin() + j);
          merged = true;
        }
      }
    }
  }
  if (entries.empty()) return "none";
  std::vector<std::pair<OrderKey, std::string>> keyed;
  for (const KernelDef& def : entries) {
    keyed.push_back({KeyOf(def), SummarizeKernelDef(def)});
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::string> summaries;
  for (auto& [key, summary] : keyed) summaries.push_back(std::move(summary));
  return absl::StrJoin(summaries, ", ");
}

}  // namespace

KernelRegistry* KernelRegistry::Global() {
  static KernelRegistry* registry = new KernelRegistry;
  return registry;
}

Status KernelRegistry::Register(KernelDef def, KernelFactory factory,
                                std::string source,
                                std::string kernel_class_name) {
  if (def.op.empty()) {
    return errors::InvalidArgument("kernel registered at ", source,
                                   " names no op");
  }
  if (def.device_type.empty()) {
    return errors::InvalidArgument("kernel for op '", def.op,
                                   "' registered at ", source,
                                   " names no device type");
  }
  if (!factory) {
    return errors::InvalidArgument("kernel for op '", def.op,
                                   "' registered at ", source,
                                   " has no factory");
  }
  WEFT_RETURN_IF_ERROR_CTX(Canonicalize(&def), "kernel for op '", def.op,
                           "' registered at ", source);

  MutexLock lock(&mu_);
  auto& list = kernels_[def.op];
  for (const auto& existing : list) {
    if (SameKernelSlot(existing->def, def)) {
      return errors::AlreadyExists(
          "kernel ", SummarizeKernelDef(def), " for op '", def.op,
          "' registered twice: at ", existing->source, " and at ", source);
    }
  }
  auto reg = std::make_unique<KernelRegistration>();
  reg->def = std::move(def);
  reg->factory = std::move(factory);
  reg->source = std::move(source);
  reg->kernel_class_name = std::move(kernel_class_name);
  list.push_back(std::move(reg));
  return Status();
}

void KernelRegistry::RegisterStatic(const StatusOr<KernelDef>& def,
                                    KernelFactory factory, std::string source,
                                    std::string kernel_class_name) {
  Status status;
  if (!def.ok()) {
    status = AddContext(def.status(), source);
  } else {
    status = Register(*def, std::move(factory), std::move(source),
                      std::move(kernel_class_name));
  }
  if (!status.ok()) {
    MutexLock lock(&mu_);
    static_errors_.push_back(std::move(status));
  }
}

Status KernelRegistry::StaticRegistrationStatus() const {
  ReaderMutexLock lock(&mu_);
  return JoinRegistrationErrors(static_errors_, "kernel");
}

StatusOr<const KernelRegistration*> KernelRegistry::FindKernel(
    const NodeDef& node, const OpDef& op_def,
    absl::string_view device_type) const {
  absl::string_view label;
  auto label_it = node.attr.find(kKernelLabelAttr);
  if (label_it != node.attr.end()) {
    if (label_it->second.kind != AttrValue::Kind::kString) {
      return errors::InvalidArgument(
          NodeLabel(node.name, node.op), ": attr '", kKernelLabelAttr,
          "' selects a kernel label and must be a string, got ",
          AttrValueTypeName(label_it->second));
    }
    label = label_it->second.s;
  }

  ReaderMutexLock lock(&mu_);
  const KernelRegistration* best = nullptr;
  const KernelRegistration* tie = nullptr;
  auto op_it = kernels_.find(op_def.name);
  if (op_it != kernels_.end()) {
    for (const auto& reg : op_it->second) {
      if (reg->def.device_type != device_type || reg->def.label != label) {
        continue;
      }
      WEFT_ASSIGN_OR_RETURN(bool match, ConstraintsMatch(*reg, node, op_def));
      if (!match) continue;
      if (best == nullptr || reg->def.priority > best->def.priority) {
        best = reg.get();
        tie = nullptr;
      } else if (reg->def.priority == best->def.priority && tie == nullptr) {
        tie = reg.get();
      }
    }
  }

  if (best != nullptr && tie == nullptr) return best;

  std::string with = TypeAttrValues(node, op_def);
  if (!with.empty()) with = absl::StrCat(" with ", with);
  if (!label.empty()) {
    absl::StrAppend(&with, with.empty() ? " with" : " and", " label '", label,
                    "'");
  }
  if (tie != nullptr) {
    return errors::InvalidArgument(
        "two kernels for op '", op_def.name, "' on device ", device_type,
        " match", with, " at equal priority ", best->def.priority, ": ",
        SummarizeKernelDef(best->def), " at ", best->source, " and ",
        SummarizeKernelDef(tie->def), " at ", tie->source,
        "; give one of them a higher Priority()");
  }

  std::vector<KernelDef> defs;
  if (op_it != kernels_.end()) {
    for (const auto& reg : op_it->second) defs.push_back(reg->def);
  }
  // In a selective build the kernel may exist but be left out.
  std::string left_out;
  auto left_it = left_out_.find(op_def.name);
  if (left_it != left_out_.end()) {
    for (const KernelRegistration& reg : left_it->second) {
      if (reg.def.device_type != device_type || reg.def.label != label) {
        continue;
      }
      StatusOr<bool> match = ConstraintsMatch(reg, node, op_def);
      if (!match.ok() || !*match) continue;
      left_out = absl::StrCat("; kernel ", SummarizeKernelDef(reg.def), " (",
                              reg.kernel_class_name,
                              ") would match but is left out of this "
                              "selective build (regenerate its "
                              "ops_to_register.h with `weft ops --used-by "
                              "GRAPH... --header` over this graph too)");
      break;
    }
  }
  return errors::NotFound("no kernel for op '", op_def.name, "' on device ",
                          device_type, with, left_out,
                          "; registered: ", SummarizeDefs(std::move(defs)));
}

void KernelRegistry::RecordLeftOut(const StatusOr<KernelDef>& def,
                                   std::string kernel_class_name) {
  if (!def.ok()) return;
  KernelRegistration reg;
  reg.def = *def;
  reg.kernel_class_name = std::move(kernel_class_name);
  MutexLock lock(&mu_);
  left_out_[reg.def.op].push_back(std::move(reg));
}

std::string KernelRegistry::SummarizeKernelsForOp(absl::string_view op) const {
  std::vector<KernelDef> defs;
  {
    ReaderMutexLock lock(&mu_);
    auto it = kernels_.find(op);
    if (it != kernels_.end()) {
      for (const auto& reg : it->second) defs.push_back(reg->def);
    }
  }
  return SummarizeDefs(std::move(defs));
}

StatusOr<std::unique_ptr<OpKernel>> KernelRegistry::CreateKernel(
    const NodeDef& node, const OpDef& op_def, const NodeTypes& types,
    Device* device) const {
  StatusOr<const KernelRegistration*> reg =
      FindKernel(node, op_def, device->device_type());
  if (!reg.ok()) {
    const std::string label = NodeLabel(node.name, node.op);
    absl::string_view msg = reg.status().message();
    if (msg.substr(0, label.size()) == label) return reg.status();
    return AddContext(reg.status(), label);
  }
  OpKernelConstruction construction(device, node, op_def, types, &(*reg)->def);
  if (!construction.status().ok()) return construction.status();
  std::unique_ptr<OpKernel> kernel = (*reg)->factory(&construction);
  if (!construction.status().ok()) return construction.status();
  if (kernel == nullptr) {
    return errors::Internal(NodeLabel(node.name, node.op), ": kernel ",
                            SummarizeKernelDef((*reg)->def), " registered at ",
                            (*reg)->source, " returned no kernel object");
  }
  return kernel;
}

std::vector<const KernelRegistration*> KernelRegistry::SortedLocked(
    absl::string_view op) const {
  std::vector<const KernelRegistration*> out;
  auto it = kernels_.find(op);
  if (it == kernels_.end()) return out;
  std::vector<
      std::pair<std::pair<OrderKey, std::string>, const KernelRegistration*>>
      keyed;
  for (const auto& reg : it->second) {
    keyed.push_back({{KeyOf(reg->def), reg->source}, reg.get()});
  }
  std::stable_sort(
      keyed.begin(), keyed.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [key, reg] : keyed) out.push_back(reg);
  return out;
}

std::vector<const KernelRegistration*> KernelRegistry::RegistrationsForOp(
    absl::string_view op) const {
  ReaderMutexLock lock(&mu_);
  return SortedLocked(op);
}

std::vector<const KernelDef*> KernelRegistry::KernelsForOp(
    absl::string_view op) const {
  std::vector<const KernelDef*> out;
  for (const KernelRegistration* reg : RegistrationsForOp(op)) {
    out.push_back(&reg->def);
  }
  return out;
}

namespace kernel_registration {

void RecordLeftOut(const KernelDefBuilder& builder, const char* class_name) {
  KernelRegistry::Global()->RecordLeftOut(builder.Build(), class_name);
}

}  // namespace kernel_registration
}  // namespace weft
