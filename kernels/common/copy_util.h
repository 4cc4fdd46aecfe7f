// Dtype-agnostic element movement for the layout kernels (Transpose, Slice,
// StridedSlice, Tile, BroadcastTo, Concat, Split, Pad, Gather, ...).
//
// These kernels never look at values, only move them, so they are compiled
// once per element *width* rather than once per dtype: every plain-bytes
// dtype is moved as an unsigned integer (or a 16-byte block) of its size, and
// DT_STRING, whose elements own heap memory, by std::string assignment. A
// kernel therefore costs five or six small instantiations however many dtypes
// it registers, which keeps the build fast.
//
// Elements of plain-bytes types are moved with fixed-size memcpy, which
// compilers turn into single loads and stores while staying clear of
// strict-aliasing problems (a float buffer is never read through a uint32_t
// lvalue).
#ifndef WEFT_KERNELS_COMMON_COPY_UTIL_H_
#define WEFT_KERNELS_COMMON_COPY_UTIL_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "core/dtype_traits.h"
#include "core/tensor.h"
#include "core/types.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace copy_util {

// A 16-byte element (complex128) moved as one block.
struct Bytes16 {
  uint64_t lo;
  uint64_t hi;
};

// Calls fn(TypeTag<E>{}) with the type that moves `dtype`'s elements:
// uint8_t, uint16_t, uint32_t, uint64_t, Bytes16 or std::string. Returns
// false (calling nothing) for any other dtype (resource, variant).
template <typename Fn>
bool VisitElementType(DataType dtype, Fn&& fn) {
  if (dtype == DT_STRING) {
    fn(TypeTag<std::string>{});
    return true;
  }
  if (dtype == DT_INVALID || !DataTypeIsPod(dtype)) return false;
  switch (DataTypeSize(dtype)) {
    case 1:
      fn(TypeTag<uint8_t>{});
      return true;
    case 2:
      fn(TypeTag<uint16_t>{});
      return true;
    case 4:
      fn(TypeTag<uint32_t>{});
      return true;
    case 8:
      fn(TypeTag<uint64_t>{});
      return true;
    case 16:
      fn(TypeTag<Bytes16>{});
      return true;
    default:
      return false;
  }
}

// *dst = *src for one element of E.
template <typename E>
inline void MoveOne(void* dst, const void* src) {
  if constexpr (std::is_same_v<E, std::string>) {
    *static_cast<std::string*>(dst) = *static_cast<const std::string*>(src);
  } else {
    std::memcpy(dst, src, sizeof(E));
  }
}

// Byte size of one element of `dtype` in a tensor buffer (sizeof(std::string)
// for DT_STRING).
size_t ElementBytes(DataType dtype);

// dst[i] = src[i] for i < n. The ranges must not overlap.
void CopyElements(DataType dtype, const void* src, void* dst, int64_t n);

// dst[i] = *value for i < n.
void FillElements(DataType dtype, const void* value, void* dst, int64_t n);

// Same as FillElements, split through ctx's arena when large.
void ParallelFillElements(const OpKernelContext& ctx, DataType dtype,
                          const void* value, void* dst, int64_t n);

using Dims = absl::InlinedVector<int64_t, 8>;

// The row-major element strides of a shape (the last is 1).
Dims RowMajorStrides(const TensorShape& shape);

// Writes a strided view of `src` to `dst` in row-major order:
//
//   dst[i_0, ..., i_{k-1}] = src[offset + sum_j i_j * strides[j]]
//
// over the index space `dims`, with strides in elements (0 repeats an
// element, negative walks backwards). The caller guarantees every index it
// describes lies inside src. This one routine is Slice and StridedSlice
// (offsets and signed strides), Transpose (permuted strides), and Tile and
// BroadcastTo (zero strides). Before copying it drops size-1 dimensions and
// merges dimensions that are contiguous with each other, so the inner loop
// is a memcpy wherever the source is contiguous; a transpose that moves the
// source's contiguous dimension elsewhere runs as cache-blocked 2-D tiles.
// Work is split through ctx's arena when large; the result does not depend
// on the split.
void StridedGather(const OpKernelContext& ctx, DataType dtype, const void* src,
                   int64_t offset, absl::Span<const int64_t> dims,
                   absl::Span<const int64_t> strides, void* dst);

}  // namespace copy_util

// Reads an integer tensor of dtype int8, int16, int32 or int64 (an index
// input: shape, perm, paddings, multiples, sizes) into `out`. Any other dtype
// is an InvalidArgument naming `what` (e.g. "perm (input 1)").
Status ReadIndexTensor(const Tensor& t, absl::string_view what,
                       std::vector<int64_t>* out);

// The one value of a scalar (or, where `allow_vector_of_one`, a 1-element
// vector) integer tensor; errors name `what` and the shape found.
Status ReadIndexScalar(const Tensor& t, absl::string_view what,
                       bool allow_vector_of_one, int64_t* out);

// "[1,2,3]" for messages.
std::string IndexListString(absl::Span<const int64_t> values);

// The dtypes TensorFlow registers most layout kernels for on the CPU that
// weft can hold: every plain numeric type, bool and complex (no quantized
// types, no strings).
std::vector<DataType> NumericAndBoolTypes();
// The same plus `extra`.
std::vector<DataType> NumericAndBoolTypesPlus(std::vector<DataType> extra);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_COPY_UTIL_H_
