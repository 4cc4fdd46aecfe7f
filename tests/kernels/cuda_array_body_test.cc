// The CUDA data-movement kernels' per-element code (kernels/cuda/
// cast_body.h, transpose_body.h, tile_body.h, concat_body.h), run on the
// host over every output index with the parameters the OpKernel classes
// build (kernels/cuda/plan/array_plan.h), against the CPU kernels on the same
// inputs. Runs without a GPU and in builds without CUDA. Also checks that the
// shape contracts both devices' kernels call (kernels/common/transpose_shape.h,
// tile_shape.h, concat_shape.h, reshape_shape.h) accept and reject exactly
// what the CPU kernels do, with the same messages.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/tensor.h"
#include "core/types.h"
#include "gtest/gtest.h"
#include "kernels/common/concat_shape.h"
#include "kernels/common/reshape_shape.h"
#include "kernels/common/tile_shape.h"
#include "kernels/common/transpose_shape.h"
#include "kernels/cuda/cast_body.h"
#include "kernels/cuda/concat_body.h"
#include "kernels/cuda/plan/array_plan.h"
#include "kernels/cuda/tile_body.h"
#include "kernels/cuda/transpose_body.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft::test {
namespace cuda_array_body_test {

// The dtypes the CUDA layout kernels serve: every element size they have.
const DataType kLayoutTypes[] = {DT_FLOAT, DT_HALF, DT_INT32, DT_INT64,
                                 DT_BOOL};

std::string ShapeString(const TensorShape& s) { return s.DebugString(); }

TensorShape MakeShape(const std::vector<int64_t>& dims) {
  StatusOr<TensorShape> s = TensorShape::Build(dims);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : TensorShape();
}

// Random values in [-8, 8) of `dtype` (bool: mostly true, some false).
Tensor RandomValues(DataType dtype, const TensorShape& shape,
                    std::mt19937* rng) {
  std::vector<double> v(shape.num_elements());
  std::uniform_int_distribution<int> u(-8 * 64, 8 * 64 - 1);
  for (double& x : v) x = u(*rng) / 64.0;
  return AsTensorOfType(dtype, v, shape);
}

Tensor IndexVector(DataType dtype, const std::vector<int64_t>& values) {
  std::vector<double> v(values.begin(), values.end());
  return AsTensorOfType(dtype, v,
                        TensorShape({static_cast<int64_t>(values.size())}));
}

// Whether the two tensors hold the same bytes (a NaN matching any NaN).
void ExpectSameBits(const Tensor& got, const Tensor& want,
                    const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const size_t es = DataTypeSize(got.dtype());
  const auto* g = static_cast<const unsigned char*>(got.raw_data());
  const auto* w = static_cast<const unsigned char*>(want.raw_data());
  int reported = 0;
  for (int64_t i = 0; i < got.NumElements() && reported < 10; ++i) {
    if (std::memcmp(g + i * es, w + i * es, es) == 0) continue;
    if (got.dtype() == DT_FLOAT && std::isnan(got.data<float>()[i]) &&
        std::isnan(want.data<float>()[i])) {
      continue;
    }
    if (got.dtype() == DT_HALF &&
        std::isnan(static_cast<float>(got.data<half>()[i])) &&
        std::isnan(static_cast<float>(want.data<half>()[i]))) {
      continue;
    }
    ++reported;
    std::vector<double> gd = ToDoubles(got), wd = ToDoubles(want);
    ADD_FAILURE() << what << ": element " << i << " is " << gd[i]
                  << ", the CPU kernel gives " << wd[i];
  }
}

// The CPU kernel's output (or its error).
StatusOr<Tensor> RunCpu(const std::string& op, const AttrMap& attrs,
                        std::vector<Tensor> inputs) {
  OpRunner runner(op, attrs);
  runner.set_forwardable(false);
  WEFT_ASSIGN_OR_RETURN(std::vector<Tensor> out, runner.Run(std::move(inputs)));
  return out[0];
}

// The CPU kernel's error message ends with the plan's (the CPU adds the
// node's name in front).
void ExpectSameError(const Status& cpu, const Status& plan,
                     const std::string& what) {
  ASSERT_FALSE(cpu.ok()) << what << ": the CPU kernel accepts it";
  ASSERT_FALSE(plan.ok()) << what << ": the plan accepts it; the CPU says "
                          << cpu;
  EXPECT_EQ(cpu.code(), plan.code()) << what;
  const std::string c(cpu.message()), p(plan.message());
  EXPECT_TRUE(c.size() >= p.size() &&
              c.compare(c.size() - p.size(), p.size(), p) == 0)
      << what << "\n  CPU:  " << c << "\n  plan: " << p;
}

// Whether both the CPU kernel (`want`) and the plan succeed, so that their
// outputs can be compared. Where the CPU kernel fails, the plan must fail
// with the same error.
template <typename T>
bool BothSucceed(const StatusOr<Tensor>& want, const StatusOr<T>& plan,
                 const std::string& what) {
  if (!want.ok()) {
    ExpectSameError(want.status(), plan.status(), what);
    return false;
  }
  EXPECT_TRUE(plan.ok()) << what << ": " << plan.status();
  return plan.ok();
}

// Every output element written exactly once: no gaps, no overlaps.
void ExpectEachWrittenOnce(const std::vector<int>& writes) {
  for (size_t i = 0; i < writes.size(); ++i) {
    if (writes[i] != 1) {
      ADD_FAILURE() << "output element " << i << " written " << writes[i]
                    << " times";
      break;
    }
  }
}

// A gather kernel's output of `shape`: out[i] = x[source(i)], with the
// body's index function run on the host for every output index.
template <typename Source>
Tensor HostGather(const Tensor& x, const TensorShape& shape, Source source) {
  Tensor y(x.dtype(), shape);
  const size_t es = DataTypeSize(x.dtype());
  const auto* in = static_cast<const char*>(x.raw_data());
  auto* out = static_cast<char*>(y.raw_data());
  for (int64_t i = 0; i < y.NumElements(); ++i) {
    const int64_t src = source(i);
    if (src < 0 || src >= x.NumElements()) {
      ADD_FAILURE() << "output " << i << " reads input element " << src
                    << " of " << x.NumElements();
      break;
    }
    std::memcpy(out + i * es, in + src * es, es);
  }
  return y;
}

// ---------------------------------------------------------------------------
// Cast

// The body's per-element conversion from `src`.
using CastElementFn = void (*)(const gpu::CastParams&, const void*, void*,
                               int64_t);
CastElementFn CastElementFrom(gpu::CastType src) {
  switch (src) {
    case gpu::CastType::kBool:
      return &gpu::CastElement<gpu::CastType::kBool>;
    case gpu::CastType::kInt32:
      return &gpu::CastElement<gpu::CastType::kInt32>;
    case gpu::CastType::kInt64:
      return &gpu::CastElement<gpu::CastType::kInt64>;
    case gpu::CastType::kHalf:
      return &gpu::CastElement<gpu::CastType::kHalf>;
    case gpu::CastType::kFloat:
      break;
  }
  return &gpu::CastElement<gpu::CastType::kFloat>;
}

// What the CUDA kernel class computes, with the body run on the host.
Tensor HostCast(const Tensor& x, DataType dst, bool truncate) {
  const CastPlan plan = PlanCast(x.dtype(), dst, truncate);
  const CastElementFn element = CastElementFrom(plan.src);
  Tensor y(dst, x.shape());
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    element(plan.params, x.raw_data(), y.raw_data(), i);
  }
  return y;
}

Tensor CastOnCpu(const Tensor& x, DataType dst, bool truncate) {
  StatusOr<Tensor> y = RunCpu(
      "Cast",
      {{"DstT", AttrValue::Type(dst)}, {"Truncate", AttrValue::Bool(truncate)}},
      {x});
  EXPECT_TRUE(y.ok()) << y.status();
  return y.ok() ? *y : Tensor();
}

Tensor FloatsFromBits(const std::vector<uint32_t>& bits) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(bits.size())}));
  std::memcpy(t.raw_data(), bits.data(), bits.size() * 4);
  return t;
}

// Every half, to float: exact, so the bits must match (NaN aside).
TEST(CudaCastBodyTest, EveryHalfToFloat) {
  Tensor x(DT_HALF, TensorShape({65536}));
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    std::memcpy(static_cast<char*>(x.raw_data()) + 2 * b, &h, 2);
  }
  ExpectSameBits(HostCast(x, DT_FLOAT, false), CastOnCpu(x, DT_FLOAT, false),
                 "half -> float");
}

// Floats to half, rounded and truncated: every float near each half (the
// ties and the values beside them), the overflow and subnormal edges, and
// random bit patterns.
TEST(CudaCastBodyTest, FloatToHalfRoundsAsTheCpu) {
  std::vector<uint32_t> bits = {
      0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
      0xffc00001u, 0x7f800001u, 0x00000001u, 0x807fffffu, 0x477fe000u,
      0x477fefffu, 0x477ff000u, 0x477ff001u, 0x47800000u, 0x7f7fffffu,
      0x33000000u, 0x33000001u, 0x32ffffffu, 0x33800000u, 0x387fe000u,
      0x387ff000u, 0x38800000u, 0xb8800000u, 0x3f800000u};
  // Around every 16th half (all exponents, both signs): the half itself, the
  // tie above it and one float either side of the tie.
  for (uint32_t h = 0; h < 0x7c00; h += 16) {
    const float f = gpu::HalfBitsToFloat(static_cast<uint16_t>(h));
    const float g = gpu::HalfBitsToFloat(static_cast<uint16_t>(h + 1));
    const float tie = (f + g) / 2;  // exact in float
    for (float v :
         {f, tie, std::nextafter(tie, 0.0f), std::nextafter(tie, 1e30f)}) {
      const uint32_t u = gpu::FloatToBits(v);
      bits.push_back(u);
      bits.push_back(u | 0x80000000u);
    }
  }
  std::mt19937 rng(7);
  for (int i = 0; i < (1 << 18); ++i) bits.push_back(rng());
  const Tensor x = FloatsFromBits(bits);
  for (bool truncate : {false, true}) {
    ExpectSameBits(HostCast(x, DT_HALF, truncate),
                   CastOnCpu(x, DT_HALF, truncate),
                   absl::StrCat("float -> half, Truncate=", truncate));
  }
}

// Values every cast must survive, as doubles exactly representable in the
// source dtype (the special float values are added separately).
std::vector<double> CastEdgeValues(DataType src) {
  std::vector<double> v = {0, 1, -1, 2, 3, 7, -8, 100, -100, 255, 256, 1000};
  if (src == DT_BOOL) return {0, 1, 1, 0};
  if (src == DT_FLOAT || src == DT_HALF) {
    for (double x : {0.5, -0.5, 1.5, -1.5, 2.5, -0.75, 0.999, 65504.0, -65504.0,
                     6.1e-5, -3e-8, 1e-8, 2049.0, 4097.0}) {
      v.push_back(x);
    }
  }
  if (src == DT_FLOAT) {
    for (double x : {2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0,
                     4294967296.0, 9.2233715e18, 9.223372036854775807e18,
                     -9.223372036854775808e18, -9.3e18, 1e30, 65519.0, 65520.0,
                     65536.0, 16777217.0, 0.1, 3.4e38, -2.9e-45}) {
      v.push_back(x);
    }
  }
  if (src == DT_INT32 || src == DT_INT64) {
    for (double x :
         {2147483647.0, -2147483648.0, 16777217.0, 16777219.0, -16777217.0,
          65504.0, 65519.0, 65520.0, 70000.0, 2049.0, 2051.0}) {
      v.push_back(x);
    }
  }
  if (src == DT_INT64) {
    for (double x : {4294967296.0, 4294967297.0, -4294967297.0, 2147483648.0,
                     -2147483649.0, 9007199254740993.0, 1e18,
                     -9223372036854775808.0, 9223372036854774784.0}) {
      v.push_back(x);
    }
  }
  return v;
}

Tensor CastInput(DataType src, std::mt19937* rng) {
  // The first slots are overwritten with values doubles cannot spell.
  std::vector<double> v(16, 0.0);
  for (double e : CastEdgeValues(src)) v.push_back(e);
  std::uniform_real_distribution<double> u(-300, 300);
  for (int i = 0; i < 1000; ++i) v.push_back(u(*rng));
  Tensor t =
      AsTensorOfType(src, v, TensorShape({static_cast<int64_t>(v.size())}));
  if (src == DT_FLOAT) {
    // NaN, infinities, -0 and a few exact int64 values doubles cannot
    // spell the way AsTensorOfType reads them.
    const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                              -std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(),
                              -0.0f,
                              std::numeric_limits<float>::denorm_min(),
                              std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::lowest()};
    for (size_t i = 0; i < std::size(specials); ++i) {
      t.data<float>()[i] = specials[i];
    }
  }
  if (src == DT_HALF) {
    const uint16_t specials[] = {0x7e00, 0xfe00, 0x7c00, 0xfc00, 0x8000,
                                 0x0001, 0x7bff, 0xfbff, 0x03ff};
    for (size_t i = 0; i < std::size(specials); ++i) {
      std::memcpy(static_cast<char*>(t.raw_data()) + 2 * i, &specials[i], 2);
    }
  }
  if (src == DT_INT64) {
    t.data<int64_t>()[0] = std::numeric_limits<int64_t>::max();
    t.data<int64_t>()[1] = std::numeric_limits<int64_t>::min();
  }
  return t;
}

TEST(CudaCastBodyTest, EveryPairMatchesTheCpuKernel) {
  const DataType types[] = {DT_BOOL, DT_INT32, DT_INT64, DT_HALF, DT_FLOAT};
  std::mt19937 rng(11);
  int pairs = 0;
  for (DataType src : types) {
    const Tensor x = CastInput(src, &rng);
    for (DataType dst : types) {
      if (src == dst) continue;
      for (bool truncate : {false, true}) {
        ExpectSameBits(
            HostCast(x, dst, truncate), CastOnCpu(x, dst, truncate),
            absl::StrCat(DataTypeName(src), " -> ", DataTypeName(dst),
                         ", Truncate=", truncate));
        ++pairs;
      }
    }
  }
  EXPECT_EQ(pairs, 40);
}

TEST(CudaCastBodyTest, EmptyAndScalar) {
  for (const TensorShape& s :
       {TensorShape({0}), TensorShape({3, 0}), TensorShape()}) {
    const Tensor x = AsTensorOfType(
        DT_FLOAT, std::vector<double>(s.num_elements(), -2.75), s);
    for (DataType dst : {DT_INT32, DT_HALF, DT_BOOL, DT_INT64}) {
      ExpectSameBits(
          HostCast(x, dst, false), CastOnCpu(x, dst, false),
          absl::StrCat("float ", ShapeString(s), " -> ", DataTypeName(dst)));
    }
  }
}

// ---------------------------------------------------------------------------
// Transpose

// The gather kernel's output, with the body run at index width Index.
template <typename Index>
Tensor HostTransposeGather(const Tensor& x, const TensorShape& shape,
                           const TransposePlan& plan) {
  return HostGather(x, shape, [&](int64_t i) -> int64_t {
    return gpu::TransposeSource<Index>(plan.params, static_cast<Index>(i));
  });
}

// The tiled kernel's output: every block's tiles, its threads' loads into
// the shared tile and stores from it in the kernel's order. Also checks
// that every output element is written exactly once.
Tensor HostTransposeSwap(const Tensor& x, const TensorShape& shape,
                         const TransposePlan& plan) {
  Tensor y(x.dtype(), shape);
  const size_t es = DataTypeSize(x.dtype());
  const auto* in = static_cast<const char*>(x.raw_data());
  auto* out = static_cast<char*>(y.raw_data());
  const gpu::SwapParams& p = plan.swap_params;
  EXPECT_EQ(p.batch * p.rows * p.cols, x.NumElements());
  std::vector<int> writes(y.NumElements(), 0);
  constexpr int kT = gpu::kSwapTile;
  std::vector<char> tile(kT * (kT + 1) * es);
  for (int64_t t = 0; t < gpu::SwapNumTiles(p); ++t) {
    const gpu::SwapTileOrigin o = gpu::SwapTileOf(p, t);
    for (int ty = 0; ty < gpu::kSwapTileRows; ++ty) {
      for (int i = ty; i < kT; i += gpu::kSwapTileRows) {
        for (int lane = 0; lane < kT; ++lane) {
          const int64_t src = gpu::SwapLoadIndex(p, o, i, lane);
          if (src < 0) continue;
          if (src >= x.NumElements()) {
            ADD_FAILURE() << "tile " << t << " loads element " << src;
            return y;
          }
          std::memcpy(&tile[(i * (kT + 1) + lane) * es], in + src * es, es);
        }
      }
    }
    for (int ty = 0; ty < gpu::kSwapTileRows; ++ty) {
      for (int j = ty; j < kT; j += gpu::kSwapTileRows) {
        for (int lane = 0; lane < kT; ++lane) {
          const int64_t dst = gpu::SwapStoreIndex(p, o, lane, j);
          if (dst < 0) continue;
          if (dst >= y.NumElements()) {
            ADD_FAILURE() << "tile " << t << " stores element " << dst;
            return y;
          }
          ++writes[dst];
          std::memcpy(out + dst * es, &tile[(lane * (kT + 1) + j) * es], es);
        }
      }
    }
  }
  ExpectEachWrittenOnce(writes);
  return y;
}

// What the kernel class computes: the shape contract, and the launch when
// data moves.
struct TransposeRun {
  TransposeDims dims;
  TransposePlan plan;
};

StatusOr<TransposeRun> PlanTransposeRun(const TensorShape& shape,
                                        const Tensor& perm) {
  TransposeRun run;
  WEFT_ASSIGN_OR_RETURN(run.dims, GetTransposeDims(shape, perm));
  if (run.dims.moves_data) {
    WEFT_ASSIGN_OR_RETURN(run.plan, PlanTranspose(shape, run.dims));
  }
  return run;
}

// Runs one transpose both ways; returns the plan's merged rank (0 when no
// data moves, -1 on error).
int CheckTranspose(const Tensor& x, const Tensor& perm) {
  const std::string what = absl::StrCat(
      "Transpose ", ShapeString(x.shape()), " by ",
      absl::StrJoin(ToDoubles(perm), ","), " (", DataTypeName(x.dtype()), ")");
  StatusOr<Tensor> want = RunCpu("Transpose", {}, {x, perm});
  StatusOr<TransposeRun> run = PlanTransposeRun(x.shape(), perm);
  if (!BothSucceed(want, run, what)) return -1;
  const TensorShape& shape = run->dims.out_shape;
  if (!run->dims.moves_data) {
    // The kernel class shares the input's buffer.
    EXPECT_EQ(shape, want->shape()) << what;
    ExpectSameBits(*x.Reshaped(shape), *want, what);
    return 0;
  }
  // Both kernels, at both index widths, whichever the kernel class picks.
  const TransposePlan& plan = run->plan;
  ExpectSameBits(HostTransposeGather<int32_t>(x, shape, plan), *want,
                 what + " (gather, int32 indices)");
  ExpectSameBits(HostTransposeGather<int64_t>(x, shape, plan), *want,
                 what + " (gather, int64 indices)");
  if (plan.swap_params.batch > 0) {
    ExpectSameBits(HostTransposeSwap(x, shape, plan), *want, what + " (tiled)");
  }
  return plan.params.rank;
}

TEST(CudaTransposeBodyTest, FixedCases) {
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int64_t> perm;
    int merged_rank;  // 0: no data moves
  };
  const Case cases[] = {
      {{}, {}, 0},
      {{5}, {0}, 0},
      {{5}, {-1}, 0},
      {{3, 4}, {1, 0}, 2},
      {{3, 4}, {-1, -2}, 2},
      {{3, 4}, {0, 1}, 0},
      {{1, 4}, {1, 0}, 0},              // only a size-1 dimension moves
      {{2, 3, 4, 5}, {0, 2, 3, 1}, 3},  // NCHW -> NHWC: [N, C, HW]
      {{2, 3, 4, 5}, {0, 3, 1, 2}, 3},  // NHWC -> NCHW
      {{2, 3, 4, 5}, {3, 2, 1, 0}, 4},
      {{2, 3, 4, 5}, {1, 0, 2, 3}, 3},  // trailing block stays in place
      {{2, 3, 4, 5}, {2, 3, 0, 1}, 2},
      {{2, 1, 4, 1, 5}, {4, 3, 2, 1, 0}, 3},
      {{6, 1, 1, 7}, {3, 2, 1, 0}, 2},
      {{0, 3}, {1, 0}, 2},
      {{4, 0, 3}, {2, 1, 0}, 3},
      {{2, 3}, {-2, -1}, 0},
      {{2, 2, 2, 2, 2, 2, 2, 2}, {7, 6, 5, 4, 3, 2, 1, 0}, 8},
      {{64, 129, 33}, {2, 0, 1}, 2},  // large: 272448 elements
      {{33, 1000, 17}, {1, 2, 0}, 2},
  };
  for (const Case& c : cases) {
    for (DataType dt : kLayoutTypes) {
      std::mt19937 rng(3);
      const Tensor x = RandomValues(dt, MakeShape(c.dims), &rng);
      for (DataType pt : {DT_INT32, DT_INT64}) {
        EXPECT_EQ(CheckTranspose(x, IndexVector(pt, c.perm)), c.merged_rank)
            << ShapeString(x.shape()) << " perm " << absl::StrJoin(c.perm, ",");
      }
    }
  }
}

// Swaps of the last two dimensions with both at least 16 run the tiled
// kernel: tiles cut by the matrix's edges, batches, every element size.
TEST(CudaTransposeBodyTest, LargeSwapsUseTheTiledKernel) {
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int64_t> perm;
    bool swap;
  };
  const Case cases[] = {
      {{40, 50}, {1, 0}, true},
      {{16, 16}, {1, 0}, true},
      {{15, 100}, {1, 0}, false},
      {{3, 40, 50}, {0, 2, 1}, true},
      {{3, 40, 1, 50}, {0, 3, 2, 1}, true},
      {{8, 64, 64, 32}, {0, 3, 1, 2}, true},  // NHWC -> NCHW
      {{8, 32, 64, 64}, {0, 2, 3, 1}, true},  // NCHW -> NHWC
      {{2, 3, 64, 64}, {0, 1, 3, 2}, true},
      {{2, 3, 4, 5}, {0, 3, 1, 2}, false},  // 5 channels: the gather
      {{40, 50, 2}, {1, 0, 2}, false},
      {{40, 50, 20}, {2, 1, 0}, false},
      {{1000, 1001}, {1, 0}, true},
  };
  for (const Case& c : cases) {
    const Tensor perm = IndexVector(DT_INT32, c.perm);
    StatusOr<TransposeRun> run = PlanTransposeRun(MakeShape(c.dims), perm);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_EQ(run->plan.swap, c.swap) << MakeShape(c.dims).DebugString();
    for (DataType dt : kLayoutTypes) {
      std::mt19937 rng(37);
      EXPECT_GT(CheckTranspose(RandomValues(dt, MakeShape(c.dims), &rng), perm),
                0);
    }
  }
}

TEST(CudaTransposeBodyTest, RandomShapesAndPermutations) {
  std::mt19937 rng(5);
  int moved = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int rank = static_cast<int>(rng() % 7);
    std::vector<int64_t> dims(rank);
    int64_t n = 1;
    for (int64_t& d : dims) {
      d = rng() % 5 == 0 ? 1 : 1 + rng() % 5;
      if (rng() % 40 == 0) d = 0;
      n *= std::max<int64_t>(d, 1);
    }
    if (n > 20000) continue;
    std::vector<int64_t> perm(rank);
    for (int i = 0; i < rank; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int64_t& p : perm) {
      if (rng() % 3 == 0) p -= rank;  // the same entry counted from the end
    }
    const DataType dt = kLayoutTypes[rng() % std::size(kLayoutTypes)];
    const Tensor x = RandomValues(dt, MakeShape(dims), &rng);
    if (CheckTranspose(x, IndexVector(DT_INT32, perm)) > 0) ++moved;
  }
  EXPECT_GT(moved, 150);
}

TEST(CudaTransposeBodyTest, BadPermutationsFailAsOnTheCpu) {
  const Tensor x = AsTensorOfType(DT_FLOAT, std::vector<double>(24, 1),
                                  TensorShape({2, 3, 4}));
  const std::vector<std::vector<int64_t>> perms = {
      {0, 1}, {0, 1, 2, 3}, {0, 0, 1}, {0, 1, 3}, {0, 1, -4}, {2, -1, 0}};
  for (const auto& p : perms) {
    EXPECT_EQ(CheckTranspose(x, IndexVector(DT_INT32, p)), -1);
  }
  // perm of the wrong shape.
  EXPECT_EQ(CheckTranspose(x, AsTensorOfType(DT_INT32, {0, 1, 2, 3, 4, 5},
                                             TensorShape({2, 3}))),
            -1);
}

TEST(CudaTransposeBodyTest, TooManyDimensionsAfterMergingIsUnimplemented) {
  const TensorShape shape({2, 2, 2, 2, 2, 2, 2, 2, 2});
  const Tensor perm = IndexVector(DT_INT32, {8, 7, 6, 5, 4, 3, 2, 1, 0});
  StatusOr<TransposeRun> run = PlanTransposeRun(shape, perm);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(std::string(run.status().message()).find("at most 8"),
            std::string::npos)
      << run.status();
  // The same rank with mergeable runs fits.
  const Tensor runs = IndexVector(DT_INT32, {4, 5, 6, 7, 8, 0, 1, 2, 3});
  StatusOr<TransposeRun> merged = PlanTransposeRun(shape, runs);
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(merged->plan.params.rank, 2);
}

// ---------------------------------------------------------------------------
// Tile

// What the kernel class computes: the shape contract, and the launch when
// the multiples are not all 1.
struct TileRun {
  TileDims dims;
  gpu::TileParams params;
};

StatusOr<TileRun> PlanTileRun(const TensorShape& shape,
                              const Tensor& multiples) {
  TileRun run;
  WEFT_ASSIGN_OR_RETURN(run.dims, GetTileDims(shape, multiples));
  if (!run.dims.same) {
    WEFT_ASSIGN_OR_RETURN(run.params, PlanTile(shape, run.dims));
  }
  return run;
}

template <typename Index>
Tensor HostTile(const Tensor& x, const TileRun& run) {
  if (run.dims.same) return x;
  return HostGather(x, run.dims.out_shape, [&](int64_t i) -> int64_t {
    return gpu::TileSource<Index>(run.params, static_cast<Index>(i));
  });
}

int CheckTile(const Tensor& x, const Tensor& multiples) {
  const std::string what =
      absl::StrCat("Tile ", ShapeString(x.shape()), " by ",
                   absl::StrJoin(ToDoubles(multiples), ","), " (",
                   DataTypeName(x.dtype()), ")");
  StatusOr<Tensor> want = RunCpu("Tile", {}, {x, multiples});
  StatusOr<TileRun> run = PlanTileRun(x.shape(), multiples);
  if (!BothSucceed(want, run, what)) return -1;
  ExpectSameBits(HostTile<int32_t>(x, *run), *want, what + " (int32)");
  ExpectSameBits(HostTile<int64_t>(x, *run), *want, what + " (int64)");
  return run->params.rank;
}

TEST(CudaTileBodyTest, FixedCases) {
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int64_t> multiples;
    int merged_rank;
  };
  const Case cases[] = {
      {{}, {}, 0},
      {{3}, {1}, 0},
      {{3}, {4}, 1},
      {{3}, {0}, 0},  // empty output: nothing planned
      {{2, 3}, {2, 1}, 1},
      {{2, 3}, {1, 2}, 2},
      {{2, 3}, {3, 2}, 2},
      {{1, 3}, {4, 1}, 1},
      {{2, 1, 3}, {1, 5, 1}, 2},
      {{2, 3, 4}, {2, 1, 1}, 1},
      {{2, 3, 4}, {1, 1, 2}, 2},
      {{0, 3}, {2, 2}, 0},
      {{2, 3, 4, 5}, {2, 1, 3, 1}, 2},
      {{1, 1, 1}, {2, 3, 4}, 3},
      {{2, 2, 2, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2, 2, 2, 2}, 8},
      {{128, 1, 65}, {3, 17, 2}, 3},  // large: 848640 elements
  };
  for (const Case& c : cases) {
    for (DataType dt : kLayoutTypes) {
      std::mt19937 rng(9);
      const Tensor x = RandomValues(dt, MakeShape(c.dims), &rng);
      for (DataType mt : {DT_INT32, DT_INT64}) {
        EXPECT_EQ(CheckTile(x, IndexVector(mt, c.multiples)), c.merged_rank)
            << ShapeString(x.shape()) << " multiples "
            << absl::StrJoin(c.multiples, ",");
      }
    }
  }
}

TEST(CudaTileBodyTest, RandomShapesAndMultiples) {
  std::mt19937 rng(13);
  for (int iter = 0; iter < 300; ++iter) {
    const int rank = static_cast<int>(rng() % 6);
    std::vector<int64_t> dims(rank), multiples(rank);
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) {
      dims[d] = rng() % 4 == 0 ? 1 : 1 + rng() % 4;
      multiples[d] = rng() % 3 == 0 ? 1 : rng() % 4;
      n *= dims[d] * std::max<int64_t>(multiples[d], 1);
    }
    if (n > 50000) continue;
    const DataType dt = kLayoutTypes[rng() % std::size(kLayoutTypes)];
    const Tensor x = RandomValues(dt, MakeShape(dims), &rng);
    CheckTile(x, IndexVector(DT_INT32, multiples));
  }
}

TEST(CudaTileBodyTest, BadMultiplesFailAsOnTheCpu) {
  const Tensor x =
      AsTensorOfType(DT_FLOAT, std::vector<double>(6, 1), TensorShape({2, 3}));
  EXPECT_EQ(CheckTile(x, IndexVector(DT_INT32, {1, -1})), -1);
  EXPECT_EQ(CheckTile(x, IndexVector(DT_INT32, {1, 2, 3})), -1);
  EXPECT_EQ(CheckTile(x, AsTensorOfType(DT_INT32, {2}, TensorShape())), -1);
}

// ---------------------------------------------------------------------------
// ConcatV2 and Pack

// The output for `dims` with the launches ConcatLaunches plans run on the
// host.
template <typename Index>
Tensor HostConcat(const std::vector<Tensor>& inputs, const ConcatDims& dims,
                  int* launches_run) {
  *launches_run = 0;
  if (dims.forward_input >= 0) {
    StatusOr<Tensor> y = inputs[dims.forward_input].Reshaped(dims.out_shape);
    EXPECT_TRUE(y.ok()) << y.status();
    return y.ok() ? *y : Tensor();
  }
  const DataType dt = inputs[0].dtype();
  Tensor y(dt, dims.out_shape);
  const size_t es = DataTypeSize(dt);
  std::vector<int> writes(y.NumElements(), 0);
  std::vector<const void*> ptrs;
  for (const Tensor& t : inputs) ptrs.push_back(t.raw_data());
  auto* out = static_cast<char*>(y.raw_data());
  for (const gpu::ConcatParams& p : ConcatLaunches(dims, ptrs)) {
    ++*launches_run;
    EXPECT_GE(p.num_inputs, 1);
    EXPECT_LE(p.num_inputs, gpu::kMaxConcatInputs);
    for (int64_t j = 0; j < dims.rows * p.width; ++j) {
      const gpu::ConcatElement<Index> e =
          gpu::ConcatLocate<Index>(p, static_cast<Index>(j));
      const Tensor* from = nullptr;
      for (const Tensor& t : inputs) {
        if (t.raw_data() == p.inputs[e.input]) from = &t;
      }
      if (from == nullptr || e.src < 0 || e.src >= from->NumElements() ||
          e.dst < 0 || e.dst >= y.NumElements()) {
        ADD_FAILURE() << "launch element " << j << " maps out of bounds";
        return y;
      }
      ++writes[e.dst];
      std::memcpy(out + e.dst * es,
                  static_cast<const char*>(from->raw_data()) + e.src * es, es);
    }
  }
  ExpectEachWrittenOnce(writes);
  return y;
}

std::vector<TensorShape> ShapesOf(const std::vector<Tensor>& inputs) {
  std::vector<TensorShape> s;
  for (const Tensor& t : inputs) s.push_back(t.shape());
  return s;
}

// Compares the CPU kernel's `want` with `dims` run on the host at both index
// widths. Returns the number of launches (-1 on error).
int CheckConcatDims(const std::vector<Tensor>& values,
                    const StatusOr<Tensor>& want,
                    const StatusOr<ConcatDims>& dims, const std::string& what) {
  if (!BothSucceed(want, dims, what)) return -1;
  int launches = 0;
  ExpectSameBits(HostConcat<int32_t>(values, *dims, &launches), *want,
                 what + " (int32)");
  ExpectSameBits(HostConcat<int64_t>(values, *dims, &launches), *want,
                 what + " (int64)");
  return launches;
}

int CheckConcat(const std::vector<Tensor>& values, const Tensor& axis) {
  std::vector<std::string> shapes;
  for (const Tensor& t : values) shapes.push_back(ShapeString(t.shape()));
  const std::string what =
      absl::StrCat("ConcatV2 of ", absl::StrJoin(shapes, " "), " along ",
                   absl::StrJoin(ToDoubles(axis), ","), " (",
                   DataTypeName(values[0].dtype()), ")");
  std::vector<Tensor> inputs = values;
  inputs.push_back(axis);
  return CheckConcatDims(values, RunCpu("ConcatV2", {}, inputs),
                         GetConcatV2Dims(ShapesOf(values), axis), what);
}

int CheckPack(const std::vector<Tensor>& values, int64_t axis) {
  const std::string what = absl::StrCat(
      "Pack of ", values.size(), " x ", ShapeString(values[0].shape()),
      " along ", axis, " (", DataTypeName(values[0].dtype()), ")");
  return CheckConcatDims(
      values, RunCpu("Pack", {{"axis", AttrValue::Int(axis)}}, values),
      GetPackDims(ShapesOf(values), axis), what);
}

std::vector<Tensor> RandomInputs(DataType dt,
                                 const std::vector<TensorShape>& shapes,
                                 std::mt19937* rng) {
  std::vector<Tensor> v;
  for (const TensorShape& s : shapes) v.push_back(RandomValues(dt, s, rng));
  return v;
}

TEST(CudaConcatBodyTest, FixedCases) {
  struct Case {
    std::vector<TensorShape> shapes;
    int64_t axis;
    int launches;  // 0: the output shares an input, or is empty
  };
  const Case cases[] = {
      {{TensorShape({3}), TensorShape({4})}, 0, 1},
      {{TensorShape({3}), TensorShape({4})}, -1, 1},
      {{TensorShape({2, 3}), TensorShape({2, 5}), TensorShape({2, 1})}, 1, 1},
      {{TensorShape({2, 3}), TensorShape({4, 3})}, 0, 1},
      {{TensorShape({2, 3}), TensorShape({4, 3})}, -2, 1},
      {{TensorShape({2, 0}), TensorShape({2, 5}), TensorShape({2, 0}),
        TensorShape({2, 2})},
       1,
       1},
      // One non-empty input holds everything: shared, no launch.
      {{TensorShape({0, 3}), TensorShape({4, 3})}, 0, 0},
      {{TensorShape({2, 0}), TensorShape({2, 0})}, 1, 0},
      {{TensorShape({0, 3}), TensorShape({0, 3})}, 1, 0},
      {{TensorShape({2, 3, 4}), TensorShape({2, 1, 4}), TensorShape({2, 2, 4})},
       1,
       1},
      {{TensorShape({1, 1}), TensorShape({1, 1})}, 1, 1},
      {{TensorShape({300, 7, 5}), TensorShape({300, 7, 9})}, 2, 1},  // large
  };
  for (const Case& c : cases) {
    for (DataType dt : kLayoutTypes) {
      std::mt19937 rng(17);
      for (DataType at : {DT_INT32, DT_INT64}) {
        EXPECT_EQ(CheckConcat(RandomInputs(dt, c.shapes, &rng),
                              AsTensorOfType(at, {static_cast<double>(c.axis)},
                                             TensorShape())),
                  c.launches);
      }
    }
  }
  // The legacy one-element vector axis.
  std::mt19937 rng(1);
  EXPECT_EQ(CheckConcat(
                RandomInputs(DT_FLOAT,
                             {TensorShape({2, 2}), TensorShape({2, 3})}, &rng),
                IndexVector(DT_INT32, {1})),
            1);
}

// More inputs than one launch's table holds: several launches, each
// writing its own columns.
TEST(CudaConcatBodyTest, ManyInputsTakeSeveralLaunches) {
  std::mt19937 rng(19);
  for (int n : {gpu::kMaxConcatInputs, gpu::kMaxConcatInputs + 1, 150}) {
    std::vector<TensorShape> shapes;
    for (int i = 0; i < n; ++i) {
      // Some empty inputs, which take no table slot.
      shapes.push_back(TensorShape({3, i % 7 == 3 ? 0 : 1 + i % 4, 2}));
    }
    int non_empty = 0;
    for (const TensorShape& s : shapes) non_empty += s.num_elements() > 0;
    const int want =
        (non_empty + gpu::kMaxConcatInputs - 1) / gpu::kMaxConcatInputs;
    for (DataType dt : {DT_FLOAT, DT_BOOL}) {
      EXPECT_EQ(CheckConcat(RandomInputs(dt, shapes, &rng),
                            AsTensorOfType(DT_INT32, {-2}, TensorShape())),
                want)
          << n << " inputs";
    }
    // Pack of as many.
    std::vector<TensorShape> same(n, TensorShape({2, 3}));
    EXPECT_EQ(CheckPack(RandomInputs(DT_HALF, same, &rng), 1),
              (n + gpu::kMaxConcatInputs - 1) / gpu::kMaxConcatInputs);
  }
}

TEST(CudaConcatBodyTest, RandomConcats) {
  std::mt19937 rng(23);
  for (int iter = 0; iter < 200; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    const int axis = static_cast<int>(rng() % rank);
    std::vector<int64_t> dims(rank);
    for (int64_t& d : dims) d = 1 + rng() % 4;
    const int n = 2 + static_cast<int>(rng() % 5);
    std::vector<TensorShape> shapes;
    for (int i = 0; i < n; ++i) {
      std::vector<int64_t> di = dims;
      di[axis] = rng() % 5;  // 0 included
      shapes.push_back(MakeShape(di));
    }
    const DataType dt = kLayoutTypes[rng() % std::size(kLayoutTypes)];
    const int64_t a = rng() % 2 ? axis : axis - rank;
    CheckConcat(
        RandomInputs(dt, shapes, &rng),
        AsTensorOfType(DT_INT32, {static_cast<double>(a)}, TensorShape()));
  }
}

TEST(CudaConcatBodyTest, BadConcatsFailAsOnTheCpu) {
  std::mt19937 rng(29);
  const auto f = [&](std::vector<TensorShape> s) {
    return RandomInputs(DT_FLOAT, s, &rng);
  };
  const auto axis = [](double a) {
    return AsTensorOfType(DT_INT32, {a}, TensorShape());
  };
  EXPECT_EQ(CheckConcat(f({TensorShape({2, 3}), TensorShape({3, 3})}), axis(1)),
            -1);
  EXPECT_EQ(
      CheckConcat(f({TensorShape({2, 3}), TensorShape({2, 3, 1})}), axis(0)),
      -1);
  EXPECT_EQ(CheckConcat(f({TensorShape({2, 3}), TensorShape({2, 3})}), axis(2)),
            -1);
  EXPECT_EQ(
      CheckConcat(f({TensorShape({2, 3}), TensorShape({2, 3})}), axis(-3)), -1);
  EXPECT_EQ(CheckConcat(f({TensorShape(), TensorShape()}), axis(0)), -1);
  EXPECT_EQ(CheckConcat(f({TensorShape({2}), TensorShape({2})}),
                        IndexVector(DT_INT32, {0, 0})),
            -1);
}

TEST(CudaPackBodyTest, FixedAndRandomCases) {
  std::mt19937 rng(31);
  struct Case {
    TensorShape shape;
    int n;
    int64_t axis;
    int launches;
  };
  const Case cases[] = {
      {TensorShape(), 3, 0, 1},           {TensorShape(), 3, -1, 1},
      {TensorShape({4}), 2, 0, 1},        {TensorShape({4}), 2, 1, 1},
      {TensorShape({4}), 2, -1, 1},       {TensorShape({4}), 2, -2, 1},
      {TensorShape({2, 3}), 1, 1, 0},  // one input: shared
      {TensorShape({2, 3}), 4, 2, 1},     {TensorShape({0, 3}), 3, 1, 0},
      {TensorShape({2, 0}), 3, 0, 0},     {TensorShape({1, 1}), 2, 1, 1},
      {TensorShape({256, 513}), 3, 1, 1},
  };
  for (const Case& c : cases) {
    for (DataType dt : kLayoutTypes) {
      std::vector<TensorShape> shapes(c.n, c.shape);
      EXPECT_EQ(CheckPack(RandomInputs(dt, shapes, &rng), c.axis), c.launches)
          << c.shape.DebugString() << " x" << c.n << " axis " << c.axis;
    }
  }
  for (int iter = 0; iter < 100; ++iter) {
    const int rank = static_cast<int>(rng() % 4);
    std::vector<int64_t> dims(rank);
    for (int64_t& d : dims) d = rng() % 4;
    const int n = 1 + static_cast<int>(rng() % 4);
    const int64_t axis =
        static_cast<int64_t>(rng() % (2 * rank + 2)) - (rank + 1);
    std::vector<TensorShape> shapes(n, MakeShape(dims));
    CheckPack(RandomInputs(kLayoutTypes[rng() % 5], shapes, &rng), axis);
  }
  // Errors: mismatched shapes, axis out of range.
  EXPECT_EQ(CheckPack(RandomInputs(DT_FLOAT,
                                   {TensorShape({2}), TensorShape({3})}, &rng),
                      0),
            -1);
  EXPECT_EQ(CheckPack(RandomInputs(DT_FLOAT,
                                   {TensorShape({2}), TensorShape({2})}, &rng),
                      2),
            -1);
  EXPECT_EQ(CheckPack(RandomInputs(DT_FLOAT,
                                   {TensorShape({2}), TensorShape({2})}, &rng),
                      -3),
            -1);
}

// ---------------------------------------------------------------------------
// Reshape, ExpandDims, Squeeze: the output shape (the data is the input's).

void CheckShapeOp(const std::string& op, const AttrMap& attrs, const Tensor& x,
                  const Tensor* second, const StatusOr<TensorShape>& plan) {
  std::vector<Tensor> inputs = {x};
  if (second != nullptr) inputs.push_back(*second);
  const std::string what = absl::StrCat(
      op, " of ", ShapeString(x.shape()),
      second ? absl::StrCat(" with ", absl::StrJoin(ToDoubles(*second), ","))
             : "");
  StatusOr<Tensor> want = RunCpu(op, attrs, inputs);
  if (!BothSucceed(want, plan, what)) return;
  EXPECT_EQ(*plan, want->shape()) << what;
}

TEST(CudaAliasPlanTest, ReshapeMatchesTheCpuKernel) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>
      cases = {
          {{2, 3, 4}, {24}},
          {{2, 3, 4}, {-1}},
          {{2, 3, 4}, {4, -1}},
          {{2, 3, 4}, {6, 4}},
          {{2, 3, 4}, {5, -1}},
          {{2, 3, 4}, {-1, -1}},
          {{2, 3, 4}, {-2, 12}},
          {{2, 3, 4}, {25}},
          {{0, 3}, {0, -1}},
          {{0, 3}, {-1, 3}},
          {{0, 3}, {3, 0}},
          {{}, {1, 1}},
          {{}, {}},
          {{1}, {}},
          {{0}, {0, -1}},
          {{4}, {2, 0}},
      };
  for (const auto& [dims, target] : cases) {
    const Tensor x(DT_FLOAT, MakeShape(dims));
    for (DataType st : {DT_INT32, DT_INT64}) {
      const Tensor shape = IndexVector(st, target);
      CheckShapeOp("Reshape", {}, x, &shape, GetReshapeShape(x.shape(), shape));
    }
  }
  // A scalar shape is a one-element vector; a matrix is refused.
  const Tensor x(DT_FLOAT, TensorShape({5}));
  const Tensor scalar = AsTensorOfType(DT_INT32, {5}, TensorShape());
  CheckShapeOp("Reshape", {}, x, &scalar, GetReshapeShape(x.shape(), scalar));
  const Tensor matrix = AsTensorOfType(DT_INT32, {5}, TensorShape({1, 1}));
  CheckShapeOp("Reshape", {}, x, &matrix, GetReshapeShape(x.shape(), matrix));
}

TEST(CudaAliasPlanTest, ExpandDimsMatchesTheCpuKernel) {
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{}, {3}, {2, 0, 4}}) {
    const Tensor x(DT_HALF, MakeShape(dims));
    const int64_t rank = static_cast<int64_t>(dims.size());
    for (int64_t d = -rank - 3; d <= rank + 2; ++d) {
      for (DataType dt : {DT_INT32, DT_INT64}) {
        const Tensor dim =
            AsTensorOfType(dt, {static_cast<double>(d)}, TensorShape());
        CheckShapeOp("ExpandDims", {}, x, &dim,
                     GetExpandDimsShape(x.shape(), dim));
      }
    }
    const Tensor two = IndexVector(DT_INT32, {0, 1});
    CheckShapeOp("ExpandDims", {}, x, &two, GetExpandDimsShape(x.shape(), two));
  }
}

TEST(CudaAliasPlanTest, SqueezeMatchesTheCpuKernel) {
  const std::vector<std::vector<int64_t>> squeezes = {
      {}, {0}, {1}, {-1}, {0, -1}, {2}, {-4}, {3}, {0, 0}};
  for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{
           {}, {1}, {1, 3, 1}, {1, 0, 1}, {2, 3}}) {
    const Tensor x(DT_BOOL, MakeShape(dims));
    for (const std::vector<int64_t>& s : squeezes) {
      CheckShapeOp("Squeeze", {{"squeeze_dims", AttrValue::IntList(s)}}, x,
                   nullptr, GetSqueezeShape(x.shape(), s));
    }
  }
}

}  // namespace cuda_array_body_test
}  // namespace weft::test
