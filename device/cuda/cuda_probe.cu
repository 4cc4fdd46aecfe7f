// A kernel that does nothing, so that the device can ask the runtime whether
// this binary carries code that loads on the current GPU (SASS for its
// architecture, or PTX the driver can JIT-compile) before any real kernel
// fails with cudaErrorNoKernelImageForDevice in the middle of a run.
#include <cuda_runtime_api.h>

namespace weft {
namespace {
__global__ void ProbeKernel() {}
}  // namespace

// Declared in cuda_device.cc. binaryVersion / ptxVersion: 10 * major + minor
// of the code the runtime picked for the current device.
cudaError_t ProbeKernelImage(int* binary_version, int* ptx_version) {
  cudaFuncAttributes attr;
  cudaError_t err = cudaFuncGetAttributes(&attr, ProbeKernel);
  if (err == cudaSuccess) {
    *binary_version = attr.binaryVersion;
    *ptx_version = attr.ptxVersion;
  }
  return err;
}

}  // namespace weft
