// NumPy arrays in and out of weft tensors, without copies where the memory
// allows it.
//
// In: an array that is C-contiguous, 64-byte aligned (kTensorAlignment, what
// weft's kernels read through aligned Eigen maps) and not empty becomes a
// tensor over the array's own memory, holding a reference to the array for as
// long as weft holds the tensor. Any other array is copied once into a fresh
// aligned tensor. Objects that are not arrays (lists, scalars) go through
// numpy.asarray first, with the dtype the graph expects when it is known.
//
// Out: a fetched tensor becomes a NumPy array over the tensor's own buffer; a
// capsule holding the tensor is the array's owner, so the buffer lives for as
// long as the array (or any view of it) does, after the session too.
//
// Call with the GIL held.
#ifndef WEFT_PYTHON_ARRAYS_H_
#define WEFT_PYTHON_ARRAYS_H_

#include "nb_casters.h"

#include <string>

#include "absl/strings/string_view.h"
#include "core/tensor.h"
#include "core/types.h"

namespace weft::python {

namespace nb = nanobind;

// A feed ready for a run.
struct FeedTensor {
  Tensor tensor;
  // The tensor is the caller's array's memory (not a copy). An output that
  // is this feed passed through must then come back read-only: see
  // ArrayFromTensor.
  bool shares_caller_memory = false;
};

// `value` as a weft tensor for the feed named `feed` (named in errors).
// `expected` is the dtype the graph declares for the feed, or DT_INVALID when
// unknown; it only decides how non-array objects convert: an array of
// another dtype is passed on as it is, and the session's feed check reports
// the mismatch. Raises TypeError for dtypes weft lacks (object, str,
// datetime) and for memory NumPy cannot describe.
FeedTensor TensorFromPython(nb::handle value, absl::string_view feed,
                            DataType expected);

// The fetched `tensor` (named `fetch` in errors) as a NumPy array sharing its
// buffer. The array is read-only when `readonly` is set or when anything
// else still references the buffer: a constant of the graph, the same tensor
// fetched twice, or a feed that shares a caller's array (keep those feed
// tensors alive while converting, and drop copied feeds before). Raises
// TypeError for dtypes NumPy lacks (bfloat16, string, resource, variant) and
// for tensors not in host memory.
nb::object ArrayFromTensor(Tensor tensor, absl::string_view fetch,
                           bool readonly);

// numpy.dtype for `dtype`, or its weft name ("bfloat16", "string") where
// NumPy has none.
nb::object NumpyDtype(DataType dtype);

// An uninitialized C-contiguous array whose buffer is a weft tensor's:
// 64-byte aligned, so feeding it costs no copy. `shape` is a sequence of
// ints; `dtype` anything numpy.dtype accepts.
nb::object EmptyAligned(nb::handle shape, nb::handle dtype);

}  // namespace weft::python

#endif  // WEFT_PYTHON_ARRAYS_H_
