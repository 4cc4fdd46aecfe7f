#include "device/device_info.h"

#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#ifdef __F16C__
#include <cpuid.h>
#endif
#include <oneapi/tbb/info.h>
#include <Eigen/Core>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/huge_pages.h"
#include "device/cpu_isa.h"

#if WEFT_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace weft {
namespace {

struct SimdFeature {
  const char* name;       // as printed
  const char* cpu_check;  // __builtin_cpu_supports's spelling
  bool supported;         // by the CPU this process runs on
};

// __builtin_cpu_supports takes a string literal only.
#define WEFT_SIMD_FEATURE(name, check) \
  f.push_back({name, check, __builtin_cpu_supports(check) != 0})

// The extensions the compiler was told it may use (-march), newest first.
// Each is a compile-time fact of this binary.
std::vector<SimdFeature> CompiledSimdFeatures() {
  std::vector<SimdFeature> f;
#ifdef __AVX512F__
  WEFT_SIMD_FEATURE("AVX-512F", "avx512f");
#endif
#ifdef __AVX512BW__
  WEFT_SIMD_FEATURE("AVX-512BW", "avx512bw");
#endif
#ifdef __AVX512DQ__
  WEFT_SIMD_FEATURE("AVX-512DQ", "avx512dq");
#endif
#ifdef __AVX512VL__
  WEFT_SIMD_FEATURE("AVX-512VL", "avx512vl");
#endif
#ifdef __AVX512VNNI__
  WEFT_SIMD_FEATURE("AVX-512VNNI", "avx512vnni");
#endif
#ifdef __AVX2__
  WEFT_SIMD_FEATURE("AVX2", "avx2");
#endif
#ifdef __FMA__
  WEFT_SIMD_FEATURE("FMA", "fma");
#endif
#ifdef __F16C__
#ifdef __clang__
  // clang's __builtin_cpu_supports (14 at least) does not know "f16c": ask
  // CPUID (leaf 1, ECX bit 29) instead.
  {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16c =
        __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 29)) != 0;
    f.push_back({"F16C", "f16c", f16c});
  }
#else
  WEFT_SIMD_FEATURE("F16C", "f16c");
#endif
#endif
#ifdef __AVX__
  WEFT_SIMD_FEATURE("AVX", "avx");
#endif
#ifdef __SSE4_2__
  WEFT_SIMD_FEATURE("SSE4.2", "sse4.2");
#endif
#ifdef __SSE2__
  WEFT_SIMD_FEATURE("SSE2", "sse2");
#endif
  return f;
}

std::string CpuModelName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "model name")) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
      }
    }
  }
  return "";
}

#if WEFT_HAVE_CUDA

std::string CudaErrorText(cudaError_t err) {
  return absl::StrCat(cudaGetErrorName(err), ": ", cudaGetErrorString(err));
}

// Why cudaGetDeviceCount failed, in words a user can act on. The codes are
// those the runtime returns from its first call into the driver.
Status ExplainInitFailure(cudaError_t err, const CudaInfo& info) {
  const std::string runtime = CudaVersionString(info.runtime_version);
  const std::string driver = CudaVersionString(info.driver_version);
  std::string why;
  switch (err) {
    case cudaErrorInsufficientDriver:
      if (info.driver_version == 0) {
        why = absl::StrCat(
            "no NVIDIA driver is installed (libcuda.so.1 could not be "
            "loaded); weft's CUDA code needs a driver for CUDA ",
            runtime, " or newer");
      } else {
        why = absl::StrCat("the NVIDIA driver supports CUDA ", driver,
                           " but weft was built with CUDA runtime ", runtime,
                           ", which needs a driver for CUDA ", runtime,
                           " or newer; update the driver");
      }
      break;
    case cudaErrorNoDevice: {
      why = absl::StrCat("the NVIDIA driver (CUDA ", driver,
                         ") is installed but reports no CUDA-capable device");
      if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
        absl::StrAppend(&why, "; CUDA_VISIBLE_DEVICES is '", visible, "'");
      }
      break;
    }
    case cudaErrorStubLibrary:
      why =
          "the libcuda.so.1 that was loaded is the CUDA toolkit's stub "
          "library, not a driver (is a .../lib64/stubs directory on "
          "LD_LIBRARY_PATH?)";
      break;
    case cudaErrorCompatNotSupportedOnDevice:
      why =
          "the CUDA forward-compatibility libraries (cuda-compat) are in use "
          "and do not support this GPU; take them off the library path or "
          "update the driver itself";
      break;
    case cudaErrorSystemDriverMismatch:
      why =
          "the NVIDIA driver's user library (libcuda.so) and kernel module "
          "have different versions; reload the module or reboot after the "
          "driver update";
      break;
    case cudaErrorDevicesUnavailable:
      why =
          "every CUDA device is busy or unavailable (compute mode "
          "exclusive-process or prohibited?)";
      break;
    case cudaErrorSystemNotReady:
      why =
          "the system is not ready for CUDA (on NVSwitch machines: is "
          "nvidia-fabricmanager running?)";
      break;
    default:
      why = absl::StrCat("CUDA initialization failed (driver CUDA ", driver,
                         ", runtime ", runtime, ")");
      break;
  }
  return errors::FailedPrecondition("no usable CUDA device: ", why, " [",
                                    CudaErrorText(err), "]");
}

#endif  // WEFT_HAVE_CUDA

CudaInfo ProbeCuda() {
  CudaInfo info;
#if !WEFT_HAVE_CUDA
  info.status = errors::FailedPrecondition(
      "no usable CUDA device: weft was built without CUDA (WEFT_CUDA=OFF or "
      "no nvcc at build time)");
  return info;
#else
  info.built_with_cuda = true;
  info.compiled_architectures = WEFT_CUDA_ARCHITECTURES;
  // Neither call needs a driver: the runtime's version is compiled in, and
  // the driver version is 0 when libcuda.so.1 cannot be loaded.
  cudaRuntimeGetVersion(&info.runtime_version);
  cudaDriverGetVersion(&info.driver_version);
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();  // the runtime keeps the error otherwise
    info.status = ExplainInitFailure(err, info);
    return info;
  }
  if (count == 0) {
    info.status = ExplainInitFailure(cudaErrorNoDevice, info);
    return info;
  }
  for (int i = 0; i < count; ++i) {
    CudaDeviceInfo d;
    d.ordinal = i;
    cudaDeviceProp prop;
    err = cudaGetDeviceProperties(&prop, i);
    if (err != cudaSuccess) {
      cudaGetLastError();
      d.name = "?";
      d.usable = errors::FailedPrecondition("cuda:", i,
                                            ": its properties cannot be read [",
                                            CudaErrorText(err), "]");
      info.devices.push_back(std::move(d));
      continue;
    }
    d.name = prop.name;
    char bus_id[32] = {0};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), i) == cudaSuccess) {
      d.pci_bus_id = bus_id;
    } else {
      cudaGetLastError();
    }
    d.cc_major = prop.major;
    d.cc_minor = prop.minor;
    d.total_memory = static_cast<int64_t>(prop.totalGlobalMem);
    d.multiprocessors = prop.multiProcessorCount;
    MatchCudaArchitectures(info.compiled_architectures, d.cc_major, d.cc_minor,
                           &d.has_sass, &d.has_ptx);
    if (!d.has_sass && !d.has_ptx) {
      d.usable = errors::FailedPrecondition(
          "cuda:", i, " (", d.name, ", compute capability ", d.cc_major, ".",
          d.cc_minor, "): this weft carries GPU code for architectures ",
          info.compiled_architectures,
          " only, none of which runs on it; "
          "rebuild with -DCMAKE_CUDA_ARCHITECTURES=",
          d.cc_major * 10 + d.cc_minor, "-real");
    }
    info.devices.push_back(std::move(d));
  }
  return info;
#endif
}

}  // namespace

CpuInfo GetCpuInfo() {
  CpuInfo info;
  info.model = CpuModelName();
  info.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
  info.default_threads = tbb::info::default_concurrency();
  std::vector<std::string> names;
  std::vector<std::string> missing;
  for (const SimdFeature& f : CompiledSimdFeatures()) {
    names.push_back(f.name);
    if (!f.supported) missing.push_back(f.cpu_check);
  }
  info.compiled_simd = names.empty() ? "none" : absl::StrJoin(names, ", ");
  info.eigen_simd = Eigen::SimdInstructionSetsInUse();
  if (!missing.empty()) {
    info.missing_simd =
        absl::StrCat("this CPU lacks ", absl::StrJoin(missing, ", "),
                     ", which weft was compiled for (WEFT_CPU_ARCH)");
  }
  const CpuIsaInfo& isa = GetCpuIsaInfo();
  info.kernel_path = CpuIsaName(isa.active);
  info.detected_path = CpuIsaName(isa.detected);
  info.kernel_path_reason = isa.reason;
  info.huge_pages = HugePagesAdvised();
  info.huge_pages_reason = HugePagesReason();
  return info;
}

const CudaInfo& GetCudaInfo() {
  // A function-local static: initialized once, thread-safe, never destroyed
  // before other statics that may still ask.
  static const CudaInfo* const info = new CudaInfo(ProbeCuda());
  return *info;
}

Status CheckCudaDevice(int ordinal) {
  const CudaInfo& info = GetCudaInfo();
  if (!info.status.ok()) return info.status;
  if (ordinal < 0 || ordinal >= static_cast<int>(info.devices.size())) {
    std::vector<std::string> have;
    for (const CudaDeviceInfo& d : info.devices) {
      have.push_back(absl::StrCat("cuda:", d.ordinal, " (", d.name, ")"));
    }
    return errors::FailedPrecondition(
        "no CUDA device cuda:", ordinal, "; this machine has ",
        info.devices.size(), ": ", absl::StrJoin(have, ", "));
  }
  return info.devices[ordinal].usable;
}

std::string CudaVersionString(int version) {
  if (version <= 0) return "none";
  return absl::StrCat(version / 1000, ".", (version % 1000) / 10);
}

void MatchCudaArchitectures(const std::string& architectures, int major,
                            int minor, bool* has_sass, bool* has_ptx) {
  *has_sass = false;
  *has_ptx = false;
  const int want = major * 10 + minor;
  for (absl::string_view entry : absl::StrSplit(
           architectures, absl::ByAnyChar(",;"), absl::SkipEmpty())) {
    entry = absl::StripAsciiWhitespace(entry);
    size_t digits = 0;
    while (digits < entry.size() && absl::ascii_isdigit(entry[digits])) {
      ++digits;
    }
    int arch = 0;
    if (digits == 0 || !absl::SimpleAtoi(entry.substr(0, digits), &arch)) {
      continue;
    }
    absl::string_view rest = entry.substr(digits);
    // "90a": architecture-specific features; such code runs on 9.0 only.
    const bool specific = absl::ConsumePrefix(&rest, "a");
    const bool real = rest.empty() || rest == "-real";
    const bool virt = rest.empty() || rest == "-virtual";
    if (real) {
      if (specific ? arch == want : arch / 10 == major && arch <= want) {
        *has_sass = true;
      }
    }
    if (virt) {
      if (specific ? arch == want : arch <= want) *has_ptx = true;
    }
  }
}

}  // namespace weft
