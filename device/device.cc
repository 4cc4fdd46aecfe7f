#include "device/device.h"

#include <utility>

namespace weft {

Device::Device(std::string name, std::string device_type)
    : name_(std::move(name)), device_type_(std::move(device_type)) {}

Device::~Device() = default;

}  // namespace weft
