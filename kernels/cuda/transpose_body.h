// The index arithmetic of the CUDA Transpose kernel (array_ops_gpu.cu),
// also compiled for the host so that tests/kernels/cuda_array_body_test.cc
// checks it against the CPU kernel without a GPU. The host (array_plan.h)
// has already dropped size-1 dimensions and merged dimensions that stay
// next to each other, so `rank` is the smallest that describes the move.
#ifndef WEFT_KERNELS_CUDA_TRANSPOSE_BODY_H_
#define WEFT_KERNELS_CUDA_TRANSPOSE_BODY_H_

#include <cstdint>

#include "kernels/cuda/host_device.h"

namespace weft::gpu {

// The most dimensions a transpose may have after merging; more is reported
// by the kernel class as Unimplemented.
inline constexpr int kMaxTransposeRank = 8;

struct TransposeParams {
  int rank = 0;
  // The output's (merged) dimensions, row-major.
  int64_t out_dims[kMaxTransposeRank] = {};
  // Per output dimension, the input's element stride along it.
  int64_t in_strides[kMaxTransposeRank] = {};
};

// The input element that output element `i` copies.
WEFT_HOST_DEVICE int64_t TransposeSource(const TransposeParams& p, int64_t i) {
  int64_t src = 0;
  for (int d = p.rank - 1; d >= 0; --d) {
    const int64_t q = i / p.out_dims[d];
    src += (i - q * p.out_dims[d]) * p.in_strides[d];
    i = q;
  }
  return src;
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_TRANSPOSE_BODY_H_
