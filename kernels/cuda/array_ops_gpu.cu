// Data-movement CUDA kernels: Cast, Transpose, ConcatV2/Pack, Tile. Each is
// a grid-stride loop around the per-element code of its *_body.h header,
// which the host tests run too (the tiled transpose's shared-memory
// staging included, emulated). To keep nvcc's time small there is one
// kernel per element size and index width (32-bit where the tensor allows,
// as GPUs divide 32-bit integers much faster), not per dtype; Cast has one
// per source type, the destination a uniform switch.
#include <algorithm>
#include <cstdint>

#include "kernels/cuda/array_ops_gpu.h"
#include "kernels/cuda/grid_stride.cuh"

namespace weft::gpu {
namespace {

template <CastType kSrc>
__global__ void CastKernel(CastParams p, const void* in, void* out, int64_t n) {
  for (int64_t i = GridStrideBegin(); i < n; i += GridStrideStep()) {
    CastElement<kSrc>(p, in, out, i);
  }
}

template <typename E, typename Index>
__global__ void TransposeKernel(TransposeParams p, const E* in, E* out,
                                int64_t n) {
  for (int64_t i = GridStrideBegin(); i < n; i += GridStrideStep()) {
    out[i] = in[TransposeSource<Index>(p, static_cast<Index>(i))];
  }
}

// One tile per block iteration: blockDim (kSwapTile, kSwapTileRows); the
// extra column keeps the column-wise reads of the tile off shared memory
// bank conflicts.
template <typename E>
__global__ void SwapKernel(SwapParams p, const E* in, E* out,
                           int64_t num_tiles) {
  __shared__ E tile[kSwapTile][kSwapTile + 1];
  const int lane = threadIdx.x;
  for (int64_t t = blockIdx.x; t < num_tiles; t += gridDim.x) {
    const SwapTileOrigin o = SwapTileOf(p, t);
    for (int i = threadIdx.y; i < kSwapTile; i += kSwapTileRows) {
      const int64_t src = SwapLoadIndex(p, o, i, lane);
      if (src >= 0) tile[i][lane] = in[src];
    }
    __syncthreads();
    for (int j = threadIdx.y; j < kSwapTile; j += kSwapTileRows) {
      const int64_t dst = SwapStoreIndex(p, o, lane, j);
      if (dst >= 0) out[dst] = tile[lane][j];
    }
    // The next tile overwrites `tile`.
    __syncthreads();
  }
}

template <typename E, typename Index>
__global__ void TileKernel(TileParams p, const E* in, E* out, int64_t n) {
  for (int64_t i = GridStrideBegin(); i < n; i += GridStrideStep()) {
    out[i] = in[TileSource<Index>(p, static_cast<Index>(i))];
  }
}

template <typename E, typename Index>
__global__ void ConcatKernel(ConcatParams p, E* out, int64_t n) {
  for (int64_t j = GridStrideBegin(); j < n; j += GridStrideStep()) {
    const ConcatElement<Index> e =
        ConcatLocate<Index>(p, static_cast<Index>(j));
    out[e.dst] = static_cast<const E*>(p.inputs[e.input])[e.src];
  }
}

// Whether every index of a tensor of `n` elements fits int32_t.
bool Fits32(int64_t n) { return n <= INT32_MAX; }

}  // namespace

cudaError_t LaunchCast(CastType src, const CastParams& p, const void* in,
                       void* out, int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  switch (src) {
    case CastType::kBool:
      CastKernel<CastType::kBool>
          <<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(p, in, out,
                                                                   n);
      break;
    case CastType::kInt32:
      CastKernel<CastType::kInt32>
          <<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(p, in, out,
                                                                   n);
      break;
    case CastType::kInt64:
      CastKernel<CastType::kInt64>
          <<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(p, in, out,
                                                                   n);
      break;
    case CastType::kHalf:
      CastKernel<CastType::kHalf>
          <<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(p, in, out,
                                                                   n);
      break;
    case CastType::kFloat:
      CastKernel<CastType::kFloat>
          <<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(p, in, out,
                                                                   n);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchTranspose(int element_size, const TransposeParams& p,
                            const void* in, void* out, int64_t n,
                            cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const bool known = WithElementSize(element_size, [&](auto e) {
    using E = decltype(e);
    if (Fits32(n)) {
      TransposeKernel<E, int32_t>
          <<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
              p, static_cast<const E*>(in), static_cast<E*>(out), n);
    } else {
      TransposeKernel<E, int64_t>
          <<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
              p, static_cast<const E*>(in), static_cast<E*>(out), n);
    }
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t LaunchSwapTranspose(int element_size, const SwapParams& p,
                                const void* in, void* out,
                                cudaStream_t stream) {
  const int64_t tiles = SwapNumTiles(p);
  if (tiles <= 0) return cudaSuccess;
  const unsigned int blocks =
      static_cast<unsigned int>(std::min<int64_t>(tiles, 65535 * 8));
  const dim3 threads(kSwapTile, kSwapTileRows);
  const bool known = WithElementSize(element_size, [&](auto e) {
    using E = decltype(e);
    SwapKernel<<<blocks, threads, 0, stream>>>(p, static_cast<const E*>(in),
                                               static_cast<E*>(out), tiles);
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t LaunchTile(int element_size, const TileParams& p, const void* in,
                       void* out, int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const bool known = WithElementSize(element_size, [&](auto e) {
    using E = decltype(e);
    if (Fits32(n)) {
      TileKernel<E, int32_t>
          <<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
              p, static_cast<const E*>(in), static_cast<E*>(out), n);
    } else {
      TileKernel<E, int64_t>
          <<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
              p, static_cast<const E*>(in), static_cast<E*>(out), n);
    }
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t LaunchConcat(int element_size, const ConcatParams& p, int64_t rows,
                         void* out, cudaStream_t stream) {
  const int64_t n = rows * p.width;
  if (n <= 0) return cudaSuccess;
  const bool known = WithElementSize(element_size, [&](auto e) {
    using E = decltype(e);
    // The output's size bounds every index, the inputs' included.
    if (Fits32(rows * p.out_row_width)) {
      ConcatKernel<E, int32_t>
          <<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
              p, static_cast<E*>(out), n);
    } else {
      ConcatKernel<E, int64_t>
          <<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
              p, static_cast<E*>(out), n);
    }
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

}  // namespace weft::gpu
