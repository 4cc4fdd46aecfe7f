// Test harness for CUDA kernels: runs one op's CUDA kernel on the process's
// test CudaDevice the way the executor would, with host inputs uploaded to
// device memory first and device outputs downloaded after:
//
//   if (std::string why = CudaTestSkipReason(); !why.empty()) {
//     GTEST_SKIP() << why;
//   }
//   CudaOpRunner add("AddV2");
//   StatusOr<std::vector<Tensor>> out = add.Run({x, y});  // host tensors
//
// Compiled in every build; without CUDA, or on a machine without a usable
// GPU, CudaTestSkipReason() says why and Run() fails with that reason.
#ifndef WEFT_TESTS_KERNELS_CUDA_KERNEL_TESTUTIL_H_
#define WEFT_TESTS_KERNELS_CUDA_KERNEL_TESTUTIL_H_

#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ops/attr_value.h"

namespace weft {
class Device;
}  // namespace weft

namespace weft::test {

// Empty when CUDA kernels can run here; otherwise why not, from device
// discovery ("no usable CUDA device: no NVIDIA driver is installed ...") or
// from creating the device.
std::string CudaTestSkipReason();

// The CudaDevice tests share (created on first use, never destroyed, so
// that GPU memory and the context are set up once per test binary), or the
// reason there is none.
StatusOr<Device*> TestCudaDevice();

class CudaOpRunner {
 public:
  // As OpRunner: attrs the caller leaves out are inferred from the inputs
  // (type and number attrs) or defaulted.
  explicit CudaOpRunner(std::string op, AttrMap attrs = {});

  // Validates the node, creates its kernel for DEVICE_CUDA, copies `inputs`
  // (host tensors) to device memory (HostMemory args stay on the host),
  // runs the kernel, waits for the device, and returns the outputs as host
  // tensors. Errors: no usable GPU, node or kernel lookup, the kernel's
  // status, an asynchronous CUDA error.
  StatusOr<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs);

 private:
  std::string op_;
  AttrMap attrs_;
};

}  // namespace weft::test

#endif  // WEFT_TESTS_KERNELS_CUDA_KERNEL_TESTUTIL_H_
