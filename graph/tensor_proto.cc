#include "graph/tensor_proto.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype_traits.h"
#include "google/protobuf/arena.h"
#include "graph/internal/proto_convert.h"
#include "graph/internal/proto_io.h"

// tensor_content holds little-endian bytes, copied here as they are.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#error \
    "weft's graph loader reads tensor_content as host bytes; it needs a little-endian host"
#endif

namespace weft {
namespace graph_internal {
namespace {

// The typed repeated field TensorFlow uses for each dtype's values.
const char* ValueFieldFor(DataType dt) {
  switch (dt) {
    case DT_FLOAT:
      return "float_val";
    case DT_DOUBLE:
      return "double_val";
    case DT_INT32:
    case DT_INT16:
    case DT_INT8:
    case DT_UINT8:
    case DT_UINT16:
    case DT_QINT8:
    case DT_QUINT8:
    case DT_QINT16:
    case DT_QUINT16:
    case DT_QINT32:
      return "int_val";
    case DT_STRING:
      return "string_val";
    case DT_COMPLEX64:
      return "scomplex_val";
    case DT_INT64:
      return "int64_val";
    case DT_BOOL:
      return "bool_val";
    case DT_COMPLEX128:
      return "dcomplex_val";
    case DT_HALF:
    case DT_BFLOAT16:
      return "half_val";
    case DT_UINT32:
      return "uint32_val";
    case DT_UINT64:
      return "uint64_val";
    default:
      return "";
  }
}

struct FieldCount {
  const char* name;
  int64_t count;
};

// Checks that no typed field other than `dt`'s own holds values, and returns
// how many values dt's field holds (complex pairs count once).
StatusOr<int64_t> CountValues(const pb::TensorProto& p, DataType dt) {
  const FieldCount fields[] = {
      {"half_val", p.half_val_size()},
      {"float_val", p.float_val_size()},
      {"double_val", p.double_val_size()},
      {"int_val", p.int_val_size()},
      {"string_val", p.string_val_size()},
      {"scomplex_val", p.scomplex_val_size()},
      {"int64_val", p.int64_val_size()},
      {"bool_val", p.bool_val_size()},
      {"dcomplex_val", p.dcomplex_val_size()},
      {"uint32_val", p.uint32_val_size()},
      {"uint64_val", p.uint64_val_size()},
      {"resource_handle_val", p.resource_handle_val_size()},
      {"variant_val", p.variant_val_size()},
      {"float8_val", static_cast<int64_t>(p.float8_val().size())},
  };
  const absl::string_view own = ValueFieldFor(dt);
  int64_t count = 0;
  for (const FieldCount& f : fields) {
    if (f.name == own) {
      count = f.count;
    } else if (f.count > 0) {
      return errors::InvalidArgument("a ", DataTypeName(dt),
                                     " tensor takes its values from ", own,
                                     ", but ", f.name, " has ", f.count,
                                     f.count == 1 ? " value" : " values");
    }
  }
  if (dt == DT_COMPLEX64 || dt == DT_COMPLEX128) {
    if (count % 2 != 0) {
      return errors::InvalidArgument(
          own, " has ", count, " numbers; ", DataTypeName(dt),
          " values are (real, imaginary) pairs, so the count must be even");
    }
    count /= 2;
  }
  return count;
}

// Copies `count` values through `convert(i, &out[i])`, then fills the rest of
// the `n` elements with the last value (or T() when none was given).
template <typename T, typename Convert>
Status FillElements(T* out, int64_t n, int64_t count, Convert convert) {
  for (int64_t i = 0; i < count; ++i) {
    WEFT_RETURN_IF_ERROR(convert(i, &out[i]));
  }
  const T fill = count > 0 ? out[count - 1] : T();
  std::fill(out + count, out + n, fill);
  return Status();
}

// Integer values carried in int_val (int32 on the wire) for narrower or
// quantized types: out-of-range values are errors, not silent truncation.
template <typename T>
Status DecodeIntVal(const pb::TensorProto& p, DataType dt, void* data,
                    int64_t n, int64_t count) {
  return FillElements(
      static_cast<T*>(data), n, count, [&](int64_t i, T* out) -> Status {
        const int32_t v = p.int_val(static_cast<int>(i));
        if (v < std::numeric_limits<T>::min() ||
            v > std::numeric_limits<T>::max()) {
          return errors::InvalidArgument("int_val[", i, "] = ", v,
                                         " is out of range for ",
                                         DataTypeName(dt));
        }
        *out = static_cast<T>(v);
        return Status();
      });
}

// Values whose wire type is the element type itself (float_val for float).
template <typename T, typename Field>
Status DecodeSame(const Field& field, void* data, int64_t n, int64_t count) {
  return FillElements(static_cast<T*>(data), n, count,
                      [&](int64_t i, T* out) -> Status {
                        *out = static_cast<T>(field.Get(static_cast<int>(i)));
                        return Status();
                      });
}

template <typename T, typename Field>
Status DecodeComplex(const Field& field, void* data, int64_t n, int64_t count) {
  return FillElements(static_cast<T*>(data), n, count,
                      [&](int64_t i, T* out) -> Status {
                        const int k = static_cast<int>(2 * i);
                        *out = T(field.Get(k), field.Get(k + 1));
                        return Status();
                      });
}

Status DecodeTypedValues(const pb::TensorProto& p, DataType dt, Tensor* t,
                         int64_t count) {
  void* data = t->raw_data();
  const int64_t n = t->NumElements();
  switch (dt) {
    case DT_FLOAT:
      return DecodeSame<float>(p.float_val(), data, n, count);
    case DT_DOUBLE:
      return DecodeSame<double>(p.double_val(), data, n, count);
    case DT_INT64:
      return DecodeSame<int64_t>(p.int64_val(), data, n, count);
    case DT_UINT32:
      return DecodeSame<uint32_t>(p.uint32_val(), data, n, count);
    case DT_UINT64:
      return DecodeSame<uint64_t>(p.uint64_val(), data, n, count);
    case DT_BOOL:
      return DecodeSame<bool>(p.bool_val(), data, n, count);
    case DT_INT32:
    case DT_QINT32:
      return DecodeIntVal<int32_t>(p, dt, data, n, count);
    case DT_INT16:
    case DT_QINT16:
      return DecodeIntVal<int16_t>(p, dt, data, n, count);
    case DT_INT8:
    case DT_QINT8:
      return DecodeIntVal<int8_t>(p, dt, data, n, count);
    case DT_UINT8:
    case DT_QUINT8:
      return DecodeIntVal<uint8_t>(p, dt, data, n, count);
    case DT_UINT16:
    case DT_QUINT16:
      return DecodeIntVal<uint16_t>(p, dt, data, n, count);
    case DT_HALF:
    case DT_BFLOAT16:
      // Each int32 holds a 16-bit pattern; TensorFlow writes it unsigned,
      // the signed reading of the same bits is accepted too.
      return FillElements(static_cast<uint16_t*>(data), n, count,
                          [&](int64_t i, uint16_t* out) -> Status {
                            const int32_t v = p.half_val(static_cast<int>(i));
                            if (v < -32768 || v > 65535) {
                              return errors::InvalidArgument(
                                  "half_val[", i, "] = ", v,
                                  " is not a 16-bit pattern for ",
                                  DataTypeName(dt));
                            }
                            *out = static_cast<uint16_t>(v & 0xFFFF);
                            return Status();
                          });
    case DT_COMPLEX64:
      return DecodeComplex<complex64>(p.scomplex_val(), data, n, count);
    case DT_COMPLEX128:
      return DecodeComplex<complex128>(p.dcomplex_val(), data, n, count);
    case DT_STRING:
      return FillElements(static_cast<std::string*>(data), n, count,
                          [&](int64_t i, std::string* out) -> Status {
                            *out = p.string_val(static_cast<int>(i));
                            return Status();
                          });
    default:
      return errors::Internal("no typed-value decoder for ", DataTypeName(dt));
  }
}

// Reads a little-endian base-128 varint of at most 32 bits.
bool ReadVarint32(absl::string_view* in, uint32_t* value) {
  uint32_t result = 0;
  for (int shift = 0; shift <= 28; shift += 7) {
    if (in->empty()) return false;
    const uint8_t byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    if (shift == 28 && (byte & 0xF0) != 0) return false;
    result |= static_cast<uint32_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

// String tensors in tensor_content: n varint32 lengths, then the bytes of
// each string back to back (TensorFlow's EncodeStringList).
StatusOr<std::vector<uint32_t>> StringContentLengths(absl::string_view content,
                                                     int64_t n,
                                                     absl::string_view* rest) {
  // Each length takes at least one byte, so this bounds `n` by the payload
  // before anything of size n is allocated.
  if (n > static_cast<int64_t>(content.size())) {
    return errors::InvalidArgument("tensor_content has ", content.size(),
                                   " bytes, too few for the ", n,
                                   " string lengths the shape needs");
  }
  std::vector<uint32_t> lengths(static_cast<size_t>(n));
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!ReadVarint32(&content, &lengths[i])) {
      return errors::InvalidArgument("tensor_content: the length of string ", i,
                                     " is truncated or malformed");
    }
    total += lengths[i];
  }
  if (total != content.size()) {
    return errors::InvalidArgument(
        "tensor_content: the string lengths add up to ", total, " bytes but ",
        content.size(), " bytes follow them");
  }
  *rest = content;
  return lengths;
}

StatusOr<TensorShape> TensorShapeFromProto(const pb::TensorShapeProto& p) {
  WEFT_RETURN_IF_ERROR_CTX(CheckFieldWireTypes(p), "tensor_shape");
  if (p.unknown_rank()) {
    return errors::InvalidArgument(
        "tensor_shape has unknown rank; a tensor value needs a fully known "
        "shape");
  }
  std::vector<int64_t> dims;
  dims.reserve(p.dim_size());
  for (int i = 0; i < p.dim_size(); ++i) {
    WEFT_RETURN_IF_ERROR_CTX(CheckFieldWireTypes(p.dim(i)), "tensor_shape");
    const int64_t size = p.dim(i).size();
    if (size < 0) {
      return errors::InvalidArgument(
          "tensor_shape dimension ", i, " is ", size,
          "; a tensor value needs every dimension >= 0");
    }
    dims.push_back(size);
  }
  auto shape = TensorShape::Build(dims);
  if (!shape.ok()) return AddContext(shape.status(), "tensor_shape");
  return shape;
}

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// Size arithmetic on non-negative values that sticks at INT64_MAX instead of
// overflowing, so that absurd declared sizes compare as "too large".
int64_t SaturatingMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kInt64Max / b ? kInt64Max : a * b;
}
int64_t SaturatingAdd(int64_t a, int64_t b) {
  return a > kInt64Max - b ? kInt64Max : a + b;
}

// Bytes `n` elements of `dt` occupy in a tensor buffer (a std::string object
// per string element, not counting its characters).
int64_t DecodedBytes(DataType dt, int64_t n) {
  const int64_t elem = dt == DT_STRING
                           ? static_cast<int64_t>(sizeof(std::string))
                           : static_cast<int64_t>(DataTypeSize(dt));
  return SaturatingMul(n, elem);
}

// Single values of the common types go into their typed field, as
// TensorFlow's Python writes scalars, so that exported text reads
// "float_val: 0.5" rather than raw bytes. Returns false for other types.
bool WriteScalarField(const Tensor& tensor, pb::TensorProto* proto) {
  const void* data = tensor.raw_data();
  switch (tensor.dtype()) {
    case DT_FLOAT:
      proto->add_float_val(*static_cast<const float*>(data));
      return true;
    case DT_DOUBLE:
      proto->add_double_val(*static_cast<const double*>(data));
      return true;
    case DT_INT32:
      proto->add_int_val(*static_cast<const int32_t*>(data));
      return true;
    case DT_INT64:
      proto->add_int64_val(*static_cast<const int64_t*>(data));
      return true;
    case DT_BOOL:
      proto->add_bool_val(*static_cast<const bool*>(data));
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string ProtoDataTypeName(int value) {
  if (pb::DataType_IsValid(value)) {
    return pb::DataType_Name(static_cast<pb::DataType>(value));
  }
  return absl::StrCat(value);
}

StatusOr<DataType> DataTypeFromProto(int value, bool allow_invalid) {
  if (value == DT_INVALID) {
    if (allow_invalid) return DT_INVALID;
    return errors::InvalidArgument("dtype is DT_INVALID (unset)");
  }
  if (IsValidDataType(value)) return static_cast<DataType>(value);
  if (pb::DataType_IsValid(value)) {
    if (value > 100) {
      return errors::InvalidArgument("dtype ", ProtoDataTypeName(value),
                                     " is a reference type, which weft does "
                                     "not support");
    }
    return errors::InvalidArgument("dtype ", ProtoDataTypeName(value),
                                   " is not supported by weft");
  }
  return errors::InvalidArgument("dtype ", value,
                                 " is not a known TensorFlow DataType");
}

StatusOr<Tensor> TensorFromProto(const pb::TensorProto& p,
                                 const TensorDecodeOptions& options,
                                 const DetachedContent* detached) {
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(p));
  WEFT_ASSIGN_OR_RETURN(const DataType dt, DataTypeFromProto(p.dtype()));
  if (dt != DT_STRING && !DataTypeIsPod(dt)) {
    return errors::InvalidArgument(DataTypeName(dt),
                                   " tensors cannot be loaded from a graph "
                                   "file");
  }
  WEFT_ASSIGN_OR_RETURN(const TensorShape shape,
                        TensorShapeFromProto(p.tensor_shape()));
  const int64_t n = shape.num_elements();
  const absl::string_view content = detached != nullptr
                                        ? detached->bytes
                                        : absl::string_view(p.tensor_content());
  Allocator* const allocator = detached != nullptr && detached->allocator
                                   ? detached->allocator
                                   : DefaultCpuAllocator();

  if (!content.empty() && dt == DT_STRING) {
    absl::string_view bytes;
    WEFT_ASSIGN_OR_RETURN(std::vector<uint32_t> lengths,
                          StringContentLengths(content, n, &bytes));
    WEFT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(allocator, dt, shape));
    auto* out = static_cast<std::string*>(t.raw_data());
    for (int64_t i = 0; i < n; ++i) {
      out[i].assign(bytes.data(), lengths[i]);
      bytes.remove_prefix(lengths[i]);
    }
    return t;
  }

  if (!content.empty()) {
    // TensorFlow reads tensor_content whenever it is present and ignores the
    // typed fields then; so does weft.
    const int64_t need = DecodedBytes(dt, n);
    if (static_cast<uint64_t>(need) != content.size()) {
      return errors::InvalidArgument("tensor_content has ", content.size(),
                                     " bytes but shape ", shape.DebugString(),
                                     " of ", DataTypeName(dt), " needs ", need);
    }
    WEFT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(allocator, dt, shape));
    if (dt == DT_BOOL) {
      // A bool byte other than 0 or 1 is not a valid bool in C++; any
      // nonzero byte reads as true, as in TensorFlow.
      bool* out = static_cast<bool*>(t.raw_data());
      for (int64_t i = 0; i < n; ++i) out[i] = content[i] != 0;
    } else {
      std::memcpy(t.raw_data(), content.data(), content.size());
    }
    return t;
  }

  WEFT_ASSIGN_OR_RETURN(const int64_t count, CountValues(p, dt));
  const char* field = ValueFieldFor(dt);
  if (count > n) {
    return errors::InvalidArgument(
        field, " has ", count, count == 1 ? " value" : " values", " but shape ",
        shape.DebugString(), " has ", n, n == 1 ? " element" : " elements");
  }
  if (count < n) {
    // The compressed form: here the payload does not bound the size.
    int64_t bytes = DecodedBytes(dt, n);
    if (dt == DT_STRING && count > 0) {
      for (int i = 0; i < count; ++i) {
        bytes =
            SaturatingAdd(bytes, static_cast<int64_t>(p.string_val(i).size()));
      }
      const int64_t last = p.string_val(static_cast<int>(count - 1)).size();
      bytes = SaturatingAdd(bytes, SaturatingMul(n - count, last));
    }
    if (bytes > options.max_filled_bytes) {
      return errors::InvalidArgument(
          field, " gives ", count, count == 1 ? " value" : " values",
          " for shape ", shape.DebugString(), " of ", DataTypeName(dt), " (", n,
          " elements, ", bytes,
          " bytes once the last value is repeated); tensors filled from "
          "fewer values than elements are limited to ",
          options.max_filled_bytes,
          " bytes (TensorDecodeOptions::max_filled_bytes)");
    }
  }
  WEFT_ASSIGN_OR_RETURN(Tensor t,
                        Tensor::Allocate(DefaultCpuAllocator(), dt, shape));
  WEFT_RETURN_IF_ERROR(DecodeTypedValues(p, dt, &t, count));
  return t;
}

Status TensorToProto(const Tensor& tensor, pb::TensorProto* proto) {
  const DataType dt = tensor.dtype();
  if (dt != DT_STRING && !DataTypeIsPod(dt)) {
    return errors::InvalidArgument(DataTypeName(dt),
                                   " tensors cannot be written to a graph "
                                   "file");
  }
  if (tensor.memory_space() != MemorySpace::kHost) {
    return errors::InvalidArgument(
        "tensor ", tensor.DebugString(),
        " is in device memory; copy it to the host to write it");
  }
  const int64_t n = tensor.NumElements();
  if (!tensor.IsInitialized() && n > 0) {
    return errors::InvalidArgument("tensor ", tensor.DebugString(),
                                   " has no buffer (uninitialized)");
  }
  proto->set_dtype(static_cast<pb::DataType>(dt));
  ShapeToProto(PartialTensorShape(tensor.shape()),
               proto->mutable_tensor_shape());
  if (n == 0) return Status();
  if (n == 1 && WriteScalarField(tensor, proto)) return Status();
  if (dt == DT_STRING) {
    const auto* s = static_cast<const std::string*>(tensor.raw_data());
    proto->mutable_string_val()->Reserve(static_cast<int>(
        std::min<int64_t>(n, std::numeric_limits<int>::max())));
    for (int64_t i = 0; i < n; ++i) proto->add_string_val(s[i]);
  } else {
    proto->set_tensor_content(static_cast<const char*>(tensor.raw_data()),
                              tensor.TotalBytes());
  }
  return Status();
}

}  // namespace graph_internal

StatusOr<Tensor> ParseTensorProto(absl::string_view serialized,
                                  const TensorDecodeOptions& options) {
  google::protobuf::Arena arena;
  auto* proto =
      google::protobuf::Arena::CreateMessage<graph_internal::pb::TensorProto>(
          &arena);
  WEFT_RETURN_IF_ERROR(
      graph_internal::ParseBinaryMessage(serialized, "TensorProto", proto));
  return graph_internal::TensorFromProto(*proto, options);
}

StatusOr<Tensor> ParseTensorProtoText(absl::string_view text,
                                      const TensorDecodeOptions& options) {
  google::protobuf::Arena arena;
  auto* proto =
      google::protobuf::Arena::CreateMessage<graph_internal::pb::TensorProto>(
          &arena);
  WEFT_RETURN_IF_ERROR(
      graph_internal::ParseTextMessage(text, "TensorProto", proto));
  return graph_internal::TensorFromProto(*proto, options);
}

StatusOr<std::string> SerializeTensorProto(const Tensor& tensor) {
  google::protobuf::Arena arena;
  auto* proto =
      google::protobuf::Arena::CreateMessage<graph_internal::pb::TensorProto>(
          &arena);
  WEFT_RETURN_IF_ERROR(graph_internal::TensorToProto(tensor, proto));
  return graph_internal::SerializeBinaryMessage(*proto);
}

}  // namespace weft
