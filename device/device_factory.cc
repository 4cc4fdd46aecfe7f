#include "device/device_factory.h"

#include <map>
#include <utility>

#include "core/mutex.h"

namespace weft {
namespace {

struct Registry {
  Mutex mu;
  // unique_ptr keeps each factory at a fixed address as the map grows.
  std::map<std::string, std::unique_ptr<DeviceFactory>, std::less<>> factories
      ABSL_GUARDED_BY(mu);
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed
  return *registry;
}

}  // namespace

Status RegisterDeviceFactory(const std::string& name, DeviceFactory factory) {
  if (name.empty() || name.find(':') != std::string::npos || name == "cpu" ||
      name == "cuda" || name == "auto" || factory == nullptr) {
    return errors::InvalidArgument("cannot register a device factory as '",
                                   name,
                                   "': expected a new name without ':' "
                                   "other than cpu, cuda and auto, and a "
                                   "factory");
  }
  Registry& r = GetRegistry();
  MutexLock lock(&r.mu);
  auto [it, inserted] = r.factories.try_emplace(name);
  if (!inserted) {
    return errors::InvalidArgument("a device factory named '", name,
                                   "' is registered already");
  }
  it->second = std::make_unique<DeviceFactory>(std::move(factory));
  return Status();
}

const DeviceFactory* FindDeviceFactory(absl::string_view name) {
  Registry& r = GetRegistry();
  MutexLock lock(&r.mu);
  auto it = r.factories.find(name);
  return it == r.factories.end() ? nullptr : it->second.get();
}

}  // namespace weft
