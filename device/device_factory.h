// Factories for accelerator devices that weft does not build in, by the name
// SessionOptions.device gives them: a factory registered as "fake_gpu" makes
// the devices of sessions created with device "fake_gpu" or "fake_gpu:N".
// This is how the test suite runs the executor's multi-device path on
// machines without a GPU (tests/executor/fake_device_testutil.h); the
// built-in "cpu", "cuda" and "auto" never go through it.
#ifndef WEFT_DEVICE_DEVICE_FACTORY_H_
#define WEFT_DEVICE_DEVICE_FACTORY_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "core/allocator.h"
#include "core/status.h"
#include "device/device.h"

namespace weft {

struct DeviceFactoryArgs {
  // N of "name:N"; 0 for "name".
  int ordinal = 0;
  // The session's host allocator, for the device's host-memory arguments.
  // Outlives the device.
  Allocator* host_allocator = nullptr;
};

// Makes one device for one session; the session owns it.
using DeviceFactory = std::function<StatusOr<std::unique_ptr<Device>>(
    const DeviceFactoryArgs& args)>;

// Adds a factory. Thread-safe. InvalidArgument for a name that is empty,
// contains ':', is built in ("cpu", "cuda", "auto"), or is registered
// already.
Status RegisterDeviceFactory(const std::string& name, DeviceFactory factory);

// The factory registered as `name`, or nullptr. The pointer stays valid for
// the process's lifetime.
const DeviceFactory* FindDeviceFactory(absl::string_view name);

}  // namespace weft

#endif  // WEFT_DEVICE_DEVICE_FACTORY_H_
