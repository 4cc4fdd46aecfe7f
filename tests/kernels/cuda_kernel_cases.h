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
#include "gtest/gtest.h"
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
  // must match exactly). With `float_compute`, see there.
  double atol_ulps = 4;
  double rtol_ulps = 4;
  // Set on rows whose kernels, CPU and CUDA, compute in float for every
  // dtype and round each result once to the dtype: sums of products
  // (MatMul, BatchMatMulV2, Conv2D), reductions, Softmax. The two sides
  // then differ by what their float computations differ by, plus one final
  // rounding each; so atol_ulps and rtol_ulps count float's unit roundoff
  // for every dtype, and CaseTolerance adds the roundings. Without this, a
  // K-proportional bound in half ulps is 8,192 times wider than the float
  // error it stands for, and lets a kernel returning zeros pass.
  bool float_compute = false;
};

// |gpu - cpu| <= atol + rtol |cpu|, per element.
struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

// The tolerance row `c` runs with for `dtype`. Without float_compute:
// atol_ulps u and rtol_ulps u, u the dtype's unit roundoff. With it, for
// float: the same; for half (and bfloat16), with f = 2^-24, u = 2^-11 and
// a, b the two float results, |a - b| <= d = atol_ulps f + rtol_ulps f |b|,
// and each side rounds once to the dtype, adding at most u |x| (or 2^-25,
// half of half's subnormal step, below 2^-14):
//   |A - B| <= d + u (|a| + |b|) + 2^-24 <= 1.01 (d + 2u |B|) + 2^-24,
// the factor covering the O(u^2) terms (|b| <= |B| / (1 - u)).
Tolerance CaseTolerance(const Case& c, DataType dtype);

// Whether `got` matches `want` within `tol`: same dtype and shape, and per
// element |got - want| <= atol + rtol |want|, NaN meeting NaN and an
// infinity the same infinity. On failure the message lists up to ten
// elements with the difference and what was allowed. The table compares
// with this, and tests/kernels/cuda_table_tolerance_test.cc shows that it
// rejects wrong results under each row's tolerance.
testing::AssertionResult WithinTolerance(const Tensor& got, const Tensor& want,
                                         Tolerance tol);

// The inputs of one row for one dtype, drawn from a fixed seed: what both
// the CPU and the CUDA kernel are given.
std::vector<Tensor> CaseInputs(const Case& c, DataType dtype);

// The dtypes of CaseInputs(c, dtype), without drawing any value: kernel
// lookups need only these, and drawing the large rows' values for all
// 2,000-odd rows took most of a registration check's time (37 s under ASan).
std::vector<DataType> CaseInputTypes(const Case& c, DataType dtype);

// A tensor of `dtype` and `shape` with values drawn as `kind` says.
Tensor RandomTensor(DataType dtype, const TensorShape& shape, Values kind,
                    std::mt19937* rng);

std::vector<Case> CwiseCases();
std::vector<Case> ArrayCases();
std::vector<Case> ReduceCases();
std::vector<Case> NnCases();
std::vector<Case> SliceCases();
// Every row above, in that order.
std::vector<Case> AllCases();

}  // namespace weft::test

#endif  // WEFT_TESTS_KERNELS_CUDA_KERNEL_CASES_H_
