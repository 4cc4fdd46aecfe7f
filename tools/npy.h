// NumPy's .npy file format, the way `weft run` takes inputs and saves
// outputs so that they can be prepared and checked with NumPy.
//
// Reading accepts format versions 1.0, 2.0 and 3.0, C-order arrays of the
// little-endian (or byte-order-free) dtypes that map onto weft's:
//
//   f2 half   f4 float  f8 double  b1 bool
//   i1 int8   i2 int16  i4 int32   i8 int64
//   u1 uint8  u2 uint16 u4 uint32  u8 uint64
//
// Anything else (big-endian data, Fortran order, strings, objects, complex,
// structured dtypes) is an error naming the source and what was found. The
// data must be exactly as long as the header's shape says: a truncated file
// or a shape the file cannot hold fails before any allocation is attempted.
//
// Writing produces version 1.0 with the header padded to 64 bytes, as
// numpy.save does, so numpy.load reads the result.
#ifndef WEFT_TOOLS_NPY_H_
#define WEFT_TOOLS_NPY_H_

#include <string>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "core/tensor.h"

namespace weft {

// Reads `path`; errors start with the path.
StatusOr<Tensor> ReadNpy(const std::string& path);

// Parses the bytes of a whole .npy file; errors start with `source`.
StatusOr<Tensor> ParseNpy(absl::string_view bytes, absl::string_view source);

// The bytes of a .npy file holding `tensor`. InvalidArgument for dtypes the
// format has no code for here (bfloat16, complex, string, ...) and for
// tensors not in host memory.
StatusOr<std::string> SerializeNpy(const Tensor& tensor);

// SerializeNpy, then writes `path` (replacing it); errors name the path.
Status WriteNpy(const Tensor& tensor, const std::string& path);

}  // namespace weft

#endif  // WEFT_TOOLS_NPY_H_
