// Errors of the segment and matrix kernels of issue 13 that the TensorFlow
// goldens (cpu_segment_matrix_golden_test.cc) cannot hold: unsorted,
// negative and out-of-range segment ids, out-of-range indices, bad k ranges
// and sizes, non-square and mismatched matrices, absurd sizes. Each is a
// Status naming the problem, worded as TensorFlow words it, never a crash
// (including the k-range-with-a-vector MatrixDiag that crashes TensorFlow).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace segment_matrix_ops_test {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::OpRunner;

// The op's error message for these inputs (empty when it succeeded).
std::string SegMatError(const std::string& op, std::vector<Tensor> inputs,
                        AttrMap attrs = {}) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner(op, std::move(attrs)).Run(std::move(inputs));
  return out.ok() ? std::string() : std::string(out.status().message());
}

#define EXPECT_ERROR_HAS(text, call)                              \
  do {                                                            \
    const std::string _e = (call);                                \
    EXPECT_NE(_e.find(text), std::string::npos) << "got: " << _e; \
  } while (0)

Tensor Data32() { return AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2}); }

TEST(CpuSegmentMatrixOpsTest, SortedSegmentErrors) {
  EXPECT_ERROR_HAS(
      "segment ids are not increasing",
      SegMatError("SegmentSum", {Data32(), AsTensor<int32_t>({1, 0, 2}, {3})}));
  EXPECT_ERROR_HAS(
      "Segment id -1 out of range [0, 1), possibly because 'segment_ids' "
      "input is not sorted.",
      SegMatError("SegmentMax",
                  {Data32(), AsTensor<int32_t>({-1, 0, 0}, {3})}));
  EXPECT_ERROR_HAS("segment ids must be >= 0",
                   SegMatError("SegmentMin",
                               {Data32(), AsTensor<int64_t>({0, 0, -1}, {3})}));
  EXPECT_ERROR_HAS(
      "segment_ids should be the same size as dimension 0 of input",
      SegMatError("SegmentProd", {Data32(), AsTensor<int32_t>({0, 0}, {2})}));
  EXPECT_ERROR_HAS(
      "segment_ids should be a vector",
      SegMatError("SegmentMean",
                  {Data32(), AsTensor<int32_t>({0, 0, 0}, {1, 3})}));
  EXPECT_ERROR_HAS("input must be at least rank 1",
                   SegMatError("SegmentSum", {AsScalar<float>(1),
                                              AsTensor<int32_t>({0}, {1})}));
  // An id whose output could never be allocated.
  EXPECT_NE(
      SegMatError("SegmentSum",
                  {Data32(), AsTensor<int64_t>({0, 1, int64_t{1} << 62}, {3})}),
      "");
  EXPECT_NE(
      SegMatError(
          "SegmentSum",
          {Data32(), AsTensor<int64_t>(
                         {0, 1, std::numeric_limits<int64_t>::max()}, {3})}),
      "");
}

TEST(CpuSegmentMatrixOpsTest, UnsortedSegmentErrors) {
  EXPECT_ERROR_HAS("segment_ids[1] = 5 is out of range [0, 2)",
                   SegMatError("UnsortedSegmentSum",
                               {Data32(), AsTensor<int32_t>({0, 5, 1}, {3}),
                                AsScalar<int32_t>(2)}));
  EXPECT_ERROR_HAS(
      "segment_ids[1,0] = 9 is out of range [0, 4)",
      SegMatError("UnsortedSegmentMax",
                  {Data32(), AsTensor<int32_t>({0, 1, 9, 1, 0, 0}, {3, 2}),
                   AsScalar<int32_t>(4)}));
  EXPECT_ERROR_HAS("Input num_segments == -1 must not be negative.",
                   SegMatError("UnsortedSegmentProd",
                               {Data32(), AsTensor<int32_t>({0, 1, 0}, {3}),
                                AsScalar<int32_t>(-1)}));
  EXPECT_ERROR_HAS("num_segments should be a scalar, not shape [1]",
                   SegMatError("UnsortedSegmentMin",
                               {Data32(), AsTensor<int32_t>({0, 1, 0}, {3}),
                                AsTensor<int32_t>({2}, {1})}));
  EXPECT_ERROR_HAS(
      "data.shape = [3,2] does not start with segment_ids.shape = [2]",
      SegMatError(
          "UnsortedSegmentSum",
          {Data32(), AsTensor<int32_t>({0, 1}, {2}), AsScalar<int32_t>(2)}));
  // Absurd num_segments: too large to allocate, an error and not a crash.
  EXPECT_NE(SegMatError("UnsortedSegmentSum",
                        {Data32(), AsTensor<int32_t>({0, 1, 0}, {3}),
                         AsScalar<int64_t>(int64_t{1} << 61)}),
            "");
}

TEST(CpuSegmentMatrixOpsTest, SparseSegmentErrors) {
  const Tensor data = Data32();
  EXPECT_ERROR_HAS(
      "Bad: indices[1] == 5 out of range [0, 3)",
      SegMatError("SparseSegmentSum", {data, AsTensor<int32_t>({0, 5}, {2}),
                                       AsTensor<int32_t>({0, 0}, {2})}));
  EXPECT_ERROR_HAS(
      "Bad: indices[1] == -1 out of range [0, 3)",
      SegMatError("SparseSegmentMean", {data, AsTensor<int64_t>({0, -1}, {2}),
                                        AsTensor<int32_t>({0, 0}, {2})}));
  EXPECT_ERROR_HAS(
      "segment ids are not increasing",
      SegMatError("SparseSegmentSqrtN", {data, AsTensor<int32_t>({0, 1}, {2}),
                                         AsTensor<int32_t>({1, 0}, {2})}));
  EXPECT_ERROR_HAS(
      "Segment id -1 out of range [0, 1)",
      SegMatError("SparseSegmentSum", {data, AsTensor<int32_t>({0, 1}, {2}),
                                       AsTensor<int32_t>({-1, 0}, {2})}));
  EXPECT_ERROR_HAS(
      "segment_ids and indices should have same size",
      SegMatError("SparseSegmentSum", {data, AsTensor<int32_t>({0, 1}, {2}),
                                       AsTensor<int32_t>({0}, {1})}));
  EXPECT_ERROR_HAS(
      "indices should be a vector",
      SegMatError("SparseSegmentSum", {data, AsTensor<int32_t>({0, 1}, {1, 2}),
                                       AsTensor<int32_t>({0, 0}, {2})}));
  EXPECT_ERROR_HAS(
      "segment ids must be < num_segments",
      SegMatError("SparseSegmentSumWithNumSegments",
                  {data, AsTensor<int32_t>({0, 1}, {2}),
                   AsTensor<int32_t>({0, 3}, {2}), AsScalar<int32_t>(2)}));
  EXPECT_ERROR_HAS("Shape must be at least rank 1",
                   SegMatError("SparseSegmentSum",
                               {AsScalar<float>(1), AsTensor<int32_t>({0}, {1}),
                                AsTensor<int32_t>({0}, {1})}));
  EXPECT_NE(SegMatError("SparseSegmentSum",
                        {data, AsTensor<int32_t>({0, 1}, {2}),
                         AsTensor<int64_t>({0, int64_t{1} << 62}, {2})}),
            "");
}

TEST(CpuSegmentMatrixOpsTest, MatrixDiagErrors) {
  const Tensor d = AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto diag = [&](const Tensor& diagonal, const Tensor& k, int32_t rows,
                  int32_t cols) {
    return SegMatError("MatrixDiagV3",
                       {diagonal, k, AsScalar<int32_t>(rows),
                        AsScalar<int32_t>(cols), AsScalar<float>(0)});
  };
  EXPECT_ERROR_HAS(
      "lower_diag_index must not be larger than upper_diag_index: 1 > 0",
      diag(d, AsTensor<int32_t>({1, 0}, {2}), -1, -1));
  EXPECT_ERROR_HAS("Expected diag_index to have at least 1 element",
                   diag(d, AsTensor<int32_t>({}, {0}), -1, -1));
  EXPECT_ERROR_HAS("diag_index must have only one or two elements, received 3",
                   diag(d, AsTensor<int32_t>({0, 1, 2}, {3}), -1, -1));
  EXPECT_ERROR_HAS("diag_index must be a scalar or vector",
                   diag(d, AsTensor<int32_t>({0}, {1, 1}), -1, -1));
  EXPECT_ERROR_HAS(
      "The number of diagonals provided in the input does not "
      "match",
      diag(d, AsTensor<int32_t>({0, 2}, {2}), -1, -1));
  EXPECT_ERROR_HAS("The number of rows is too small.",
                   diag(d, AsScalar<int32_t>(0), 2, -1));
  EXPECT_ERROR_HAS("The number of columns is too small.",
                   diag(d, AsScalar<int32_t>(0), -1, 2));
  EXPECT_ERROR_HAS("The number of rows or columns is not consistent",
                   diag(d, AsScalar<int32_t>(0), 4, 4));
  EXPECT_ERROR_HAS("The number of rows is too small.",
                   diag(d, AsScalar<int32_t>(0), -5, -1));
  // TensorFlow aborts on this one (a k range with a vector of values).
  EXPECT_ERROR_HAS("diagonal must be at least 2-dim",
                   diag(AsTensor<float>({1, 2}, {2}),
                        AsTensor<int32_t>({0, 1}, {2}), -1, -1));
  EXPECT_ERROR_HAS("diagonal must be at least 1-dim",
                   diag(AsScalar<float>(1), AsScalar<int32_t>(0), -1, -1));
  EXPECT_ERROR_HAS(
      "padding_value must be a scalar",
      SegMatError("MatrixDiagV3",
                  {d, AsScalar<int32_t>(0), AsScalar<int32_t>(-1),
                   AsScalar<int32_t>(-1), AsTensor<float>({0}, {1})}));
}

TEST(CpuSegmentMatrixOpsTest, MatrixDiagPartAndSetDiagErrors) {
  const Tensor m = AsTensor<float>(std::vector<float>(12, 1.0f), {3, 4});
  EXPECT_ERROR_HAS(
      "lower_diag_index is out of bound: 4. It must be between "
      "-3 and 4",
      SegMatError("MatrixDiagPartV3",
                  {m, AsScalar<int32_t>(4), AsScalar<float>(0)}));
  EXPECT_ERROR_HAS(
      "upper_diag_index is out of bound: 7",
      SegMatError("MatrixDiagPartV2",
                  {m, AsTensor<int32_t>({0, 7}, {2}), AsScalar<float>(0)}));
  EXPECT_ERROR_HAS(
      "input must be at least 2-dim, received shape: [2]",
      SegMatError("MatrixDiagPart", {AsTensor<float>({1, 2}, {2})}));
  EXPECT_ERROR_HAS(
      "lower_diag_index is out of bound: 5 It must be between",
      SegMatError("MatrixSetDiagV3",
                  {m, AsTensor<float>({1, 2, 3}, {3}), AsScalar<int32_t>(5)}));
  EXPECT_ERROR_HAS(
      "Either first dimensions of diagonal don't match",
      SegMatError("MatrixSetDiagV3",
                  {m, AsTensor<float>({1, 2}, {2}), AsScalar<int32_t>(0)}));
  EXPECT_ERROR_HAS(
      "Either first dimensions of diagonal don't match",
      SegMatError("MatrixSetDiag", {m, AsTensor<float>({1, 2}, {2})}));
  EXPECT_ERROR_HAS(
      "The number of diagonals provided in `diag` is not "
      "consistent",
      SegMatError("MatrixSetDiagV3", {m, AsTensor<float>({1, 2, 3}, {1, 3}),
                                      AsTensor<int32_t>({0, 1}, {2})}));
  EXPECT_ERROR_HAS("diagonal must be at least 1-dim",
                   SegMatError("MatrixSetDiagV2",
                               {m, AsScalar<float>(1), AsScalar<int32_t>(0)}));
}

TEST(CpuSegmentMatrixOpsTest, DeterminantAndBatchMatMulErrors) {
  EXPECT_ERROR_HAS(
      "Input matrix must be square",
      SegMatError("MatrixDeterminant",
                  {AsTensor<float>(std::vector<float>(6, 1.0f), {2, 3})}));
  EXPECT_ERROR_HAS(
      "must have rank >= 2",
      SegMatError("MatrixDeterminant", {AsTensor<double>({1}, {1})}));
  const Tensor x = AsTensor<float>(std::vector<float>(24, 1.0f), {2, 3, 4});
  EXPECT_ERROR_HAS(
      "In[0] and In[1] has different ndims: [2,3,4] vs. [4,5]",
      SegMatError("BatchMatMul",
                  {x, AsTensor<float>(std::vector<float>(20, 1.0f), {4, 5})}));
  EXPECT_ERROR_HAS("In[0].dim(0) and In[1].dim(0) must be the same",
                   SegMatError("BatchMatMul",
                               {x, AsTensor<float>(std::vector<float>(20, 1.0f),
                                                   {1, 4, 5})}));
  EXPECT_ERROR_HAS("inner dimensions differ",
                   SegMatError("BatchMatMul",
                               {x, AsTensor<float>(std::vector<float>(30, 1.0f),
                                                   {2, 3, 5})}));
  EXPECT_ERROR_HAS(
      "inner dimensions differ",
      SegMatError("BatchMatMulV3",
                  {AsTensor<int8_t>(std::vector<int8_t>(6, 1), {2, 3}),
                   AsTensor<uint8_t>(std::vector<uint8_t>(8, 1), {4, 2})},
                  {{"Tout", AttrValue::Type(DT_INT32)}}));
}

#undef EXPECT_ERROR_HAS

}  // namespace
}  // namespace segment_matrix_ops_test
}  // namespace weft

// The macro is this file's own; unity builds compile other sources after it.
#undef EXPECT_ERROR_HAS
