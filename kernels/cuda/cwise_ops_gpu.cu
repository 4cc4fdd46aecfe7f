// Element-wise CUDA kernels: unary math and activations, binary arithmetic
// with broadcasting, BiasAdd. The math is in cwise_body.h. One kernel per
// element type and indexing kind; the op is a uniform switch inside the loop
// rather than a template parameter, which keeps the number of kernels (and
// nvcc's time, which is per kernel and per architecture) small for kernels
// bound by memory bandwidth, where the switch costs nothing measurable.
#include <cuda_fp16.h>

#include <algorithm>

#include "kernels/cuda/cwise_ops_gpu.h"
#include "kernels/cuda/grid_stride.cuh"

namespace weft::gpu {
namespace {

template <typename T>
__global__ void UnaryKernel(UnaryOp op, const T* x, T* y, int64_t n,
                            UnaryParams params) {
  for (int64_t i = GridStrideBegin(); i < n; i += GridStrideStep()) {
    StoreFloat(y, i, ApplyUnary<T>(op, LoadFloat(x, i), params));
  }
}

template <typename T, int kKind>
__global__ void BinaryKernel(BinaryOp op, const T* x, const T* y, T* z,
                             int64_t n, BroadcastIndex index) {
  for (int64_t i = GridStrideBegin(); i < n; i += GridStrideStep()) {
    int64_t xi = i, yi = i;
    if (kKind == BroadcastIndex::kXScalar) xi = 0;
    if (kKind == BroadcastIndex::kYScalar) yi = 0;
    if (kKind == BroadcastIndex::kStrided) {
      xi = 0;
      yi = 0;
      int64_t rest = i;
      for (int d = index.rank - 1; d >= 0; --d) {
        const int64_t c = rest % index.dims[d];
        rest /= index.dims[d];
        xi += c * index.x_strides[d];
        yi += c * index.y_strides[d];
      }
    }
    StoreFloat(z, i, ApplyBinary<T>(op, LoadFloat(x, xi), LoadFloat(y, yi)));
  }
}

template <typename T>
__global__ void BiasAddKernel(const T* x, const T* bias, T* y, int64_t n,
                              int64_t channels, int64_t inner) {
  for (int64_t i = GridStrideBegin(); i < n; i += GridStrideStep()) {
    StoreFloat(y, i, LoadFloat(x, i) + LoadFloat(bias, (i / inner) % channels));
  }
}

template <typename T>
void Binary(BinaryOp op, const void* x, const void* y, void* z, int64_t n,
            const BroadcastIndex& index, cudaStream_t stream) {
  const T* a = static_cast<const T*>(x);
  const T* b = static_cast<const T*>(y);
  T* c = static_cast<T*>(z);
  switch (index.kind) {
    case BroadcastIndex::kSame:
      BinaryKernel<T, BroadcastIndex::kSame>
          <<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(op, a, b, c,
                                                                   n, index);
      break;
    case BroadcastIndex::kXScalar:
      BinaryKernel<T, BroadcastIndex::kXScalar>
          <<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(op, a, b, c,
                                                                   n, index);
      break;
    case BroadcastIndex::kYScalar:
      BinaryKernel<T, BroadcastIndex::kYScalar>
          <<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(op, a, b, c,
                                                                   n, index);
      break;
    case BroadcastIndex::kStrided:
      BinaryKernel<T, BroadcastIndex::kStrided>
          <<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(op, a, b, c,
                                                                   n, index);
      break;
  }
}

}  // namespace

cudaError_t LaunchUnary(UnaryOp op, ElementType type, const void* x, void* y,
                        int64_t n, const UnaryParams& params,
                        cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (type == ElementType::kHalf) {
    UnaryKernel<<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
        op, static_cast<const __half*>(x), static_cast<__half*>(y), n, params);
  } else {
    UnaryKernel<<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
        op, static_cast<const float*>(x), static_cast<float*>(y), n, params);
  }
  return cudaGetLastError();
}

cudaError_t LaunchBinary(BinaryOp op, ElementType type, const void* x,
                         const void* y, void* z, int64_t n,
                         const BroadcastIndex& index, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (type == ElementType::kHalf) {
    Binary<__half>(op, x, y, z, n, index, stream);
  } else {
    Binary<float>(op, x, y, z, n, index, stream);
  }
  return cudaGetLastError();
}

cudaError_t LaunchBiasAdd(ElementType type, const void* x, const void* bias,
                          void* y, int64_t n, int64_t channels, int64_t inner,
                          cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (type == ElementType::kHalf) {
    BiasAddKernel<<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
        static_cast<const __half*>(x), static_cast<const __half*>(bias),
        static_cast<__half*>(y), n, channels, inner);
  } else {
    BiasAddKernel<<<GridStrideBlocks(n), kGridStrideThreads, 0, stream>>>(
        static_cast<const float*>(x), static_cast<const float*>(bias),
        static_cast<float*>(y), n, channels, inner);
  }
  return cudaGetLastError();
}

}  // namespace weft::gpu
