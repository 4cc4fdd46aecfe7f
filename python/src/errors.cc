#include "errors.h"

#include "nb_casters.h"

#include <string>

namespace weft::python {

void ThrowStatus(const Status& status, PyObject* not_found) {
  PyObject* type = PyExc_RuntimeError;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      type = PyExc_ValueError;
      break;
    case absl::StatusCode::kNotFound:
      type = not_found;
      break;
    case absl::StatusCode::kUnimplemented:
      type = PyExc_NotImplementedError;
      break;
    case absl::StatusCode::kResourceExhausted:
      type = PyExc_MemoryError;
      break;
    case absl::StatusCode::kDeadlineExceeded:
      type = PyExc_TimeoutError;
      break;
    default:
      break;
  }
  const std::string message(status.message());
  PyErr_SetString(type, message.c_str());
  throw nanobind::python_error();
}

}  // namespace weft::python
