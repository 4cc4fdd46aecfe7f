#include "ops/op_registry.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/registration.h"

namespace weft {
namespace {

// Levenshtein distance, case-insensitive (op names differ mostly in case
// slips like "Conv2d" and in a dropped or doubled letter).
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const bool same =
          absl::ascii_tolower(static_cast<unsigned char>(a[i - 1])) ==
          absl::ascii_tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] =
          std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

OpRegistry* OpRegistry::Global() {
  static OpRegistry* const registry = new OpRegistry;
  return registry;
}

Status OpRegistry::Register(const OpDefBuilder& builder,
                            absl::string_view source) {
  StatusOr<OpRegistrationData> data = builder.Finalize();
  if (!data.ok()) return data.status();
  data->source = std::string(source);
  return Register(std::move(*data));
}

Status OpRegistry::Register(OpRegistrationData data) {
  auto entry = std::make_unique<OpRegistrationData>(std::move(data));
  MutexLock lock(&mu_);
  return AddLocked(std::move(entry));
}

Status OpRegistry::AddLocked(std::unique_ptr<OpRegistrationData> data) {
  auto it = ops_.find(data->op_def.name);
  if (it != ops_.end()) {
    return errors::AlreadyExists("op '", data->op_def.name,
                                 "' registered twice: at ", it->second->source,
                                 " and at ", data->source);
  }
  std::string name = data->op_def.name;
  ops_.emplace(std::move(name), std::move(data));
  return Status();
}

void OpRegistry::RegisterStatic(const OpDefBuilder& builder,
                                absl::string_view source) {
  Status status = Register(builder, source);
  if (!status.ok()) {
    MutexLock lock(&mu_);
    static_errors_.push_back(std::move(status));
  }
}

StatusOr<const OpRegistrationData*> OpRegistry::LookUp(
    absl::string_view op_name) const {
  ReaderMutexLock lock(&mu_);
  auto it = ops_.find(op_name);
  if (it != ops_.end()) return it->second.get();

  // Suggest the closest names: within a third of the name's length (at least
  // one edit, at most three), all ties, at most three of them.
  const size_t limit =
      std::clamp<size_t>(op_name.size() / 3, size_t{1}, size_t{3});
  size_t best = limit + 1;
  std::vector<absl::string_view> close;
  for (const auto& [name, data] : ops_) {
    const size_t d = EditDistance(op_name, name);
    if (d < best) {
      best = d;
      close.clear();
    }
    if (d == best && close.size() < 3) close.push_back(name);
  }
  std::string hint;
  if (!close.empty()) {
    std::vector<std::string> quoted;
    for (absl::string_view n : close)
      quoted.push_back(absl::StrCat("'", n, "'"));
    hint = absl::StrCat("; did you mean ", absl::StrJoin(quoted, " or "), "?");
  }
  if (left_out_.count(op_name) > 0) {
    return errors::NotFound(
        "op '", op_name,
        "' is left out of this selective build: the ops_to_register.h weft "
        "was built with does not list it (regenerate that header with `weft "
        "ops --used-by GRAPH... --header` over every graph the application "
        "runs, this one included)");
  }
  return errors::NotFound("unknown op '", op_name, "'", hint);
}

void OpRegistry::RecordLeftOut(absl::string_view op_name) {
  MutexLock lock(&mu_);
  left_out_.emplace(op_name);
}

std::vector<std::string> OpRegistry::LeftOutOps() const {
  ReaderMutexLock lock(&mu_);
  return std::vector<std::string>(left_out_.begin(), left_out_.end());
}

std::vector<const OpRegistrationData*> OpRegistry::ListOps() const {
  ReaderMutexLock lock(&mu_);
  std::vector<const OpRegistrationData*> out;
  out.reserve(ops_.size());
  for (const auto& [name, data] : ops_) out.push_back(data.get());
  return out;
}

Status OpRegistry::StaticRegistrationStatus() const {
  ReaderMutexLock lock(&mu_);
  return JoinRegistrationErrors(static_errors_, "op");
}

namespace register_op {

OpDefBuilderWrapper<true>::OpDefBuilderWrapper(const char* name,
                                               const char* file, int line)
    : builder_(name), source_(SourceLocation(file, line)) {}

OpDefBuilderReceiver::OpDefBuilderReceiver(
    const OpDefBuilderWrapper<true>& wrapper) {
  OpRegistry::Global()->RegisterStatic(wrapper.builder(), wrapper.source());
}

OpDefBuilderReceiver::OpDefBuilderReceiver(
    const OpDefBuilderWrapper<false>& wrapper) {
  OpRegistry::Global()->RecordLeftOut(wrapper.name());
}

}  // namespace register_op
}  // namespace weft
