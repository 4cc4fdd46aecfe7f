// AttrValue, NameAttrList and shape conversions between the graph-file
// messages and weft's structs.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "graph/internal/proto_convert.h"
#include "graph/internal/proto_io.h"

namespace weft::graph_internal {
namespace {

// The attr TensorDecodeOptions::keep_output_shapes_attrs is about.
constexpr absl::string_view kOutputShapesAttr = "_output_shapes";

StatusOr<AttrValue> ListFromProto(const pb::AttrValue::ListValue& p,
                                  const TensorDecodeOptions& options) {
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(p));
  const struct {
    const char* name;
    int size;
  } parts[] = {{"s", p.s_size()},           {"i", p.i_size()},
               {"f", p.f_size()},           {"b", p.b_size()},
               {"type", p.type_size()},     {"shape", p.shape_size()},
               {"tensor", p.tensor_size()}, {"func", p.func_size()}};
  const char* first = nullptr;
  int first_size = 0;
  for (const auto& part : parts) {
    if (part.size == 0) continue;
    if (first != nullptr) {
      return errors::InvalidArgument(
          "list holds both '", first, "' (", first_size, ") and '", part.name,
          "' (", part.size, ") entries; a list attr has one element type");
    }
    first = part.name;
    first_size = part.size;
  }

  AttrValue v = AttrValue::EmptyList();
  AttrValue::ListValue& list = *v.list;
  list.s.assign(p.s().begin(), p.s().end());
  list.i.assign(p.i().begin(), p.i().end());
  list.f.assign(p.f().begin(), p.f().end());
  list.b.assign(p.b().begin(), p.b().end());
  list.type.reserve(p.type_size());
  for (int k = 0; k < p.type_size(); ++k) {
    auto dt = DataTypeFromProto(p.type(k));
    if (!dt.ok())
      return AddContext(dt.status(), absl::StrCat("list.type[", k, "]"));
    list.type.push_back(*dt);
  }
  list.shape.reserve(p.shape_size());
  for (int k = 0; k < p.shape_size(); ++k) {
    auto shape = ShapeFromProto(p.shape(k));
    if (!shape.ok()) {
      return AddContext(shape.status(), absl::StrCat("list.shape[", k, "]"));
    }
    list.shape.push_back(*std::move(shape));
  }
  list.tensor.reserve(p.tensor_size());
  for (int k = 0; k < p.tensor_size(); ++k) {
    auto tensor = TensorFromProto(p.tensor(k), options);
    if (!tensor.ok()) {
      return AddContext(tensor.status(), absl::StrCat("list.tensor[", k, "]"));
    }
    list.tensor.push_back(*std::move(tensor));
  }
  list.func.reserve(p.func_size());
  for (int k = 0; k < p.func_size(); ++k) {
    auto func = NameAttrListFromProto(p.func(k), options);
    if (!func.ok()) {
      return AddContext(func.status(), absl::StrCat("list.func[", k, "]"));
    }
    list.func.push_back(*std::move(func));
  }
  return v;
}

}  // namespace

StatusOr<PartialTensorShape> ShapeFromProto(const pb::TensorShapeProto& p) {
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(p));
  if (p.unknown_rank()) {
    if (p.dim_size() > 0) {
      return errors::InvalidArgument("shape has unknown_rank set and also ",
                                     p.dim_size(), " dims");
    }
    return PartialTensorShape::UnknownRank();
  }
  std::vector<int64_t> dims;
  dims.reserve(p.dim_size());
  for (const pb::TensorShapeProto::Dim& dim : p.dim()) {
    WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(dim));
    dims.push_back(dim.size());
  }
  return PartialTensorShape::Build(dims);
}

void ShapeToProto(const PartialTensorShape& shape,
                  pb::TensorShapeProto* proto) {
  proto->Clear();
  if (shape.unknown_rank()) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int64_t d : shape.dim_sizes()) proto->add_dim()->set_size(d);
}

StatusOr<AttrValue> AttrValueFromProto(const pb::AttrValue& p,
                                       const TensorDecodeOptions& options,
                                       const DetachedContent* detached) {
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(p));
  switch (p.value_case()) {
    case pb::AttrValue::kS:
      return AttrValue::String(p.s());
    case pb::AttrValue::kI:
      return AttrValue::Int(p.i());
    case pb::AttrValue::kF:
      return AttrValue::Float(p.f());
    case pb::AttrValue::kB:
      return AttrValue::Bool(p.b());
    case pb::AttrValue::kType: {
      WEFT_ASSIGN_OR_RETURN(DataType dt, DataTypeFromProto(p.type()));
      return AttrValue::Type(dt);
    }
    case pb::AttrValue::kShape: {
      WEFT_ASSIGN_OR_RETURN(PartialTensorShape shape,
                            ShapeFromProto(p.shape()));
      return AttrValue::Shape(std::move(shape));
    }
    case pb::AttrValue::kTensor: {
      WEFT_ASSIGN_OR_RETURN(Tensor tensor,
                            TensorFromProto(p.tensor(), options, detached));
      return AttrValue::TensorValue(std::move(tensor));
    }
    case pb::AttrValue::kList:
      return ListFromProto(p.list(), options);
    case pb::AttrValue::kFunc: {
      WEFT_ASSIGN_OR_RETURN(NameAttrList func,
                            NameAttrListFromProto(p.func(), options));
      return AttrValue::Func(std::move(func));
    }
    case pb::AttrValue::kPlaceholder:
      return AttrValue::Placeholder(p.placeholder());
    case pb::AttrValue::VALUE_NOT_SET:
      break;
  }
  return AttrValue();
}

Status AttrValueToProto(const AttrValue& value, pb::AttrValue* proto) {
  proto->Clear();
  switch (value.kind) {
    case AttrValue::Kind::kUnset:
      return Status();
    case AttrValue::Kind::kString:
      proto->set_s(value.s);
      return Status();
    case AttrValue::Kind::kInt:
      proto->set_i(value.i);
      return Status();
    case AttrValue::Kind::kFloat:
      proto->set_f(value.f);
      return Status();
    case AttrValue::Kind::kBool:
      proto->set_b(value.b);
      return Status();
    case AttrValue::Kind::kType:
      proto->set_type(static_cast<pb::DataType>(value.type));
      return Status();
    case AttrValue::Kind::kShape:
      ShapeToProto(value.shape, proto->mutable_shape());
      return Status();
    case AttrValue::Kind::kTensor:
      return TensorToProto(value.tensor, proto->mutable_tensor());
    case AttrValue::Kind::kList: {
      const AttrValue::ListValue& list = *value.list;
      pb::AttrValue::ListValue* out = proto->mutable_list();
      for (const std::string& s : list.s) out->add_s(s);
      for (int64_t i : list.i) out->add_i(i);
      for (float f : list.f) out->add_f(f);
      for (bool b : list.b) out->add_b(b);
      for (DataType dt : list.type) {
        out->add_type(static_cast<pb::DataType>(dt));
      }
      for (const PartialTensorShape& shape : list.shape) {
        ShapeToProto(shape, out->add_shape());
      }
      for (size_t k = 0; k < list.tensor.size(); ++k) {
        WEFT_RETURN_IF_ERROR_CTX(
            TensorToProto(list.tensor[k], out->add_tensor()), "list.tensor[", k,
            "]");
      }
      for (size_t k = 0; k < list.func.size(); ++k) {
        WEFT_RETURN_IF_ERROR_CTX(
            NameAttrListToProto(list.func[k], out->add_func()), "list.func[", k,
            "]");
      }
      return Status();
    }
    case AttrValue::Kind::kFunc:
      if (value.func == nullptr) {
        return errors::InvalidArgument("func attr value names no function");
      }
      return NameAttrListToProto(*value.func, proto->mutable_func());
    case AttrValue::Kind::kPlaceholder:
      proto->set_placeholder(value.s);
      return Status();
  }
  return errors::Internal("AttrValue of unknown kind ",
                          static_cast<int>(value.kind));
}

StatusOr<AttrMap> AttrMapFromProto(const ProtoAttrMap& proto,
                                   const TensorDecodeOptions& options,
                                   NodeDetachedContents detached) {
  AttrMap attrs;
  for (int i = 0; i < proto.size(); ++i) {
    const pb::AttrEntry& entry = proto[i];
    const DetachedContent* content = detached.Take(i);
    WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(entry));
    if (!IsValidUtf8(entry.key())) {
      return errors::InvalidArgument("an attr name is not valid UTF-8");
    }
    if (!options.keep_output_shapes_attrs && entry.key() == kOutputShapesAttr) {
      continue;
    }
    auto value = AttrValueFromProto(entry.value(), options, content);
    if (!value.ok()) {
      return AddContext(value.status(),
                        absl::StrCat("attr '", Printable(entry.key()), "'"));
    }
    attrs.insert_or_assign(entry.key(), *std::move(value));
  }
  return attrs;
}

Status AttrMapToProto(const AttrMap& attrs, ProtoAttrMap* proto) {
  proto->Clear();
  proto->Reserve(static_cast<int>(attrs.size()));
  for (const auto& [name, value] : attrs) {
    pb::AttrEntry* entry = proto->Add();
    entry->set_key(name);
    WEFT_RETURN_IF_ERROR_CTX(AttrValueToProto(value, entry->mutable_value()),
                             "attr '", name, "'");
  }
  return Status();
}

StatusOr<NameAttrList> NameAttrListFromProto(
    const pb::NameAttrList& proto, const TensorDecodeOptions& options) {
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(proto));
  NameAttrList out;
  out.name = proto.name();
  auto attrs = AttrMapFromProto(proto.attr(), options);
  if (!attrs.ok()) {
    return AddContext(attrs.status(),
                      absl::StrCat("func '", Printable(out.name), "'"));
  }
  out.attr = *std::move(attrs);
  return out;
}

Status NameAttrListToProto(const NameAttrList& value, pb::NameAttrList* proto) {
  proto->set_name(value.name);
  WEFT_RETURN_IF_ERROR_CTX(AttrMapToProto(value.attr, proto->mutable_attr()),
                           "func '", value.name, "'");
  return Status();
}

}  // namespace weft::graph_internal
