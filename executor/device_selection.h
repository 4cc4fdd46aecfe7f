// SessionOptions.device: which devices a session may place nodes on.
//
//   "cpu"      the CPU only (the default)
//   "cuda"     CUDA device 0; "cuda:N" device N. Session::Create fails with
//              discovery's reason when that GPU is not usable (no driver,
//              driver too old, no device, no code for it, ...)
//   "auto"     a GPU when one is usable, else the CPU, silently
//
// Placement of nodes on a GPU is not implemented yet: "auto" resolves to the
// CPU, and "cuda" on a usable GPU fails with Unimplemented saying so, rather
// than running on the CPU behind the caller's back.
#ifndef WEFT_EXECUTOR_DEVICE_SELECTION_H_
#define WEFT_EXECUTOR_DEVICE_SELECTION_H_

#include <string>

#include "absl/strings/string_view.h"
#include "core/status.h"

namespace weft {

struct DeviceRequest {
  enum class Kind { kCpu, kCuda, kAuto };
  Kind kind = Kind::kCpu;
  int cuda_ordinal = 0;  // kCuda only
};

// InvalidArgument naming the accepted forms for anything else.
StatusOr<DeviceRequest> ParseDeviceRequest(absl::string_view device);

// What a session created with `device` runs on now: "cpu" or the CUDA
// device's name; errors say which device was asked for and why it cannot be
// used, e.g. "device 'cuda': no usable CUDA device: no NVIDIA driver is
// installed (libcuda.so.1 could not be loaded) ...".
StatusOr<std::string> ResolveSessionDevice(absl::string_view device);

}  // namespace weft

#endif  // WEFT_EXECUTOR_DEVICE_SELECTION_H_
