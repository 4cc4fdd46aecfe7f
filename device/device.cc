#include "device/device.h"

#include <utility>

namespace weft {

Device::Device(std::string name, std::string device_type)
    : name_(std::move(name)), device_type_(std::move(device_type)) {}

Device::~Device() = default;

Status Device::BeginCapture() {
  return errors::Unimplemented(name_, " cannot record its work for replay");
}

StatusOr<std::unique_ptr<CapturedWork>> Device::EndCapture() {
  return errors::Unimplemented(name_, " cannot record its work for replay");
}

}  // namespace weft
