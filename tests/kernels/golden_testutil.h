// TensorFlow reference cases for kernel tests: the committed text files in
// tests/kernels/testdata/*_goldens.txt, written by the gen_*_goldens.py
// scripts from tf.raw_ops on the CPU, and their parser.
//
// Format, one record per case:
//
//   case <name> <op>
//   attr <name> bool|string|int|float|type <value>
//   attr <name> ints|floats|types <v1,v2,...>    (a list; "-" for empty)
//   attr <name> shape <d1,d2,...>     (-1 unknown; "scalar", "?" unknown rank)
//   in <dtype> <shape> <value> <value> ...
//   out <dtype> <shape> <value> <value> ...     (one line per output)
//   end
//
// <dtype> is weft's spelling (float, int32, bool, ...); <shape> is "2,3", or
// "scalar" for rank 0. Values are decimal (nan, inf, -inf allowed; bools as
// 0/1 or true/false), written so that they read back exactly as stored.
// complex64 and complex128 tensors hold two values per element, the real
// and imaginary parts interleaved ("in complex64 2 1 0.5 -2 0" is
// [1+0.5i, -2+0i]), each part in the shortest form of float or double;
// files without complex tensors read as before.
#ifndef WEFT_TESTS_KERNELS_GOLDEN_TESTUTIL_H_
#define WEFT_TESTS_KERNELS_GOLDEN_TESTUTIL_H_

#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ops/attr_value.h"

namespace weft::test {

struct GoldenCase {
  int line = 0;
  std::string name;
  std::string op;
  AttrMap attrs;
  std::vector<Tensor> inputs;
  std::vector<Tensor> expected;
};

// tests/kernels/testdata/<file>.
std::string GoldenPath(const std::string& file);

// Errors name the file and line.
StatusOr<std::vector<GoldenCase>> LoadGoldenFile(const std::string& path);

}  // namespace weft::test

#endif  // WEFT_TESTS_KERNELS_GOLDEN_TESTUTIL_H_
