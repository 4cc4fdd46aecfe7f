// The index arithmetic of the CUDA Tile kernel (array_ops_gpu.cu), also
// compiled for the host so that tests/kernels/cuda_array_body_test.cc
// checks it against the CPU kernel without a GPU. The host (array_plan.h)
// has already merged each dimension with multiple 1 into the one before it,
// so `rank` is the smallest that describes the copy.
#ifndef WEFT_KERNELS_CUDA_TILE_BODY_H_
#define WEFT_KERNELS_CUDA_TILE_BODY_H_

#include <cstdint>

#include "kernels/cuda/host_device.h"

namespace weft::gpu {

// The most dimensions a tiling may have after merging; more is reported by
// the kernel class as Unimplemented.
inline constexpr int kMaxTileRank = 8;

struct TileParams {
  int rank = 0;
  // Output dimension d is in_dims[d] * multiple; every value of it reads
  // input coordinate (coordinate % in_dims[d]).
  int64_t out_dims[kMaxTileRank] = {};
  int64_t in_dims[kMaxTileRank] = {};
  int64_t in_strides[kMaxTileRank] = {};
};

// The input element that output element `i` copies. Index is int32_t when
// the output has fewer than 2^31 elements (32-bit division is several times
// faster on GPUs).
template <typename Index>
WEFT_HOST_DEVICE Index TileSource(const TileParams& p, Index i) {
  Index src = 0;
  for (int d = p.rank - 1; d >= 0; --d) {
    const Index dim = static_cast<Index>(p.out_dims[d]);
    const Index q = i / dim;
    const Index c = i - q * dim;
    src += (c % static_cast<Index>(p.in_dims[d])) *
           static_cast<Index>(p.in_strides[d]);
    i = q;
  }
  return src;
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_TILE_BODY_H_
