// Reshape, Shape, Size, Rank, ExpandDims, Squeeze (metadata: buffer
// sharing, inline execution, run-time errors), and Fill, ZerosLike,
// OnesLike and Range on sizes that take the parallel path, checked against
// values computed here from the ops' definitions at 0 and 2 threads.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_array_shape_test {

using test::AsScalar;
using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::OpRunner;

Tensor I32(std::vector<int32_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return AsTensor<int32_t>(v, {n});
}

AttrMap Attr(const char* name, AttrValue v) {
  AttrMap m;
  m[name] = std::move(v);
  return m;
}

std::string RunError(const std::string& op, const std::vector<Tensor>& inputs,
                     const AttrMap& attrs = {}) {
  StatusOr<std::vector<Tensor>> out = OpRunner(op, attrs).Run(inputs);
  EXPECT_FALSE(out.ok()) << op << " should fail";
  if (out.ok()) return "";
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument)
      << out.status();
  const std::string message(out.status().message());
  EXPECT_TRUE(
      absl::StartsWith(message, "node 'kernel_test/" + op + "' (" + op + "): "))
      << message;
  return message;
}

Tensor Iota(DataType dt, const TensorShape& shape) {
  std::vector<double> v(shape.num_elements());
  for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>(k % 100);
  return AsTensorOfType(dt, v, shape);
}

// ---- Reshape, ExpandDims, Squeeze -------------------------------------------

// Runs `op` and checks the output is the input's buffer with `shape`, and
// that the kernel runs inline.
void ExpectShared(const std::string& op, const std::vector<Tensor>& inputs,
                  const TensorShape& shape, const AttrMap& attrs = {}) {
  SCOPED_TRACE(op + " to " + shape.DebugString());
  OpRunner runner(op, attrs);
  StatusOr<std::vector<Tensor>> out = runner.Run(inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), shape);
  EXPECT_TRUE((*out)[0].SharesBufferWith(inputs[0]));
  EXPECT_FALSE(runner.kernel()->IsExpensive());
}

TEST(ArrayReshapeTest, SharesTheBuffer) {
  const Tensor x = Iota(DT_FLOAT, {2, 3, 4});
  ExpectShared("Reshape", {x, I32({4, -1})}, {4, 6});
  ExpectShared("Reshape", {x, AsTensor<int64_t>({24}, {1})}, {24});
  // TensorFlow's legacy scalar shape: a one-element vector.
  ExpectShared("Reshape", {x, AsScalar<int32_t>(24)}, {24});
  ExpectShared("Reshape", {Iota(DT_FLOAT, {0, 3}), I32({0, -1})}, {0, 3});
  ExpectShared("Reshape", {Iota(DT_FLOAT, {1}), I32({})}, {});
  ExpectShared("ExpandDims", {x, AsScalar<int32_t>(-1)}, {2, 3, 4, 1});
  ExpectShared("ExpandDims", {x, AsScalar<int64_t>(0)}, {1, 2, 3, 4});
  ExpectShared("Squeeze", {Iota(DT_INT8, {1, 2, 1})}, {2});
  ExpectShared("Squeeze", {Iota(DT_INT8, {1, 2, 1})}, {1, 2},
               Attr("squeeze_dims", AttrValue::IntList({-1})));
}

TEST(ArrayReshapeTest, BadShapesAreErrors) {
  const Tensor x = Iota(DT_FLOAT, {2, 3});
  EXPECT_EQ(RunError("Reshape", {x, I32({4, 2})}),
            "node 'kernel_test/Reshape' (Reshape): cannot reshape input 0 "
            "[2,3] (6 elements) to [4,2] (8 elements)");
  EXPECT_TRUE(absl::StrContains(RunError("Reshape", {x, I32({4, -1})}),
                                "the known sizes multiply to 4, which does "
                                "not divide 6"));
  EXPECT_TRUE(absl::StrContains(RunError("Reshape", {x, I32({-1, -1})}),
                                "only one size may be -1, but 0 and 1 are"));
  EXPECT_TRUE(absl::StrContains(RunError("Reshape", {x, I32({-2, -3})}),
                                "size 0 is -2 but sizes must be >= 0"));
  EXPECT_TRUE(absl::StrContains(
      RunError("Reshape", {x, AsTensor<int32_t>({6, 1}, {1, 2})}),
      "shape (input 1) must be a vector but has shape [1,2]"));
  // A zero in the target leaves the -1 inferred from the other sizes, which
  // then cannot hold 6 elements.
  EXPECT_TRUE(absl::StrContains(RunError("Reshape", {x, I32({0, -1})}),
                                "to [0,6] (0 elements)"));
}

TEST(ArrayExpandDimsTest, BadDimsAreErrors) {
  const Tensor x = Iota(DT_FLOAT, {2, 3});
  EXPECT_TRUE(absl::StrContains(
      RunError("ExpandDims", {x, AsScalar<int32_t>(3)}),
      "dim (input 1) is 3 but must be in [-3, 2] for input 0 [2,3]"));
  EXPECT_TRUE(absl::StrContains(
      RunError("ExpandDims", {x, AsScalar<int32_t>(-4)}), "is -4"));
  EXPECT_TRUE(absl::StrContains(
      RunError("ExpandDims", {x, I32({0, 1})}),
      "dim (input 1) must hold exactly one value but has shape [2]"));
}

TEST(ArraySqueezeTest, BadDimsAreErrors) {
  const Tensor x = Iota(DT_FLOAT, {1, 3, 1});
  EXPECT_EQ(
      RunError("Squeeze", {x}, Attr("squeeze_dims", AttrValue::IntList({1}))),
      "node 'kernel_test/Squeeze' (Squeeze): cannot squeeze dimension "
      "1 of input 0 [1,3,1]: its size is 3, not 1");
  EXPECT_TRUE(absl::StrContains(
      RunError("Squeeze", {x}, Attr("squeeze_dims", AttrValue::IntList({3}))),
      "attr 'squeeze_dims' names dimension 3 but input 0 [1,3,1] has rank 3"));
}

// ---- Shape, Size, Rank ------------------------------------------------------

TEST(ArrayShapeOpsTest, MetadataOfAnyInput) {
  const Tensor x = Iota(DT_BFLOAT16, {4, 0, 2});
  for (const char* op : {"Shape", "Size", "Rank"}) {
    OpRunner runner(op);
    StatusOr<std::vector<Tensor>> out = runner.Run({x});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_FALSE(runner.kernel()->IsExpensive()) << op;
  }
  StatusOr<std::vector<Tensor>> shape =
      OpRunner("Shape", Attr("out_type", AttrValue::Type(DT_INT64))).Run({x});
  ASSERT_TRUE(shape.ok());
  ExpectTensorEqual((*shape)[0], AsTensor<int64_t>({4, 0, 2}, {3}));
  StatusOr<std::vector<Tensor>> size = OpRunner("Size").Run({x});
  ASSERT_TRUE(size.ok());
  ExpectTensorEqual((*size)[0], AsScalar<int32_t>(0));
  StatusOr<std::vector<Tensor>> rank = OpRunner("Rank").Run({x});
  ASSERT_TRUE(rank.ok());
  ExpectTensorEqual((*rank)[0], AsScalar<int32_t>(3));
}

TEST(ArrayShapeOpsTest, Int32OutputRefusesLargeDimensions) {
  // No elements, so it fits in memory, but a dimension beyond int32.
  const Tensor x(DT_FLOAT, {0, int64_t{3000000000}});
  EXPECT_TRUE(absl::StrContains(RunError("Shape", {x}),
                                "a dimension of input 0 is 3000000000 does not "
                                "fit the int32 output; use out_type int64"));
  StatusOr<std::vector<Tensor>> wide =
      OpRunner("Shape", Attr("out_type", AttrValue::Type(DT_INT64))).Run({x});
  ASSERT_TRUE(wide.ok()) << wide.status();
  ExpectTensorEqual((*wide)[0], AsTensor<int64_t>({0, 3000000000}, {2}));
}

// ---- Fill, ZerosLike, OnesLike ----------------------------------------------

TEST(ArrayFillTest, LargeFillsEveryElement) {
  for (int threads : {0, 2}) {
    for (DataType dt : {DT_HALF, DT_FLOAT, DT_INT64, DT_BOOL}) {
      SCOPED_TRACE(DataTypeName(dt) + " at " + std::to_string(threads));
      const Tensor value = AsTensorOfType(dt, {1}, {});
      StatusOr<std::vector<Tensor>> out =
          OpRunner("Fill", {}, threads)
              .Run({AsTensor<int64_t>({300, 400}, {2}), value});
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectTensorEqual(
          (*out)[0],
          AsTensorOfType(dt, std::vector<double>(120000, 1), {300, 400}));
      const Tensor x = Iota(dt, {300, 400});
      for (const char* op : {"ZerosLike", "OnesLike"}) {
        const double want = std::string(op) == "OnesLike" ? 1 : 0;
        StatusOr<std::vector<Tensor>> like = OpRunner(op, {}, threads).Run({x});
        ASSERT_TRUE(like.ok()) << like.status();
        ExpectTensorEqual(
            (*like)[0],
            AsTensorOfType(dt, std::vector<double>(120000, want), {300, 400}));
      }
    }
  }
}

TEST(ArrayFillTest, StringsAndErrors) {
  Tensor s(DT_STRING, {});
  s.data<std::string>()[0] = "weft";
  StatusOr<std::vector<Tensor>> out = OpRunner("Fill").Run({I32({2, 2}), s});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ((*out)[0].data<std::string>()[k], "weft");
  StatusOr<std::vector<Tensor>> zeros = OpRunner("ZerosLike").Run({(*out)[0]});
  ASSERT_TRUE(zeros.ok()) << zeros.status();
  for (int k = 0; k < 4; ++k) EXPECT_EQ((*zeros)[0].data<std::string>()[k], "");

  EXPECT_TRUE(absl::StrContains(
      RunError("Fill", {I32({2, -1}), AsScalar<float>(0)}),
      "dims (input 0) are [2,-1], which is not a valid shape"));
  EXPECT_TRUE(absl::StrContains(
      RunError("Fill", {I32({2}), AsTensor<float>({0, 1}, {2})}),
      "value (input 1) must be a scalar but has shape [2]"));
  EXPECT_TRUE(absl::StrContains(
      RunError("Fill", {AsScalar<int32_t>(2), AsScalar<float>(0)}),
      "dims (input 0) must be a vector but has shape []"));
}

TEST(ArrayFillTest, LikeOpsTakeOverAForwardableInput) {
  Tensor x = Iota(DT_FLOAT, {3, 4});
  const void* buffer = x.raw_data();
  OpRunner runner("OnesLike");
  StatusOr<std::vector<Tensor>> out = runner.Run(test::Inputs(std::move(x)));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].raw_data(), buffer);
  ExpectTensorEqual(
      (*out)[0], AsTensorOfType(DT_FLOAT, std::vector<double>(12, 1), {3, 4}));
}

// ---- Range ------------------------------------------------------------------

TEST(ArrayRangeTest, LargeMatchesDefinition) {
  const int64_t n = 200000;
  std::vector<float> fwant(n);
  std::vector<int64_t> iwant(n);
  for (int64_t i = 0; i < n; ++i) {
    fwant[i] = 0.5f + static_cast<float>(i) * 0.25f;
    iwant[i] = -7 + i * 3;
  }
  for (int threads : {0, 2}) {
    StatusOr<std::vector<Tensor>> f =
        OpRunner("Range", {}, threads)
            .Run({AsScalar<float>(0.5f), AsScalar<float>(0.5f + n * 0.25f),
                  AsScalar<float>(0.25f)});
    ASSERT_TRUE(f.ok()) << f.status();
    ExpectTensorEqual((*f)[0], AsTensor<float>(fwant, {n}));
    StatusOr<std::vector<Tensor>> i =
        OpRunner("Range", {}, threads)
            .Run({AsScalar<int64_t>(-7), AsScalar<int64_t>(-7 + 3 * n - 2),
                  AsScalar<int64_t>(3)});
    ASSERT_TRUE(i.ok()) << i.status();
    ExpectTensorEqual((*i)[0], AsTensor<int64_t>(iwant, {n}));
  }
}

TEST(ArrayRangeTest, Errors) {
  EXPECT_EQ(RunError("Range", {AsScalar<int32_t>(0), AsScalar<int32_t>(5),
                               AsScalar<int32_t>(0)}),
            "node 'kernel_test/Range' (Range): delta (input 2) must not be 0");
  EXPECT_TRUE(absl::StrContains(
      RunError("Range", {AsScalar<int32_t>(10), AsScalar<int32_t>(5),
                         AsScalar<int32_t>(1)}),
      "start 10 > limit 5 but delta 1 is positive"));
  EXPECT_TRUE(absl::StrContains(
      RunError("Range", {AsScalar<double>(1), AsScalar<double>(5),
                         AsScalar<double>(-0.5)}),
      "start 1 < limit 5 but delta -0.5 is negative"));
  EXPECT_TRUE(absl::StrContains(
      RunError("Range", {AsScalar<float>(0), AsScalar<float>(INFINITY),
                         AsScalar<float>(1)}),
      "does not have a finite int64 length"));
  EXPECT_TRUE(absl::StrContains(
      RunError("Range", {AsTensor<int32_t>({0, 1}, {2}), AsScalar<int32_t>(5),
                         AsScalar<int32_t>(1)}),
      "start (input 0) must be a scalar but has shape [2]"));
  EXPECT_TRUE(absl::StrContains(
      RunError("Range", {AsScalar<int64_t>(std::numeric_limits<int64_t>::min()),
                         AsScalar<int64_t>(std::numeric_limits<int64_t>::max()),
                         AsScalar<int64_t>(1)}),
      "has more than 2^63 elements"));
  // A length-1 vector is TensorFlow's legacy scalar.
  StatusOr<std::vector<Tensor>> legacy =
      OpRunner("Range").Run({AsTensor<int32_t>({1}, {1}), AsScalar<int32_t>(4),
                             AsScalar<int32_t>(1)});
  ASSERT_TRUE(legacy.ok()) << legacy.status();
  ExpectTensorEqual((*legacy)[0], I32({1, 2, 3}));
}

}  // namespace cpu_array_shape_test
}  // namespace weft
