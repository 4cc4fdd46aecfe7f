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

#include <functional>
#include <set>
#include <string>
#include <utility>
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

// The cases of testdata/`file`, or of the file the environment variable
// `env_var` names when it is set (to replay a regenerated file), loaded on
// the first call and kept for the process; a file that fails to load is a
// test failure and gives no cases.
const std::vector<GoldenCase>& CachedGoldens(const std::string& file,
                                             const char* env_var);

// Runs `check` on every case, each under a SCOPED_TRACE naming
// `file`:line and the case; no case at all is a failure.
void ReplayGoldens(const std::vector<GoldenCase>& cases,
                   const std::string& file,
                   const std::function<void(const GoldenCase&)>& check);

// (op, dtype) pairs that a golden file covers.
using DtypeCoverage = std::set<std::pair<std::string, DataType>>;

// For a golden test's "every registered dtype has a case" check: expects
// kernels for `op`, and for each dtype that a CPU kernel of `op` allows for
// attr `attr` and that `checked` accepts, the pair (op, dtype) in
// `covered`; a failure names `generator`, the script to add a case to.
void ExpectCpuDtypesCovered(const std::string& op, const std::string& attr,
                            const DtypeCoverage& covered,
                            const std::function<bool(DataType)>& checked,
                            const std::string& generator);

// Whether the golden format can hold a tensor of `dtype`: not strings or
// quantized types.
bool GoldenHolds(DataType dtype);

}  // namespace weft::test

#endif  // WEFT_TESTS_KERNELS_GOLDEN_TESTUTIL_H_
