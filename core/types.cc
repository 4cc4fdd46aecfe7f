#include "core/types.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace weft {
namespace {

struct TypeInfo {
  DataType dt;
  const char* name;
  size_t size;
};

// One row per DataType, in enum order; the name is the op-spec spelling.
constexpr TypeInfo kTypeInfo[] = {
    {DT_FLOAT, "float", 4},     {DT_DOUBLE, "double", 8},
    {DT_INT32, "int32", 4},     {DT_UINT8, "uint8", 1},
    {DT_INT16, "int16", 2},     {DT_INT8, "int8", 1},
    {DT_STRING, "string", 0},   {DT_COMPLEX64, "complex64", 8},
    {DT_INT64, "int64", 8},     {DT_BOOL, "bool", 1},
    {DT_QINT8, "qint8", 1},     {DT_QUINT8, "quint8", 1},
    {DT_QINT32, "qint32", 4},   {DT_BFLOAT16, "bfloat16", 2},
    {DT_QINT16, "qint16", 2},   {DT_QUINT16, "quint16", 2},
    {DT_UINT16, "uint16", 2},   {DT_COMPLEX128, "complex128", 16},
    {DT_HALF, "half", 2},       {DT_RESOURCE, "resource", 0},
    {DT_VARIANT, "variant", 0}, {DT_UINT32, "uint32", 4},
    {DT_UINT64, "uint64", 8},
};

const TypeInfo* Find(DataType dt) {
  if (dt < DT_FLOAT || dt > DT_UINT64) return nullptr;
  return &kTypeInfo[dt - DT_FLOAT];
}

}  // namespace

const std::vector<DataType>& AllDataTypes() {
  static const std::vector<DataType>* all = [] {
    auto* v = new std::vector<DataType>;
    for (const TypeInfo& info : kTypeInfo) v->push_back(info.dt);
    return v;
  }();
  return *all;
}

bool IsValidDataType(int32_t value) {
  return value >= DT_FLOAT && value <= DT_UINT64;
}

std::string DataTypeName(DataType dt) {
  if (const TypeInfo* info = Find(dt)) return info->name;
  return absl::StrCat("dtype(", static_cast<int32_t>(dt), ")");
}

std::optional<DataType> DataTypeFromName(absl::string_view name) {
  for (const TypeInfo& info : kTypeInfo) {
    if (name == info.name) return info.dt;
  }
  return std::nullopt;
}

size_t DataTypeSize(DataType dt) {
  const TypeInfo* info = Find(dt);
  return info ? info->size : 0;
}

bool DataTypeIsPod(DataType dt) {
  return Find(dt) != nullptr && dt != DT_STRING && dt != DT_RESOURCE &&
         dt != DT_VARIANT;
}

bool DataTypeIsFloating(DataType dt) {
  return dt == DT_HALF || dt == DT_BFLOAT16 || dt == DT_FLOAT ||
         dt == DT_DOUBLE;
}

bool DataTypeIsInteger(DataType dt) {
  switch (dt) {
    case DT_INT8:
    case DT_INT16:
    case DT_INT32:
    case DT_INT64:
    case DT_UINT8:
    case DT_UINT16:
    case DT_UINT32:
    case DT_UINT64:
      return true;
    default:
      return false;
  }
}

bool DataTypeIsComplex(DataType dt) {
  return dt == DT_COMPLEX64 || dt == DT_COMPLEX128;
}

bool DataTypeIsQuantized(DataType dt) {
  return dt == DT_QINT8 || dt == DT_QUINT8 || dt == DT_QINT16 ||
         dt == DT_QUINT16 || dt == DT_QINT32;
}

bool DataTypeIsUnsigned(DataType dt) {
  return dt == DT_UINT8 || dt == DT_UINT16 || dt == DT_UINT32 ||
         dt == DT_UINT64;
}

std::optional<std::vector<DataType>> DataTypeAlias(absl::string_view alias) {
  // The sets follow TensorFlow's op_def_builder so that specs copied from
  // TensorFlow op registrations accept the same types.
  using V = std::vector<DataType>;
  const V real = {DT_FLOAT,  DT_DOUBLE, DT_INT32,  DT_UINT8,
                  DT_INT16,  DT_INT8,   DT_INT64,  DT_BFLOAT16,
                  DT_UINT16, DT_HALF,   DT_UINT32, DT_UINT64};
  const V quantized = {DT_QINT8, DT_QUINT8, DT_QINT32, DT_QINT16, DT_QUINT16};
  if (alias == "realnumbertype") return real;
  if (alias == "numbertype") {
    V v = real;
    v.insert(v.end(), {DT_COMPLEX64, DT_COMPLEX128, DT_QINT8, DT_QUINT8,
                       DT_QINT32, DT_QINT16, DT_QUINT16});
    return v;
  }
  if (alias == "quantizedtype") return quantized;
  if (alias == "number_or_quantized" || alias == "numberorquantizedtype") {
    V v = real;
    v.insert(v.end(), {DT_COMPLEX64, DT_COMPLEX128});
    v.insert(v.end(), quantized.begin(), quantized.end());
    return v;
  }
  if (alias == "all") return AllDataTypes();
  if (alias == "floattype" || alias == "float_types") {
    return V{DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE};
  }
  if (alias == "complextype") return V{DT_COMPLEX64, DT_COMPLEX128};
  if (alias == "integraltype") {
    return V{DT_INT8,  DT_INT16,  DT_INT32,  DT_INT64,
             DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64};
  }
  return std::nullopt;
}

std::string DataTypeListString(const std::vector<DataType>& types) {
  return absl::StrCat("[",
                      absl::StrJoin(types, ", ",
                                    [](std::string* out, DataType dt) {
                                      absl::StrAppend(out, DataTypeName(dt));
                                    }),
                      "]");
}

}  // namespace weft
