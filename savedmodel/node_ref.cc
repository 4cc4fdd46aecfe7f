#include "savedmodel/node_ref.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace weft::savedmodel_internal {

Ref ParseRef(absl::string_view s, bool function_form) {
  Ref r;
  if (!s.empty() && s[0] == '^') {
    r.control = true;
    r.node = std::string(s.substr(1));
    return r;
  }
  std::vector<absl::string_view> parts = absl::StrSplit(s, ':');
  r.node = std::string(parts[0]);
  if (function_form) {
    if (parts.size() == 3) {
      r.arg = std::string(parts[1]);
      if (!absl::SimpleAtoi(parts[2], &r.index)) r.index = -1;
    }
  } else if (parts.size() == 2) {
    if (!absl::SimpleAtoi(parts[1], &r.index)) r.index = -1;
  }
  return r;
}

std::string SpellRef(const Ref& r, bool function_form) {
  if (r.control) return absl::StrCat("^", r.node);
  if (function_form) {
    if (r.arg.empty()) return r.node;
    return absl::StrCat(r.node, ":", r.arg, ":", r.index);
  }
  return r.index == 0 ? r.node : absl::StrCat(r.node, ":", r.index);
}

std::string CanonicalRef(absl::string_view input, bool function_form) {
  return SpellRef(ParseRef(input, function_form), function_form);
}

}  // namespace weft::savedmodel_internal
