// What the CUDA kernels of weft share (for .cu files only): the launch
// geometry of grid-stride loops, and float/half conversion at loads and
// stores.
//
// A grid-stride kernel runs `for (i = GridStrideBegin(); i < n; i +=
// GridStrideStep())`: one thread per element while the grid is large enough,
// and each thread looping over several elements beyond GridBlocks' cap, so a
// launch never fails on a huge tensor and the GPU stays full.
#ifndef WEFT_KERNELS_CUDA_GRID_STRIDE_CUH_
#define WEFT_KERNELS_CUDA_GRID_STRIDE_CUH_

#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

namespace weft::gpu {

// Threads per block of the grid-stride kernels: a multiple of the warp size
// that keeps several blocks resident per SM on every architecture built.
inline constexpr int kGridStrideThreads = 256;

// Blocks for `units` units of work, `per_block` per block: at least one, at
// most 65535 * 8 (enough to fill any GPU several times over).
inline unsigned int GridBlocks(int64_t units, int64_t per_block) {
  const int64_t blocks = (units + per_block - 1) / per_block;
  return static_cast<unsigned int>(
      std::max<int64_t>(1, std::min<int64_t>(blocks, 65535 * 8)));
}

// Blocks of kGridStrideThreads for a grid-stride loop over n elements.
inline unsigned int GridStrideBlocks(int64_t n) {
  return GridBlocks(n, kGridStrideThreads);
}

__device__ __forceinline__ int64_t GridStrideBegin() {
  return blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
}
__device__ __forceinline__ int64_t GridStrideStep() {
  return int64_t{blockDim.x} * gridDim.x;
}

// Element i as float; half is widened exactly.
template <typename T>
__device__ __forceinline__ float LoadFloat(const T* p, int64_t i) {
  return static_cast<float>(p[i]);
}
template <>
__device__ __forceinline__ float LoadFloat<__half>(const __half* p, int64_t i) {
  return __half2float(p[i]);
}

// Stores v rounded once to T (round to nearest even for half), as the CPU
// kernels round their float results.
template <typename T>
__device__ __forceinline__ void StoreFloat(T* p, int64_t i, float v) {
  p[i] = v;
}
template <>
__device__ __forceinline__ void StoreFloat<__half>(__half* p, int64_t i,
                                                   float v) {
  p[i] = __float2half_rn(v);
}

// Calls fn(E{}) with the unsigned integer type of `bytes` bytes (1, 2, 4 or
// 8); false for other sizes. Data-movement kernels are instantiated per
// element size, not per dtype, which keeps nvcc's time small.
template <typename Fn>
bool WithElementSize(int bytes, Fn&& fn) {
  switch (bytes) {
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
    default:
      return false;
  }
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_GRID_STRIDE_CUH_
