#include "ops/op_def_util.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace weft {
namespace {

// More outputs than any real op has; guards the signature vectors against
// absurd lengths ("N" = 10^12) in hand-written graphs.
constexpr int64_t kMaxArgLength = int64_t{1} << 20;

// The element type name of a list, "" for an empty list, "mixed" when more
// than one vector is populated.
std::string ListElementType(const AttrValue::ListValue& l) {
  std::vector<absl::string_view> kinds;
  if (!l.s.empty()) kinds.push_back("string");
  if (!l.i.empty()) kinds.push_back("int");
  if (!l.f.empty()) kinds.push_back("float");
  if (!l.b.empty()) kinds.push_back("bool");
  if (!l.type.empty()) kinds.push_back("type");
  if (!l.shape.empty()) kinds.push_back("shape");
  if (!l.tensor.empty()) kinds.push_back("tensor");
  if (!l.func.empty()) kinds.push_back("func");
  if (kinds.empty()) return "";
  if (kinds.size() > 1) return "mixed";
  return std::string(kinds.front());
}

absl::string_view ScalarKindName(AttrValue::Kind kind) {
  switch (kind) {
    case AttrValue::Kind::kString:
      return "string";
    case AttrValue::Kind::kInt:
      return "int";
    case AttrValue::Kind::kFloat:
      return "float";
    case AttrValue::Kind::kBool:
      return "bool";
    case AttrValue::Kind::kType:
      return "type";
    case AttrValue::Kind::kShape:
      return "shape";
    case AttrValue::Kind::kTensor:
      return "tensor";
    case AttrValue::Kind::kFunc:
      return "func";
    default:
      return "";
  }
}

// "int", "list(float)", "list(mixed)", "unset", ...
std::string ValueTypeName(const AttrValue& v) {
  switch (v.kind) {
    case AttrValue::Kind::kUnset:
      return "no value";
    case AttrValue::Kind::kPlaceholder:
      return "placeholder";
    case AttrValue::Kind::kList: {
      std::string element = ListElementType(*v.list);
      return element.empty() ? "an empty list"
                             : absl::StrCat("list(", element, ")");
    }
    default:
      return std::string(ScalarKindName(v.kind));
  }
}

// Whether `v` has the declared attr type (an empty list fits any list type).
bool HasType(const AttrValue& v, const std::string& type) {
  if (absl::StartsWith(type, "list(")) {
    if (v.kind != AttrValue::Kind::kList) return false;
    std::string element = ListElementType(*v.list);
    return element.empty() || type == absl::StrCat("list(", element, ")");
  }
  return ScalarKindName(v.kind) == type && !type.empty();
}

std::string QuotedList(const std::vector<std::string>& strings) {
  return absl::StrCat("[",
                      absl::StrJoin(strings, ", ",
                                    [](std::string* out, const std::string& s) {
                                      absl::StrAppend(out, "\"", s, "\"");
                                    }),
                      "]");
}

Status CheckAttr(const OpDef::AttrDef& def, const AttrValue& v) {
  if (v.kind == AttrValue::Kind::kPlaceholder) {
    return errors::InvalidArgument(
        "attr '", def.name, "' is the placeholder $", v.s,
        "; placeholders are only valid inside function bodies");
  }
  if (!HasType(v, def.type)) {
    return errors::InvalidArgument("attr '", def.name, "' should be ", def.type,
                                   ", got ", ValueTypeName(v));
  }
  std::vector<DataType> types;
  if (v.kind == AttrValue::Kind::kType) types.push_back(v.type);
  types.insert(types.end(), v.list->type.begin(), v.list->type.end());
  for (DataType dt : types) {
    if (!IsValidDataType(dt)) {
      return errors::InvalidArgument("attr '", def.name,
                                     "' has an invalid type value ",
                                     static_cast<int32_t>(dt));
    }
  }
  if (def.allowed_values) {
    const AttrValue::ListValue& allowed = *def.allowed_values->list;
    if (!allowed.type.empty()) {
      for (DataType dt : types) {
        if (std::find(allowed.type.begin(), allowed.type.end(), dt) ==
            allowed.type.end()) {
          return errors::InvalidArgument("attr '", def.name, "' has value ",
                                         DataTypeName(dt), ", allowed ",
                                         DataTypeListString(allowed.type));
        }
      }
    }
    if (!allowed.s.empty()) {
      std::vector<std::string> strings = v.list->s;
      if (v.kind == AttrValue::Kind::kString) strings.push_back(v.s);
      for (const std::string& s : strings) {
        if (std::find(allowed.s.begin(), allowed.s.end(), s) ==
            allowed.s.end()) {
          return errors::InvalidArgument("attr '", def.name, "' has value \"",
                                         s, "\", allowed ",
                                         QuotedList(allowed.s));
        }
      }
    }
  }
  if (def.has_minimum) {
    if (v.kind == AttrValue::Kind::kInt && v.i < def.minimum) {
      return errors::InvalidArgument(
          "attr '", def.name, "' must be >= ", def.minimum, ", got ", v.i);
    }
    if (v.kind == AttrValue::Kind::kList &&
        static_cast<int64_t>(v.list->size()) < def.minimum) {
      return errors::InvalidArgument("attr '", def.name,
                                     "' must have length >= ", def.minimum,
                                     ", got ", v.list->size());
    }
  }
  return Status();
}

// Appends the dtypes of one arg to `types`.
Status AddArgTypes(const OpDef::ArgDef& arg, const AttrMap& attrs,
                   absl::string_view kind, std::vector<DataType>* types) {
  auto attr = [&](const std::string& name,
                  AttrValue::Kind want) -> StatusOr<const AttrValue*> {
    auto it = attrs.find(name);
    if (it == attrs.end() || it->second.kind != want) {
      // CheckAttr has verified declared attrs; this only trips for an OpDef
      // whose args name undeclared attrs.
      return errors::InvalidArgument(kind, " '", arg.name, "' refers to attr '",
                                     name, "', which the node lacks");
    }
    return &it->second;
  };
  int64_t count = 1;
  if (!arg.number_attr.empty()) {
    WEFT_ASSIGN_OR_RETURN(const AttrValue* n,
                          attr(arg.number_attr, AttrValue::Kind::kInt));
    if (n->i < 0 || n->i > kMaxArgLength) {
      return errors::InvalidArgument("attr '", arg.number_attr, "' = ", n->i,
                                     " is not a valid length for ", kind, " '",
                                     arg.name, "' (0 to ", kMaxArgLength, ")");
    }
    count = n->i;
  }
  if (!arg.type_list_attr.empty()) {
    auto it = attrs.find(arg.type_list_attr);
    if (it == attrs.end() || it->second.kind != AttrValue::Kind::kList) {
      return errors::InvalidArgument(kind, " '", arg.name, "' refers to attr '",
                                     arg.type_list_attr,
                                     "', which the node lacks");
    }
    const std::vector<DataType>& list = it->second.list->type;
    types->insert(types->end(), list.begin(), list.end());
    return Status();
  }
  DataType dt = arg.type;
  if (!arg.type_attr.empty()) {
    WEFT_ASSIGN_OR_RETURN(const AttrValue* t,
                          attr(arg.type_attr, AttrValue::Kind::kType));
    dt = t->type;
  }
  if (dt == DT_INVALID) {
    return errors::InvalidArgument(kind, " '", arg.name, "' has no type");
  }
  types->insert(types->end(), static_cast<size_t>(count), dt);
  return Status();
}

Status ComputeTypes(const std::vector<OpDef::ArgDef>& args,
                    const AttrMap& attrs, absl::string_view kind,
                    std::vector<DataType>* types,
                    std::vector<std::pair<int, int>>* ranges) {
  for (const OpDef::ArgDef& arg : args) {
    const int start = static_cast<int>(types->size());
    WEFT_RETURN_IF_ERROR(AddArgTypes(arg, attrs, kind, types));
    if (static_cast<int64_t>(types->size()) > kMaxArgLength) {
      return errors::InvalidArgument("more than ", kMaxArgLength, " ", kind,
                                     "s");
    }
    ranges->emplace_back(start, static_cast<int>(types->size()));
  }
  return Status();
}

Status ValidateNodeImpl(const OpDef& op_def, NodeDef* node, NodeTypes* out) {
  if (node->op != op_def.name) {
    return errors::InvalidArgument("validated against op '", op_def.name, "'");
  }
  for (const OpDef::AttrDef& def : op_def.attr) {
    if (def.default_value && node->attr.find(def.name) == node->attr.end()) {
      node->attr.emplace(def.name, *def.default_value);
    }
  }
  for (const auto& [name, value] : node->attr) {
    if (absl::StartsWith(name, "_")) continue;  // internal annotations
    if (op_def.FindAttr(name) == nullptr) {
      return errors::InvalidArgument("unknown attr '", name, "'");
    }
  }
  for (const OpDef::AttrDef& def : op_def.attr) {
    auto it = node->attr.find(def.name);
    if (it == node->attr.end()) {
      return errors::InvalidArgument("missing attr '", def.name, "' (",
                                     def.type, ")");
    }
    WEFT_RETURN_IF_ERROR(CheckAttr(def, it->second));
  }

  WEFT_RETURN_IF_ERROR(ComputeTypes(op_def.input_arg, node->attr, "input",
                                    &out->input_types, &out->input_ranges));
  WEFT_RETURN_IF_ERROR(ComputeTypes(op_def.output_arg, node->attr, "output",
                                    &out->output_types, &out->output_ranges));

  size_t data_inputs = 0;
  const std::string* first_control = nullptr;
  for (const std::string& input : node->input) {
    if (absl::StartsWith(input, "^")) {
      if (first_control == nullptr) first_control = &input;
      continue;
    }
    if (first_control != nullptr) {
      return errors::InvalidArgument(
          "data input '", input, "' follows control input '", *first_control,
          "'; control inputs must come last");
    }
    ++data_inputs;
  }
  if (data_inputs != out->input_types.size()) {
    return errors::InvalidArgument("expects ", out->input_types.size(),
                                   " data inputs, got ", data_inputs);
  }
  return Status();
}

// ---- OpDefToString ---------------------------------------------------------

// The shortest decimal that reads back as the same float.
std::string FloatSpec(float f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f < 0 ? "-inf" : "inf";
  for (int precision = 6; precision <= 9; ++precision) {
    std::string s = absl::StrFormat("%.*g", precision, f);
    if (std::strtof(s.c_str(), nullptr) == f) return s;
  }
  return absl::StrFormat("%.9g", f);
}

std::string StringSpec(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    switch (c) {
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += c;
    }
  }
  out += "'";
  return out;
}

std::string ShapeSpec(const PartialTensorShape& shape) {
  if (shape.unknown_rank()) return "<unknown>";
  return absl::StrCat("[", absl::StrJoin(shape.dim_sizes(), ", "), "]");
}

// A value in the spec grammar, so that the listing reads back as a spec.
std::string ValueSpec(const AttrValue& v) {
  switch (v.kind) {
    case AttrValue::Kind::kString:
      return StringSpec(v.s);
    case AttrValue::Kind::kInt:
      return absl::StrCat(v.i);
    case AttrValue::Kind::kFloat:
      return FloatSpec(v.f);
    case AttrValue::Kind::kBool:
      return v.b ? "true" : "false";
    case AttrValue::Kind::kType:
      return DataTypeName(v.type);
    case AttrValue::Kind::kShape:
      return ShapeSpec(v.shape);
    case AttrValue::Kind::kList: {
      const AttrValue::ListValue& l = *v.list;
      std::vector<std::string> parts;
      for (const auto& x : l.s) parts.push_back(StringSpec(x));
      for (int64_t x : l.i) parts.push_back(absl::StrCat(x));
      for (float x : l.f) parts.push_back(FloatSpec(x));
      for (bool x : l.b) parts.push_back(x ? "true" : "false");
      for (DataType x : l.type) parts.push_back(DataTypeName(x));
      for (const auto& x : l.shape) parts.push_back(ShapeSpec(x));
      return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
    }
    default:
      return SummarizeAttrValue(v);
  }
}

std::string AttrTypeSpec(const OpDef::AttrDef& attr) {
  if (!attr.allowed_values) return attr.type;
  const AttrValue::ListValue& allowed = *attr.allowed_values->list;
  std::vector<std::string> parts;
  for (DataType dt : allowed.type) parts.push_back(DataTypeName(dt));
  for (const std::string& s : allowed.s) parts.push_back(StringSpec(s));
  std::string set = absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
  return absl::StartsWith(attr.type, "list(") ? absl::StrCat("list(", set, ")")
                                              : set;
}

std::string ArgSpec(const OpDef::ArgDef& arg) {
  std::string type;
  if (!arg.type_list_attr.empty()) {
    type = arg.type_list_attr;
  } else if (!arg.type_attr.empty()) {
    type = arg.type_attr;
  } else {
    type = DataTypeName(arg.type);
  }
  if (!arg.number_attr.empty())
    type = absl::StrCat(arg.number_attr, " * ", type);
  if (arg.is_ref) type = absl::StrCat("Ref(", type, ")");
  return absl::StrCat(arg.name, ": ", type);
}

std::string ArgList(const std::vector<OpDef::ArgDef>& args) {
  std::vector<std::string> parts;
  for (const OpDef::ArgDef& arg : args) parts.push_back(ArgSpec(arg));
  return absl::StrJoin(parts, ", ");
}

}  // namespace

StatusOr<NodeTypes> ValidateNode(const OpDef& op_def, NodeDef* node) {
  NodeTypes types;
  Status status = ValidateNodeImpl(op_def, node, &types);
  if (!status.ok()) {
    return AddContext(status,
                      absl::StrCat("node '", node->name, "' (", node->op, ")"));
  }
  return types;
}

std::string OpDefToString(const OpDef& op_def) {
  std::string out = absl::StrCat(op_def.name, "(", ArgList(op_def.input_arg),
                                 ") -> (", ArgList(op_def.output_arg), ")\n");
  for (const OpDef::AttrDef& attr : op_def.attr) {
    absl::StrAppend(&out, "  attr ", attr.name, ": ", AttrTypeSpec(attr));
    if (attr.has_minimum) absl::StrAppend(&out, " >= ", attr.minimum);
    if (attr.default_value) {
      absl::StrAppend(&out, " = ", ValueSpec(*attr.default_value));
    }
    out += "\n";
  }
  std::vector<absl::string_view> flags;
  if (op_def.is_commutative) flags.push_back("commutative");
  if (op_def.is_aggregate) flags.push_back("aggregate");
  if (op_def.is_stateful) flags.push_back("stateful");
  if (op_def.allows_uninitialized_input) {
    flags.push_back("allows_uninitialized_input");
  }
  if (!flags.empty()) {
    absl::StrAppend(&out, "  flags: ", absl::StrJoin(flags, ", "), "\n");
  }
  if (!op_def.summary.empty()) {
    absl::StrAppend(&out, "  summary: ", op_def.summary, "\n");
  }
  return out;
}

}  // namespace weft
