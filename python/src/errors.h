// weft's errors as Python exceptions, with weft's message unchanged (it
// already names the file, node, op, input and dtype):
//
//   InvalidArgument, OutOfRange     ValueError      (a bad feed, shape, option)
//   NotFound                        KeyError, or `not_found` where given
//                                   (an unknown tensor name, a missing kernel;
//                                   FileNotFoundError for a missing file)
//   Unimplemented                   NotImplementedError
//   ResourceExhausted               MemoryError     (a host/device limit)
//   DeadlineExceeded                TimeoutError    (run(timeout=...))
//   anything else                   RuntimeError    (Cancelled, Internal, ...)
#ifndef WEFT_PYTHON_ERRORS_H_
#define WEFT_PYTHON_ERRORS_H_

#include <Python.h>

#include "core/status.h"

namespace weft::python {

// Sets the Python error for `status` (not OK) and throws nanobind's
// python_error, which nanobind hands back to Python as that error.
[[noreturn]] void ThrowStatus(const Status& status,
                              PyObject* not_found = PyExc_KeyError);

inline void ThrowIfError(const Status& status,
                         PyObject* not_found = PyExc_KeyError) {
  if (!status.ok()) ThrowStatus(status, not_found);
}

}  // namespace weft::python

#endif  // WEFT_PYTHON_ERRORS_H_
