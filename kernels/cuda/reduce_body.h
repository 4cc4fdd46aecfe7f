// The per-element code of the CUDA reductions (reduce_ops_gpu.cu), also
// compiled for the host so that tests/kernels/cuda_reduce_body_test.cc can
// run it over every output and compare with the CPU kernels.
//
// One pass reduces a source viewed as [outer, len, inner] over its middle
// dimension, optionally cut into `segments` pieces of `segment_len` (a long
// run with few outputs is reduced in two passes: pieces, then the pieces'
// results). Output element (o, s, j), row-major over [outer, segments,
// inner], combines src[o, r, j] for r in piece s. Partial results are float
// for float and half alike; the last pass finishes (Mean divides) and the
// kernel rounds once to the output type.
//
// Strategies (how threads share one output element):
//  - kColumns: one thread per output, combining its piece in order r0, r0+1,
//    ...; consecutive threads read consecutive j, so with inner > 1 the
//    loads coalesce, and with inner == 1 and short rows one thread per row
//    wastes no lanes.
//  - kWarpRows (inner == 1): a warp per output; lane l combines r0+l,
//    r0+l+32, ... in order, then lanes combine by the shuffle-down tree of
//    TreeCombine (offsets 16, 8, 4, 2, 1).
//  - kBlockRows (inner == 1): a block of kReduceBlockThreads per output;
//    thread t combines r0+t, r0+t+256, ...; each warp combines by the tree,
//    then warp 0 combines the 8 warp results (padded with the identity to
//    32 lanes) by the same tree.
#ifndef WEFT_KERNELS_CUDA_REDUCE_BODY_H_
#define WEFT_KERNELS_CUDA_REDUCE_BODY_H_

#include <cmath>
#include <cstdint>

#include "kernels/cuda/host_device.h"

namespace weft::gpu {

enum class ReduceOp : int { kSum = 0, kMean, kProd, kMax, kMin };
enum class ReduceStrategy : int { kColumns = 0, kWarpRows, kBlockRows };

inline constexpr int kReduceWarp = 32;
inline constexpr int kReduceBlockThreads = 256;

struct ReduceParams {
  ReduceOp op = ReduceOp::kSum;
  ReduceStrategy strategy = ReduceStrategy::kColumns;
  int64_t outer = 1;
  int64_t len = 0;
  int64_t inner = 1;
  int64_t segments = 1;
  int64_t segment_len = 0;  // >= 1 unless len == 0
  // Whether this is the last pass: its results are the op's output, and a
  // Mean divides them by `count` (the input elements per output; 0 for an
  // empty reduction, whose 0 / 0 is the NaN the CPU gives).
  bool finish = false;
  int64_t count = 1;

  WEFT_HOST_DEVICE int64_t num_outputs() const {
    return outer * segments * inner;
  }
};

WEFT_HOST_DEVICE float ReduceIdentity(ReduceOp op) {
  switch (op) {
    case ReduceOp::kProd:
      return 1.0f;
    case ReduceOp::kMax:
      return -INFINITY;
    case ReduceOp::kMin:
      return INFINITY;
    default:
      return 0.0f;
  }
}

// Max and Min propagate NaN, as the CPU kernels' Eigen PropagateNaN
// reducers do (fmaxf would drop it). `a != a` rather than isnan keeps the
// code the same on host and device.
WEFT_HOST_DEVICE float ReduceCombine(ReduceOp op, float a, float b) {
  switch (op) {
    case ReduceOp::kProd:
      return a * b;
    case ReduceOp::kMax:
      return a != a ? a : (b != b ? b : (a > b ? a : b));
    case ReduceOp::kMin:
      return a != a ? a : (b != b ? b : (a < b ? a : b));
    default:
      return a + b;
  }
}

// The float value stored (rounded to the output type) for partial `acc`.
// Division, not a reciprocal multiply, as the CPU's Mean.
WEFT_HOST_DEVICE float ReduceFinish(const ReduceParams& p, float acc) {
  if (p.finish && p.op == ReduceOp::kMean) {
    return acc / static_cast<float>(p.count);
  }
  return acc;
}

// The combine, in order, of src[o, r, j] for r = r0 + first, r0 + first +
// step, ... within output `out`'s piece [r0, r1). kColumns calls it with
// (0, 1), a row lane with (lane, threads per row).
template <typename In>
WEFT_HOST_DEVICE float ReducePartial(const ReduceParams& p, const In* x,
                                     int64_t out, int64_t first, int64_t step) {
  const int64_t j = out % p.inner;
  const int64_t os = out / p.inner;
  const int64_t s = os % p.segments;
  const int64_t o = os / p.segments;
  const int64_t r0 = s * p.segment_len;
  const int64_t r1 = r0 + p.segment_len < p.len ? r0 + p.segment_len : p.len;
  const In* base = x + o * p.len * p.inner + j;
  float acc = ReduceIdentity(p.op);
  for (int64_t r = r0 + first; r < r1; r += step) {
    acc = ReduceCombine(p.op, acc, static_cast<float>(base[r * p.inner]));
  }
  return acc;
}

// v[0] becomes what the GPU's shuffle-down tree leaves in lane 0 over n
// (a power of two) lanes: at offset n/2, n/4, ..., 1, lane l takes
// combine(v[l], v[l + offset]). The device code does this with
// __shfl_down_sync; the host tests call it to reproduce that order.
WEFT_HOST_DEVICE void TreeCombine(ReduceOp op, float* v, int n) {
  for (int offset = n / 2; offset > 0; offset /= 2) {
    for (int l = 0; l < offset; ++l)
      v[l] = ReduceCombine(op, v[l], v[l + offset]);
  }
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_REDUCE_BODY_H_
