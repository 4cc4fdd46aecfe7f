// Loading op libraries: shared objects built against include/weft/plugin.h
// that add ops and kernels at run time (the CLI's --load, the C API's
// weft_load_op_library).
#ifndef WEFT_API_OP_LIBRARY_H_
#define WEFT_API_OP_LIBRARY_H_

#include <string>
#include <vector>

#include "core/status.h"

namespace weft {

// Opens `path` with dlopen(RTLD_NOW | RTLD_LOCAL), calls its
// weft_plugin_init with the plugin API table, and adds what it registered to
// OpRegistry::Global() and KernelRegistry::Global() with `path` as the
// source. A path without '/' names a file in the current directory when one
// exists there, else it goes through the dynamic loader's search path.
//
// All or nothing: on any error nothing of the library stays registered and
// the library is closed. Errors start with "op library '<path>'": the file
// cannot be opened or is no shared object (the loader's reason), it exports
// no weft_plugin_init, it was built for a newer plugin API than this weft
// provides (naming both versions), or a registration failed (a bad spec,
// an op or kernel already registered: naming both sources).
//
// Loading a library that is already loaded (the same file, by whatever
// path) is a no-op. Thread-safe; loads are serialized. Loaded libraries stay
// loaded for the life of the process: their ops and kernels may be in use.
Status LoadOpLibrary(const std::string& path);

// Every library loaded so far, as the paths they were first loaded by.
std::vector<std::string> LoadedOpLibraries();

}  // namespace weft

#endif  // WEFT_API_OP_LIBRARY_H_
