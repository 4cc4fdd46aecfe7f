// Data-movement CUDA kernels: strided copy (Slice, StridedSlice), pad
// (Pad, PadV2, MirrorPad), gather (GatherV2) and fill (Fill, ZerosLike,
// OnesLike). Each is a grid-stride loop around the per-element body in
// slice_body.h, pad_body.h or gather_body.h, which the host tests check.
// One kernel per element size (and index type for gather), not per dtype
// or op: 20 kernels in all, which keeps nvcc's time small.
#include <algorithm>
#include <cstdint>

#include "kernels/cuda/grid_stride.cuh"
#include "kernels/cuda/slice_ops_gpu.h"

namespace weft::gpu {
namespace {

template <typename E>
__global__ void StridedCopyKernel(StridedCopyParams p, const E* in, E* out,
                                  int64_t n) {
  for (int64_t i = GridStrideBegin(); i < n; i += GridStrideStep()) {
    StridedCopyElement(p, in, out, i);
  }
}

template <typename E>
__global__ void PadKernel(PadParams p, const E* in, E value, E* out,
                          int64_t n) {
  for (int64_t i = GridStrideBegin(); i < n; i += GridStrideStep()) {
    PadElement(p, in, value, out, i);
  }
}

template <typename E, typename Index>
__global__ void GatherKernel(GatherParams p, const E* params,
                             const Index* indices, E* out, int64_t n) {
  for (int64_t i = GridStrideBegin(); i < n; i += GridStrideStep()) {
    GatherElement(p, params, indices, out, i);
  }
}

template <typename E>
__global__ void FillKernel(E value, E* out, int64_t n) {
  for (int64_t i = GridStrideBegin(); i < n; i += GridStrideStep())
    out[i] = value;
}

}  // namespace

cudaError_t LaunchStridedCopy(int element_bytes, const void* in, void* out,
                              int64_t n, const StridedCopyParams& params,
                              cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const bool known = WithElementSize(element_bytes, [&](auto tag) {
    using E = decltype(tag);
    StridedCopyKernel<<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
        params, static_cast<const E*>(in), static_cast<E*>(out), n);
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t LaunchPad(int element_bytes, const void* in, uint64_t value_bits,
                      void* out, int64_t n, const PadParams& params,
                      cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const bool known = WithElementSize(element_bytes, [&](auto tag) {
    using E = decltype(tag);
    PadKernel<<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
        params, static_cast<const E*>(in), static_cast<E>(value_bits),
        static_cast<E*>(out), n);
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t LaunchGather(int element_bytes, bool index_is_64,
                         const void* params, const void* indices, void* out,
                         int64_t n, const GatherParams& gather,
                         cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const bool known = WithElementSize(element_bytes, [&](auto tag) {
    using E = decltype(tag);
    if (index_is_64) {
      GatherKernel<<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
          gather, static_cast<const E*>(params),
          static_cast<const int64_t*>(indices), static_cast<E*>(out), n);
    } else {
      GatherKernel<<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
          gather, static_cast<const E*>(params),
          static_cast<const int32_t*>(indices), static_cast<E*>(out), n);
    }
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t LaunchFill(int element_bytes, uint64_t value_bits, void* out,
                       int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const bool known = WithElementSize(element_bytes, [&](auto tag) {
    using E = decltype(tag);
    FillKernel<<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
        static_cast<E>(value_bits), static_cast<E*>(out), n);
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

}  // namespace weft::gpu
