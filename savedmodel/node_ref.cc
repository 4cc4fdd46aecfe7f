#include "savedmodel/node_ref.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace weft::savedmodel_internal {

Ref ParseRef(absl::string_view s, bool function_form) {
  Ref r;
  if (!s.empty() && s[0] == '^') {
    r.control = true;
    r.node = std::string(s.substr(1));
    return r;
  }
  // "node", "node:index" (graph form) or "node:arg:index" (function form);
  // any other count of ':' leaves the node with the whole first part.
  const size_t first = s.find(':');
  r.node = std::string(s.substr(0, first));
  if (first == absl::string_view::npos) return r;
  const absl::string_view rest = s.substr(first + 1);
  const size_t second = rest.find(':');
  if (function_form) {
    if (second != absl::string_view::npos &&
        rest.find(':', second + 1) == absl::string_view::npos) {
      r.arg = std::string(rest.substr(0, second));
      if (!absl::SimpleAtoi(rest.substr(second + 1), &r.index)) r.index = -1;
    }
  } else if (second == absl::string_view::npos) {
    if (!absl::SimpleAtoi(rest, &r.index)) r.index = -1;
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

bool IsCanonicalRef(absl::string_view input, bool function_form) {
  const size_t first = input.find(':');
  if ((!input.empty() && input[0] == '^') || first == absl::string_view::npos) {
    return true;
  }
  const size_t second = input.find(':', first + 1);
  if (function_form) {
    return second != absl::string_view::npos && second > first + 1 &&
           input.find(':', second + 1) == absl::string_view::npos &&
           IsSpelledIndex(input.substr(second + 1));
  }
  if (second != absl::string_view::npos) return false;
  const absl::string_view index = input.substr(first + 1);
  return index != "0" && IsSpelledIndex(index);
}

std::string CanonicalRef(absl::string_view input, bool function_form) {
  // Returned as it is when it is canonical already, without the split and
  // re-spelling, which were a fifth of freezing a Keras model's variables.
  if (IsCanonicalRef(input, function_form)) return std::string(input);
  return SpellRef(ParseRef(input, function_form), function_form);
}

absl::string_view RefNode(absl::string_view input) {
  if (!input.empty() && input[0] == '^') input.remove_prefix(1);
  return input.substr(0, input.find(':'));
}

}  // namespace weft::savedmodel_internal
