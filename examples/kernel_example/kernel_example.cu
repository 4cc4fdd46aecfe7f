// The CUDA half of the Example op: out[i] = 2 * in[i].
#include <cuda_runtime.h>

#include <cstdint>

#include "kernel_example.h"

namespace {

template <typename T>
__global__ void ExampleKernel(int64_t n, const T* in, T* out) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < n; i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    out[i] = in[i] * T(2);
  }
}

}  // namespace

template <typename T>
bool LaunchExampleCuda(void* stream, int64_t n, const T* in, T* out) {
  if (n == 0) return true;
  constexpr int kThreads = 256;
  // A grid-stride loop: enough blocks to fill the GPU, not one per element.
  const int64_t blocks64 = (n + kThreads - 1) / kThreads;
  const int blocks = blocks64 < 4096 ? static_cast<int>(blocks64) : 4096;
  ExampleKernel<T>
      <<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(n, in, out);
  return cudaGetLastError() == cudaSuccess;
}

template bool LaunchExampleCuda<int32_t>(void*, int64_t, const int32_t*,
                                         int32_t*);
template bool LaunchExampleCuda<float>(void*, int64_t, const float*, float*);
