// DataType: TensorFlow's element types with TensorFlow's numeric values, so a
// graph file's dtype fields map onto this enum without translation.
#ifndef WEFT_CORE_TYPES_H_
#define WEFT_CORE_TYPES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

namespace weft {

enum DataType : int32_t {
  DT_INVALID = 0,
  DT_FLOAT = 1,
  DT_DOUBLE = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 5,
  DT_INT8 = 6,
  DT_STRING = 7,
  DT_COMPLEX64 = 8,
  DT_INT64 = 9,
  DT_BOOL = 10,
  DT_QINT8 = 11,
  DT_QUINT8 = 12,
  DT_QINT32 = 13,
  DT_BFLOAT16 = 14,
  DT_QINT16 = 15,
  DT_QUINT16 = 16,
  DT_UINT16 = 17,
  DT_COMPLEX128 = 18,
  DT_HALF = 19,
  DT_RESOURCE = 20,
  DT_VARIANT = 21,
  DT_UINT32 = 22,
  DT_UINT64 = 23,
};

// Every non-invalid value above, in enum order.
const std::vector<DataType>& AllDataTypes();

// True for the values listed above except DT_INVALID.
bool IsValidDataType(int32_t value);

// The spelling used in op specs and messages: "float", "int32", "half", ...
// Unknown values print as "dtype(<n>)".
std::string DataTypeName(DataType dt);

// Parses the spec spelling ("float", "int64", "bfloat16", ...).
std::optional<DataType> DataTypeFromName(absl::string_view name);

// Bytes per element for fixed-size types; 0 for DT_STRING, DT_RESOURCE,
// DT_VARIANT and DT_INVALID, whose elements are not plain bytes.
size_t DataTypeSize(DataType dt);

// Whether tensors of this type can live in plain bytes (memcpy-able).
bool DataTypeIsPod(DataType dt);

bool DataTypeIsFloating(DataType dt);   // half, bfloat16, float, double
bool DataTypeIsInteger(DataType dt);    // signed and unsigned, not quantized
bool DataTypeIsComplex(DataType dt);
bool DataTypeIsQuantized(DataType dt);
bool DataTypeIsUnsigned(DataType dt);

// The type-set aliases of TensorFlow's op spec grammar ("numbertype",
// "realnumbertype", "quantizedtype", "all", ...). Returns nullopt for an
// unknown alias.
std::optional<std::vector<DataType>> DataTypeAlias(absl::string_view alias);

// "[float, double]"
std::string DataTypeListString(const std::vector<DataType>& types);

}  // namespace weft

#endif  // WEFT_CORE_TYPES_H_
