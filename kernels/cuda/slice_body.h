// Per-element body of the CUDA strided-copy kernel behind Slice and
// StridedSlice (slice_ops_gpu.cu), compiled for the device and for the host
// tests (tests/kernels/cuda_slice_body_test.cc), which run it over every
// output index and compare with the CPU kernels.
//
// Kernels are instantiated per element size (uint8_t .. uint64_t), never per
// dtype: the copy never looks at values.
#ifndef WEFT_KERNELS_CUDA_SLICE_BODY_H_
#define WEFT_KERNELS_CUDA_SLICE_BODY_H_

#include <cstdint>

#include "kernels/cuda/host_device.h"

namespace weft::gpu {

// The most dimensions a data-movement kernel indexes after the host merged
// contiguous and unpadded dimensions; more is an Unimplemented error from
// the kernel class.
inline constexpr int kMaxMoveRank = 8;

// out[i_0, ..., i_{rank-1}] = in[offset + sum_d i_d * strides[d]] over the
// row-major index space `dims`. Strides are in elements and may be negative
// (StridedSlice with a negative stride walks backwards from `offset`).
struct StridedCopyParams {
  int rank = 0;
  int64_t offset = 0;
  int64_t dims[kMaxMoveRank] = {};
  int64_t strides[kMaxMoveRank] = {};
};

// Where output element i reads in the input.
WEFT_HOST_DEVICE int64_t StridedCopySource(const StridedCopyParams& p,
                                           int64_t i) {
  int64_t src = p.offset;
  for (int d = p.rank - 1; d >= 0; --d) {
    const int64_t c = i % p.dims[d];
    i /= p.dims[d];
    src += c * p.strides[d];
  }
  return src;
}

template <typename E>
WEFT_HOST_DEVICE void StridedCopyElement(const StridedCopyParams& p,
                                         const E* in, E* out, int64_t i) {
  out[i] = in[StridedCopySource(p, i)];
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_SLICE_BODY_H_
