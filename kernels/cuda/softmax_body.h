// The per-element code of the CUDA Softmax and LogSoftmax
// (reduce_ops_gpu.cu), also compiled for the host so that
// tests/kernels/cuda_reduce_body_test.cc can check it against the CPU
// kernel. Over the last dimension, in float for float and half:
//
//   m = max_j x_j (NaN if any is NaN)
//   s = sum_j e(x_j - m), e(v) = exp(v), 0 below -88.72 as on the CPU
//   softmax_i = e(x_i - m) * (1 / s),  log_softmax_i = (x_i - m) - log(s)
//
// One warp per row (a block of kReduceBlockThreads for rows longer than
// kSoftmaxWarpRowMax). Thread t of a row's `threads` combines elements t,
// t + threads, ... in order, then the threads combine as in reduce_body.h
// (TreeCombine within each warp; for a block, warp 0 combines the warps'
// results, padded to 32 with the identity, by the same tree).
#ifndef WEFT_KERNELS_CUDA_SOFTMAX_BODY_H_
#define WEFT_KERNELS_CUDA_SOFTMAX_BODY_H_

#include <cmath>
#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/cuda/reduce_body.h"

namespace weft::gpu {

inline constexpr int64_t kSoftmaxWarpRowMax = 1024;

struct SoftmaxParams {
  int64_t rows = 0;
  int64_t depth = 0;
  bool log = false;
  // A block per row rather than a warp.
  bool block = false;

  WEFT_HOST_DEVICE int threads_per_row() const {
    return block ? kReduceBlockThreads : kReduceWarp;
  }
};

// The parameters the kernel class launches with for `rows` x `depth`.
inline SoftmaxParams PlanSoftmax(int64_t rows, int64_t depth, bool log) {
  SoftmaxParams p;
  p.rows = rows;
  p.depth = depth;
  p.log = log;
  p.block = depth > kSoftmaxWarpRowMax;
  return p;
}

WEFT_HOST_DEVICE float SoftmaxShiftedExp(float v) {
  return v < -88.72f ? 0.0f : expf(v);
}

// Thread `lane`'s maximum over its elements of row `row`.
template <typename In>
WEFT_HOST_DEVICE float SoftmaxMaxPartial(const SoftmaxParams& p, const In* x,
                                         int64_t row, int lane) {
  const In* r = x + row * p.depth;
  float acc = ReduceIdentity(ReduceOp::kMax);
  for (int64_t i = lane; i < p.depth; i += p.threads_per_row()) {
    acc = ReduceCombine(ReduceOp::kMax, acc, static_cast<float>(r[i]));
  }
  return acc;
}

// Thread `lane`'s sum of e(x - m) over its elements of row `row`.
template <typename In>
WEFT_HOST_DEVICE float SoftmaxSumPartial(const SoftmaxParams& p, const In* x,
                                         int64_t row, float m, int lane) {
  const In* r = x + row * p.depth;
  float acc = 0.0f;
  for (int64_t i = lane; i < p.depth; i += p.threads_per_row()) {
    acc += SoftmaxShiftedExp(static_cast<float>(r[i]) - m);
  }
  return acc;
}

// The output for input value v of a row with maximum m and sum s.
WEFT_HOST_DEVICE float SoftmaxValue(const SoftmaxParams& p, float v, float m,
                                    float s) {
  return p.log ? (v - m) - logf(s) : SoftmaxShiftedExp(v - m) * (1.0f / s);
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_SOFTMAX_BODY_H_
