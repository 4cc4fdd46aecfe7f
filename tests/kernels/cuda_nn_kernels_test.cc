// What the CUDA NN kernels do beyond matching the CPU on valid inputs (the
// table in cuda_nn_cases.cc covers that): the errors they report, and batch
// norm training's statistics being the same from run to run. Needs a GPU;
// without one every test skips with discovery's reason.
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/kernels/cuda_kernel_cases.h"
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

// A kernel's message without the "node '...' (Op): " its context adds.
std::string KernelMessage(const Status& s) {
  std::string m(s.message());
  const size_t colon = m.find("): ");
  if (absl::StartsWith(m, "node '") && colon != std::string::npos) {
    return m.substr(colon + 3);
  }
  return m;
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
  EXPECT_EQ(KernelMessage(got.status()), KernelMessage(want.status()));
}

TEST(CudaNnKernelTest, BatchNormTrainingIsDeterministic) {
  // The statistics are combined in a fixed tree, not with atomics: two runs
  // agree bit for bit.
  if (std::string why = CudaTestSkipReason(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  std::mt19937 rng(7);
  const TensorShape c({16});
  const std::vector<Tensor> inputs = {
      test::RandomTensor(DT_FLOAT, TensorShape({8, 64, 64, 16}),
                         test::Values::kWide, &rng),
      test::RandomTensor(DT_FLOAT, c, test::Values::kSigned, &rng),
      test::RandomTensor(DT_FLOAT, c, test::Values::kSigned, &rng),
      test::RandomTensor(DT_FLOAT, c, test::Values::kSigned, &rng),
      test::RandomTensor(DT_FLOAT, c, test::Values::kPositive, &rng)};
  AttrMap attrs;
  attrs["is_training"] = AttrValue::Bool(true);
  attrs["exponential_avg_factor"] = AttrValue::Float(0.5f);
  CudaOpRunner gpu("FusedBatchNormV3", attrs);
  StatusOr<std::vector<Tensor>> first = gpu.Run(inputs);
  ASSERT_TRUE(first.ok()) << first.status();
  StatusOr<std::vector<Tensor>> second = gpu.Run(inputs);
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_EQ(first->size(), second->size());
  for (size_t i = 0; i < first->size(); ++i) {
    test::ExpectTensorEqual((*first)[i], (*second)[i]);
  }
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
