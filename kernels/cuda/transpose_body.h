// The index arithmetic of the CUDA Transpose kernels (array_ops_gpu.cu),
// also compiled for the host so that tests/kernels/cuda_array_body_test.cc
// checks it against the CPU kernel without a GPU. The host (array_plan.h)
// has already dropped size-1 dimensions and merged dimensions that stay
// next to each other, so `rank` is the smallest that describes the move.
//
// Two kernels: a gather over the output (TransposeSource) for any
// permutation, and, for the common case of swapping the last two
// dimensions of [batch, rows, cols] (a 2-D transpose, NHWC <-> NCHW), a
// tiled kernel that stages 32 x 32 tiles in shared memory so that both the
// reads and the writes are contiguous across a warp.
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

// The input element that output element `i` copies. Index is int32_t when
// the tensor has fewer than 2^31 elements: GPUs divide 32-bit integers
// several times faster than 64-bit ones, and this loop is all divisions.
template <typename Index>
WEFT_HOST_DEVICE Index TransposeSource(const TransposeParams& p, Index i) {
  Index src = 0;
  for (int d = p.rank - 1; d >= 0; --d) {
    const Index dim = static_cast<Index>(p.out_dims[d]);
    const Index q = i / dim;
    src += (i - q * dim) * static_cast<Index>(p.in_strides[d]);
    i = q;
  }
  return src;
}

// The tiled kernel: input [batch, rows, cols] -> output [batch, cols, rows].
inline constexpr int kSwapTile = 32;
// Rows of a tile one pass of a block's threads covers (blockDim.y).
inline constexpr int kSwapTileRows = 8;

struct SwapParams {
  int64_t batch = 0;
  int64_t rows = 0;
  int64_t cols = 0;
};

WEFT_HOST_DEVICE int64_t SwapTilesPerMatrix(const SwapParams& p) {
  return ((p.rows + kSwapTile - 1) / kSwapTile) *
         ((p.cols + kSwapTile - 1) / kSwapTile);
}

WEFT_HOST_DEVICE int64_t SwapNumTiles(const SwapParams& p) {
  return p.batch * SwapTilesPerMatrix(p);
}

// The first element of tile `t`: its matrix, row and column.
struct SwapTileOrigin {
  int64_t b = 0;
  int64_t r0 = 0;
  int64_t c0 = 0;
};

WEFT_HOST_DEVICE SwapTileOrigin SwapTileOf(const SwapParams& p, int64_t t) {
  const int64_t per_matrix = SwapTilesPerMatrix(p);
  const int64_t col_tiles = (p.cols + kSwapTile - 1) / kSwapTile;
  SwapTileOrigin o;
  o.b = t / per_matrix;
  const int64_t rest = t - o.b * per_matrix;
  o.r0 = (rest / col_tiles) * kSwapTile;
  o.c0 = (rest % col_tiles) * kSwapTile;
  return o;
}

// The input element at row r0 + i, column c0 + j of the tile's matrix, or
// -1 where the tile runs past the matrix. The kernel loads it into
// tile[i][j], with j the lane, so a warp reads one contiguous row segment.
WEFT_HOST_DEVICE int64_t SwapLoadIndex(const SwapParams& p,
                                       const SwapTileOrigin& o, int i, int j) {
  const int64_t r = o.r0 + i, c = o.c0 + j;
  if (r >= p.rows || c >= p.cols) return -1;
  return (o.b * p.rows + r) * p.cols + c;
}

// The output element that tile[i][j] goes to: output row c0 + j, column
// r0 + i of the matrix, or -1 outside it. The kernel stores with i the lane,
// so a warp writes one contiguous output row segment.
WEFT_HOST_DEVICE int64_t SwapStoreIndex(const SwapParams& p,
                                        const SwapTileOrigin& o, int i, int j) {
  const int64_t r = o.r0 + i, c = o.c0 + j;
  if (r >= p.rows || c >= p.cols) return -1;
  return (o.b * p.cols + c) * p.rows + r;
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_TRANSPOSE_BODY_H_
