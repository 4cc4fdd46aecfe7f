#include "device/cuda/cublas_loader.h"

#include <dlfcn.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace weft {
namespace {

#define WEFT_CUBLAS_STR2(x) #x
#define WEFT_CUBLAS_STR(x) WEFT_CUBLAS_STR2(x)
constexpr char kLibrary[] = "libcublas.so." WEFT_CUBLAS_STR(CUBLAS_VER_MAJOR);

template <typename Fn>
Status Bind(void* lib, const char* symbol, Fn* fn) {
  void* p = dlsym(lib, symbol);
  if (p == nullptr) {
    return errors::FailedPrecondition("cuBLAS: ", kLibrary, " has no symbol '",
                                      symbol, "' (a different cuBLAS?)");
  }
  *fn = reinterpret_cast<Fn>(p);
  return Status();
}

StatusOr<CublasApi> Load() {
  // RTLD_LOCAL: cuBLAS's symbols stay out of the global namespace, so a
  // host's own cuBLAS of another version does not bind to ours.
  void* lib = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return errors::FailedPrecondition(
        "cuBLAS is not available: ", why != nullptr ? why : kLibrary,
        " (install the CUDA ", CUBLAS_VER_MAJOR,
        " cuBLAS library or put its directory on LD_LIBRARY_PATH)");
  }
  // Never dlclose'd: handles made from it may outlive any owner.
  CublasApi api;
  WEFT_RETURN_IF_ERROR(Bind(lib, "cublasCreate_v2", &api.create));
  WEFT_RETURN_IF_ERROR(Bind(lib, "cublasDestroy_v2", &api.destroy));
  WEFT_RETURN_IF_ERROR(Bind(lib, "cublasSetStream_v2", &api.set_stream));
  WEFT_RETURN_IF_ERROR(Bind(lib, "cublasSetMathMode", &api.set_math_mode));
  WEFT_RETURN_IF_ERROR(Bind(lib, "cublasSetWorkspace_v2", &api.set_workspace));
  WEFT_RETURN_IF_ERROR(Bind(lib, "cublasGemmEx_64", &api.gemm_ex));
  WEFT_RETURN_IF_ERROR(
      Bind(lib, "cublasGemmStridedBatchedEx_64", &api.gemm_strided_batched_ex));
  WEFT_RETURN_IF_ERROR(Bind(lib, "cublasGetStatusString", &api.status_string));
  // The loaded library's own version, for messages and `weft devices`.
  cublasStatus_t (*get_property)(libraryPropertyType, int*) = nullptr;
  WEFT_RETURN_IF_ERROR(Bind(lib, "cublasGetProperty", &get_property));
  int major = 0, minor = 0, patch = 0;
  get_property(MAJOR_VERSION, &major);
  get_property(MINOR_VERSION, &minor);
  get_property(PATCH_LEVEL, &patch);
  api.version = major * 10000 + minor * 100 + patch;
  return api;
}

}  // namespace

StatusOr<const CublasApi*> LoadCublas() {
  static const StatusOr<CublasApi>* const loaded =
      new StatusOr<CublasApi>(Load());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

std::string CublasStatusText(const CublasApi& api, cublasStatus_t status) {
  return absl::StrCat("cuBLAS status ", static_cast<int>(status), " (",
                      api.status_string(status), ")");
}

}  // namespace weft
