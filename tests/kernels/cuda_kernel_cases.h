// The table of CUDA-vs-CPU kernel comparisons (cuda_kernels_test.cc runs
// it). Each op family contributes its rows from its own file, so that the
// table grows without every kernel author editing one list:
//
//   cuda_kernels_test.cc    CwiseCases(): unary, binary, BiasAdd, MatMul
//   cuda_array_cases.cc     ArrayCases(): Cast, Transpose, Concat, Slice, ...
//   cuda_reduce_cases.cc    ReduceCases(): reductions, Softmax, LogSoftmax
//   cuda_nn_cases.cc        NnCases(): batch norm, pooling, convolutions,
//                           BatchMatMulV2
//
// A row runs once per dtype in `dtypes`; the test draws the random inputs,
// runs the CPU kernel and the CUDA kernel on them and compares.
#ifndef WEFT_TESTS_KERNELS_CUDA_KERNEL_CASES_H_
#define WEFT_TESTS_KERNELS_CUDA_KERNEL_CASES_H_

#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "core/types.h"
#include "ops/attr_value.h"

namespace weft::test {

// How the random values of one input are drawn.
enum class Values {
  kSigned,    // uniform in [-1, 1)
  kWide,      // uniform in [-4, 4): the saturating ends of Tanh, Sigmoid,
              // Relu6 and Elu
  kPositive,  // uniform in [0.1, 2): Log, Sqrt, Rsqrt, variances
  kNonZero,   // +-[0.5, 2): divisors
};

struct Case {
  std::string op;
  // One entry per input: its shape and how its values are drawn, in the
  // row's dtype. An input listed in `fixed` is passed as given instead
  // (permutations, paddings, axes, indices: anything not of dtype T).
  std::vector<TensorShape> shapes;
  std::vector<Values> values;
  std::map<int, Tensor> fixed;
  AttrMap attrs;
  // The dtypes the row runs for (the dtype of the random inputs).
  std::vector<DataType> dtypes = {DT_FLOAT, DT_HALF};
  // Appended to the test name where op, shapes and dtype do not tell rows
  // apart ("perm_0_2_1", "NCHW", "SAME_s2"). Letters, digits and '_'.
  std::string label;
  // Tolerance |gpu - cpu| <= atol + rtol |cpu|, as a multiple of the
  // dtype's unit roundoff (2^-24 float, 2^-11 half; 0 for integers, which
  // must match exactly).
  double atol_ulps = 4;
  double rtol_ulps = 4;
};

// A tensor of `dtype` and `shape` with values drawn as `kind` says.
Tensor RandomTensor(DataType dtype, const TensorShape& shape, Values kind,
                    std::mt19937* rng);

std::vector<Case> CwiseCases();
std::vector<Case> ArrayCases();
std::vector<Case> ReduceCases();
std::vector<Case> NnCases();
std::vector<Case> SliceCases();

}  // namespace weft::test

#endif  // WEFT_TESTS_KERNELS_CUDA_KERNEL_CASES_H_
