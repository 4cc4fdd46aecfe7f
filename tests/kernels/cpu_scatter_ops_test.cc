// Errors and edge cases of the indexing and scatter kernels of issue 13 that
// the TensorFlow goldens (cpu_scatter_golden_test.cc) cannot hold: an index
// out of range, a bad rank or shape, an absurd size is a Status naming the
// input, the position and the value, never a crash, worded as TensorFlow
// words it where it has a message. Plus dtypes the golden format cannot
// hold (strings, complex).
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_scatter_ops_test {
namespace {

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

#define EXPECT_ERROR_HAS(error, text)                      \
  do {                                                     \
    const std::string e_ = (error);                        \
    EXPECT_NE(e_.find(text), std::string::npos)            \
        << "error: '" << e_ << "' lacks '" << text << "'"; \
  } while (0)

TEST(CpuScatterOpsTest, GatherNdBadIndexNamesPositionAndValue) {
  const Tensor params = AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_ERROR_HAS(
      ErrorOf("GatherNd", {params, AsTensor<int32_t>({0, 1, 1, 3}, {2, 2})}),
      "indices (input 1)[1] = [1, 3] does not index into params (input 0) of "
      "shape [2,3]");
  EXPECT_ERROR_HAS(
      ErrorOf("GatherNd", {params, AsTensor<int64_t>({-1, 0}, {1, 1, 2})}),
      "indices (input 1)[0,0] = [-1, 0] does not index");
  EXPECT_ERROR_HAS(
      ErrorOf("GatherNd", {params, AsTensor<int32_t>({0, 0, 0}, {1, 3})}),
      "more than the rank of params");
  EXPECT_ERROR_HAS(ErrorOf("GatherNd", {params, AsScalar<int32_t>(0)}),
                   "indices (input 1) must be at least a vector");
  EXPECT_ERROR_HAS(ErrorOf("GatherNd", {Tensor(DT_FLOAT, TensorShape({0, 2})),
                                        AsTensor<int32_t>({}, {3, 0})}),
                   "Requested more than 0 entries, but params is empty");
  EXPECT_ERROR_HAS(
      ErrorOf("GatherNd", {params, AsTensor<int32_t>({0}, {1, 1})},
              {{"bad_indices_policy", AttrValue::String("SOMETIMES")}}),
      "Unknown bad indices handling attribute: SOMETIMES");
}

TEST(CpuScatterOpsTest, GatherNdLargeIndexValuesDoNotOverflow) {
  // Index values near the int64 limits are rejected before any arithmetic.
  const Tensor params(DT_FLOAT, TensorShape({4, 4}));
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_ERROR_HAS(
      ErrorOf("GatherNd", {params, AsTensor<int64_t>({big, big}, {1, 2})}),
      "does not index into");
  EXPECT_ERROR_HAS(
      ErrorOf("GatherNd",
              {params, AsTensor<int64_t>(
                           {std::numeric_limits<int64_t>::min(), 0}, {1, 2})}),
      "does not index into");
}

TEST(CpuScatterOpsTest, GatherNdStrings) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner("GatherNd")
          .Run({AsTensor<std::string>({"a", "bb", "ccc", "dddd"}, {2, 2}),
                AsTensor<int32_t>({1, 0, 0}, {3, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual(
      (*out)[0],
      AsTensor<std::string>({"ccc", "dddd", "a", "bb", "a", "bb"}, {3, 2}));
}

TEST(CpuScatterOpsTest, ScatterNdErrors) {
  const Tensor upd = AsTensor<float>({1, 2}, {2});
  EXPECT_ERROR_HAS(ErrorOf("ScatterNd", {AsTensor<int32_t>({0, 7}, {2, 1}), upd,
                                         AsTensor<int32_t>({3}, {1})}),
                   "indices (input 0)[1] = [7] does not index into shape [3]");
  EXPECT_ERROR_HAS(ErrorOf("ScatterNd", {AsTensor<int32_t>({0, 1}, {2, 1}), upd,
                                         AsTensor<int32_t>({-1}, {1})}),
                   "Dimension -1 must be >= 0");
  EXPECT_ERROR_HAS(
      ErrorOf("ScatterNd", {AsTensor<int32_t>({0}, {1, 1}), upd,
                            AsTensor<int32_t>({3}, {1})}),
      "updates (input 1) has shape [2] but must be indices.shape[:-1] + "
      "output.shape[1:] = [1]");
  EXPECT_ERROR_HAS(ErrorOf("ScatterNd", {AsTensor<int32_t>({}, {2, 0}),
                                         AsTensor<float>({1, 2, 3, 4}, {2, 2}),
                                         AsTensor<int32_t>({2}, {1})}),
                   "Indices and updates specified for empty output shape");
  EXPECT_ERROR_HAS(
      ErrorOf("ScatterNd", {AsTensor<int32_t>({1}, {1}), AsScalar<float>(1),
                            AsTensor<int32_t>({3}, {1})}),
      "Updates shape must have rank at least one");
  // An absurd output size is an error, not an allocation attempt.
  const int64_t huge = int64_t{1} << 40;
  EXPECT_FALSE(ErrorOf("ScatterNd", {AsTensor<int64_t>({0}, {1, 1}),
                                     AsTensor<float>({1, 2}, {1, 2}),
                                     AsTensor<int64_t>({huge, huge, 2}, {3})})
                   .empty());
}

TEST(CpuScatterOpsTest, ScatterNdStringsConcatenateAndBoolsOr) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner("ScatterNd")
          .Run({AsTensor<int32_t>({0, 0, 1}, {3, 1}),
                AsTensor<std::string>({"a", "b", "c"}, {3}),
                AsTensor<int32_t>({3}, {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual((*out)[0],
                          AsTensor<std::string>({"ab", "c", ""}, {3}));
  out = OpRunner("ScatterNd")
            .Run({AsTensor<int32_t>({0, 0, 1}, {3, 1}),
                  AsTensor<bool>({true, false, false}, {3}),
                  AsTensor<int32_t>({3}, {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual((*out)[0], AsTensor<bool>({true, false, false}, {3}));
}

TEST(CpuScatterOpsTest, TensorScatterErrorsAndComplex) {
  const Tensor t = AsTensor<int32_t>({1, 2, 3}, {3});
  for (const char* op :
       {"TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
        "TensorScatterMin", "TensorScatterMax"}) {
    SCOPED_TRACE(op);
    EXPECT_ERROR_HAS(ErrorOf(op, {t, AsTensor<int32_t>({0, -1}, {2, 1}),
                                  AsTensor<int32_t>({1, 2}, {2})}),
                     "indices (input 1)[1] = [-1] does not index into shape "
                     "[3]");
    EXPECT_ERROR_HAS(ErrorOf(op, {t, AsTensor<int64_t>({0, 1}, {1, 2}),
                                  AsTensor<int32_t>({1}, {1})}),
                     "more than the rank of the output [3]");
    EXPECT_ERROR_HAS(ErrorOf(op, {t, AsTensor<int64_t>({0, 1}, {2, 1}),
                                  AsTensor<int32_t>({1, 2, 3}, {3})}),
                     "updates (input 2) has shape [3]");
  }
  using c64 = std::complex<float>;
  StatusOr<std::vector<Tensor>> out =
      OpRunner("TensorScatterAdd")
          .Run({AsTensor<c64>({c64(1, 1), c64(2, 0)}, {2}),
                AsTensor<int32_t>({1, 1}, {2, 1}),
                AsTensor<c64>({c64(0, 1), c64(1, 1)}, {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual((*out)[0],
                          AsTensor<c64>({c64(1, 1), c64(3, 2)}, {2}));
}

TEST(CpuScatterOpsTest, UniqueErrorsAndStrings) {
  EXPECT_ERROR_HAS(ErrorOf("Unique", {AsTensor<float>({1, 2, 3, 4}, {2, 2})}),
                   "unique expects a 1D vector");
  StatusOr<std::vector<Tensor>> out =
      OpRunner("UniqueWithCounts")
          .Run({AsTensor<std::string>({"b", "a", "b", "", "a"}, {5})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual((*out)[0],
                          AsTensor<std::string>({"b", "a", ""}, {3}));
  test::ExpectTensorEqual((*out)[1], AsTensor<int32_t>({0, 1, 0, 2, 1}, {5}));
  test::ExpectTensorEqual((*out)[2], AsTensor<int32_t>({2, 2, 1}, {3}));
}

TEST(CpuScatterOpsTest, ReverseSequenceErrors) {
  const Tensor x(DT_FLOAT, TensorShape({2, 3}));
  AttrMap attrs = {{"seq_dim", AttrValue::Int(1)}};
  EXPECT_ERROR_HAS(
      ErrorOf("ReverseSequence", {x, AsTensor<int64_t>({4, 1}, {2})}, attrs),
      "seq_lens(0) > input.dims(1)");
  EXPECT_ERROR_HAS(
      ErrorOf("ReverseSequence", {x, AsTensor<int64_t>({1, -1}, {2})}, attrs),
      "seq_lens(1) < 0");
  EXPECT_ERROR_HAS(
      ErrorOf("ReverseSequence", {x, AsTensor<int64_t>({1, 1, 1}, {3})}, attrs),
      "Length of seq_lengths != input.dims(0), (3 vs. 2)");
  EXPECT_ERROR_HAS(
      ErrorOf("ReverseSequence", {x, AsTensor<int64_t>({1, 1}, {2})},
              {{"seq_dim", AttrValue::Int(0)}}),
      "batch_dim == seq_dim == 0");
  EXPECT_ERROR_HAS(
      ErrorOf("ReverseSequence", {x, AsTensor<int64_t>({1, 1}, {2})},
              {{"seq_dim", AttrValue::Int(5)}}),
      "seq_dim must be < input rank: 5 vs. 2");
}

TEST(CpuScatterOpsTest, DynamicPartitionAndStitchErrors) {
  const Tensor data = AsTensor<float>({1, 2, 3}, {3});
  AttrMap attrs = {{"num_partitions", AttrValue::Int(2)}};
  EXPECT_ERROR_HAS(ErrorOf("DynamicPartition",
                           {data, AsTensor<int32_t>({0, 2, 1}, {3})}, attrs),
                   "partitions[1] = 2 is not in [0, 2)");
  EXPECT_ERROR_HAS(ErrorOf("DynamicPartition",
                           {data, AsTensor<int32_t>({0, 1}, {2})}, attrs),
                   "data.shape must start with partitions.shape");
  AttrMap n1 = {{"N", AttrValue::Int(1)}};
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    SCOPED_TRACE(op);
    EXPECT_ERROR_HAS(
        ErrorOf(op,
                {AsTensor<int32_t>({0, -1}, {2}), AsTensor<float>({1, 2}, {2})},
                n1),
        "indices[0][1] = -1 is out of range");
    EXPECT_ERROR_HAS(ErrorOf(op, {AsTensor<int32_t>({0, 1}, {2}), data}, n1),
                     "does not start with indices[0].shape");
  }
  EXPECT_ERROR_HAS(
      ErrorOf("DynamicStitch",
              {AsTensor<int32_t>({0}, {1}), AsTensor<int32_t>({1}, {1}),
               AsTensor<float>({1, 2}, {1, 2}), AsTensor<float>({1}, {1})},
              {{"N", AttrValue::Int(2)}}),
      "data[1].shape = [1] does not equal indices[1].shape + "
      "data[0].shape[1:]");
}

TEST(CpuScatterOpsTest, BincountErrors) {
  const Tensor none(DT_FLOAT, TensorShape({0}));
  EXPECT_ERROR_HAS(ErrorOf("Bincount", {AsTensor<int32_t>({1, -1}, {2}),
                                        AsScalar<int32_t>(3), none}),
                   "Input arr must be non-negative!");
  EXPECT_ERROR_HAS(ErrorOf("Bincount", {AsTensor<int32_t>({1, 1}, {2}),
                                        AsScalar<int32_t>(-1), none}),
                   "size (-1) must be non-negative");
  EXPECT_ERROR_HAS(
      ErrorOf("Bincount", {AsTensor<int32_t>({1, 1}, {2}), AsScalar<int32_t>(3),
                           AsTensor<float>({1, 2, 3}, {3})}),
      "Input indices and weights must have the same size.");
  EXPECT_ERROR_HAS(ErrorOf("DenseBincount", {AsTensor<int64_t>({1, -5}, {2}),
                                             AsScalar<int64_t>(3), none}),
                   "Input arr must be non-negative!");
  EXPECT_ERROR_HAS(
      ErrorOf("DenseBincount", {Tensor(DT_INT32, TensorShape({1, 1, 1})),
                                AsScalar<int32_t>(3), none}),
      "at most rank 2");
  EXPECT_ERROR_HAS(ErrorOf("DenseBincount", {AsTensor<int32_t>({1, 1}, {2}),
                                             AsScalar<int32_t>(3),
                                             AsTensor<float>({1, 2, 3}, {3})}),
                   "`weights` must be the same shape as `arr`");
  // An absurd size fails cleanly.
  EXPECT_FALSE(
      ErrorOf("DenseBincount",
              {AsTensor<int64_t>({1}, {1}),
               AsScalar<int64_t>(std::numeric_limits<int64_t>::max()), none})
          .empty());
}

TEST(CpuScatterOpsTest, SparseToDenseErrors) {
  const Tensor vals = AsTensor<float>({1, 2}, {2});
  const Tensor zero = AsScalar<float>(0);
  EXPECT_ERROR_HAS(
      ErrorOf("SparseToDense", {AsTensor<int32_t>({1, 0}, {2, 1}),
                                AsTensor<int32_t>({3}, {1}), vals, zero}),
      "indices[1] = [0] is out of order");
  EXPECT_ERROR_HAS(
      ErrorOf("SparseToDense", {AsTensor<int32_t>({1, 1}, {2, 1}),
                                AsTensor<int32_t>({3}, {1}), vals, zero}),
      "indices[1] = [1] is repeated");
  EXPECT_ERROR_HAS(
      ErrorOf("SparseToDense",
              {AsTensor<int32_t>({1, 5}, {2, 1}), AsTensor<int32_t>({3}, {1}),
               vals, zero},
              {{"validate_indices", AttrValue::Bool(false)}}),
      "sparse_indices (input 0)[1] = [5] does not index into output_shape "
      "[3]");
  EXPECT_ERROR_HAS(
      ErrorOf("SparseToDense", {AsTensor<int32_t>({1, 2}, {2, 1}),
                                AsTensor<int32_t>({3, 3}, {2}), vals, zero}),
      "output_shape has incorrect number of elements: 2 should be: 1");
  EXPECT_ERROR_HAS(
      ErrorOf("SparseToDense",
              {AsTensor<int32_t>({1, 2}, {2, 1}), AsTensor<int32_t>({3}, {1}),
               AsTensor<float>({1, 2, 3}, {3}), zero}),
      "sparse_values has incorrect shape [3], should be [] or [2]");
  EXPECT_ERROR_HAS(ErrorOf("SparseToDense", {AsTensor<int32_t>({1, 2}, {2, 1}),
                                             AsTensor<int32_t>({3}, {1}), vals,
                                             AsTensor<float>({0}, {1})}),
                   "default_value should be a scalar");
}

TEST(CpuScatterOpsTest, LegacyGatherAndConcatErrors) {
  EXPECT_ERROR_HAS(ErrorOf("Gather", {AsTensor<float>({1, 2}, {2}),
                                      AsTensor<int32_t>({3}, {1})}),
                   "indices (input 1)[0] = 3 is not in [0, 2)");
  const Tensor a = AsTensor<float>({1, 2}, {1, 2});
  const Tensor b = AsTensor<float>({1, 2, 3}, {1, 3});
  EXPECT_ERROR_HAS(ErrorOf("Concat", {AsScalar<int32_t>(0), a, b}),
                   "input 2 has shape [1,3] but must match input 1 [1,2]");
  EXPECT_ERROR_HAS(ErrorOf("Concat", {AsScalar<int32_t>(2), a, b}),
                   "concat_dim (input 0) is 2 but must be in [-2, 2)");
  StatusOr<std::vector<Tensor>> out =
      OpRunner("Concat").Run({AsScalar<int32_t>(-1), a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual((*out)[0], AsTensor<float>({1, 2, 1, 2, 3}, {1, 5}));
}

// Strings own heap memory, so the kernels that move elements by width
// must copy them as strings; the golden format cannot hold them.
TEST(CpuScatterOpsTest, StringsMoveThroughEveryByteKernel) {
  using S = std::string;
  const Tensor s = AsTensor<S>({"a", "bb", "ccc", "dddd", "e", "ff"}, {3, 2});
  StatusOr<std::vector<Tensor>> out =
      OpRunner("TensorScatterUpdate")
          .Run({s, AsTensor<int32_t>({2, 0}, {2, 1}),
                AsTensor<S>({"x", "y", "zz", "w"}, {2, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual(
      (*out)[0], AsTensor<S>({"zz", "w", "ccc", "dddd", "x", "y"}, {3, 2}));
  out = OpRunner("ReverseSequence", {{"seq_dim", AttrValue::Int(1)}})
            .Run({s, AsTensor<int64_t>({2, 0, 1}, {3})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual(
      (*out)[0], AsTensor<S>({"bb", "a", "ccc", "dddd", "e", "ff"}, {3, 2}));
  out = OpRunner("DynamicPartition", {{"num_partitions", AttrValue::Int(2)}})
            .Run({s, AsTensor<int32_t>({1, 0, 1}, {3})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual((*out)[0], AsTensor<S>({"ccc", "dddd"}, {1, 2}));
  test::ExpectTensorEqual((*out)[1],
                          AsTensor<S>({"a", "bb", "e", "ff"}, {2, 2}));
  out =
      OpRunner("DynamicStitch", {{"N", AttrValue::Int(1)}})
          .Run({AsTensor<int32_t>({2, 0}, {2}), AsTensor<S>({"p", "q"}, {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual((*out)[0], AsTensor<S>({"q", "", "p"}, {3}));
  out = OpRunner("SparseToDense")
            .Run({AsTensor<int64_t>({1, 3}, {2}), AsTensor<int64_t>({4}, {1}),
                  AsTensor<S>({"one", "three"}, {2}), AsScalar<S>("-")});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual((*out)[0],
                          AsTensor<S>({"-", "one", "-", "three"}, {4}));
  out = OpRunner("Gather").Run({s, AsTensor<int32_t>({2}, {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual((*out)[0], AsTensor<S>({"e", "ff"}, {1, 2}));
  out = OpRunner("Concat").Run({AsScalar<int32_t>(0), s, s});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].NumElements(), 12);
  EXPECT_EQ((*out)[0].data<S>()[11], "ff");
}

#undef EXPECT_ERROR_HAS

}  // namespace
}  // namespace cpu_scatter_ops_test
}  // namespace weft

// The macro is this file's own; unity builds compile other sources after it.
#undef EXPECT_ERROR_HAS
