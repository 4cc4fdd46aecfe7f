// Memory-bandwidth references: STREAM-style loops over float32 arrays, run
// on an arena of the same thread count as the weft kernels they judge.
//
//   Copy   y = s * x          (STREAM's "scale": the traffic of a copy)
//   Triad  a = b + s * c
//   Read   sum of x           (16 independent partial sums)
//
// Copy multiplies by a runtime 1.0 so that the compiler cannot turn the loop
// into memcpy, whose non-temporal stores (glibc uses them for large copies)
// a kernel writing through the cache does not get. The loops are compiled
// with the same flags as weft. Bytes count each array read or written once.
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/kernel_runner.h"

namespace weft::bench {
namespace {

// Elements per parallel block: 64 KiB of floats, far above a task's cost.
constexpr int64_t kGrain = 16384;

volatile float g_one = 1.0f;

enum class Loop { kCopy, kTriad, kRead };

const char* LoopName(Loop loop) {
  switch (loop) {
    case Loop::kCopy:
      return "Copy";
    case Loop::kTriad:
      return "Triad";
    case Loop::kRead:
      return "Read";
  }
  return "?";
}

std::string RegisterLoop(Loop loop, int64_t n, int threads) {
  static auto* registered = new std::set<std::string>;
  const std::string name =
      absl::StrCat("Ref_", LoopName(loop), "/n:", n, "/threads:", threads);
  if (!registered->insert(name).second) return name;
  Register(name, [=](benchmark::State& state) {
    ReferenceArena arena(threads);
    // The arrays start 0, 1 and 2 cache lines past a page-aligned offset of
    // their buffers, as STREAM offsets its arrays: arrays whose addresses
    // differ by a multiple of 4 KiB make a load look like it depends on an
    // earlier store to the other array ("4K aliasing") and slow Triad down
    // by a quarter on this CPU, below what a kernel moving the same bytes
    // reaches.
    Tensor x = RandomFloatTensor(TensorShape({n + 32}), 1);
    Tensor y = RandomFloatTensor(TensorShape({n + 32}), 2);
    Tensor z = RandomFloatTensor(TensorShape({n + 32}), 3);
    const float* xp = x.data<float>();
    float* yp = y.data<float>() + 16;
    float* zp = z.data<float>() + 32;
    const float s = g_one;
    for (auto _ : state) {
      switch (loop) {
        case Loop::kCopy:
          arena.ParallelFor(n, kGrain, [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) yp[i] = s * xp[i];
          });
          break;
        case Loop::kTriad:
          arena.ParallelFor(n, kGrain, [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) zp[i] = xp[i] + s * yp[i];
          });
          break;
        case Loop::kRead:
          arena.ParallelFor(n, kGrain, [&](int64_t b, int64_t e) {
            float acc[16] = {};
            int64_t i = b;
            for (; i + 16 <= e; i += 16) {
              for (int j = 0; j < 16; ++j) acc[j] += xp[i + j];
            }
            for (; i < e; ++i) acc[0] += xp[i];
            float sum = 0;
            for (float a : acc) sum += a;
            benchmark::DoNotOptimize(sum);
          });
          break;
      }
      benchmark::ClobberMemory();
    }
    const int arrays = loop == Loop::kTriad ? 3 : loop == Loop::kCopy ? 2 : 1;
    SetGBps(state, 4.0 * arrays * static_cast<double>(n));
  });
  return name;
}

}  // namespace

std::string CopyReference(int64_t n, int threads) {
  return RegisterLoop(Loop::kCopy, n, threads);
}
std::string TriadReference(int64_t n, int threads) {
  return RegisterLoop(Loop::kTriad, n, threads);
}
std::string ReadReference(int64_t n, int threads) {
  return RegisterLoop(Loop::kRead, n, threads);
}

}  // namespace weft::bench
