// What the CUDA NN kernels do beyond matching the CPU on valid inputs (the
// table in cuda_nn_cases.cc covers that): the errors they report. Needs a
// GPU; without one every test skips with discovery's reason.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/kernels/cuda_kernel_testutil.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace {

using test::AsTensorOfType;
using test::CudaOpRunner;
using test::CudaTestSkipReason;
using test::OpRunner;

Tensor Zeros(DataType dtype, const TensorShape& shape) {
  return AsTensorOfType(dtype, std::vector<double>(shape.num_elements(), 0.0),
                        shape);
}

// The CUDA kernel fails as the CPU kernel does, with the same message.
void ExpectSameErrorAsCpu(const std::string& op, const AttrMap& attrs,
                          const std::vector<Tensor>& inputs) {
  OpRunner cpu(op, attrs);
  StatusOr<std::vector<Tensor>> want = cpu.Run(inputs);
  ASSERT_FALSE(want.ok());
  CudaOpRunner gpu(op, attrs);
  StatusOr<std::vector<Tensor>> got = gpu.Run(inputs);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), want.status().code()) << got.status();
  EXPECT_EQ(got.status().message(), want.status().message());
}

TEST(CudaNnKernelTest, BatchNormTrainingIsRefusedNamingTheNode) {
  if (std::string why = CudaTestSkipReason(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  const TensorShape c({3});
  AttrMap attrs;
  attrs["is_training"] = AttrValue::Bool(true);
  CudaOpRunner gpu("FusedBatchNormV3", attrs);
  StatusOr<std::vector<Tensor>> got =
      gpu.Run({Zeros(DT_FLOAT, TensorShape({1, 2, 2, 3})), Zeros(DT_FLOAT, c),
               Zeros(DT_FLOAT, c), Zeros(DT_FLOAT, c), Zeros(DT_FLOAT, c)});
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kUnimplemented)
      << got.status();
  EXPECT_TRUE(absl::StrContains(got.status().message(), "is_training=true"))
      << got.status();
}

TEST(CudaNnKernelTest, ShapeErrorsAreTheCpuKernels) {
  if (std::string why = CudaTestSkipReason(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  AttrMap conv;
  conv["strides"] = AttrValue::IntList({1, 1, 1, 1});
  conv["padding"] = AttrValue::String("SAME");
  // Filter depth 2 does not divide the input depth 5.
  ExpectSameErrorAsCpu("Conv2D", conv,
                       {Zeros(DT_FLOAT, TensorShape({1, 4, 4, 5})),
                        Zeros(DT_FLOAT, TensorShape({2, 2, 2, 3}))});
  // The filter's depth is not the input's.
  ExpectSameErrorAsCpu("DepthwiseConv2dNative", conv,
                       {Zeros(DT_HALF, TensorShape({1, 4, 4, 3})),
                        Zeros(DT_HALF, TensorShape({2, 2, 4, 2}))});
  AttrMap pool;
  pool["ksize"] = AttrValue::IntList({1, 3, 3, 1});
  pool["strides"] = AttrValue::IntList({1, 1, 1, 1});
  pool["padding"] = AttrValue::String("VALID");
  ExpectSameErrorAsCpu("MaxPool", pool,
                       {Zeros(DT_FLOAT, TensorShape({1, 4, 4}))});
  AttrMap bn;
  bn["is_training"] = AttrValue::Bool(false);
  const TensorShape c({4});
  ExpectSameErrorAsCpu(
      "FusedBatchNormV3", bn,
      {Zeros(DT_FLOAT, TensorShape({1, 2, 2, 3})), Zeros(DT_FLOAT, c),
       Zeros(DT_FLOAT, c), Zeros(DT_FLOAT, c), Zeros(DT_FLOAT, c)});
  ExpectSameErrorAsCpu("BatchMatMulV2", {},
                       {Zeros(DT_FLOAT, TensorShape({2, 3, 4})),
                        Zeros(DT_FLOAT, TensorShape({3, 4, 5}))});
}

}  // namespace
}  // namespace weft
