// The weft side of the op-library ABI (include/weft/plugin.h): the function
// table a library's weft_plugin_init receives, the state of one load while
// it runs, and the adapters that turn the library's C callbacks into an op's
// shape function and an OpKernel.
//
// Registrations are collected here, not committed: op_library.cc commits
// them only when the whole library registered without error, so a failed
// load leaves the registries as they were.
#ifndef WEFT_API_PLUGIN_API_H_
#define WEFT_API_PLUGIN_API_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "kernels/kernel_def.h"
#include "kernels/kernel_registry.h"
#include "ops/op_def.h"
#include "weft/plugin.h"

// The handle a library sees as weft_plugin*: one load in progress.
struct weft_plugin {
  // As the user gave it; the source of every registration, so duplicate
  // messages name it.
  std::string path;
  bool declared = false;
  uint32_t declared_version = 0;
  // The first failed registration (or misuse of the table); fails the load.
  weft::Status status;

  struct Kernel {
    weft::KernelDef def;
    weft::KernelFactory factory;
  };
  std::vector<weft::OpRegistrationData> ops;
  std::vector<Kernel> kernels;
};

namespace weft {

// The version this weft provides (WEFT_PLUGIN_API_VERSION of its plugin.h).
inline constexpr uint32_t kPluginApiVersion = WEFT_PLUGIN_API_VERSION;

// The table handed to every library; filled once, never changes.
const weft_plugin_api* PluginApiTable();

}  // namespace weft

#endif  // WEFT_API_PLUGIN_API_H_
