// How a CPU OpKernel hands its device's threads to the math layer
// (parallel_for.h): a ParallelForFn over OpKernelContext::ParallelFor.
#ifndef WEFT_KERNELS_CPU_CONTEXT_PARALLEL_FOR_H_
#define WEFT_KERNELS_CPU_CONTEXT_PARALLEL_FOR_H_

#include <cstdint>
#include <functional>

#include "kernels/cpu/parallel_for.h"
#include "kernels/op_kernel.h"

namespace weft {

// Valid while `ctx` is; holds one pointer (no allocation).
inline ParallelForFn ContextParallelFor(const OpKernelContext& ctx) {
  return [&ctx](int64_t n, int64_t cost_per_unit,
                const std::function<void(int64_t, int64_t)>& fn) {
    ctx.ParallelFor(n, cost_per_unit, fn);
  };
}

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_CONTEXT_PARALLEL_FOR_H_
