// WEFT_HOST_DEVICE marks the per-element code of a CUDA kernel (index
// arithmetic, one output element's loop) that is also compiled for the
// host. nvcc builds it into the kernel; g++ builds the same function into
// the host tests, which run it over every index and compare with the CPU
// kernel. That checks the kernel's logic on machines without a GPU; only the
// launch itself and cross-thread steps (shared memory, shuffles) need one.
//
// Headers that use it may include <cstdint> and cuda_fp16.h (whose __half
// conversions have host versions) but nothing of weft, absl or Eigen.
#ifndef WEFT_KERNELS_CUDA_HOST_DEVICE_H_
#define WEFT_KERNELS_CUDA_HOST_DEVICE_H_

#ifdef __CUDACC__
#define WEFT_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define WEFT_HOST_DEVICE inline
#endif

#endif  // WEFT_KERNELS_CUDA_HOST_DEVICE_H_
