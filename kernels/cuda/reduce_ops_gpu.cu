// CUDA reductions (one pass of Sum, Mean, Prod, Max, Min) and Softmax /
// LogSoftmax. The per-element loops are in reduce_body.h and
// softmax_body.h; here are only the grid-stride loops around them and the
// cross-thread combines (shuffle-down trees, shared memory), in the order
// TreeCombine describes. The op is a runtime switch, not a template
// parameter: one kernel per strategy and input/output type keeps nvcc's time
// small, and these kernels are bound by memory bandwidth.
#include <cuda_fp16.h>

#include <algorithm>

#include "kernels/cuda/grid_stride.cuh"
#include "kernels/cuda/reduce_ops_gpu.h"

namespace weft::gpu {
namespace {

constexpr int kThreads = kReduceBlockThreads;
constexpr int kWarpsPerBlock = kThreads / kReduceWarp;
constexpr unsigned kFullMask = 0xffffffffu;

// Lane 0 ends with the tree of TreeCombine over the warp's 32 values.
__device__ __forceinline__ float WarpCombine(ReduceOp op, float v) {
  for (int offset = kReduceWarp / 2; offset > 0; offset /= 2) {
    v = ReduceCombine(op, v, __shfl_down_sync(kFullMask, v, offset));
  }
  return v;
}

// Every thread of the block gets the combine of the block's values: each
// warp's tree, then warp 0's tree over the warp results padded with the
// identity. `shared` holds kWarpsPerBlock + 1 floats; the block must call
// this together, and may call it again at once (the last barrier protects
// `shared`).
__device__ __forceinline__ float BlockCombine(ReduceOp op, float v,
                                              float* shared) {
  const int lane = threadIdx.x % kReduceWarp;
  const int warp = threadIdx.x / kReduceWarp;
  v = WarpCombine(op, v);
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float w = lane < kWarpsPerBlock ? shared[lane] : ReduceIdentity(op);
    w = WarpCombine(op, w);
    if (lane == 0) shared[kWarpsPerBlock] = w;
  }
  __syncthreads();
  const float result = shared[kWarpsPerBlock];
  __syncthreads();
  return result;
}

template <typename In, typename Out>
__global__ void ReduceColumnsKernel(ReduceParams p, const In* x, Out* y) {
  const int64_t n = p.num_outputs();
  for (int64_t i = GridStrideBegin(); i < n; i += GridStrideStep()) {
    StoreFloat(y, i, ReduceFinish(p, ReducePartial(p, x, i, 0, 1)));
  }
}

template <typename In, typename Out>
__global__ void ReduceWarpRowsKernel(ReduceParams p, const In* x, Out* y) {
  const int lane = threadIdx.x % kReduceWarp;
  const int64_t n = p.num_outputs();
  // `row` is the same across a warp, so whole warps enter the shuffles.
  for (int64_t row =
           blockIdx.x * int64_t{kWarpsPerBlock} + threadIdx.x / kReduceWarp;
       row < n; row += int64_t{gridDim.x} * kWarpsPerBlock) {
    const float v =
        WarpCombine(p.op, ReducePartial(p, x, row, lane, kReduceWarp));
    if (lane == 0) StoreFloat(y, row, ReduceFinish(p, v));
  }
}

template <typename In, typename Out>
__global__ void ReduceBlockRowsKernel(ReduceParams p, const In* x, Out* y) {
  __shared__ float shared[kWarpsPerBlock + 1];
  const int64_t n = p.num_outputs();
  for (int64_t row = blockIdx.x; row < n; row += gridDim.x) {
    const float v = BlockCombine(
        p.op, ReducePartial(p, x, row, threadIdx.x, kThreads), shared);
    if (threadIdx.x == 0) StoreFloat(y, row, ReduceFinish(p, v));
  }
}

template <typename In, typename Out>
void Reduce(const ReduceParams& p, const void* in, void* out,
            cudaStream_t stream) {
  const In* x = static_cast<const In*>(in);
  Out* y = static_cast<Out*>(out);
  const int64_t n = p.num_outputs();
  switch (p.strategy) {
    case ReduceStrategy::kColumns:
      ReduceColumnsKernel<<<GridBlocks(n, kThreads), kThreads, 0, stream>>>(
          p, x, y);
      break;
    case ReduceStrategy::kWarpRows:
      ReduceWarpRowsKernel<<<GridBlocks(n, kWarpsPerBlock), kThreads, 0,
                             stream>>>(p, x, y);
      break;
    case ReduceStrategy::kBlockRows:
      ReduceBlockRowsKernel<<<GridBlocks(n, 1), kThreads, 0, stream>>>(p, x, y);
      break;
  }
}

template <typename T>
__global__ void SoftmaxWarpKernel(SoftmaxParams p, const T* x, T* y) {
  const int lane = threadIdx.x % kReduceWarp;
  for (int64_t row =
           blockIdx.x * int64_t{kWarpsPerBlock} + threadIdx.x / kReduceWarp;
       row < p.rows; row += int64_t{gridDim.x} * kWarpsPerBlock) {
    float m = WarpCombine(ReduceOp::kMax, SoftmaxMaxPartial(p, x, row, lane));
    m = __shfl_sync(kFullMask, m, 0);
    float s =
        WarpCombine(ReduceOp::kSum, SoftmaxSumPartial(p, x, row, m, lane));
    s = __shfl_sync(kFullMask, s, 0);
    // Each element is read and written by the same thread, after the whole
    // row was read above, so y may be x.
    const int64_t base = row * p.depth;
    for (int64_t i = lane; i < p.depth; i += kReduceWarp) {
      StoreFloat(y, base + i,
                 SoftmaxValue(p, static_cast<float>(x[base + i]), m, s));
    }
  }
}

template <typename T>
__global__ void SoftmaxBlockKernel(SoftmaxParams p, const T* x, T* y) {
  __shared__ float shared[kWarpsPerBlock + 1];
  for (int64_t row = blockIdx.x; row < p.rows; row += gridDim.x) {
    const float m = BlockCombine(
        ReduceOp::kMax, SoftmaxMaxPartial(p, x, row, threadIdx.x), shared);
    const float s = BlockCombine(
        ReduceOp::kSum, SoftmaxSumPartial(p, x, row, m, threadIdx.x), shared);
    const int64_t base = row * p.depth;
    for (int64_t i = threadIdx.x; i < p.depth; i += kThreads) {
      StoreFloat(y, base + i,
                 SoftmaxValue(p, static_cast<float>(x[base + i]), m, s));
    }
  }
}

template <typename T>
void Softmax(const SoftmaxParams& p, const void* in, void* out,
             cudaStream_t stream) {
  const T* x = static_cast<const T*>(in);
  T* y = static_cast<T*>(out);
  if (p.block) {
    SoftmaxBlockKernel<<<GridBlocks(p.rows, 1), kThreads, 0, stream>>>(p, x, y);
  } else {
    SoftmaxWarpKernel<<<GridBlocks(p.rows, kWarpsPerBlock), kThreads, 0,
                        stream>>>(p, x, y);
  }
}

}  // namespace

cudaError_t LaunchReduce(const ReduceParams& p, ElementType in_type,
                         const void* in, ElementType out_type, void* out,
                         cudaStream_t stream) {
  if (p.num_outputs() <= 0) return cudaSuccess;
  const bool in_half = in_type == ElementType::kHalf;
  const bool out_half = out_type == ElementType::kHalf;
  if (in_half && out_half) {
    Reduce<__half, __half>(p, in, out, stream);
  } else if (in_half) {
    Reduce<__half, float>(p, in, out, stream);
  } else if (out_half) {
    Reduce<float, __half>(p, in, out, stream);
  } else {
    Reduce<float, float>(p, in, out, stream);
  }
  return cudaGetLastError();
}

cudaError_t LaunchSoftmax(const SoftmaxParams& p, ElementType type,
                          const void* x, void* y, cudaStream_t stream) {
  if (p.rows <= 0 || p.depth <= 0) return cudaSuccess;
  if (type == ElementType::kHalf) {
    Softmax<__half>(p, x, y, stream);
  } else {
    Softmax<float>(p, x, y, stream);
  }
  return cudaGetLastError();
}

}  // namespace weft::gpu
