#include "ops/op_def.h"

namespace weft {

const OpDef::AttrDef* OpDef::FindAttr(absl::string_view attr_name) const {
  for (const AttrDef& a : attr) {
    if (a.name == attr_name) return &a;
  }
  return nullptr;
}

}  // namespace weft
