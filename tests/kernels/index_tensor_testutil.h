// Index tensors (begin, size, paddings, indices, dims, ...) from int64
// values in the dtype under test, for the data-movement kernel tests
// (cuda_slice_body_test.cc, cuda_slice_cases.cc).
#ifndef WEFT_TESTS_KERNELS_INDEX_TENSOR_TESTUTIL_H_
#define WEFT_TESTS_KERNELS_INDEX_TENSOR_TESTUTIL_H_

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft::test {

// `values` as a tensor of `dtype` and `shape`.
inline Tensor Ints(DataType dtype, const std::vector<int64_t>& values,
                   const TensorShape& shape) {
  return AsTensorOfType(
      dtype, std::vector<double>(values.begin(), values.end()), shape);
}

// `values` as a vector of `dtype`.
inline Tensor Vec(const std::vector<int64_t>& values,
                  DataType dtype = DT_INT32) {
  return Ints(dtype, values,
              TensorShape({static_cast<int64_t>(values.size())}));
}

}  // namespace weft::test

#endif  // WEFT_TESTS_KERNELS_INDEX_TENSOR_TESTUTIL_H_
