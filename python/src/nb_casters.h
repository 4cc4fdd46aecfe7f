// nanobind with every STL type caster this module uses. Every source file
// includes this one instead of picking casters itself: a file that converts
// std::string without <nanobind/stl/string.h> would instantiate the generic
// caster for it, and the linker may keep that instantiation for all files
// (a one-definition-rule clash that shows up as std::bad_cast at run time).
#ifndef WEFT_PYTHON_NB_CASTERS_H_
#define WEFT_PYTHON_NB_CASTERS_H_

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#endif  // WEFT_PYTHON_NB_CASTERS_H_
