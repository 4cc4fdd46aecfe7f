#include "api/op_library.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "api/plugin_api.h"
#include "core/mutex.h"
#include "kernels/kernel_registry.h"
#include "ops/op_registry.h"

namespace weft {
namespace {

struct Loaded {
  void* handle;
  std::string path;
};

ABSL_CONST_INIT Mutex loader_mu;
// Never destroyed: libraries stay loaded, and static destructors of other
// objects may still run their kernels.
std::vector<Loaded>& LoadedLibraries()
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(loader_mu) {
  static auto* loaded = new std::vector<Loaded>;
  return *loaded;
}

std::string LastDlError() {
  const char* e = dlerror();
  return e == nullptr ? "unknown reason" : e;
}

// dlopen resolves a name without '/' through LD_LIBRARY_PATH and the system
// directories only; a user who types `--load libfoo.so` next to the file
// means that file.
std::string PathToOpen(const std::string& path) {
  if (path.find('/') != std::string::npos) return path;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return "./" + path;
  return path;
}

// Checks what the library registered against what is already registered,
// so that the commit below cannot fail halfway.
Status CheckNoDuplicates(const weft_plugin& p) {
  for (const OpRegistrationData& op : p.ops) {
    auto existing = OpRegistry::Global()->LookUp(op.op_def.name);
    if (existing.ok()) {
      return errors::AlreadyExists("op '", op.op_def.name,
                                   "' registered twice: at ",
                                   (*existing)->source, " and at ", p.path);
    }
  }
  for (const weft_plugin::Kernel& k : p.kernels) {
    bool op_known = OpRegistry::Global()->LookUp(k.def.op).ok();
    for (const OpRegistrationData& op : p.ops) {
      op_known = op_known || op.op_def.name == k.def.op;
    }
    if (!op_known) {
      return errors::NotFound("kernel ", SummarizeKernelDef(k.def),
                              " is for op '", k.def.op,
                              "', which neither weft nor this library "
                              "registers");
    }
    for (const KernelRegistration* existing :
         KernelRegistry::Global()->RegistrationsForOp(k.def.op)) {
      if (SameKernelSlot(existing->def, k.def)) {
        return errors::AlreadyExists(
            "kernel ", SummarizeKernelDef(k.def), " for op '", k.def.op,
            "' registered twice: at ", existing->source, " and at ", p.path);
      }
    }
  }
  return Status();
}

// Runs the library's entry point and commits what it registered. Messages
// start with `context` ("op library 'libfoo.so'").
// `*committed` becomes true once anything was registered: from then on the
// library must stay loaded even if a later registration fails (which only a
// registration racing this load could cause).
Status InitLibrary(weft_plugin_init_fn init, weft_plugin* p,
                   const std::string& context, bool* committed) {
  try {
    init(p, PluginApiTable());
  } catch (const std::exception& e) {
    return errors::Internal(
        context, ": weft_plugin_init threw an exception: ", e.what());
  } catch (...) {
    return errors::Internal(context, ": weft_plugin_init threw an exception");
  }
  if (!p->declared) {
    return errors::FailedPrecondition(
        context,
        ": its weft_plugin_init did not call declare_api_version; a weft op "
        "library states the plugin API version it was built for first");
  }
  if (p->declared_version > kPluginApiVersion) {
    return errors::FailedPrecondition(
        context, " was built for plugin API ", p->declared_version,
        "; this weft provides API ", kPluginApiVersion, " (weft ",
        WEFT_VERSION_STRING, ")");
  }
  WEFT_RETURN_IF_ERROR_CTX(p->status, context);
  WEFT_RETURN_IF_ERROR_CTX(CheckNoDuplicates(*p), context);
  for (OpRegistrationData& op : p->ops) {
    *committed = true;
    WEFT_RETURN_IF_ERROR_CTX(OpRegistry::Global()->Register(std::move(op)),
                             context);
  }
  for (weft_plugin::Kernel& k : p->kernels) {
    *committed = true;
    WEFT_RETURN_IF_ERROR_CTX(
        KernelRegistry::Global()->Register(std::move(k.def),
                                           std::move(k.factory), p->path),
        context);
  }
  return Status();
}

}  // namespace

Status LoadOpLibrary(const std::string& path) {
  const std::string context = absl::StrCat("op library '", path, "'");
  if (path.empty()) {
    return errors::InvalidArgument("op library path is empty");
  }
  MutexLock lock(&loader_mu);
  std::string to_open = PathToOpen(path);
  dlerror();
  void* handle = dlopen(to_open.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::string reason = LastDlError();
    struct stat st;
    if (to_open.find('/') != std::string::npos &&
        ::stat(to_open.c_str(), &st) != 0 && errno == ENOENT) {
      return errors::NotFound(context, ": no such file");
    }
    return errors::InvalidArgument(context, " cannot be loaded: ", reason);
  }
  // dlopen hands out one handle per loaded file, whatever path reached it.
  for (const Loaded& l : LoadedLibraries()) {
    if (l.handle == handle) {
      dlclose(handle);  // drops the reference this call added
      return Status();
    }
  }
  dlerror();
  void* entry = dlsym(handle, WEFT_PLUGIN_INIT_SYMBOL);
  if (entry == nullptr) {
    std::string reason = LastDlError();
    dlclose(handle);
    return errors::InvalidArgument(
        context, " is not a weft op library: it does not export ",
        WEFT_PLUGIN_INIT_SYMBOL, " (", reason, ")");
  }
  Status s;
  bool committed = false;
  {
    // What the library registered refers to its code: it must be gone
    // before the library is closed on failure.
    weft_plugin p;
    p.path = path;
    s = InitLibrary(reinterpret_cast<weft_plugin_init_fn>(entry), &p, context,
                    &committed);
  }
  if (committed || s.ok()) LoadedLibraries().push_back({handle, path});
  if (!s.ok()) {
    if (!committed) dlclose(handle);
    return s;
  }
  return Status();
}

std::vector<std::string> LoadedOpLibraries() {
  MutexLock lock(&loader_mu);
  std::vector<std::string> paths;
  for (const Loaded& l : LoadedLibraries()) paths.push_back(l.path);
  return paths;
}

}  // namespace weft
