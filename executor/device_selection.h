// SessionOptions.device: which devices a session may place nodes on.
//
//   "cpu"      the CPU only (the default)
//   "cuda"     CUDA device 0; "cuda:N" device N. Session::Create fails with
//              discovery's reason when that GPU is not usable (no driver,
//              driver too old, no device, no code for it, ...)
//   "auto"     CUDA device 0 when it is usable, else the CPU, silently
//
// With an accelerator, each node goes where a kernel for its op and dtypes
// is registered for the accelerator's device type, else to the CPU; "cuda"
// given explicitly places the same way, so ops without a GPU kernel still run
// (on the CPU, with copies in between) rather than failing. The session's
// placement rules are in executor/session.h.
//
// A name registered with RegisterDeviceFactory (device/device_factory.h) is
// accepted too, "name" or "name:N"; the test suite's fake asynchronous device
// comes in this way.
#ifndef WEFT_EXECUTOR_DEVICE_SELECTION_H_
#define WEFT_EXECUTOR_DEVICE_SELECTION_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "core/allocator.h"
#include "core/status.h"
#include "device/device.h"

namespace weft {

// Settings of the accelerator, from SessionOptions; the CPU ignores them.
struct AcceleratorOptions {
  // A cudaStream_t of the host's to run the session's GPU work on instead of
  // a stream of weft's own (SessionOptions.cuda_stream has the contract).
  void* cuda_stream = nullptr;
  // float32 matrix products may use TF32 tensor cores.
  bool allow_tf32 = false;
  // Hard cap on the device memory of the session's tensors; 0 for none.
  int64_t memory_limit_bytes = 0;
};

// InvalidArgument when `options` asks for something the resolved device
// ("cpu", "cuda:0", a registered device's name) cannot do: a host stream or
// TF32 without a CUDA device, a negative limit.
Status CheckAcceleratorOptions(absl::string_view resolved_device,
                               const AcceleratorOptions& options);

struct DeviceRequest {
  enum class Kind { kCpu, kCuda, kAuto, kRegistered };
  Kind kind = Kind::kCpu;
  int cuda_ordinal = 0;  // kCuda; for kRegistered, the factory's ordinal
  std::string factory;   // kRegistered only: the factory's name
};

// InvalidArgument naming the accepted forms for anything else.
StatusOr<DeviceRequest> ParseDeviceRequest(absl::string_view device);

// What a session created with `device` runs on now: "cpu" or the
// accelerator's name ("cuda:0"); errors say which device was asked for and
// why it cannot be used, e.g. "device 'cuda': no usable CUDA device: no
// NVIDIA driver is installed (libcuda.so.1 could not be loaded) ...".
StatusOr<std::string> ResolveSessionDevice(absl::string_view device);

// The accelerator a session created with `device` places nodes on besides
// the CPU, or nullptr when it runs on the CPU only. `host_allocator` is the
// session's host allocator and outlives the device. Errors as
// ResolveSessionDevice's and CheckAcceleratorOptions', or the device's
// creation failure.
StatusOr<std::unique_ptr<Device>> CreateSessionAccelerator(
    absl::string_view device, Allocator* host_allocator,
    const AcceleratorOptions& options = {});

}  // namespace weft

#endif  // WEFT_EXECUTOR_DEVICE_SELECTION_H_
