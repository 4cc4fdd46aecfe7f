// Errors and edge cases of the LSTMBlockCell, SparseFillEmptyRows,
// SparseReshape, DenseToDenseSetOperation, ComplexAbs, FFT, RFFT and RFFT2D
// kernels that the TensorFlow goldens (cpu_lstm_sparse_fft_golden_test.cc)
// cannot hold: each bad input is a Status naming the problem, never a
// crash, worded as TensorFlow words it where it has a message; string sets
// (the golden format holds no strings; the expected values are what
// tf.raw_ops.DenseToDenseSetOperation returns for the same inputs); and an
// FFT longer than the goldens against a direct DFT in long double.
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/dtype_traits.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_lstm_sparse_fft_ops_test {

using test::AsScalar;
using test::AsTensor;
using test::OpRunner;

// The op's error message for these inputs (empty when it succeeded).
std::string ErrorOf(const std::string& op, std::vector<Tensor> inputs,
                    AttrMap attrs = {}) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner(op, std::move(attrs)).Run(std::move(inputs));
  return out.ok() ? std::string() : std::string(out.status().message());
}

#define EXPECT_ERROR_HAS(text, error) \
  EXPECT_NE((error).find(text), std::string::npos) << (error)

std::vector<Tensor> LstmInputs(int64_t batch, int64_t input, int64_t cell,
                               int64_t w_rows, int64_t w_cols, int64_t b_len,
                               int64_t peep_len) {
  auto zeros = [](std::initializer_list<int64_t> dims) {
    TensorShape shape(dims);
    return AsTensor<float>(std::vector<float>(shape.num_elements(), 0.5f),
                           shape);
  };
  return {zeros({batch, input}),   zeros({batch, cell}), zeros({batch, cell}),
          zeros({w_rows, w_cols}), zeros({peep_len}),    zeros({peep_len}),
          zeros({peep_len}),       zeros({b_len})};
}

TEST(CpuLstmSparseFftOpsTest, LstmBlockCellShapes) {
  EXPECT_EQ(ErrorOf("LSTMBlockCell", LstmInputs(2, 3, 4, 7, 16, 16, 4)), "");
  EXPECT_ERROR_HAS("w.dim_size(0) != input_size + cell_size: 6 vs. 7",
                   ErrorOf("LSTMBlockCell", LstmInputs(2, 3, 4, 6, 16, 16, 4)));
  EXPECT_ERROR_HAS("w.dim_size(1) != cell_size * 4: 12 vs. 16",
                   ErrorOf("LSTMBlockCell", LstmInputs(2, 3, 4, 7, 12, 16, 4)));
  EXPECT_ERROR_HAS("b.dim_size(0) != cell_size * 4: 8 vs. 16",
                   ErrorOf("LSTMBlockCell", LstmInputs(2, 3, 4, 7, 16, 8, 4)));
  EXPECT_ERROR_HAS("cs_prev_tensor is empty, has shape: (0,4).",
                   ErrorOf("LSTMBlockCell", LstmInputs(0, 3, 4, 7, 16, 16, 4)));
  // Peephole weights are read only with use_peephole, and then must be
  // [cell].
  EXPECT_EQ(ErrorOf("LSTMBlockCell", LstmInputs(2, 3, 4, 7, 16, 16, 1)), "");
  AttrMap peep = {{"use_peephole", AttrValue::Bool(true)}};
  EXPECT_ERROR_HAS(
      "wci.dim_size(0) != cell_size: 1 vs. 4",
      ErrorOf("LSTMBlockCell", LstmInputs(2, 3, 4, 7, 16, 16, 1), peep));
  std::vector<Tensor> bad = LstmInputs(2, 3, 4, 7, 16, 16, 4);
  bad[2] = AsTensor<float>(std::vector<float>(6, 0), {2, 3});
  EXPECT_ERROR_HAS("h_prev.dims(1) != cell_size: 3 vs. 4",
                   ErrorOf("LSTMBlockCell", bad));
}

Tensor I64(const std::vector<int64_t>& v, std::initializer_list<int64_t> d) {
  return AsTensor<int64_t>(v, TensorShape(d));
}

TEST(CpuLstmSparseFftOpsTest, SparseFillEmptyRowsErrors) {
  const Tensor values = AsTensor<float>({1, 2}, {2});
  const Tensor def = AsScalar<float>(0);
  EXPECT_ERROR_HAS(
      "indices(1, 0) is invalid: 5 >= 4",
      ErrorOf("SparseFillEmptyRows",
              {I64({0, 0, 5, 1}, {2, 2}), values, I64({4, 3}, {2}), def}));
  EXPECT_ERROR_HAS(
      "indices(0, 0) is invalid: -1 >= 4",
      ErrorOf("SparseFillEmptyRows",
              {I64({-1, 0, 2, 1}, {2, 2}), values, I64({4, 3}, {2}), def}));
  EXPECT_ERROR_HAS(
      "The length of `values` (2) must match the first dimension of "
      "`indices` (3).",
      ErrorOf("SparseFillEmptyRows", {I64({0, 0, 1, 1, 2, 2}, {3, 2}), values,
                                      I64({4, 3}, {2}), def}));
  EXPECT_ERROR_HAS(
      "Dense shape cannot be empty.",
      ErrorOf("SparseFillEmptyRows",
              {I64({}, {0, 0}), AsTensor<float>({}, {0}), I64({}, {0}), def}));
  EXPECT_ERROR_HAS("default_value must be a scalar",
                   ErrorOf("SparseFillEmptyRows",
                           {I64({0, 0, 1, 1}, {2, 2}), values, I64({4, 3}, {2}),
                            AsTensor<float>({0}, {1})}));
  EXPECT_ERROR_HAS(
      "Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = 2",
      ErrorOf("SparseFillEmptyRows",
              {I64({0, 0, 1, 1}, {2, 2}), values, I64({0, 3}, {2}), def}));
  EXPECT_ERROR_HAS(
      "dense_shape[0] must be >= 0",
      ErrorOf("SparseFillEmptyRows", {I64({}, {0, 2}), AsTensor<float>({}, {0}),
                                      I64({-3, 3}, {2}), def}));
  // Absurd row counts are errors, not aborts or huge allocations.
  EXPECT_NE(ErrorOf("SparseFillEmptyRows",
                    {I64({}, {0, 2}), AsTensor<float>({}, {0}),
                     I64({std::numeric_limits<int64_t>::max(), 3}, {2}), def}),
            "");
  EXPECT_NE(
      ErrorOf("SparseFillEmptyRows", {I64({}, {0, 2}), AsTensor<float>({}, {0}),
                                      I64({int64_t{1} << 61, 3}, {2}), def}),
      "");
  EXPECT_ERROR_HAS("has no columns",
                   ErrorOf("SparseFillEmptyRows",
                           {I64({}, {2, 0}), values, I64({4}, {1}), def}));
}

TEST(CpuLstmSparseFftOpsTest, SparseFillEmptyRowsStrings) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner("SparseFillEmptyRows")
          .Run({I64({2, 0, 0, 1}, {2, 2}),
                AsTensor<std::string>({"two", "zero"}, {2}), I64({3, 2}, {2}),
                AsScalar<std::string>("-")});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual((*out)[0], I64({0, 1, 1, 0, 2, 0}, {3, 2}));
  test::ExpectTensorEqual((*out)[1],
                          AsTensor<std::string>({"zero", "-", "two"}, {3}));
  test::ExpectTensorEqual((*out)[2], AsTensor<bool>({false, true, false}, {3}));
  test::ExpectTensorEqual((*out)[3], I64({2, 0}, {2}));
}

TEST(CpuLstmSparseFftOpsTest, SparseReshapeErrors) {
  const Tensor idx = I64({0, 0, 1, 2}, {2, 2});
  EXPECT_ERROR_HAS(
      "Input to reshape is a tensor with 24 dense values, but the requested "
      "shape has 20",
      ErrorOf("SparseReshape", {idx, I64({4, 6}, {2}), I64({4, 5}, {2})}));
  EXPECT_ERROR_HAS(
      "only one output dimension may be -1, not both 0 and 1",
      ErrorOf("SparseReshape", {idx, I64({4, 6}, {2}), I64({-1, -1}, {2})}));
  EXPECT_ERROR_HAS(
      "requires a multiple of 5",
      ErrorOf("SparseReshape", {idx, I64({4, 6}, {2}), I64({-1, 5}, {2})}));
  EXPECT_ERROR_HAS(
      "size 1 must be non-negative, not -3",
      ErrorOf("SparseReshape", {idx, I64({4, 6}, {2}), I64({8, -3}, {2})}));
  EXPECT_ERROR_HAS("cannot infer the missing input size for an empty tensor",
                   ErrorOf("SparseReshape", {I64({}, {0, 2}), I64({0, 6}, {2}),
                                             I64({-1, 0}, {2})}));
  EXPECT_ERROR_HAS("Input indices should be a matrix",
                   ErrorOf("SparseReshape", {I64({0, 1}, {2}), I64({4, 6}, {2}),
                                             I64({24}, {1})}));
  EXPECT_ERROR_HAS(
      "Input tensor rank must match input shape length",
      ErrorOf("SparseReshape", {idx, I64({4, 6, 1}, {3}), I64({24}, {1})}));
  EXPECT_ERROR_HAS(
      "input_indices[1, 1] = 7 is out of bounds",
      ErrorOf("SparseReshape",
              {I64({0, 0, 1, 7}, {2, 2}), I64({4, 6}, {2}), I64({24}, {1})}));
  // Sizes whose product overflows are an error, not a wrapped product.
  const int64_t big = int64_t{1} << 40;
  EXPECT_NE(ErrorOf("SparseReshape",
                    {idx, I64({4, 6}, {2}), I64({big, big, 0}, {3})}),
            "");
  EXPECT_NE(
      ErrorOf("SparseReshape", {idx, I64({big, big}, {2}), I64({-1}, {1})}),
      "");
  EXPECT_NE(ErrorOf("SparseReshape", {idx, I64({4, -6}, {2}), I64({-1}, {1})}),
            "");
}

TEST(CpuLstmSparseFftOpsTest, SetOperationErrors) {
  AttrMap uni = {{"set_operation", AttrValue::String("union")}};
  EXPECT_ERROR_HAS("Shape [3] has rank 1 < 2",
                   ErrorOf("DenseToDenseSetOperation",
                           {AsTensor<int32_t>({1, 2, 3}, {3}),
                            AsTensor<int32_t>({1, 2, 3}, {1, 3})},
                           uni));
  EXPECT_ERROR_HAS("Mismatched shapes [2] vs [3]",
                   ErrorOf("DenseToDenseSetOperation",
                           {AsTensor<int32_t>({1, 2, 3, 4}, {2, 2}),
                            AsTensor<int32_t>({1, 2, 3}, {3, 1})},
                           uni));
  EXPECT_ERROR_HAS("Mismatched shapes",
                   ErrorOf("DenseToDenseSetOperation",
                           {AsTensor<int32_t>({1, 2, 3, 4}, {2, 2}),
                            AsTensor<int32_t>({1, 2, 3, 4}, {2, 1, 2})},
                           uni));
  EXPECT_ERROR_HAS("Invalid set_operation xor.",
                   ErrorOf("DenseToDenseSetOperation",
                           {AsTensor<int32_t>({1, 2}, {1, 2}),
                            AsTensor<int32_t>({1, 2}, {1, 2})},
                           {{"set_operation", AttrValue::String("XOR")}}));
}

TEST(CpuLstmSparseFftOpsTest, SetOperationStrings) {
  AttrMap uni = {{"set_operation", AttrValue::String("union")}};
  AttrMap inter = {{"set_operation", AttrValue::String("intersection")}};
  const Tensor a = AsTensor<std::string>({"b", "a", "b", "", "z", "y"}, {2, 3});
  const Tensor b = AsTensor<std::string>({"a", "c", "Y", "z"}, {2, 2});
  StatusOr<std::vector<Tensor>> out =
      OpRunner("DenseToDenseSetOperation", uni).Run({a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual(
      (*out)[0], I64({0, 0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2, 1, 3}, {7, 2}));
  test::ExpectTensorEqual(
      (*out)[1],
      AsTensor<std::string>({"a", "b", "c", "", "Y", "y", "z"}, {7}));
  test::ExpectTensorEqual((*out)[2], I64({2, 4}, {2}));
  out = OpRunner("DenseToDenseSetOperation", inter).Run({a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual((*out)[0], I64({0, 0, 1, 0}, {2, 2}));
  test::ExpectTensorEqual((*out)[1], AsTensor<std::string>({"a", "z"}, {2}));
  test::ExpectTensorEqual((*out)[2], I64({2, 1}, {2}));
}

TEST(CpuLstmSparseFftOpsTest, FftErrors) {
  const Tensor x = AsTensor<float>(std::vector<float>(10, 1.0f), {2, 5});
  AttrMap c64 = {{"Tcomplex", AttrValue::Type(DT_COMPLEX64)}};
  EXPECT_ERROR_HAS("fft_length[0] must >= 0, but got: -1",
                   ErrorOf("RFFT", {x, AsTensor<int32_t>({-1}, {1})}, c64));
  EXPECT_ERROR_HAS("fft_length must have shape [1]",
                   ErrorOf("RFFT", {x, AsTensor<int32_t>({4, 4}, {2})}, c64));
  EXPECT_ERROR_HAS("fft_length must have shape [2]",
                   ErrorOf("RFFT2D", {x, AsTensor<int32_t>({4}, {1})}, c64));
  EXPECT_ERROR_HAS(
      "Input dimension 1 must have length of at least 8 but got: 5",
      ErrorOf("RFFT", {x, AsTensor<int32_t>({8}, {1})}, c64));
  EXPECT_ERROR_HAS(
      "Input dimension 0 must have length of at least 3 but got: 2",
      ErrorOf("RFFT2D", {x, AsTensor<int32_t>({3, 4}, {2})}, c64));
  EXPECT_ERROR_HAS(
      "fft_length[1] must >= 0, but got: -4",
      ErrorOf("RFFT2D", {x, AsTensor<int32_t>({2, -4}, {2})}, c64));
  EXPECT_ERROR_HAS("Input must have rank of at least 1",
                   ErrorOf("FFT", {AsScalar<complex64>(complex64(1, 2))}));
  // Mixed precisions have no kernel, as in TensorFlow.
  EXPECT_NE(ErrorOf("RFFT", {x, AsTensor<int32_t>({4}, {1})},
                    {{"Tcomplex", AttrValue::Type(DT_COMPLEX128)}}),
            "");
  EXPECT_NE(ErrorOf("ComplexAbs", {AsScalar<complex64>(complex64(3, 4))},
                    {{"Tout", AttrValue::Type(DT_DOUBLE)}}),
            "");
}

// An empty innermost input dimension with fft_length > 0 passes
// TensorFlow's checks and leaves its output unwritten; weft gives the
// transform of the zero signal.
TEST(CpuLstmSparseFftOpsTest, RfftOfEmptyRowsIsZero) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner("RFFT", {{"Tcomplex", AttrValue::Type(DT_COMPLEX64)}})
          .Run({AsTensor<float>({}, {2, 0}), AsTensor<int32_t>({6}, {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual(
      (*out)[0], AsTensor<complex64>(std::vector<complex64>(8), {2, 4}));
}

// fft_length 0 for the innermost dimension: an empty output. (TensorFlow
// 2.21 aborts its process on this input in DUCC, so there is no golden.)
TEST(CpuLstmSparseFftOpsTest, RfftOfLengthZeroIsEmpty) {
  AttrMap c64 = {{"Tcomplex", AttrValue::Type(DT_COMPLEX64)}};
  const Tensor x = AsTensor<float>(std::vector<float>(24, 1.0f), {4, 6});
  StatusOr<std::vector<Tensor>> out =
      OpRunner("RFFT", c64).Run({x, AsTensor<int32_t>({0}, {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({4, 0}));
  out = OpRunner("RFFT2D", c64).Run({x, AsTensor<int32_t>({3, 0}, {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({3, 0}));
}

// A length with a large prime factor (4099) and a power of two (8192),
// longer than the goldens, against a direct DFT summed in long double:
// every part within the FFT bound of the golden test, (L + 4 s + 8) u S.
TEST(CpuLstmSparseFftOpsTest, LongFftMatchesDirectDft) {
  for (int64_t n : {4099, 8192}) {
    std::vector<complex128> x(static_cast<size_t>(n));
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      x[j] = complex128(std::sin(0.37 * j) + 0.25, std::cos(1.3 * j * j / n));
      sum += std::fabs(x[j].real()) + std::fabs(x[j].imag());
    }
    StatusOr<std::vector<Tensor>> out =
        OpRunner("FFT", {}, 2).Run({AsTensor<complex128>(x, {1, n})});
    ASSERT_TRUE(out.ok()) << out.status();
    const complex128* y = (*out)[0].data<complex128>();
    int s = 0;
    while ((int64_t{1} << s) < n) ++s;
    const double bound =
        static_cast<double>(n + 4 * s + 8) * std::ldexp(1.0, -53) * sum;
    const long double pi = 3.141592653589793238462643383279502884L;
    for (int64_t k = 0; k < n; k += 97) {
      long double re = 0;
      long double im = 0;
      for (int64_t j = 0; j < n; ++j) {
        const long double angle =
            -2 * pi * static_cast<long double>((j * k) % n) / n;
        const long double c = std::cos(angle);
        const long double sn = std::sin(angle);
        re += x[j].real() * c - x[j].imag() * sn;
        im += x[j].real() * sn + x[j].imag() * c;
      }
      EXPECT_LE(std::fabs(static_cast<double>(y[k].real() - re)), bound)
          << "n " << n << " k " << k;
      EXPECT_LE(std::fabs(static_cast<double>(y[k].imag() - im)), bound)
          << "n " << n << " k " << k;
    }
  }
}

#undef EXPECT_ERROR_HAS

}  // namespace cpu_lstm_sparse_fft_ops_test
}  // namespace weft
