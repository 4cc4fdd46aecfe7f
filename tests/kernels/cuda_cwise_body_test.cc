// Host checks of the element-wise CUDA kernels' math (kernels/cuda/
// cwise_body.h) for the ops added with it: each element computed by the
// same ApplyUnary / ApplyBinary the kernels call, with the constants
// MakeGpuUnaryParams makes for the OpKernel, rounded to T as the kernels
// store, and compared with the CPU kernel. Runs without a GPU and in builds
// without CUDA.
//
// Ops made of one correctly rounded step (or of steps the CPU rounds to T
// likewise) must match bit for bit; the others call the C library here and
// Eigen's polynomials on the CPU, and must agree within a few ulps (CUDA's
// libdevice, within 2 ulps of the exact value for these functions, is
// compared with the CPU on a GPU by the CUDA-vs-CPU table).
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "kernels/cuda/cwise_body.h"
#include "kernels/cuda/plan/cwise_plan.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft::test {
namespace cuda_cwise_body_test {

using gpu::BinaryOp;
using gpu::UnaryOp;

// Inputs: edge values first, then `random` uniform values in [lo, hi).
std::vector<double> Values(std::vector<double> edges, int random, double lo,
                           double hi, std::mt19937* rng) {
  std::uniform_real_distribution<double> u(lo, hi);
  for (int i = 0; i < random; ++i) edges.push_back(u(*rng));
  return edges;
}

const std::vector<double> kEdges = {0.0,
                                    -0.0,
                                    1.0,
                                    -1.0,
                                    0.5,
                                    -0.5,
                                    1.5,
                                    2.5,
                                    -2.5,
                                    3.5,
                                    -0.49999997,
                                    1e-3,
                                    -1e-3,
                                    20.0,
                                    -20.0,
                                    100.0,
                                    -100.0,
                                    std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity(),
                                    std::numeric_limits<double>::quiet_NaN()};

// Whether a and b are the same value (NaN matches NaN; -0 matches only -0).
bool Same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

struct UnaryCase {
  const char* name;
  UnaryOp op;
  // 0: bit for bit; else |got - cpu| <= ulps * u * max(|cpu|, floor).
  double ulps;
  AttrMap attrs;
  float alpha;
};

template <typename T>
void CheckUnary(DataType dtype) {
  const double u = UnitRoundoff(dtype);
  // Below this the ulps of a float result are subnormal: an absolute floor.
  const double tiny = dtype == DT_HALF ? 0x1p-24 : 0x1p-126;
  AttrMap leaky;
  leaky["alpha"] = AttrValue::Float(0.3f);
  AttrMap leaky_big;
  leaky_big["alpha"] = AttrValue::Float(1.7f);
  const UnaryCase cases[] = {
      {"Square", UnaryOp::kSquare, 0, {}, 0},
      {"Reciprocal", UnaryOp::kReciprocal, 0, {}, 0},
      {"Floor", UnaryOp::kFloor, 0, {}, 0},
      {"Ceil", UnaryOp::kCeil, 0, {}, 0},
      {"Round", UnaryOp::kRound, 0, {}, 0},
      {"LeakyRelu", UnaryOp::kLeakyRelu, 0, {}, 0.2f},
      {"LeakyRelu", UnaryOp::kLeakyRelu, 0, leaky, 0.3f},
      {"LeakyRelu", UnaryOp::kLeakyRelu, 0, leaky_big, 1.7f},
      {"Erf", UnaryOp::kErf, 8, {}, 0},
      {"Erfc", UnaryOp::kErfc, 8, {}, 0},
      {"Sin", UnaryOp::kSin, 8, {}, 0},
      {"Cos", UnaryOp::kCos, 8, {}, 0},
      {"Softplus", UnaryOp::kSoftplus, 8, {}, 0},
      {"Selu", UnaryOp::kSelu, 8, {}, 0},
  };
  // Selu's exp(x) - 1 (not expm1, as TensorFlow) cancels near 0: an ulp of
  // exp(x) ~ 1 is an absolute error of u, times the scale 1.76.
  std::mt19937 rng(99);
  int64_t compared = 0;
  for (const UnaryCase& c : cases) {
    SCOPED_TRACE(
        absl::StrCat(c.name, " ", DataTypeName(dtype), " alpha ", c.alpha));
    std::vector<double> v = Values(kEdges, 3000, -8, 8, &rng);
    // Around Softplus's thresholds and the halves Round must take to even.
    for (double x : {-13.942385, -13.95, 13.942385, 13.95, -7.0078125, -7.01,
                     7.0078125, 7.01, 4.5, -4.5, 5.5, 1e5, -1e5}) {
      v.push_back(x);
    }
    const Tensor in =
        AsTensorOfType(dtype, v, TensorShape({static_cast<int64_t>(v.size())}));
    OpRunner cpu(c.name, c.attrs);
    cpu.set_forwardable(false);
    StatusOr<std::vector<Tensor>> want = cpu.Run({in});
    ASSERT_TRUE(want.ok()) << want.status();
    const std::vector<double> w = ToDoubles((*want)[0]);
    const gpu::UnaryParams params = MakeGpuUnaryParams<T>(c.alpha);
    const T* x = in.data<T>();
    for (int64_t i = 0; i < in.NumElements(); ++i, ++compared) {
      const double got = static_cast<double>(static_cast<T>(
          gpu::ApplyUnary<T>(c.op, static_cast<float>(x[i]), params)));
      if (c.ulps == 0 || !std::isfinite(w[i])) {
        EXPECT_TRUE(Same(got, w[i]) || (c.ulps > 0 && got == w[i]))
            << "x = " << static_cast<float>(x[i]) << ": got " << got << ", CPU "
            << w[i];
      } else {
        const double floor = c.op == UnaryOp::kSelu ? 2.0 : tiny;
        EXPECT_LE(std::fabs(got - w[i]),
                  c.ulps * u * std::max(std::fabs(w[i]), floor))
            << "x = " << static_cast<float>(x[i]) << ": got " << got << ", CPU "
            << w[i];
      }
    }
  }
  EXPECT_EQ(compared, 14 * (20 + 3000 + 13));
}

TEST(CudaCwiseBodyTest, FloatUnaryMatchesCpuKernel) {
  CheckUnary<float>(DT_FLOAT);
}

TEST(CudaCwiseBodyTest, HalfUnaryMatchesCpuKernel) {
  CheckUnary<half>(DT_HALF);
}

template <typename T>
void CheckBinary(DataType dtype) {
  const double u = UnitRoundoff(dtype);
  const double tiny = dtype == DT_HALF ? 0x1p-24 : 0x1p-126;
  struct BinaryCase {
    const char* name;
    BinaryOp op;
    double ulps;
    bool positive_base;
  };
  const BinaryCase cases[] = {
      {"SquaredDifference", BinaryOp::kSquaredDifference, 0, false},
      {"FloorDiv", BinaryOp::kFloorDiv, 0, false},
      {"FloorMod", BinaryOp::kFloorMod, 0, false},
      {"Pow", BinaryOp::kPow, 8, true},
      {"Pow", BinaryOp::kPow, 8, false},
  };
  std::mt19937 rng(5);
  int64_t compared = 0;
  for (const BinaryCase& c : cases) {
    SCOPED_TRACE(absl::StrCat(c.name, " ", DataTypeName(dtype)));
    // Every edge against every edge, then random pairs.
    std::vector<double> xs, ys;
    for (double a : kEdges) {
      for (double b : kEdges) {
        xs.push_back(a);
        ys.push_back(b);
      }
    }
    std::uniform_real_distribution<double> ux(c.positive_base ? 0.01 : -10, 10);
    std::uniform_real_distribution<double> uy(-4, 4);
    std::uniform_int_distribution<int> ui(-6, 6);
    for (int i = 0; i < 3000; ++i) {
      xs.push_back(ux(rng));
      // Integer exponents for negative bases; quotients near integers.
      ys.push_back(c.positive_base ? uy(rng)
                                   : (i % 3 == 0 ? ui(rng) : uy(rng)));
    }
    const TensorShape shape({static_cast<int64_t>(xs.size())});
    const Tensor x = AsTensorOfType(dtype, xs, shape);
    const Tensor y = AsTensorOfType(dtype, ys, shape);
    OpRunner cpu(c.name);
    cpu.set_forwardable(false);
    StatusOr<std::vector<Tensor>> want = cpu.Run({x, y});
    ASSERT_TRUE(want.ok()) << want.status();
    const std::vector<double> w = ToDoubles((*want)[0]);
    for (int64_t i = 0; i < shape.num_elements(); ++i, ++compared) {
      const float a = static_cast<float>(x.data<T>()[i]);
      const float b = static_cast<float>(y.data<T>()[i]);
      const double got =
          static_cast<double>(static_cast<T>(gpu::ApplyBinary<T>(c.op, a, b)));
      if (c.ulps == 0 || !std::isfinite(w[i])) {
        // -0 and 0 may differ where the CPU's pow does (none here but the
        // sign of a zero result of FloorMod, which matches bit for bit).
        EXPECT_TRUE(Same(got, w[i]) || (c.ulps > 0 && got == w[i]))
            << a << ", " << b << ": got " << got << ", CPU " << w[i];
      } else {
        EXPECT_LE(std::fabs(got - w[i]),
                  c.ulps * u * std::max(std::fabs(w[i]), tiny))
            << a << ", " << b << ": got " << got << ", CPU " << w[i];
      }
    }
  }
  EXPECT_EQ(compared, 5 * (20 * 20 + 3000));
}

TEST(CudaCwiseBodyTest, FloatBinaryMatchesCpuKernel) {
  CheckBinary<float>(DT_FLOAT);
}

TEST(CudaCwiseBodyTest, HalfBinaryMatchesCpuKernel) {
  CheckBinary<half>(DT_HALF);
}

TEST(CudaCwiseBodyTest, ConstantsAreTheCpuKernels) {
  const gpu::UnaryParams f = MakeGpuUnaryParams<float>(0.2f);
  EXPECT_FLOAT_EQ(f.threshold, -13.942385f);
  EXPECT_EQ(f.alpha, 0.2f);
  const gpu::UnaryParams h = MakeGpuUnaryParams<half>(0.2f);
  EXPECT_EQ(h.threshold, -7.0078125f);
  EXPECT_EQ(h.alpha, static_cast<float>(static_cast<half>(0.2f)));
  EXPECT_EQ(h.scale, static_cast<float>(static_cast<half>(1.0507009873554805)));
}

}  // namespace cuda_cwise_body_test
}  // namespace weft::test
