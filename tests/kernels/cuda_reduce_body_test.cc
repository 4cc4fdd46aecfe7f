// Host checks of the CUDA reductions and Softmax / LogSoftmax: the passes
// that reduce_ops.cc and softmax_op.cc plan (PlanGpuReduction, PlanSoftmax)
// are run here through the kernel bodies of reduce_body.h and
// softmax_body.h, with the GPU's cross-thread combines reproduced in their
// exact order (lane partials at stride 32 or 256, then the shuffle-down
// tree of TreeCombine; for a block, the 8 warp results padded to 32 lanes
// with the identity and combined by the same tree). The results are
// compared with the CPU kernels and with an exact (double) reference. Runs
// without a GPU and in builds without CUDA.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "kernels/common/reduction_shape.h"
#include "kernels/cuda/plan/reduce_plan.h"
#include "kernels/cuda/reduce_body.h"
#include "kernels/cuda/softmax_body.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft::test {
namespace cuda_reduce_body_test {

using gpu::ReduceOp;
using gpu::ReduceParams;
using gpu::ReduceStrategy;

constexpr double kFloatU = 1.0 / (1 << 24);

// What the GPU computes for output `out` of pass `p`, in its order.
template <typename In>
float EmulateOutput(const ReduceParams& p, const In* x, int64_t out) {
  switch (p.strategy) {
    case ReduceStrategy::kColumns:
      return gpu::ReducePartial(p, x, out, 0, 1);
    case ReduceStrategy::kWarpRows: {
      float v[gpu::kReduceWarp];
      for (int l = 0; l < gpu::kReduceWarp; ++l) {
        v[l] = gpu::ReducePartial(p, x, out, l, gpu::kReduceWarp);
      }
      gpu::TreeCombine(p.op, v, gpu::kReduceWarp);
      return v[0];
    }
    case ReduceStrategy::kBlockRows: {
      float v[gpu::kReduceBlockThreads];
      for (int t = 0; t < gpu::kReduceBlockThreads; ++t) {
        v[t] = gpu::ReducePartial(p, x, out, t, gpu::kReduceBlockThreads);
      }
      float warps[gpu::kReduceWarp];
      for (int l = 0; l < gpu::kReduceWarp; ++l) {
        warps[l] = gpu::ReduceIdentity(p.op);
      }
      for (int w = 0; w < gpu::kReduceBlockThreads / gpu::kReduceWarp; ++w) {
        gpu::TreeCombine(p.op, v + w * gpu::kReduceWarp, gpu::kReduceWarp);
        warps[w] = v[w * gpu::kReduceWarp];
      }
      gpu::TreeCombine(p.op, warps, gpu::kReduceWarp);
      return warps[0];
    }
  }
  return 0;
}

// The most roundings on any path from an input to an output of the passes:
// each thread's sequential combines plus the tree levels (5 per warp tree).
int64_t PassDepth(const ReduceParams& p) {
  switch (p.strategy) {
    case ReduceStrategy::kColumns:
      return p.segment_len;
    case ReduceStrategy::kWarpRows:
      return (p.segment_len + 31) / 32 + 5;
    case ReduceStrategy::kBlockRows:
      return (p.segment_len + 255) / 256 + 10;
  }
  return 0;
}

struct Emulated {
  Tensor out;
  int64_t depth = 0;
  std::vector<ReduceStrategy> strategies;
  bool segmented = false;
};

// Runs the CUDA kernel's plan on the host: the same planner calls as
// CudaReductionOp::Compute, each pass through EmulateOutput.
template <typename T>
StatusOr<Emulated> EmulateReduction(const Tensor& in,
                                    const std::vector<int64_t>& axes,
                                    bool keep_dims, ReduceOp op) {
  ReductionPlan plan;
  WEFT_RETURN_IF_ERROR(PlanReduction(in.shape(), axes, keep_dims, &plan));
  Emulated e;
  if (plan.IsCopy()) {
    WEFT_ASSIGN_OR_RETURN(e.out, in.Reshaped(plan.output_shape));
    return e;
  }
  e.out = Tensor(in.dtype(), plan.output_shape);
  const auto passes =
      PlanGpuReduction(plan, in.NumElements(), e.out.NumElements(), op);
  std::vector<float> src;
  bool from_input = true;
  for (const GpuReducePass& pass : passes) {
    const ReduceParams& p = pass.params;
    e.depth += PassDepth(p);
    e.strategies.push_back(p.strategy);
    e.segmented = e.segmented || p.segments > 1;
    std::vector<float> dst(p.num_outputs());
    for (int64_t i = 0; i < p.num_outputs(); ++i) {
      const float v = from_input ? EmulateOutput(p, in.data<T>(), i)
                                 : EmulateOutput(p, src.data(), i);
      dst[i] = gpu::ReduceFinish(p, v);
    }
    if (p.finish) {
      EXPECT_EQ(p.num_outputs(), e.out.NumElements());
      for (int64_t i = 0; i < p.num_outputs(); ++i) {
        e.out.data<T>()[i] = static_cast<T>(dst[i]);
      }
    }
    src = std::move(dst);
    from_input = false;
  }
  return e;
}

// The exact result of each output (in double from the input's values) and
// the sum of magnitudes it bounds rounding errors by.
struct Reference {
  std::vector<double> value;
  std::vector<double> magnitude;
  std::vector<int64_t> count;
};

Reference ExactReduction(const Tensor& in, const std::vector<int64_t>& axes,
                         ReduceOp op) {
  const int rank = in.dims();
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) reduced[a < 0 ? a + rank : a] = true;
  int64_t outputs = 1;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[d]) outputs *= in.dim_size(d);
  }
  Reference r;
  const double identity = op == ReduceOp::kProd  ? 1.0
                          : op == ReduceOp::kMax ? -INFINITY
                          : op == ReduceOp::kMin ? INFINITY
                                                 : 0.0;
  r.value.assign(outputs, identity);
  r.magnitude.assign(outputs, op == ReduceOp::kProd ? 1.0 : 0.0);
  r.count.assign(outputs, 0);
  const std::vector<double> x = ToDoubles(in);
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    int64_t o = 0;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) o = o * in.dim_size(d) + index[d];
    }
    double& v = r.value[o];
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kMean:
        v += x[i];
        r.magnitude[o] += std::fabs(x[i]);
        break;
      case ReduceOp::kProd:
        v *= x[i];
        r.magnitude[o] *= std::fabs(x[i]);
        break;
      case ReduceOp::kMax:
        v = std::isnan(v) || std::isnan(x[i]) ? NAN : std::max(v, x[i]);
        break;
      case ReduceOp::kMin:
        v = std::isnan(v) || std::isnan(x[i]) ? NAN : std::min(v, x[i]);
        break;
    }
    ++r.count[o];
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < in.dim_size(d)) break;
      index[d] = 0;
    }
  }
  if (op == ReduceOp::kMean) {
    for (int64_t o = 0; o < outputs; ++o) {
      r.value[o] /= static_cast<double>(r.count[o]);
      r.magnitude[o] /= static_cast<double>(r.count[o]);
    }
  }
  return r;
}

const char* OpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "Sum";
    case ReduceOp::kMean:
      return "Mean";
    case ReduceOp::kProd:
      return "Prod";
    case ReduceOp::kMax:
      return "Max";
    case ReduceOp::kMin:
      return "Min";
  }
  return "";
}

bool SameFloat(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

struct ReduceCase {
  std::vector<int64_t> shape;
  std::vector<int64_t> axes;
  bool keep_dims = false;
  // Put a NaN at this element (and +inf at the next) when >= 0.
  int64_t nan_at = -1;
};

std::vector<ReduceCase> ReduceCaseList() {
  return {
      {{}, {}},
      {{7}, {0}},
      {{7}, {-1}, true},
      {{0}, {0}},
      {{3, 0}, {1}},
      {{0, 3}, {1}},
      {{3, 0}, {0, 1}, true},
      {{3, 5}, {1}},
      {{3, 5}, {0}},
      {{3, 5}, {-2}, true},
      {{3, 5}, {0, 1}},
      {{3, 5}, {}},
      {{4, 1, 6}, {1}},
      {{4, 1, 6}, {0, 1}},
      {{1, 1, 6}, {0, -1}},
      {{2, 3, 4, 5}, {1, 3}},
      {{2, 3, 4, 5}, {0, 2}, true},
      {{2, 3, 4, 5}, {-4, -3, -2, -1}},
      {{2, 3, 4, 5}, {1, 2}},
      {{8, 16}, {1}},
      {{8, 17}, {1}},
      {{3, 100}, {1}},
      {{2, 2048}, {-1}},
      {{2, 2049}, {1}},
      {{2, 5000}, {1}},
      {{300, 200}, {0}},
      {{5000, 3}, {0}},
      {{2, 40000, 3}, {1}},
      {{3, 2, 20000}, {0, 2}},
      {{1, 100000}, {1}},
      {{70000}, {0}},
      {{6, 40}, {1}, false, 45},
      {{40, 6}, {0}, false, 45},
      // Over a million elements: row and column passes of several pieces.
      {{(1 << 20) + 3}, {0}},
      {{1024, 1025}, {1}},
      {{1024, 1025}, {0}},
  };
}

template <typename T>
void CheckReductions(DataType dtype) {
  const double out_u = UnitRoundoff(dtype);
  std::mt19937 rng(2024);
  bool used[3] = {false, false, false};
  bool segmented = false;
  int checked = 0;
  for (const ReduceCase& c : ReduceCaseList()) {
    const TensorShape shape = *TensorShape::Build(c.shape);
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMean, ReduceOp::kProd,
                        ReduceOp::kMax, ReduceOp::kMin}) {
      if (op == ReduceOp::kProd && shape.num_elements() > (1 << 20)) continue;
      std::vector<double> values(shape.num_elements());
      std::uniform_real_distribution<double> u(0, 1);
      for (double& v : values) {
        // Products of factors near 1 stay in range over long reductions.
        v = op == ReduceOp::kProd
                ? (0.97 + 0.06 * u(rng)) * (u(rng) < 0.5 ? -1 : 1)
                : 2 * u(rng) - 1;
      }
      if (c.nan_at >= 0) {
        values[c.nan_at] = NAN;
        values[c.nan_at + 1] = INFINITY;
      }
      const Tensor in = AsTensorOfType(dtype, values, shape);
      const std::string what = absl::StrCat(
          OpName(op), " ", DataTypeName(dtype), " shape ", shape.DebugString(),
          " axes [", absl::StrJoin(c.axes, ","), "] keep_dims ", c.keep_dims);
      SCOPED_TRACE(what);
      StatusOr<Emulated> got = EmulateReduction<T>(in, c.axes, c.keep_dims, op);
      ASSERT_TRUE(got.ok()) << got.status();
      for (ReduceStrategy s : got->strategies) used[static_cast<int>(s)] = true;
      segmented = segmented || got->segmented;

      AttrMap attrs;
      attrs["keep_dims"] = AttrValue::Bool(c.keep_dims);
      OpRunner cpu(OpName(op), attrs);
      cpu.set_forwardable(false);
      StatusOr<std::vector<Tensor>> want = cpu.Run(
          {in,
           AsTensor<int64_t>(
               c.axes, TensorShape({static_cast<int64_t>(c.axes.size())}))});
      ASSERT_TRUE(want.ok()) << want.status();
      const Tensor& cpu_out = (*want)[0];
      ASSERT_EQ(got->out.shape(), cpu_out.shape());
      const std::vector<double> g = ToDoubles(got->out);
      const std::vector<double> w = ToDoubles(cpu_out);
      const Reference ref = ExactReduction(in, c.axes, op);
      ASSERT_EQ(g.size(), ref.value.size());
      for (size_t i = 0; i < g.size(); ++i) {
        SCOPED_TRACE(absl::StrCat("output ", i));
        if (op == ReduceOp::kMax || op == ReduceOp::kMin) {
          // No rounding at all: the same element (or NaN) on every path.
          EXPECT_TRUE(SameFloat(g[i], w[i])) << g[i] << " vs CPU " << w[i];
          EXPECT_TRUE(SameFloat(g[i], ref.value[i])) << g[i];
          continue;
        }
        if (!std::isfinite(ref.value[i]) || ref.count[i] == 0) {
          EXPECT_TRUE(SameFloat(g[i], w[i])) << g[i] << " vs CPU " << w[i];
          continue;
        }
        // Each float combine rounds once (relative error <= 2^-24), so an
        // output whose inputs pass through at most D combines errs by at
        // most D u sum|x| (a sum; Higham, Accuracy and Stability, 4.2) or
        // D u |prod x| (a product), plus O(u^2), covered by the factor
        // 1.01. Mean adds its division (u |result|); half adds the final
        // rounding of each side (out_u |result|, and 2^-25 where the result
        // is subnormal in half). The CPU's own bound is the same with D =
        // count (its column passes combine sequentially), which makes the
        // comparison with it loose on long reductions; the comparison with
        // the exact value uses the GPU's D alone.
        const double m =
            op == ReduceOp::kProd ? std::fabs(ref.value[i]) : ref.magnitude[i];
        const double a = std::fabs(ref.value[i]);
        const double rounding = kFloatU * a + out_u * a + 0x1p-25;
        const double exact_tol = 1.01 * got->depth * kFloatU * m + rounding;
        const double cpu_tol =
            1.01 * (got->depth + ref.count[i]) * kFloatU * m + 2 * rounding;
        EXPECT_LE(std::fabs(g[i] - ref.value[i]), exact_tol)
            << "got " << g[i] << ", exact " << ref.value[i];
        EXPECT_LE(std::fabs(g[i] - w[i]), cpu_tol)
            << "got " << g[i] << ", CPU " << w[i];
      }
      ++checked;
    }
  }
  EXPECT_TRUE(used[0] && used[1] && used[2]) << "a strategy went unchecked";
  EXPECT_TRUE(segmented) << "no case split a run into pieces";
  EXPECT_GT(checked, 150);
}

TEST(CudaReduceBodyTest, FloatMatchesCpuKernel) {
  CheckReductions<float>(DT_FLOAT);
}

TEST(CudaReduceBodyTest, HalfMatchesCpuKernel) {
  CheckReductions<half>(DT_HALF);
}

TEST(CudaReduceBodyTest, PlannerRejectsBadAxesAsTheCpuKernel) {
  ReductionPlan plan;
  Status s = PlanReduction(TensorShape({2, 3}), {2}, false, &plan);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("reduction axis 2 is out of range"),
            std::string::npos)
      << s;
  s = PlanReduction(TensorShape({2, 3}), {1, -1}, false, &plan);
  EXPECT_FALSE(s.ok());
}

TEST(CudaReduceBodyTest, TreeCombineIsTheShuffleDownOrder) {
  // Lane 0 of a shuffle-down tree over 4 lanes holds (v0 + v2) + (v1 + v3).
  float v[4] = {1e8f, 1.0f, -1e8f, 1.0f};
  gpu::TreeCombine(ReduceOp::kSum, v, 4);
  EXPECT_EQ(v[0], (1e8f + -1e8f) + (1.0f + 1.0f));
  float w[2] = {NAN, 1.0f};
  gpu::TreeCombine(ReduceOp::kMax, w, 2);
  EXPECT_TRUE(std::isnan(w[0]));
}

// ---- Softmax ------------------------------------------------------------

template <typename T>
std::vector<float> EmulateSoftmax(const gpu::SoftmaxParams& p, const T* x) {
  std::vector<float> y(p.rows * p.depth);
  const int threads = p.threads_per_row();
  // The block's two-level tree of reduce_ops_gpu.cu's BlockCombine, or one
  // warp tree.
  auto combine = [&](ReduceOp op, std::vector<float> v) {
    if (threads == gpu::kReduceWarp) {
      gpu::TreeCombine(op, v.data(), gpu::kReduceWarp);
      return v[0];
    }
    float warps[gpu::kReduceWarp];
    for (int l = 0; l < gpu::kReduceWarp; ++l) {
      warps[l] = gpu::ReduceIdentity(op);
    }
    for (int w = 0; w < threads / gpu::kReduceWarp; ++w) {
      gpu::TreeCombine(op, v.data() + w * gpu::kReduceWarp, gpu::kReduceWarp);
      warps[w] = v[w * gpu::kReduceWarp];
    }
    gpu::TreeCombine(op, warps, gpu::kReduceWarp);
    return warps[0];
  };
  for (int64_t row = 0; row < p.rows; ++row) {
    std::vector<float> part(threads);
    for (int t = 0; t < threads; ++t) {
      part[t] = gpu::SoftmaxMaxPartial(p, x, row, t);
    }
    const float m = combine(ReduceOp::kMax, part);
    for (int t = 0; t < threads; ++t) {
      part[t] = gpu::SoftmaxSumPartial(p, x, row, m, t);
    }
    const float s = combine(ReduceOp::kSum, part);
    for (int64_t i = 0; i < p.depth; ++i) {
      const int64_t k = row * p.depth + i;
      y[k] = gpu::SoftmaxValue(p, static_cast<float>(x[k]), m, s);
    }
  }
  return y;
}

template <typename T>
void CheckSoftmax(DataType dtype) {
  const double out_u = UnitRoundoff(dtype);
  std::mt19937 rng(7);
  const std::vector<std::vector<int64_t>> shapes = {{1},
                                                    {7},
                                                    {3, 5},
                                                    {0, 5},
                                                    {5, 0},
                                                    {2, 3, 4},
                                                    {4, 31},
                                                    {4, 32},
                                                    {3, 1024},
                                                    {3, 1025},
                                                    {2, 5000},
                                                    {1, 1},
                                                    {6, 8},
                                                    // Over a million elements.
                                                    {1024, 1025}};
  int checked = 0;
  bool block = false;
  for (const auto& dims : shapes) {
    const TensorShape shape = *TensorShape::Build(dims);
    for (bool log : {false, true}) {
      std::vector<double> values(shape.num_elements());
      std::uniform_real_distribution<double> u(-4, 4);
      for (double& v : values) v = u(rng);
      if (dims == std::vector<int64_t>{6, 8}) {
        // NaN, +inf, -inf and an all -inf row: all come out as the CPU's.
        values[3] = NAN;
        values[8 + 2] = INFINITY;
        values[16 + 5] = -INFINITY;
        for (int i = 0; i < 8; ++i) values[24 + i] = -INFINITY;
        values[32] = -1000;  // exp underflows to 0 against the row's max
      }
      const Tensor in = AsTensorOfType(dtype, values, shape);
      const char* op = log ? "LogSoftmax" : "Softmax";
      SCOPED_TRACE(
          absl::StrCat(op, " ", DataTypeName(dtype), " ", shape.DebugString()));
      OpRunner cpu(op);
      cpu.set_forwardable(false);
      StatusOr<std::vector<Tensor>> want = cpu.Run({in});
      ASSERT_TRUE(want.ok()) << want.status();
      const std::vector<double> w = ToDoubles((*want)[0]);
      if (in.NumElements() == 0) {
        EXPECT_EQ(w.size(), 0u);
        continue;
      }
      const int64_t depth = dims.back();
      const gpu::SoftmaxParams p =
          gpu::PlanSoftmax(in.NumElements() / depth, depth, log);
      block = block || p.block;
      const std::vector<float> y = EmulateSoftmax(p, in.data<T>());
      // Rounded to T as the kernel stores it.
      std::vector<double> g(y.size());
      for (size_t i = 0; i < y.size(); ++i) {
        g[i] = static_cast<double>(static_cast<T>(y[i]));
      }
      const std::vector<double> x = ToDoubles(in);
      // The sum s of e(x - m) over a row: each term within 2 ulps (CUDA's
      // expf, glibc's here, Eigen's on the CPU) and D = the GPU's combines
      // on a path (depth / threads + tree levels) add at most D u s, all
      // terms being positive. So softmax = e * (1/s) is within (D + 4) u
      // relative, plus the rounding to T; log_softmax = (x - m) - log(s) is
      // within (D + 2) u absolute from log(s), plus u (|x - m| + |log s|)
      // and the rounding to T. The CPU's own error is of the same form with
      // D = depth (a bound on any order of its sum).
      const int64_t d =
          (depth + p.threads_per_row() - 1) / p.threads_per_row() +
          (p.block ? 10 : 5);
      for (int64_t row = 0; row < p.rows; ++row) {
        double m = -INFINITY;
        bool nan = false;
        for (int64_t i = 0; i < depth; ++i) {
          const double v = x[row * depth + i];
          nan = nan || std::isnan(v);
          m = std::max(m, v);
        }
        double s = 0;
        for (int64_t i = 0; i < depth; ++i)
          s += std::exp(x[row * depth + i] - m);
        for (int64_t i = 0; i < depth; ++i) {
          const int64_t k = row * depth + i;
          SCOPED_TRACE(absl::StrCat("element ", k));
          if (nan || std::isinf(m)) {
            // A NaN, +inf or only -inf in the row: all NaN on the CPU.
            EXPECT_TRUE(std::isnan(g[k])) << g[k];
            EXPECT_TRUE(std::isnan(w[k])) << w[k];
            continue;
          }
          const double shifted = x[k] - m;
          const double exact =
              log ? shifted - std::log(s) : std::exp(shifted) / s;
          if (!std::isfinite(exact)) {
            // log_softmax of a -inf logit.
            EXPECT_EQ(g[k], exact);
            EXPECT_EQ(w[k], exact);
            continue;
          }
          const double a = std::fabs(exact);
          double exact_tol, cpu_tol;
          if (log) {
            const double base =
                kFloatU * (std::fabs(shifted) + std::fabs(std::log(s)));
            exact_tol = 1.01 * (d + 2) * kFloatU + base + out_u * a;
            cpu_tol =
                1.01 * (2 * d + depth + 4) * kFloatU + 2 * base + 2 * out_u * a;
          } else {
            // Terms below exp(-88.72) are 0 on both sides, off by less
            // than 1e-37 from the reference; half results below 2^-14 are
            // subnormal, rounded to a multiple of 2^-24.
            const double tiny = dtype == DT_HALF ? 0x1p-25 : 1e-37;
            exact_tol = 1.01 * (d + 4) * kFloatU * a + out_u * a + tiny;
            cpu_tol = 1.01 * (2 * d + depth + 8) * kFloatU * a + 2 * out_u * a +
                      2 * tiny;
          }
          EXPECT_LE(std::fabs(g[k] - exact), exact_tol)
              << "got " << g[k] << ", exact " << exact;
          EXPECT_LE(std::fabs(g[k] - w[k]), cpu_tol)
              << "got " << g[k] << ", CPU " << w[k];
        }
      }
      ++checked;
    }
  }
  EXPECT_TRUE(block) << "no case took a block per row";
  EXPECT_EQ(checked, 24);
}

TEST(CudaSoftmaxBodyTest, FloatMatchesCpuKernel) {
  CheckSoftmax<float>(DT_FLOAT);
}

TEST(CudaSoftmaxBodyTest, HalfMatchesCpuKernel) { CheckSoftmax<half>(DT_HALF); }

}  // namespace cuda_reduce_body_test
}  // namespace weft::test
