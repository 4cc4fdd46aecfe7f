// The math layer's (gemm.h, conv2d.h, depthwise_conv.h) one tie to where it
// runs: a parallel-for. The kernels pass their device's threads
// (context_parallel_for.h); benchmarks, fusions and other front ends pass
// any pool, or SerialFor() for the calling thread, without building an
// OpKernelContext.
#ifndef WEFT_KERNELS_CPU_PARALLEL_FOR_H_
#define WEFT_KERNELS_CPU_PARALLEL_FOR_H_

#include <cstdint>
#include <functional>

namespace weft {

// Calls fn(begin, end) on disjoint ranges that cover units [0, n), each
// unit costing about `cost_per_unit` cycles, from any threads, and returns
// when all have run. The math layer chooses its units from the shapes
// alone, so its results do not depend on how the ranges fall.
using ParallelForFn = std::function<void(
    int64_t n, int64_t cost_per_unit,
    const std::function<void(int64_t begin, int64_t end)>& fn)>;

// The CPU device's ParallelFor cuts [0, n) once into one range of
// consecutive units per thread (a static partition, device/cpu_device.cc),
// so threads get equal shares only when the units cost alike and their count
// divides evenly. The kernels that choose their own units make the count a
// multiple of this where the shape allows: one, two or four threads then
// share evenly (a product of 11 equal column parts left one of two threads
// 6/11 of the work; bench/RESULTS.md section 42).
inline constexpr int64_t kEqualShareUnits = 4;

// A ParallelForFn that runs everything on the calling thread.
inline const ParallelForFn& SerialFor() {
  static const ParallelForFn* const serial = new ParallelForFn(
      [](int64_t n, int64_t, const std::function<void(int64_t, int64_t)>& fn) {
        if (n > 0) fn(0, n);
      });
  return *serial;
}

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_PARALLEL_FOR_H_
