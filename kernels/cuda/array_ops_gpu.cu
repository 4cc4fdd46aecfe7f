// Data-movement CUDA kernels: Cast, Transpose, ConcatV2/Pack, Tile. Each is
// a grid-stride loop around the per-element code of its *_body.h header,
// which the host tests run too. One kernel per element size (or, for Cast,
// per source type with the destination a uniform switch), to keep nvcc's
// time small.
#include <algorithm>
#include <cstdint>

#include "kernels/cuda/array_ops_gpu.h"

namespace weft::gpu {
namespace {

constexpr int kThreads = 256;

// Grid size for a grid-stride loop over n elements: enough blocks to fill
// the GPU several times over, capped so huge tensors loop instead.
unsigned int Blocks(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned int>(std::min<int64_t>(blocks, 65535 * 8));
}

__device__ __forceinline__ int64_t FirstIndex() {
  return blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
}
__device__ __forceinline__ int64_t GridStride() {
  return int64_t{blockDim.x} * gridDim.x;
}

template <CastType kSrc>
__global__ void CastKernel(CastParams p, const void* in, void* out, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    CastElement<kSrc>(p, in, out, i);
  }
}

template <typename E>
__global__ void TransposeKernel(TransposeParams p, const E* in, E* out,
                                int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    out[i] = in[TransposeSource(p, i)];
  }
}

template <typename E>
__global__ void TileKernel(TileParams p, const E* in, E* out, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    out[i] = in[TileSource(p, i)];
  }
}

template <typename E>
__global__ void ConcatKernel(ConcatParams p, E* out, int64_t n) {
  for (int64_t j = FirstIndex(); j < n; j += GridStride()) {
    const ConcatElement e = ConcatLocate(p, j);
    out[e.dst] = static_cast<const E*>(p.inputs[e.input])[e.src];
  }
}

// Calls fn(E{}) with the unsigned type of `element_size` bytes; false for
// other sizes.
template <typename Fn>
bool WithElement(int element_size, Fn&& fn) {
  switch (element_size) {
    case 1:
      fn(uint8_t{});
      return true;
    case 2:
      fn(uint16_t{});
      return true;
    case 4:
      fn(uint32_t{});
      return true;
    case 8:
      fn(uint64_t{});
      return true;
  }
  return false;
}

}  // namespace

cudaError_t LaunchCast(CastType src, const CastParams& p, const void* in,
                       void* out, int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  switch (src) {
    case CastType::kBool:
      CastKernel<CastType::kBool>
          <<<Blocks(n), kThreads, 0, stream>>>(p, in, out, n);
      break;
    case CastType::kInt32:
      CastKernel<CastType::kInt32>
          <<<Blocks(n), kThreads, 0, stream>>>(p, in, out, n);
      break;
    case CastType::kInt64:
      CastKernel<CastType::kInt64>
          <<<Blocks(n), kThreads, 0, stream>>>(p, in, out, n);
      break;
    case CastType::kHalf:
      CastKernel<CastType::kHalf>
          <<<Blocks(n), kThreads, 0, stream>>>(p, in, out, n);
      break;
    case CastType::kFloat:
      CastKernel<CastType::kFloat>
          <<<Blocks(n), kThreads, 0, stream>>>(p, in, out, n);
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
  const bool known = WithElement(element_size, [&](auto e) {
    using E = decltype(e);
    TransposeKernel<<<Blocks(n), kThreads, 0, stream>>>(
        p, static_cast<const E*>(in), static_cast<E*>(out), n);
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t LaunchTile(int element_size, const TileParams& p, const void* in,
                       void* out, int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const bool known = WithElement(element_size, [&](auto e) {
    using E = decltype(e);
    TileKernel<<<Blocks(n), kThreads, 0, stream>>>(p, static_cast<const E*>(in),
                                                   static_cast<E*>(out), n);
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t LaunchConcat(int element_size, const ConcatParams& p, int64_t rows,
                         void* out, cudaStream_t stream) {
  const int64_t n = rows * p.width;
  if (n <= 0) return cudaSuccess;
  const bool known = WithElement(element_size, [&](auto e) {
    using E = decltype(e);
    ConcatKernel<<<Blocks(n), kThreads, 0, stream>>>(p, static_cast<E*>(out),
                                                     n);
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

}  // namespace weft::gpu
