#include "core/registration.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace weft {
namespace {

// The source tree's root as the compiler spelled it for this file
// ("/work/main/"). Empty when __FILE__ is already relative (e.g. under
// -fmacro-prefix-map), and then every in-tree path is relative too.
absl::string_view SourceRoot() {
  constexpr absl::string_view kSelf = __FILE__;
  constexpr absl::string_view kSuffix = "core/registration.cc";
  if (!absl::EndsWith(kSelf, kSuffix)) return "";
  return kSelf.substr(0, kSelf.size() - kSuffix.size());
}

}  // namespace

std::string SourceLocation(absl::string_view file, int line) {
  const absl::string_view root = SourceRoot();
  if (!root.empty() && absl::ConsumePrefix(&file, root)) {
    return absl::StrCat(file, ":", line);
  }
  const size_t cut = file.rfind('/');
  if (cut != absl::string_view::npos && cut > 0) {
    const size_t prev = file.rfind('/', cut - 1);
    if (prev != absl::string_view::npos) file.remove_prefix(prev + 1);
  }
  return absl::StrCat(file, ":", line);
}

Status JoinRegistrationErrors(const std::vector<Status>& errors,
                              absl::string_view what) {
  if (errors.empty()) return Status();
  if (errors.size() == 1) return errors.front();
  std::vector<absl::string_view> messages;
  for (const Status& s : errors) messages.push_back(s.message());
  return Status(
      errors.front().code(),
      absl::StrCat(errors.size(), " ", what, " registrations failed:\n",
                   absl::StrJoin(messages, "\n")));
}

}  // namespace weft
