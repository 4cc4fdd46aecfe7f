#include "savedmodel/node_ref.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
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

namespace {

// Whether `digits` is an index as SpellRef writes it: "0", or up to nine
// digits (an int) without a leading zero.
bool IsSpelledIndex(absl::string_view digits) {
  if (digits.empty() || digits.size() > 9) return false;
  if (digits[0] == '0') return digits.size() == 1;
  return std::all_of(digits.begin(), digits.end(),
                     [](char c) { return absl::ascii_isdigit(c); });
}

}  // namespace

std::string CanonicalRef(absl::string_view input, bool function_form) {
  // Nearly every input is spelled canonically already ("^n", "n", "n:1";
  // "n:out:0" in function form): returned as it is, without the split and
  // re-spelling, which were a fifth of freezing a Keras model's variables.
  const size_t first = input.find(':');
  if ((!input.empty() && input[0] == '^') || first == absl::string_view::npos) {
    return std::string(input);
  }
  const size_t second = input.find(':', first + 1);
  if (function_form) {
    if (second != absl::string_view::npos && second > first + 1 &&
        input.find(':', second + 1) == absl::string_view::npos &&
        IsSpelledIndex(input.substr(second + 1))) {
      return std::string(input);
    }
  } else if (second == absl::string_view::npos) {
    const absl::string_view index = input.substr(first + 1);
    if (index != "0" && IsSpelledIndex(index)) return std::string(input);
  }
  return SpellRef(ParseRef(input, function_form), function_form);
}

}  // namespace weft::savedmodel_internal
