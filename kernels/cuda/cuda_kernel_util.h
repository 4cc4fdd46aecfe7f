// What the CUDA OpKernel classes share: the device they run on and the
// element type their launchers take.
#ifndef WEFT_KERNELS_CUDA_CUDA_KERNEL_UTIL_H_
#define WEFT_KERNELS_CUDA_CUDA_KERNEL_UTIL_H_

#include <type_traits>

#include "core/types.h"
#include "device/cuda/cuda_device.h"
#include "kernels/cuda/cwise_ops_gpu.h"
#include "kernels/op_kernel.h"

namespace weft {

// The kernel's device. Kernels registered for DEVICE_CUDA only ever run on a
// CudaDevice (the registry matches on the device type, and only CudaDevice
// has that type), and make it current on the calling thread before
// launching.
inline CudaDevice* CurrentCudaDevice(OpKernelContext* ctx) {
  auto* device = static_cast<CudaDevice*>(ctx->device());
  device->MakeCurrent();
  return device;
}

template <typename T>
constexpr gpu::ElementType GpuElementType() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>,
                "CUDA kernels take float and half");
  return std::is_same_v<T, half> ? gpu::ElementType::kHalf
                                 : gpu::ElementType::kFloat;
}

}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_CUDA_KERNEL_UTIL_H_
