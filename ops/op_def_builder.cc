#include "ops/op_def_builder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace weft {
namespace {

constexpr absl::string_view kScalarAttrTypes[] = {
    "string", "int", "float", "bool", "type", "shape", "tensor", "func"};

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// A cursor over one spec string. Every Consume* skips leading whitespace.
class Scanner {
 public:
  explicit Scanner(absl::string_view text) : rest_(text) {}

  void SkipSpace() {
    while (!rest_.empty() &&
           absl::ascii_isspace(static_cast<unsigned char>(rest_.front()))) {
      rest_.remove_prefix(1);
    }
  }
  bool AtEnd() {
    SkipSpace();
    return rest_.empty();
  }
  char Peek() {
    SkipSpace();
    return rest_.empty() ? '\0' : rest_.front();
  }
  bool Consume(absl::string_view token) {
    SkipSpace();
    return absl::ConsumePrefix(&rest_, token);
  }
  // A run of [A-Za-z0-9_]; empty when none.
  absl::string_view ConsumeName() {
    SkipSpace();
    size_t n = 0;
    while (n < rest_.size() && IsNameChar(rest_[n])) ++n;
    absl::string_view name = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return name;
  }
  // A bare value token: everything up to a separator, bracket, quote or
  // whitespace ("1e-4", "-inf", "DT_FLOAT", "<unknown>", "?").
  absl::string_view ConsumeAtom() {
    SkipSpace();
    size_t n = 0;
    while (n < rest_.size()) {
      char c = rest_[n];
      if (c == ',' || c == '[' || c == ']' || c == '{' || c == '}' ||
          c == '(' || c == ')' || c == '\'' || c == '"' ||
          absl::ascii_isspace(static_cast<unsigned char>(c))) {
        break;
      }
      ++n;
    }
    absl::string_view atom = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return atom;
  }
  absl::string_view rest() {
    SkipSpace();
    return rest_;
  }

  // A 'single' or "double" quoted string with \\ \' \" \n \t escapes.
  StatusOr<std::string> ConsumeQuoted() {
    SkipSpace();
    if (rest_.empty() || (rest_.front() != '\'' && rest_.front() != '"')) {
      return errors::InvalidArgument("expected a quoted string, got ",
                                     Describe(rest_));
    }
    const char quote = rest_.front();
    std::string out;
    size_t i = 1;
    for (; i < rest_.size() && rest_[i] != quote; ++i) {
      char c = rest_[i];
      if (c == '\\') {
        if (++i == rest_.size()) break;
        switch (rest_[i]) {
          case 'n':
            c = '\n';
            break;
          case 't':
            c = '\t';
            break;
          case '\\':
          case '\'':
          case '"':
            c = rest_[i];
            break;
          default:
            return errors::InvalidArgument("unknown escape '\\",
                                           rest_.substr(i, 1), "' in string");
        }
      }
      out.push_back(c);
    }
    if (i >= rest_.size()) {
      return errors::InvalidArgument("unterminated string ", rest_);
    }
    rest_.remove_prefix(i + 1);
    return out;
  }

  // "'abc'" for error messages; "nothing" at the end of the spec.
  static std::string Describe(absl::string_view text) {
    if (text.empty()) return "nothing";
    return absl::StrCat("'", text, "'");
  }

 private:
  absl::string_view rest_;
};

std::optional<DataType> TypeFromSpelling(absl::string_view s) {
  if (auto dt = DataTypeFromName(s)) return dt;
  if (absl::StartsWith(s, "DT_")) {
    for (DataType dt : AllDataTypes()) {
      if (s.substr(3) == absl::AsciiStrToUpper(DataTypeName(dt))) return dt;
    }
  }
  return std::nullopt;
}

// ---- attr types ------------------------------------------------------------

// The parsed form of the text between ':' and '>=' / '='.
struct AttrType {
  std::string scalar;  // one of kScalarAttrTypes
  bool is_list = false;
  std::optional<AttrValue> allowed;  // kList with list.type or list.s

  std::string Name() const {
    return is_list ? absl::StrCat("list(", scalar, ")") : scalar;
  }
};

// '{' item (',' item)* '}' where every item is a dtype, or every item a
// quoted string.
Status ParseAllowedSet(Scanner& sc, AttrType* type) {
  sc.Consume("{");
  std::vector<DataType> types;
  std::vector<std::string> strings;
  bool first = true;
  while (!sc.Consume("}")) {
    if (sc.AtEnd()) {
      return errors::InvalidArgument(
          "unbalanced braces: the allowed-value set has no closing '}'");
    }
    if (!first && !sc.Consume(",")) {
      return errors::InvalidArgument(
          "expected ',' or '}' in the allowed-value "
          "set, got ",
          Scanner::Describe(sc.rest()));
    }
    first = false;
    const char c = sc.Peek();
    if (c == '\'' || c == '"') {
      if (!types.empty()) {
        return errors::InvalidArgument(
            "the allowed-value set mixes types and strings");
      }
      WEFT_ASSIGN_OR_RETURN(std::string s, sc.ConsumeQuoted());
      strings.push_back(std::move(s));
    } else {
      absl::string_view name = sc.ConsumeName();
      if (name.empty()) {
        return errors::InvalidArgument(
            "expected a type name or a quoted string in the allowed-value set, "
            "got ",
            Scanner::Describe(sc.rest()));
      }
      if (!strings.empty()) {
        return errors::InvalidArgument(
            "the allowed-value set mixes types and strings");
      }
      // As in TensorFlow, a set may also name aliases: {realnumbertype, qint8}.
      std::vector<DataType> add;
      if (std::optional<DataType> dt = DataTypeFromName(name)) {
        add.push_back(*dt);
      } else if (std::optional<std::vector<DataType>> set =
                     DataTypeAlias(name)) {
        add = std::move(*set);
      } else {
        return errors::InvalidArgument("unknown type '", name, "'");
      }
      for (DataType dt : add) {
        if (std::find(types.begin(), types.end(), dt) == types.end()) {
          types.push_back(dt);
        }
      }
    }
  }
  if (types.empty() && strings.empty()) {
    return errors::InvalidArgument("the allowed-value set '{}' is empty");
  }
  if (!types.empty()) {
    type->scalar = "type";
    type->allowed = AttrValue::TypeList(std::move(types));
  } else {
    type->scalar = "string";
    type->allowed = AttrValue::StringList(std::move(strings));
  }
  return Status();
}

Status ParseScalarAttrType(Scanner& sc, AttrType* type) {
  if (sc.Peek() == '{') return ParseAllowedSet(sc, type);
  absl::string_view name = sc.ConsumeName();
  if (name.empty()) {
    return errors::InvalidArgument("expected an attr type, got ",
                                   Scanner::Describe(sc.rest()));
  }
  for (absl::string_view t : kScalarAttrTypes) {
    if (name == t) {
      type->scalar = std::string(t);
      return Status();
    }
  }
  if (std::optional<std::vector<DataType>> set = DataTypeAlias(name)) {
    type->scalar = "type";
    type->allowed = AttrValue::TypeList(std::move(*set));
    return Status();
  }
  if (name == "list") {
    if (sc.Peek() == '(') {
      return errors::InvalidArgument("lists cannot be nested");
    }
    return errors::InvalidArgument(
        "'list' needs an element type in parentheses, e.g. list(int)");
  }
  if (DataTypeFromName(name)) {
    return errors::InvalidArgument(
        "unknown attr type '", name, "' (a single dtype is written '{", name,
        "}'; attr types are string, int, float, bool, type, shape, tensor, "
        "func, list(...), a {...} set or a type alias like numbertype)");
  }
  return errors::InvalidArgument(
      "unknown attr type '", name,
      "' (expected string, int, float, bool, type, shape, tensor, func, "
      "list(...), a {...} set or a type alias like numbertype)");
}

Status ParseAttrType(Scanner& sc, AttrType* type) {
  Scanner probe = sc;
  if (probe.ConsumeName() == "list" && probe.Consume("(")) {
    sc = probe;
    type->is_list = true;
    WEFT_RETURN_IF_ERROR(ParseScalarAttrType(sc, type));
    if (!sc.Consume(")")) {
      return errors::InvalidArgument(
          "unbalanced parentheses: expected ')' after the list element type, "
          "got ",
          Scanner::Describe(sc.rest()));
    }
    return Status();
  }
  return ParseScalarAttrType(sc, type);
}

// ---- default values ---------------------------------------------------------

StatusOr<int64_t> ParseIntValue(Scanner& sc) {
  absl::string_view atom = sc.ConsumeAtom();
  int64_t v;
  if (atom.empty() || !absl::SimpleAtoi(atom, &v)) {
    return errors::InvalidArgument(
        "expected an int, got ",
        Scanner::Describe(atom.empty() ? sc.rest() : atom));
  }
  return v;
}

StatusOr<float> ParseFloatValue(Scanner& sc) {
  absl::string_view atom = sc.ConsumeAtom();
  std::string lower = absl::AsciiStrToLower(atom);
  absl::string_view body = lower;
  bool negative = absl::ConsumePrefix(&body, "-");
  if (!negative) absl::ConsumePrefix(&body, "+");
  if (body == "inf" || body == "infinity") {
    return negative ? -std::numeric_limits<float>::infinity()
                    : std::numeric_limits<float>::infinity();
  }
  if (body == "nan") return std::numeric_limits<float>::quiet_NaN();
  double v;
  // SimpleAtod would also take "inf"/"nan" spellings handled above; a
  // hexadecimal or otherwise odd literal is not part of the grammar.
  if (atom.empty() || !absl::SimpleAtod(atom, &v) || !std::isfinite(v)) {
    return errors::InvalidArgument(
        "expected a float, got ",
        Scanner::Describe(atom.empty() ? sc.rest() : atom));
  }
  if (std::fabs(v) > std::numeric_limits<float>::max()) {
    return errors::InvalidArgument("float value ", atom,
                                   " is out of range for float");
  }
  return static_cast<float>(v);
}

StatusOr<bool> ParseBoolValue(Scanner& sc) {
  absl::string_view atom = sc.ConsumeAtom();
  if (atom == "true") return true;
  if (atom == "false") return false;
  return errors::InvalidArgument(
      "expected true or false, got ",
      Scanner::Describe(atom.empty() ? sc.rest() : atom));
}

StatusOr<DataType> ParseTypeValue(Scanner& sc) {
  absl::string_view atom = sc.ConsumeAtom();
  if (std::optional<DataType> dt = TypeFromSpelling(atom)) return *dt;
  if (atom.empty()) {
    return errors::InvalidArgument("expected a type, got ",
                                   Scanner::Describe(sc.rest()));
  }
  return errors::InvalidArgument("unknown type '", atom, "'");
}

StatusOr<PartialTensorShape> ParseShapeValue(Scanner& sc) {
  if (sc.Consume("<unknown>")) return PartialTensorShape::UnknownRank();
  if (!sc.Consume("[")) {
    return errors::InvalidArgument(
        "expected a shape like [2, -1], [] or <unknown>, got ",
        Scanner::Describe(sc.rest()));
  }
  std::vector<int64_t> dims;
  while (!sc.Consume("]")) {
    if (sc.AtEnd()) {
      return errors::InvalidArgument("unbalanced brackets: shape has no ']'");
    }
    if (!dims.empty() && !sc.Consume(",")) {
      return errors::InvalidArgument("expected ',' or ']' in shape, got ",
                                     Scanner::Describe(sc.rest()));
    }
    if (sc.Consume("?")) {
      dims.push_back(-1);
      continue;
    }
    WEFT_ASSIGN_OR_RETURN(int64_t d, ParseIntValue(sc));
    if (d < -1) {
      return errors::InvalidArgument("shape dimension ", d,
                                     " is invalid (use -1 for unknown)");
    }
    dims.push_back(d);
  }
  return PartialTensorShape::Build(dims);
}

StatusOr<AttrValue> ParseScalarValue(Scanner& sc, const std::string& type) {
  if (type == "string") {
    WEFT_ASSIGN_OR_RETURN(std::string v, sc.ConsumeQuoted());
    return AttrValue::String(std::move(v));
  }
  if (type == "int") {
    WEFT_ASSIGN_OR_RETURN(int64_t v, ParseIntValue(sc));
    return AttrValue::Int(v);
  }
  if (type == "float") {
    WEFT_ASSIGN_OR_RETURN(float v, ParseFloatValue(sc));
    return AttrValue::Float(v);
  }
  if (type == "bool") {
    WEFT_ASSIGN_OR_RETURN(bool v, ParseBoolValue(sc));
    return AttrValue::Bool(v);
  }
  if (type == "type") {
    WEFT_ASSIGN_OR_RETURN(DataType v, ParseTypeValue(sc));
    return AttrValue::Type(v);
  }
  if (type == "shape") {
    WEFT_ASSIGN_OR_RETURN(PartialTensorShape v, ParseShapeValue(sc));
    return AttrValue::Shape(std::move(v));
  }
  return errors::InvalidArgument("attrs of type ", type,
                                 " cannot have a default value in a spec");
}

void AppendToList(AttrValue v, AttrValue::ListValue* list) {
  switch (v.kind) {
    case AttrValue::Kind::kString:
      list->s.push_back(std::move(v.s));
      break;
    case AttrValue::Kind::kInt:
      list->i.push_back(v.i);
      break;
    case AttrValue::Kind::kFloat:
      list->f.push_back(v.f);
      break;
    case AttrValue::Kind::kBool:
      list->b.push_back(v.b);
      break;
    case AttrValue::Kind::kType:
      list->type.push_back(v.type);
      break;
    case AttrValue::Kind::kShape:
      list->shape.push_back(std::move(v.shape));
      break;
    default:
      break;  // ParseScalarValue produces only the kinds above.
  }
}

StatusOr<AttrValue> ParseValue(Scanner& sc, const AttrType& type) {
  if (type.scalar == "tensor" || type.scalar == "func") {
    return errors::InvalidArgument(
        "default values for ", type.Name(),
        " attrs are not supported; leave the attr without a default");
  }
  if (!type.is_list) return ParseScalarValue(sc, type.scalar);
  if (!sc.Consume("[")) {
    return errors::InvalidArgument("expected a list like [a, b] or [], got ",
                                   Scanner::Describe(sc.rest()));
  }
  AttrValue list = AttrValue::EmptyList();
  bool first = true;
  while (!sc.Consume("]")) {
    if (sc.AtEnd()) {
      return errors::InvalidArgument("unbalanced brackets: list has no ']'");
    }
    if (!first && !sc.Consume(",")) {
      return errors::InvalidArgument("expected ',' or ']' in list, got ",
                                     Scanner::Describe(sc.rest()));
    }
    first = false;
    WEFT_ASSIGN_OR_RETURN(AttrValue v, ParseScalarValue(sc, type.scalar));
    AppendToList(std::move(v), &*list.list);
  }
  return list;
}

std::string QuoteAll(const std::vector<std::string>& strings) {
  return absl::StrCat("[",
                      absl::StrJoin(strings, ", ",
                                    [](std::string* out, const std::string& s) {
                                      absl::StrAppend(out, "'", s, "'");
                                    }),
                      "]");
}

// Checks a default against the attr's allowed set and minimum.
Status CheckDefault(const OpDef::AttrDef& attr, const AttrValue& v) {
  if (attr.allowed_values) {
    const AttrValue::ListValue& allowed = *attr.allowed_values->list;
    std::vector<DataType> types;
    std::vector<std::string> strings;
    if (v.kind == AttrValue::Kind::kType) types.push_back(v.type);
    if (v.kind == AttrValue::Kind::kString) strings.push_back(v.s);
    types.insert(types.end(), v.list->type.begin(), v.list->type.end());
    strings.insert(strings.end(), v.list->s.begin(), v.list->s.end());
    for (DataType dt : types) {
      if (std::find(allowed.type.begin(), allowed.type.end(), dt) ==
          allowed.type.end()) {
        return errors::InvalidArgument("default ", DataTypeName(dt),
                                       " is not in the allowed set ",
                                       DataTypeListString(allowed.type));
      }
    }
    for (const std::string& s : strings) {
      if (std::find(allowed.s.begin(), allowed.s.end(), s) == allowed.s.end()) {
        return errors::InvalidArgument("default '", s,
                                       "' is not in the allowed set ",
                                       QuoteAll(allowed.s));
      }
    }
  }
  if (attr.has_minimum) {
    if (v.kind == AttrValue::Kind::kInt && v.i < attr.minimum) {
      return errors::InvalidArgument(
          "default ", v.i, " is less than the minimum ", attr.minimum);
    }
    if (v.kind == AttrValue::Kind::kList &&
        static_cast<int64_t>(v.list->size()) < attr.minimum) {
      return errors::InvalidArgument("default has ", v.list->size(),
                                     " elements, fewer than the minimum ",
                                     attr.minimum);
    }
  }
  return Status();
}

StatusOr<OpDef::AttrDef> ParseAttrSpec(absl::string_view spec) {
  Scanner sc(spec);
  OpDef::AttrDef attr;
  absl::string_view name = sc.ConsumeName();
  if (name.empty()) {
    return errors::InvalidArgument("expected an attr name, got ",
                                   Scanner::Describe(sc.rest()));
  }
  if (!IsValidArgOrAttrName(name)) {
    return errors::InvalidArgument("invalid attr name '", name,
                                   "' (names match [A-Za-z][A-Za-z0-9_]*)");
  }
  attr.name = std::string(name);
  if (!sc.Consume(":")) {
    return errors::InvalidArgument("expected ':' after the attr name '", name,
                                   "', got ", Scanner::Describe(sc.rest()));
  }
  AttrType type;
  WEFT_RETURN_IF_ERROR(ParseAttrType(sc, &type));
  attr.type = type.Name();
  attr.allowed_values = type.allowed;
  if (sc.Consume(">=")) {
    if (!type.is_list && type.scalar != "int") {
      return errors::InvalidArgument(
          "a minimum ('>=') applies only to int "
          "and list attrs, not to ",
          attr.type);
    }
    WEFT_ASSIGN_OR_RETURN(attr.minimum, ParseIntValue(sc));
    if (type.is_list && attr.minimum < 0) {
      return errors::InvalidArgument(
          "the minimum length of a list must be "
          ">= 0, got ",
          attr.minimum);
    }
    attr.has_minimum = true;
  }
  if (sc.Consume("=")) {
    if (sc.AtEnd()) {
      return errors::InvalidArgument("expected a default value after '='");
    }
    absl::string_view text = sc.rest();
    StatusOr<AttrValue> value = ParseValue(sc, type);
    if (!value.ok()) {
      return AddContext(value.status(),
                        absl::StrCat("default value '", text, "'"));
    }
    if (!sc.AtEnd()) {
      return errors::InvalidArgument("unexpected ",
                                     Scanner::Describe(sc.rest()),
                                     " after the default value");
    }
    WEFT_RETURN_IF_ERROR_CTX(CheckDefault(attr, *value), "default value '",
                             text, "'");
    attr.default_value = std::move(*value);
  } else if (!sc.AtEnd()) {
    return errors::InvalidArgument("unexpected ", Scanner::Describe(sc.rest()),
                                   " after the attr type");
  }
  return attr;
}

// ---- inputs and outputs -----------------------------------------------------

// An arg spec before attrs are resolved.
struct RawArg {
  std::string name;
  std::string number;  // "N" of "N * T"
  std::string type;    // "T" or "float"
  bool is_ref = false;
};

StatusOr<RawArg> ParseArgSpec(absl::string_view spec) {
  Scanner sc(spec);
  RawArg arg;
  absl::string_view name = sc.ConsumeName();
  if (name.empty()) {
    return errors::InvalidArgument("expected a name, got ",
                                   Scanner::Describe(sc.rest()));
  }
  if (!IsValidArgOrAttrName(name)) {
    return errors::InvalidArgument("invalid name '", name,
                                   "' (names match [A-Za-z][A-Za-z0-9_]*)");
  }
  arg.name = std::string(name);
  if (!sc.Consume(":")) {
    return errors::InvalidArgument("expected ':' after the name '", name,
                                   "', got ", Scanner::Describe(sc.rest()));
  }
  Scanner probe = sc;
  if (probe.ConsumeName() == "Ref" && probe.Consume("(")) {
    sc = probe;
    arg.is_ref = true;
  }
  absl::string_view first = sc.ConsumeName();
  if (first.empty()) {
    return errors::InvalidArgument("expected a type or attr name, got ",
                                   Scanner::Describe(sc.rest()));
  }
  if (sc.Consume("*")) {
    arg.number = std::string(first);
    first = sc.ConsumeName();
    if (first.empty()) {
      return errors::InvalidArgument(
          "expected a type or attr name after '*', got ",
          Scanner::Describe(sc.rest()));
    }
  }
  arg.type = std::string(first);
  if (arg.is_ref && !sc.Consume(")")) {
    return errors::InvalidArgument("unbalanced parentheses: 'Ref(' has no ')'");
  }
  if (!sc.AtEnd()) {
    return errors::InvalidArgument("unexpected ", Scanner::Describe(sc.rest()),
                                   " after the type");
  }
  return arg;
}

// Resolves `raw` against the op's attrs.
StatusOr<OpDef::ArgDef> ResolveArg(const RawArg& raw, const OpDef& op_def,
                                   absl::string_view kind) {
  if (raw.is_ref) {
    return errors::InvalidArgument(
        "refs are not supported (weft has no reference tensors; pass a "
        "resource handle instead)");
  }
  OpDef::ArgDef arg;
  arg.name = raw.name;
  if (!raw.number.empty()) {
    const OpDef::AttrDef* n = op_def.FindAttr(raw.number);
    if (n == nullptr) {
      return errors::InvalidArgument(
          "no attr named '", raw.number, "' for the length of ", kind, " '",
          raw.name, "' (declare it as '", raw.number, ": int >= 0')");
    }
    if (n->type != "int") {
      return errors::InvalidArgument(
          "attr '", raw.number, "' gives the length of ", kind, " '", raw.name,
          "' and must be int, not ", n->type);
    }
    if (!n->has_minimum || n->minimum < 0) {
      return errors::InvalidArgument(
          "attr '", raw.number, "' gives the length of ", kind, " '", raw.name,
          "' and needs a minimum >= 0 (declare it as '", raw.number,
          ": int >= 0' or '", raw.number, ": int >= 1')");
    }
    arg.number_attr = raw.number;
  }
  if (std::optional<DataType> dt = DataTypeFromName(raw.type)) {
    arg.type = *dt;
    return arg;
  }
  const OpDef::AttrDef* t = op_def.FindAttr(raw.type);
  if (t == nullptr) {
    return errors::InvalidArgument(
        "'", raw.type,
        "' is neither a dtype nor a declared attr (declare it "
        "with Attr(\"",
        raw.type, ": type\") or use a dtype like float)");
  }
  if (t->type == "type") {
    arg.type_attr = raw.type;
  } else if (t->type == "list(type)") {
    if (!raw.number.empty()) {
      return errors::InvalidArgument("'", raw.number, " * ", raw.type,
                                     "' needs a type attr, but '", raw.type,
                                     "' is list(type); write '", raw.name, ": ",
                                     raw.type, "' for a type list");
    }
    arg.type_list_attr = raw.type;
  } else {
    return errors::InvalidArgument(
        "attr '", raw.type, "' is ", t->type, "; the dtype of ", kind, " '",
        raw.name, "' must come from a type or list(type) attr");
  }
  return arg;
}

// Splits Doc() text into the first paragraph and the rest.
void SplitDoc(absl::string_view doc, OpDef* op_def) {
  doc = absl::StripAsciiWhitespace(doc);
  size_t blank = doc.find("\n\n");
  absl::string_view summary = doc.substr(0, blank);
  op_def->summary = std::string(absl::StripAsciiWhitespace(summary));
  if (blank != absl::string_view::npos) {
    op_def->description =
        std::string(absl::StripAsciiWhitespace(doc.substr(blank + 2)));
  }
}

}  // namespace

bool IsValidArgOrAttrName(absl::string_view name) {
  if (name.empty() || !absl::ascii_isalpha(static_cast<unsigned char>(name[0])))
    return false;
  for (char c : name) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

bool IsValidOpName(absl::string_view name) {
  absl::ConsumePrefix(&name, "_");
  return !name.empty() &&
         absl::ascii_isupper(static_cast<unsigned char>(name[0])) &&
         IsValidArgOrAttrName(name);
}

OpDefBuilder::OpDefBuilder(std::string op_name)
    : op_name_(std::move(op_name)) {}

OpDefBuilder& OpDefBuilder::Input(std::string spec) {
  inputs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::Output(std::string spec) {
  outputs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::Attr(std::string spec) {
  attrs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsCommutative() {
  is_commutative_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsAggregate() {
  is_aggregate_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsStateful() {
  is_stateful_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetAllowsUninitializedInput() {
  allows_uninitialized_input_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeInferenceFn fn) {
  shape_fn_ = std::move(fn);
  return *this;
}
OpDefBuilder& OpDefBuilder::Doc(std::string text) {
  if (!doc_.empty()) doc_.append("\n");
  doc_.append(text);
  return *this;
}

StatusOr<OpRegistrationData> OpDefBuilder::Finalize() const {
  const std::string op_ctx = absl::StrCat("op '", op_name_, "'");
  if (!IsValidOpName(op_name_)) {
    return errors::InvalidArgument(
        op_ctx,
        ": invalid op name (op names start with an uppercase letter, "
        "optionally after one '_', and continue with letters, digits and "
        "'_')");
  }
  OpRegistrationData data;
  OpDef& op_def = data.op_def;
  op_def.name = op_name_;

  // Every attr, input and output name, with what declared it.
  std::map<std::string, std::string, std::less<>> names;
  auto claim = [&](const std::string& name, std::string what) -> Status {
    auto [it, inserted] = names.emplace(name, what);
    if (!inserted) {
      return errors::InvalidArgument("name '", name, "' is already used by ",
                                     it->second);
    }
    return Status();
  };

  for (const std::string& spec : attrs_) {
    const std::string ctx = absl::StrCat(op_ctx, ": attr spec '", spec, "'");
    StatusOr<OpDef::AttrDef> attr = ParseAttrSpec(spec);
    if (!attr.ok()) return AddContext(attr.status(), ctx);
    WEFT_RETURN_IF_ERROR_CTX(
        claim(attr->name, absl::StrCat("attr '", attr->name, "'")), ctx);
    op_def.attr.push_back(std::move(*attr));
  }

  auto add_args = [&](const std::vector<std::string>& specs,
                      absl::string_view kind,
                      std::vector<OpDef::ArgDef>* out) -> Status {
    for (const std::string& spec : specs) {
      const std::string ctx =
          absl::StrCat(op_ctx, ": ", kind, " spec '", spec, "'");
      StatusOr<RawArg> raw = ParseArgSpec(spec);
      if (!raw.ok()) return AddContext(raw.status(), ctx);
      StatusOr<OpDef::ArgDef> arg = ResolveArg(*raw, op_def, kind);
      if (!arg.ok()) return AddContext(arg.status(), ctx);
      WEFT_RETURN_IF_ERROR_CTX(
          claim(arg->name, absl::StrCat(kind, " '", arg->name, "'")), ctx);
      out->push_back(std::move(*arg));
    }
    return Status();
  };
  WEFT_RETURN_IF_ERROR(add_args(inputs_, "input", &op_def.input_arg));
  WEFT_RETURN_IF_ERROR(add_args(outputs_, "output", &op_def.output_arg));

  if (!shape_fn_) {
    return errors::InvalidArgument(
        op_ctx,
        " has no shape function; use "
        "SetShapeFn(shape_inference::UnknownShape) to declare its outputs "
        "unknown");
  }
  data.shape_fn = shape_fn_;
  op_def.is_commutative = is_commutative_;
  op_def.is_aggregate = is_aggregate_;
  op_def.is_stateful = is_stateful_;
  op_def.allows_uninitialized_input = allows_uninitialized_input_;
  SplitDoc(doc_, &op_def);
  return data;
}

}  // namespace weft
