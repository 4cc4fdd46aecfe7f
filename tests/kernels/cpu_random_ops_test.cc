// The random kernels beyond TensorFlow's goldens: errors for bad shapes,
// seeds, keys, counters, algorithms and bounds; the unseeded stateful ops
// (seed = seed2 = 0), whose numbers differ per kernel and so are checked by
// their distribution, with bounds of 6 standard errors or more (a false
// failure is rarer than 1 in 10^8); and concurrent runs of one stateful
// kernel, which must hand each run its own part of the stream.
#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "device/cpu_device.h"
#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "ops/op_registry.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
// Named so that its helpers stay distinct from other test files' in a
// unity build.
namespace random_ops_test {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::OpRunner;

AttrMap DtypeAttr(DataType dt) {
  AttrMap attrs;
  attrs["dtype"] = AttrValue::Type(dt);
  return attrs;
}

void ExpectError(const std::string& op, const AttrMap& attrs,
                 std::vector<Tensor> inputs, const std::string& message) {
  StatusOr<std::vector<Tensor>> out = OpRunner(op, attrs).Run(inputs);
  ASSERT_FALSE(out.ok()) << op << " accepted bad inputs";
  EXPECT_NE(out.status().message().find(message), std::string::npos)
      << out.status();
}

Tensor Key() { return AsTensor<uint64_t>({12345}, TensorShape({1})); }
Tensor Counter() { return AsTensor<uint64_t>({0, 99}, TensorShape({2})); }
Tensor Shape(std::vector<int32_t> dims) {
  const int64_t n = static_cast<int64_t>(dims.size());
  return AsTensor<int32_t>(dims, TensorShape({n}));
}

TEST(CpuRandomOpsTest, StatelessErrors) {
  const AttrMap f = DtypeAttr(DT_FLOAT);
  ExpectError("StatelessRandomUniform", f,
              {Shape({2}), AsTensor<int64_t>({1, 2, 3}, TensorShape({3}))},
              "seed (input 1) must have shape [2]");
  ExpectError("StatelessRandomNormal", f,
              {Shape({2, -1}), AsTensor<int64_t>({1, 2}, TensorShape({2}))},
              "shape (input 0)");
  ExpectError(
      "StatelessRandomUniform", f,
      {AsScalar<int32_t>(3), AsTensor<int64_t>({1, 2}, TensorShape({2}))},
      "shape (input 0) must be a vector");
  ExpectError("StatelessRandomUniformV2", f,
              {Shape({2}), Key(), Counter(), AsScalar<int32_t>(2)},
              "Unsupported algorithm id: 2");
  ExpectError("StatelessRandomUniformV2", f,
              {Shape({2}), Key(), Counter(), AsScalar<int32_t>(-7)},
              "Unsupported algorithm id: -7");
  ExpectError("StatelessRandomNormalV2", f,
              {Shape({2}), AsTensor<uint64_t>({1, 2}, TensorShape({2})),
               Counter(), AsScalar<int32_t>(1)},
              "key (input 1) must have shape [1]");
  ExpectError("StatelessTruncatedNormalV2", f,
              {Shape({2}), Key(), AsTensor<uint64_t>({1}, TensorShape({1})),
               AsScalar<int32_t>(1)},
              "counter (input 2) must be a vector with length at least 2");
  ExpectError(
      "StatelessRandomUniformV2", f,
      {Shape({2}), Key(), Counter(), AsTensor<int32_t>({1}, TensorShape({1}))},
      "alg (input 3) must have shape []");
  ExpectError("StatelessRandomUniformIntV2", {},
              {Shape({2}), Key(), Counter(), AsScalar<int32_t>(1),
               AsScalar<int64_t>(5), AsScalar<int64_t>(5)},
              "Need minval < maxval, got 5 >= 5");
  ExpectError("StatelessRandomUniformIntV2", {},
              {Shape({2}), Key(), Counter(), AsScalar<int32_t>(1),
               AsTensor<int32_t>({0}, TensorShape({1})), AsScalar<int32_t>(5)},
              "minval (input 4) must be a scalar");
  ExpectError("StatelessRandomUniformInt", {},
              {Shape({2}), AsTensor<int32_t>({1, 2}, TensorShape({2})),
               AsScalar<int32_t>(9), AsScalar<int32_t>(-9)},
              "Need minval < maxval, got 9 >= -9");
  ExpectError("StatelessRandomGetKeyCounter", {},
              {AsTensor<int64_t>({1, 2, 3, 4}, TensorShape({2, 2}))},
              "seed (input 0) must have shape [2]");
}

// An absurd shape is refused before anything is allocated.
TEST(CpuRandomOpsTest, AbsurdShape) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner("StatelessRandomUniformV2", DtypeAttr(DT_FLOAT))
          .Run({AsTensor<int64_t>({int64_t{1} << 40, int64_t{1} << 40},
                                  TensorShape({2})),
                Key(), Counter(), AsScalar<int32_t>(1)});
  EXPECT_FALSE(out.ok());
}

TEST(CpuRandomOpsTest, StatefulErrors) {
  AttrMap attrs;
  attrs["seed"] = AttrValue::Int(1);
  ExpectError("RandomUniformInt", attrs,
              {Shape({2}), AsScalar<int32_t>(3), AsScalar<int32_t>(2)},
              "Need minval < maxval");
  ExpectError("RandomUniformInt", attrs,
              {Shape({2}), AsScalar<int32_t>(3),
               AsTensor<int32_t>({4}, TensorShape({1}))},
              "maxval (input 2) must be a scalar");
  attrs["dtype"] = AttrValue::Type(DT_FLOAT);
  ExpectError("RandomUniform", attrs,
              {AsTensor<int32_t>({2, 2}, TensorShape({1, 2}))},
              "shape (input 0) must be a vector");
  AttrMap m;
  m["seed"] = AttrValue::Int(1);
  ExpectError("Multinomial", m,
              {AsTensor<float>({1, 2}, TensorShape({2})), AsScalar<int32_t>(2)},
              "logits (input 0) should be a matrix");
  ExpectError(
      "Multinomial", m,
      {AsTensor<float>({1, 2}, TensorShape({1, 2})), AsScalar<int32_t>(-1)},
      "num_samples (input 1) should be non-negative");
  ExpectError("Multinomial", m,
              {AsTensor<float>({}, TensorShape({2, 0})), AsScalar<int32_t>(2)},
              "num_classes should be positive");
}

// Unseeded: 10^5 uniforms have mean 1/2 within 6 standard errors
// (sqrt(1/12 / 10^5) each) and lie in [0, 1); two kernels differ.
TEST(CpuRandomOpsTest, UnseededUniformDistribution) {
  const int n = 100000;
  StatusOr<std::vector<Tensor>> a =
      OpRunner("RandomUniform", DtypeAttr(DT_FLOAT)).Run({Shape({n})});
  StatusOr<std::vector<Tensor>> b =
      OpRunner("RandomUniform", DtypeAttr(DT_FLOAT)).Run({Shape({n})});
  ASSERT_TRUE(a.ok() && b.ok());
  const float* x = (*a)[0].data<float>();
  const float* y = (*b)[0].data<float>();
  double sum = 0;
  int same = 0;
  for (int i = 0; i < n; ++i) {
    ASSERT_GE(x[i], 0.0f);
    ASSERT_LT(x[i], 1.0f);
    sum += x[i];
    same += x[i] == y[i];
  }
  EXPECT_NEAR(sum / n, 0.5, 6 * std::sqrt(1.0 / 12 / n));
  EXPECT_LT(same, 100) << "two unseeded kernels drew the same numbers";
}

// 10^5 normals: mean 0 within 6 / sqrt(n), variance 1 within 6 sqrt(2 / n).
TEST(CpuRandomOpsTest, UnseededNormalDistribution) {
  const int n = 100000;
  StatusOr<std::vector<Tensor>> a =
      OpRunner("RandomStandardNormal", DtypeAttr(DT_DOUBLE)).Run({Shape({n})});
  ASSERT_TRUE(a.ok()) << a.status();
  const double* x = (*a)[0].data<double>();
  double sum = 0;
  double sq = 0;
  for (int i = 0; i < n; ++i) {
    sum += x[i];
    sq += x[i] * x[i];
  }
  const double mean = sum / n;
  EXPECT_NEAR(mean, 0.0, 6 / std::sqrt(double{n}));
  EXPECT_NEAR(sq / n - mean * mean, 1.0, 6 * std::sqrt(2.0 / n));
}

// 6 * 10^4 integers in [-3, 3): each value's count is n/6 within 6
// standard errors (sqrt(n p (1 - p))); nothing outside.
TEST(CpuRandomOpsTest, UnseededUniformIntDistribution) {
  const int n = 60000;
  StatusOr<std::vector<Tensor>> a =
      OpRunner("RandomUniformInt")
          .Run({Shape({n}), AsScalar<int64_t>(-3), AsScalar<int64_t>(3)});
  ASSERT_TRUE(a.ok()) << a.status();
  std::vector<int> counts(6);
  for (int i = 0; i < n; ++i) {
    const int64_t v = (*a)[0].data<int64_t>()[i];
    ASSERT_TRUE(v >= -3 && v < 3) << v;
    ++counts[v + 3];
  }
  const double sd = std::sqrt(n * (1.0 / 6) * (5.0 / 6));
  for (int c : counts) EXPECT_NEAR(c, n / 6.0, 6 * sd);
}

// Multinomial with logits log(1), log(3): class 1 three times as likely.
TEST(CpuRandomOpsTest, UnseededMultinomialDistribution) {
  const int n = 40000;
  StatusOr<std::vector<Tensor>> a =
      OpRunner("Multinomial")
          .Run({AsTensor<float>({0.0f, std::log(3.0f)}, TensorShape({1, 2})),
                AsScalar<int32_t>(n)});
  ASSERT_TRUE(a.ok()) << a.status();
  int ones = 0;
  for (int i = 0; i < n; ++i) ones += (*a)[0].data<int64_t>()[i] == 1;
  EXPECT_NEAR(ones, 0.75 * n, 6 * std::sqrt(n * 0.75 * 0.25));
}

// One seeded kernel run from 4 threads at once, 8 runs each: the 32
// outputs are exactly those of 32 runs of a fresh kernel one after another
// (in some order), so no two runs shared a part of the stream.
TEST(CpuRandomOpsTest, ConcurrentRunsTakeDisjointParts) {
  AttrMap attrs = DtypeAttr(DT_FLOAT);
  attrs["seed"] = AttrValue::Int(42);
  attrs["seed2"] = AttrValue::Int(7);
  NodeDef node;
  NodeTypes types;
  ASSERT_TRUE(
      test::MakeTestNode("RandomUniform", attrs, {DT_INT32}, &node, &types)
          .ok());
  const OpDef& op_def =
      (*OpRegistry::Global()->LookUp("RandomUniform"))->op_def;
  CpuDevice device("cpu:0", nullptr);
  const Tensor shape = Shape({257});
  auto make_kernel = [&] {
    StatusOr<std::unique_ptr<OpKernel>> k =
        KernelRegistry::Global()->CreateKernel(node, op_def, types, &device);
    EXPECT_TRUE(k.ok()) << k.status();
    return std::move(k).value();
  };
  auto run = [&](const OpKernel& kernel) {
    const Tensor* in[] = {&shape};
    std::vector<Tensor> outputs(1);
    OpKernelContext::Params params;
    params.device = &device;
    params.kernel = &kernel;
    params.inputs = in;
    params.outputs = absl::MakeSpan(outputs);
    OpKernelContext ctx(&params);
    kernel.Compute(&ctx);
    EXPECT_TRUE(ctx.status().ok()) << ctx.status();
    const float* p = outputs[0].data<float>();
    return std::vector<float>(p, p + 257);
  };
  std::unique_ptr<OpKernel> shared = make_kernel();
  std::vector<std::vector<float>> concurrent(32);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 8; ++r) concurrent[t * 8 + r] = run(*shared);
    });
  }
  for (std::thread& t : threads) t.join();
  std::unique_ptr<OpKernel> fresh = make_kernel();
  std::set<std::vector<float>> sequential;
  for (int r = 0; r < 32; ++r) sequential.insert(run(*fresh));
  EXPECT_EQ(std::set<std::vector<float>>(concurrent.begin(), concurrent.end()),
            sequential);
  EXPECT_EQ(sequential.size(), 32u);
}

}  // namespace
}  // namespace random_ops_test
}  // namespace weft
