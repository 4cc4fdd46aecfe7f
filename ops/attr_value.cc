#include "ops/attr_value.h"

#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace weft {
namespace {

using Kind = AttrValue::Kind;

bool TensorsEqual(const Tensor& a, const Tensor& b) {
  if (a.IsInitialized() != b.IsInitialized()) return false;
  if (!a.IsInitialized()) return true;
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() == DT_STRING) {
    const auto* x = static_cast<const std::string*>(a.raw_data());
    const auto* y = static_cast<const std::string*>(b.raw_data());
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      if (x[i] != y[i]) return false;
    }
    return true;
  }
  return std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0;
}

bool FuncsEqual(const NameAttrList& a, const NameAttrList& b) {
  return a.name == b.name && a.attr == b.attr;
}

bool ListsEqual(const AttrValue::ListValue& a, const AttrValue::ListValue& b) {
  if (a.s != b.s || a.i != b.i || a.b != b.b || a.type != b.type ||
      a.shape != b.shape || a.tensor.size() != b.tensor.size() ||
      a.func.size() != b.func.size() || a.f.size() != b.f.size()) {
    return false;
  }
  for (size_t k = 0; k < a.f.size(); ++k) {
    // Bitwise, so that NaN defaults compare equal to themselves.
    if (std::memcmp(&a.f[k], &b.f[k], sizeof(float)) != 0) return false;
  }
  for (size_t k = 0; k < a.tensor.size(); ++k) {
    if (!TensorsEqual(a.tensor[k], b.tensor[k])) return false;
  }
  for (size_t k = 0; k < a.func.size(); ++k) {
    if (!FuncsEqual(a.func[k], b.func[k])) return false;
  }
  return true;
}

std::string FloatString(float f) { return absl::StrCat(f); }

std::string ListElementTypeName(const AttrValue::ListValue& l) {
  if (!l.s.empty()) return "string";
  if (!l.i.empty()) return "int";
  if (!l.f.empty()) return "float";
  if (!l.b.empty()) return "bool";
  if (!l.type.empty()) return "type";
  if (!l.shape.empty()) return "shape";
  if (!l.tensor.empty()) return "tensor";
  if (!l.func.empty()) return "func";
  return "?";
}

// Looks up `name` and checks its kind; `want` is the attr-type name used in
// the message.
StatusOr<const AttrValue*> Find(const AttrMap& attrs, absl::string_view name,
                                Kind kind, absl::string_view want) {
  auto it = attrs.find(name);
  if (it == attrs.end()) {
    return errors::NotFound("no attr named '", name, "'");
  }
  const AttrValue& v = it->second;
  // An empty list has no element type, so it matches any list(...) request.
  if (v.kind != kind) {
    return errors::InvalidArgument("attr '", name, "' should be ", want,
                                   ", got ", AttrValueTypeName(v));
  }
  if (kind == Kind::kList && v.list->size() > 0) {
    std::string got = ListElementTypeName(*v.list);
    std::string wanted(want.substr(5, want.size() - 6));  // list(<x>)
    if (got != wanted) {
      return errors::InvalidArgument("attr '", name, "' should be ", want,
                                     ", got list(", got, ")");
    }
  }
  return &v;
}

}  // namespace

AttrValue::ListBox::ListBox(const ListBox& other)
    : list_(other.list_ ? std::make_unique<ListValue>(*other.list_) : nullptr) {
}

AttrValue::ListBox& AttrValue::ListBox::operator=(const ListBox& other) {
  if (this != &other) {
    list_ = other.list_ ? std::make_unique<ListValue>(*other.list_) : nullptr;
  }
  return *this;
}

AttrValue::ListBox::~ListBox() = default;

AttrValue::ListValue& AttrValue::ListBox::operator*() {
  if (!list_) list_ = std::make_unique<ListValue>();
  return *list_;
}

const AttrValue::ListValue& AttrValue::ListBox::Empty() {
  static const ListValue* const empty = new ListValue();
  return *empty;
}

size_t AttrValue::ListValue::size() const {
  return s.size() + i.size() + f.size() + b.size() + type.size() +
         shape.size() + tensor.size() + func.size();
}

AttrValue AttrValue::String(std::string v) {
  AttrValue a;
  a.kind = Kind::kString;
  a.s = std::move(v);
  return a;
}
AttrValue AttrValue::Int(int64_t v) {
  AttrValue a;
  a.kind = Kind::kInt;
  a.i = v;
  return a;
}
AttrValue AttrValue::Float(float v) {
  AttrValue a;
  a.kind = Kind::kFloat;
  a.f = v;
  return a;
}
AttrValue AttrValue::Bool(bool v) {
  AttrValue a;
  a.kind = Kind::kBool;
  a.b = v;
  return a;
}
AttrValue AttrValue::Type(DataType v) {
  AttrValue a;
  a.kind = Kind::kType;
  a.type = v;
  return a;
}
AttrValue AttrValue::Shape(PartialTensorShape v) {
  AttrValue a;
  a.kind = Kind::kShape;
  a.shape = std::move(v);
  return a;
}
AttrValue AttrValue::TensorValue(Tensor v) {
  AttrValue a;
  a.kind = Kind::kTensor;
  a.tensor = std::move(v);
  return a;
}
AttrValue AttrValue::Func(NameAttrList v) {
  AttrValue a;
  a.kind = Kind::kFunc;
  a.func = std::make_shared<const NameAttrList>(std::move(v));
  return a;
}
AttrValue AttrValue::Placeholder(std::string name) {
  AttrValue a;
  a.kind = Kind::kPlaceholder;
  a.s = std::move(name);
  return a;
}
AttrValue AttrValue::EmptyList() {
  AttrValue a;
  a.kind = Kind::kList;
  return a;
}
AttrValue AttrValue::StringList(std::vector<std::string> v) {
  AttrValue a = EmptyList();
  a.list->s = std::move(v);
  return a;
}
AttrValue AttrValue::IntList(std::vector<int64_t> v) {
  AttrValue a = EmptyList();
  a.list->i = std::move(v);
  return a;
}
AttrValue AttrValue::FloatList(std::vector<float> v) {
  AttrValue a = EmptyList();
  a.list->f = std::move(v);
  return a;
}
AttrValue AttrValue::BoolList(std::vector<bool> v) {
  AttrValue a = EmptyList();
  a.list->b = std::move(v);
  return a;
}
AttrValue AttrValue::TypeList(std::vector<DataType> v) {
  AttrValue a = EmptyList();
  a.list->type = std::move(v);
  return a;
}
AttrValue AttrValue::ShapeList(std::vector<PartialTensorShape> v) {
  AttrValue a = EmptyList();
  a.list->shape = std::move(v);
  return a;
}

bool operator==(const AttrValue& a, const AttrValue& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Kind::kUnset:
      return true;
    case Kind::kString:
    case Kind::kPlaceholder:
      return a.s == b.s;
    case Kind::kInt:
      return a.i == b.i;
    case Kind::kFloat:
      return std::memcmp(&a.f, &b.f, sizeof(float)) == 0 || a.f == b.f;
    case Kind::kBool:
      return a.b == b.b;
    case Kind::kType:
      return a.type == b.type;
    case Kind::kShape:
      return a.shape == b.shape;
    case Kind::kTensor:
      return TensorsEqual(a.tensor, b.tensor);
    case Kind::kList:
      return ListsEqual(*a.list, *b.list);
    case Kind::kFunc:
      if (!a.func || !b.func) return a.func == b.func;
      return FuncsEqual(*a.func, *b.func);
  }
  return false;
}

std::string SummarizeAttrValue(const AttrValue& v) {
  switch (v.kind) {
    case Kind::kUnset:
      return "<unset>";
    case Kind::kString:
      return absl::StrCat("\"", v.s, "\"");
    case Kind::kPlaceholder:
      return absl::StrCat("$", v.s);
    case Kind::kInt:
      return absl::StrCat(v.i);
    case Kind::kFloat:
      return FloatString(v.f);
    case Kind::kBool:
      return v.b ? "true" : "false";
    case Kind::kType:
      return DataTypeName(v.type);
    case Kind::kShape:
      return v.shape.DebugString();
    case Kind::kTensor:
      return v.tensor.IsInitialized() ? v.tensor.DebugString() : "<no tensor>";
    case Kind::kFunc:
      return v.func ? v.func->name : "<no func>";
    case Kind::kList: {
      const auto& l = *v.list;
      std::vector<std::string> parts;
      for (const auto& x : l.s) parts.push_back(absl::StrCat("\"", x, "\""));
      for (int64_t x : l.i) parts.push_back(absl::StrCat(x));
      for (float x : l.f) parts.push_back(FloatString(x));
      for (bool x : l.b) parts.push_back(x ? "true" : "false");
      for (DataType x : l.type) parts.push_back(DataTypeName(x));
      for (const auto& x : l.shape) parts.push_back(x.DebugString());
      for (const auto& x : l.tensor) parts.push_back(x.DebugString());
      for (const auto& x : l.func) parts.push_back(x.name);
      return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
    }
  }
  return "<?>";
}

std::string AttrValueTypeName(const AttrValue& v) {
  switch (v.kind) {
    case Kind::kUnset:
      return "unset";
    case Kind::kString:
      return "string";
    case Kind::kPlaceholder:
      return "placeholder";
    case Kind::kInt:
      return "int";
    case Kind::kFloat:
      return "float";
    case Kind::kBool:
      return "bool";
    case Kind::kType:
      return "type";
    case Kind::kShape:
      return "shape";
    case Kind::kTensor:
      return "tensor";
    case Kind::kFunc:
      return "func";
    case Kind::kList:
      return absl::StrCat("list(", ListElementTypeName(*v.list), ")");
  }
  return "?";
}

#define WEFT_SCALAR_GETTER(CTYPE, KIND, WANT, FIELD)                          \
  Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,            \
                     CTYPE* value) {                                          \
    WEFT_ASSIGN_OR_RETURN(const AttrValue* v, Find(attrs, name, KIND, WANT)); \
    *value = v->FIELD;                                                        \
    return Status();                                                          \
  }

WEFT_SCALAR_GETTER(std::string, Kind::kString, "string", s)
WEFT_SCALAR_GETTER(int64_t, Kind::kInt, "int", i)
WEFT_SCALAR_GETTER(float, Kind::kFloat, "float", f)
WEFT_SCALAR_GETTER(bool, Kind::kBool, "bool", b)
WEFT_SCALAR_GETTER(DataType, Kind::kType, "type", type)
WEFT_SCALAR_GETTER(PartialTensorShape, Kind::kShape, "shape", shape)
WEFT_SCALAR_GETTER(Tensor, Kind::kTensor, "tensor", tensor)
WEFT_SCALAR_GETTER(std::vector<std::string>, Kind::kList, "list(string)",
                   list->s)
WEFT_SCALAR_GETTER(std::vector<int64_t>, Kind::kList, "list(int)", list->i)
WEFT_SCALAR_GETTER(std::vector<float>, Kind::kList, "list(float)", list->f)
WEFT_SCALAR_GETTER(std::vector<bool>, Kind::kList, "list(bool)", list->b)
WEFT_SCALAR_GETTER(std::vector<DataType>, Kind::kList, "list(type)", list->type)
WEFT_SCALAR_GETTER(std::vector<PartialTensorShape>, Kind::kList, "list(shape)",
                   list->shape)

#undef WEFT_SCALAR_GETTER

Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   int32_t* value) {
  int64_t v;
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, name, &v));
  if (v < std::numeric_limits<int32_t>::min() ||
      v > std::numeric_limits<int32_t>::max()) {
    return errors::InvalidArgument("attr '", name, "' has value ", v,
                                   ", out of int32 range");
  }
  *value = static_cast<int32_t>(v);
  return Status();
}

Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   std::vector<int32_t>* value) {
  std::vector<int64_t> v;
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, name, &v));
  value->clear();
  value->reserve(v.size());
  for (int64_t x : v) {
    if (x < std::numeric_limits<int32_t>::min() ||
        x > std::numeric_limits<int32_t>::max()) {
      return errors::InvalidArgument("attr '", name, "' has element ", x,
                                     ", out of int32 range");
    }
    value->push_back(static_cast<int32_t>(x));
  }
  return Status();
}

Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   NameAttrList* value) {
  WEFT_ASSIGN_OR_RETURN(const AttrValue* v,
                        Find(attrs, name, Kind::kFunc, "func"));
  if (!v->func) {
    return errors::InvalidArgument("attr '", name, "' holds no function");
  }
  *value = *v->func;
  return Status();
}

}  // namespace weft
