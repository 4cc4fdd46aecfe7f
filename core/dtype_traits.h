// Compile-time mapping between C++ element types and DataType values.
#ifndef WEFT_CORE_DTYPE_TRAITS_H_
#define WEFT_CORE_DTYPE_TRAITS_H_

#include <complex>
#include <cstdint>
#include <string>

#include <Eigen/Core>

#include "core/types.h"

namespace weft {

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// DataTypeToEnum<float>::value == DT_FLOAT.
template <typename T>
struct DataTypeToEnum;

// EnumToDataType<DT_FLOAT>::Type is float.
template <DataType DT>
struct EnumToDataType;

#define WEFT_MATCH_TYPE_AND_ENUM(TYPE, ENUM)          \
  template <>                                         \
  struct DataTypeToEnum<TYPE> {                       \
    static constexpr DataType value = ENUM;           \
  };                                                  \
  template <>                                         \
  struct EnumToDataType<ENUM> {                       \
    using Type = TYPE;                                \
  }

WEFT_MATCH_TYPE_AND_ENUM(float, DT_FLOAT);
WEFT_MATCH_TYPE_AND_ENUM(double, DT_DOUBLE);
WEFT_MATCH_TYPE_AND_ENUM(int32_t, DT_INT32);
WEFT_MATCH_TYPE_AND_ENUM(uint32_t, DT_UINT32);
WEFT_MATCH_TYPE_AND_ENUM(uint16_t, DT_UINT16);
WEFT_MATCH_TYPE_AND_ENUM(uint8_t, DT_UINT8);
WEFT_MATCH_TYPE_AND_ENUM(int16_t, DT_INT16);
WEFT_MATCH_TYPE_AND_ENUM(int8_t, DT_INT8);
WEFT_MATCH_TYPE_AND_ENUM(std::string, DT_STRING);
WEFT_MATCH_TYPE_AND_ENUM(complex64, DT_COMPLEX64);
WEFT_MATCH_TYPE_AND_ENUM(complex128, DT_COMPLEX128);
WEFT_MATCH_TYPE_AND_ENUM(int64_t, DT_INT64);
WEFT_MATCH_TYPE_AND_ENUM(uint64_t, DT_UINT64);
WEFT_MATCH_TYPE_AND_ENUM(bool, DT_BOOL);
WEFT_MATCH_TYPE_AND_ENUM(half, DT_HALF);
WEFT_MATCH_TYPE_AND_ENUM(bfloat16, DT_BFLOAT16);

#undef WEFT_MATCH_TYPE_AND_ENUM

// Calls `fn.template operator()<T>()`-style visitors through a generic lambda
// taking a type tag: VisitNumericType(dt, [&](auto tag) { using T =
// typename decltype(tag)::type; ... }). Returns false for types it does not
// cover so callers can produce their own error.
template <typename T>
struct TypeTag {
  using type = T;
};

template <typename Fn>
bool VisitNumericType(DataType dt, Fn&& fn) {
  switch (dt) {
    case DT_FLOAT: fn(TypeTag<float>{}); return true;
    case DT_DOUBLE: fn(TypeTag<double>{}); return true;
    case DT_HALF: fn(TypeTag<half>{}); return true;
    case DT_BFLOAT16: fn(TypeTag<bfloat16>{}); return true;
    case DT_INT8: fn(TypeTag<int8_t>{}); return true;
    case DT_INT16: fn(TypeTag<int16_t>{}); return true;
    case DT_INT32: fn(TypeTag<int32_t>{}); return true;
    case DT_INT64: fn(TypeTag<int64_t>{}); return true;
    case DT_UINT8: fn(TypeTag<uint8_t>{}); return true;
    case DT_UINT16: fn(TypeTag<uint16_t>{}); return true;
    case DT_UINT32: fn(TypeTag<uint32_t>{}); return true;
    case DT_UINT64: fn(TypeTag<uint64_t>{}); return true;
    case DT_BOOL: fn(TypeTag<bool>{}); return true;
    case DT_COMPLEX64: fn(TypeTag<complex64>{}); return true;
    case DT_COMPLEX128: fn(TypeTag<complex128>{}); return true;
    default: return false;
  }
}

}  // namespace weft

#endif  // WEFT_CORE_DTYPE_TRAITS_H_
