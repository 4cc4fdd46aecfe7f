// Launchers of the element-wise CUDA kernels (cwise_ops_gpu.cu). Plain C++
// with POD arguments and no weft types, so that the .cu file nvcc compiles
// includes nothing of absl or Eigen; the OpKernel classes that call them are
// in cwise_ops.cc, the per-element math (and the op enums) in cwise_body.h.
//
// Every launcher enqueues on `stream` and returns the launch error (bad
// configuration, no kernel image), not the kernel's outcome. n == 0
// enqueues nothing. half values are IEEE binary16 bits (Eigen::half and
// __half share the layout); math on them is done in float and rounded once,
// as the CPU kernels do.
#ifndef WEFT_KERNELS_CUDA_CWISE_OPS_GPU_H_
#define WEFT_KERNELS_CUDA_CWISE_OPS_GPU_H_

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/cuda/cwise_body.h"

namespace weft::gpu {

enum class ElementType : int { kFloat = 0, kHalf = 1 };

// y[i] = op(x[i]) for i < n, with the constants in `params` (the ops'
// attrs; see cwise_body.h). x and y may be the same buffer.
cudaError_t LaunchUnary(UnaryOp op, ElementType type, const void* x, void* y,
                        int64_t n, const UnaryParams& params,
                        cudaStream_t stream);

// The most broadcast dimensions a binary kernel takes after the host merged
// them (BinaryBroadcast); more is reported by the kernel class.
inline constexpr int kMaxBroadcastRank = 6;

// How z's n elements index into x and y.
struct BroadcastIndex {
  enum Kind : int {
    kSame = 0,     // z[i] = op(x[i], y[i])
    kXScalar = 1,  // z[i] = op(x[0], y[i])
    kYScalar = 2,  // z[i] = op(x[i], y[0])
    kStrided = 3,  // z over `dims` row-major; x, y by their strides (0 where
                   // broadcast)
  };
  Kind kind = kSame;
  int rank = 0;
  int64_t dims[kMaxBroadcastRank] = {};
  int64_t x_strides[kMaxBroadcastRank] = {};
  int64_t y_strides[kMaxBroadcastRank] = {};
};

cudaError_t LaunchBinary(BinaryOp op, ElementType type, const void* x,
                         const void* y, void* z, int64_t n,
                         const BroadcastIndex& index, cudaStream_t stream);

// y[i] = x[i] + bias[(i / inner) % channels]: NHWC has inner = 1, NCHW the
// product of the spatial dimensions.
cudaError_t LaunchBiasAdd(ElementType type, const void* x, const void* bias,
                          void* y, int64_t n, int64_t channels, int64_t inner,
                          cudaStream_t stream);

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_CWISE_OPS_GPU_H_
