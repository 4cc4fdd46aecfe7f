// Node inputs as SavedModel rewriting reads them, in both spellings a
// GraphDef uses: graph form ("node", "node:k", "^node") at the top level and
// function-body form ("arg", "node:out_arg:k", "^node") inside FunctionDefs.
#ifndef WEFT_SAVEDMODEL_NODE_REF_H_
#define WEFT_SAVEDMODEL_NODE_REF_H_

#include <string>

#include "absl/strings/string_view.h"

namespace weft::savedmodel_internal {

struct Ref {
  std::string node;  // a node, or in function form an argument
  std::string arg;   // function form: the output arg; empty for an argument
  int index = 0;     // -1 when the index does not parse
  bool control = false;
};

Ref ParseRef(absl::string_view s, bool function_form);
std::string SpellRef(const Ref& r, bool function_form);
// One spelling per tensor ("n:0" and "n" are both "n" in graph form), for
// use as a map key.
std::string CanonicalRef(absl::string_view input, bool function_form);
// Whether `input` is spelled as CanonicalRef spells it, so that it can be
// looked up as it is. Nearly every input is: "^n", "n", "n:1", and
// "n:out:0" in function form.
bool IsCanonicalRef(absl::string_view input, bool function_form);
// The node (or argument) `input` names: "^n", "n", "n:1" and "n:out:0" all
// name "n". A view into `input`.
absl::string_view RefNode(absl::string_view input);

// The entry of `map` (keyed by CanonicalRef, with heterogeneous lookup)
// for `input`, without spelling a key when `input` is canonical already.
template <typename Map>
auto FindRef(Map& map, absl::string_view input, bool function_form) {
  if (IsCanonicalRef(input, function_form)) return map.find(input);
  return map.find(CanonicalRef(input, function_form));
}

}  // namespace weft::savedmodel_internal

#endif  // WEFT_SAVEDMODEL_NODE_REF_H_
