// The arithmetic ceiling of this machine on the kernels' active CPU path:
// a register-resident loop of independent multiply-adds, one stream per
// thread, run on an arena of the same thread count as the weft kernels it
// judges. Products and convolutions are paired with it in the summary, so
// their "fraction" column reads as the share of the FMA peak they reach.
//
// Per path: avx512 issues 16-wide fused multiply-adds, avx2 8-wide ones,
// baseline (SSE, no FMA) a 4-wide multiply and a 4-wide add; a fused
// multiply-add counts 2 flops per lane, as the kernels' GFLOP/s do. Twelve
// accumulators hide the FMA latency (4 cycles on two ports needs at least
// 8 chains in flight). The peak is measured, not computed from a nominal
// clock: a VM's vCPU may run at any frequency, and whether its two vCPUs
// are two cores or one shows in the threads:2 figure.
#include <immintrin.h>

#include <cstdint>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/kernel_runner.h"
#include "device/cpu_isa.h"

namespace weft::bench {
namespace {

// Multiply-add steps per accumulator per task: ~1.3 ms of work on one core
// at 3 GHz on the avx512 path, far above a task's scheduling cost.
constexpr int64_t kSteps = 1 << 18;
constexpr int kChains = 12;

// a <- a * x + y stays in (0, 1] from a = 0.5 with these x, y: no
// denormals, no overflow, and the result is used, so no step is dropped.
constexpr float kX = 0.999f;
constexpr float kY = 0.001f;

__attribute__((target("avx2,fma,avx512f"))) float Chains512(int64_t steps) {
  const __m512 x = _mm512_set1_ps(kX);
  const __m512 y = _mm512_set1_ps(kY);
  __m512 a[kChains];
  for (__m512& v : a) v = _mm512_set1_ps(0.5f);
  for (int64_t s = 0; s < steps; ++s) {
    for (__m512& v : a) v = _mm512_fmadd_ps(v, x, y);
  }
  __m512 sum = a[0];
  for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, a[c]);
  return _mm512_reduce_add_ps(sum);
}

__attribute__((target("avx2,fma"))) float Chains256(int64_t steps) {
  const __m256 x = _mm256_set1_ps(kX);
  const __m256 y = _mm256_set1_ps(kY);
  __m256 a[kChains];
  for (__m256& v : a) v = _mm256_set1_ps(0.5f);
  for (int64_t s = 0; s < steps; ++s) {
    for (__m256& v : a) v = _mm256_fmadd_ps(v, x, y);
  }
  __m256 sum = a[0];
  for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, a[c]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  float total = 0;
  for (float l : lanes) total += l;
  return total;
}

float Chains128(int64_t steps) {
  const __m128 x = _mm_set1_ps(kX);
  const __m128 y = _mm_set1_ps(kY);
  __m128 a[kChains];
  for (__m128& v : a) v = _mm_set1_ps(0.5f);
  for (int64_t s = 0; s < steps; ++s) {
    for (__m128& v : a) v = _mm_add_ps(_mm_mul_ps(v, x), y);
  }
  __m128 sum = a[0];
  for (int c = 1; c < kChains; ++c) sum = _mm_add_ps(sum, a[c]);
  float lanes[4];
  _mm_storeu_ps(lanes, sum);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

int Lanes(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx512:
      return 16;
    case CpuIsa::kAvx2:
      return 8;
    case CpuIsa::kBaseline:
      return 4;
  }
  return 4;
}

float RunChains(CpuIsa isa, int64_t steps) {
  switch (isa) {
    case CpuIsa::kAvx512:
      return Chains512(steps);
    case CpuIsa::kAvx2:
      return Chains256(steps);
    case CpuIsa::kBaseline:
      return Chains128(steps);
  }
  return 0;
}

}  // namespace

std::string FmaPeakReference(int threads) {
  static auto* registered = new std::set<std::string>;
  const CpuIsa isa = ActiveCpuIsa();
  const std::string name =
      absl::StrCat("FmaPeak/", CpuIsaName(isa), "/threads:", threads);
  if (!registered->insert(name).second) return name;
  Register(name, [=](benchmark::State& state) {
    ReferenceArena arena(threads);
    for (auto _ : state) {
      // One task per thread (grain 1 over `threads` items).
      arena.ParallelFor(threads, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          benchmark::DoNotOptimize(RunChains(isa, kSteps));
        }
      });
    }
    SetGflops(state, 2.0 * threads * kSteps * kChains * Lanes(isa));
  });
  return name;
}

}  // namespace weft::bench
