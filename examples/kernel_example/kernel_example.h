// What the CPU half of the Example op library (kernel_example.cc) needs from
// its CUDA half (kernel_example.cu).
#ifndef KERNEL_EXAMPLE_KERNEL_EXAMPLE_H_
#define KERNEL_EXAMPLE_KERNEL_EXAMPLE_H_

#include <cstdint>

// Enqueues out[i] = 2 * in[i] for i < n on `stream` (a cudaStream_t); `in`
// and `out` are device memory. Returns false when the launch failed.
template <typename T>
bool LaunchExampleCuda(void* stream, int64_t n, const T* in, T* out);

#endif  // KERNEL_EXAMPLE_KERNEL_EXAMPLE_H_
