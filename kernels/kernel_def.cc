#include "kernels/kernel_def.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace weft {

const KernelDef::AttrConstraint* KernelDef::FindConstraint(
    absl::string_view attr) const {
  for (const AttrConstraint& c : constraints) {
    if (c.name == attr) return &c;
  }
  return nullptr;
}

bool KernelDef::IsHostMemoryArg(absl::string_view arg) const {
  return std::find(host_memory_args.begin(), host_memory_args.end(), arg) !=
         host_memory_args.end();
}

bool SameKernelSlot(const KernelDef& a, const KernelDef& b) {
  if (a.op != b.op || a.device_type != b.device_type || a.label != b.label ||
      a.priority != b.priority ||
      a.constraints.size() != b.constraints.size()) {
    return false;
  }
  // Constraints are kept sorted by name, so equal defs line up.
  for (size_t i = 0; i < a.constraints.size(); ++i) {
    if (a.constraints[i].name != b.constraints[i].name ||
        a.constraints[i].allowed_types != b.constraints[i].allowed_types) {
      return false;
    }
  }
  return true;
}

std::string SummarizeKernelDef(const KernelDef& def) {
  std::vector<std::string> items;
  for (const KernelDef::AttrConstraint& c : def.constraints) {
    items.push_back(
        absl::StrCat(c.name, " in ", DataTypeListString(c.allowed_types)));
  }
  if (!def.label.empty())
    items.push_back(absl::StrCat("label '", def.label, "'"));
  if (def.priority != 0)
    items.push_back(absl::StrCat("priority ", def.priority));
  if (items.empty()) return def.device_type;
  return absl::StrCat(def.device_type, "{", absl::StrJoin(items, ", "), "}");
}

KernelDefBuilder::KernelDefBuilder(absl::string_view op) {
  def_.op = std::string(op);
  if (op.empty()) Fail("the op name is empty");
}

void KernelDefBuilder::Fail(std::string message) {
  if (error_.empty()) error_ = std::move(message);
}

KernelDefBuilder& KernelDefBuilder::Device(absl::string_view device_type) {
  if (device_set_) {
    Fail(absl::StrCat("Device given twice ('", def_.device_type, "' and '",
                      device_type, "')"));
  } else if (device_type.empty()) {
    Fail("Device is empty");
  }
  device_set_ = true;
  def_.device_type = std::string(device_type);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::TypeConstraint(absl::string_view attr,
                                                   DataType type) {
  return TypeConstraint(attr, std::vector<DataType>{type});
}

KernelDefBuilder& KernelDefBuilder::TypeConstraint(
    absl::string_view attr, std::vector<DataType> types) {
  if (attr.empty()) {
    Fail("TypeConstraint with an empty attr name");
    return *this;
  }
  if (def_.FindConstraint(attr) != nullptr) {
    Fail(absl::StrCat("TypeConstraint on attr '", attr, "' given twice"));
    return *this;
  }
  if (types.empty()) {
    Fail(absl::StrCat("TypeConstraint on attr '", attr, "' allows no types"));
    return *this;
  }
  for (DataType t : types) {
    if (!IsValidDataType(t)) {
      Fail(absl::StrCat("TypeConstraint on attr '", attr,
                        "' names an invalid type ", DataTypeName(t)));
      return *this;
    }
  }
  std::sort(types.begin(), types.end());
  types.erase(std::unique(types.begin(), types.end()), types.end());
  KernelDef::AttrConstraint c{std::string(attr), std::move(types)};
  auto pos =
      std::lower_bound(def_.constraints.begin(), def_.constraints.end(), c.name,
                       [](const KernelDef::AttrConstraint& a,
                          const std::string& name) { return a.name < name; });
  def_.constraints.insert(pos, std::move(c));
  return *this;
}

KernelDefBuilder& KernelDefBuilder::HostMemory(absl::string_view arg) {
  if (arg.empty()) {
    Fail("HostMemory with an empty arg name");
  } else if (def_.IsHostMemoryArg(arg)) {
    Fail(absl::StrCat("HostMemory('", arg, "') given twice"));
  } else {
    def_.host_memory_args.emplace_back(arg);
  }
  return *this;
}

KernelDefBuilder& KernelDefBuilder::Priority(int32_t priority) {
  def_.priority = priority;
  return *this;
}

KernelDefBuilder& KernelDefBuilder::Label(absl::string_view label) {
  if (label_set_) {
    Fail(absl::StrCat("Label given twice ('", def_.label, "' and '", label,
                      "')"));
  } else if (label.empty()) {
    Fail("Label is empty (leave it out to serve unlabelled nodes)");
  }
  label_set_ = true;
  def_.label = std::string(label);
  return *this;
}

StatusOr<KernelDef> KernelDefBuilder::Build() const {
  std::string error = error_;
  if (error.empty() && !device_set_) error = "no Device(...) given";
  if (!error.empty()) {
    return errors::InvalidArgument("kernel for op '", def_.op, "': ", error);
  }
  return def_;
}

}  // namespace weft
