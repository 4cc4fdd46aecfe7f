// weft.Session and weft.Callable: runs of a graph from Python.
//
// A run converts its feeds with the GIL held (arrays.h: no copy for aligned,
// contiguous arrays), releases the GIL for Session::Run, so Python threads
// run sessions concurrently, and hands the fetched tensors back as arrays
// over their own buffers. On the main thread, Ctrl-C cancels the run
// (sigint_cancellation.h).
#ifndef WEFT_PYTHON_SESSION_BINDING_H_
#define WEFT_PYTHON_SESSION_BINDING_H_

#include "nb_casters.h"

namespace weft::python {

void BindSession(nanobind::module_& m);

}  // namespace weft::python

#endif  // WEFT_PYTHON_SESSION_BINDING_H_
