// Discovery of the devices weft can run on, with reasons. Compiled in every
// build: without CUDA (WEFT_CUDA=OFF, or no nvcc at build time) the CUDA part
// reports that as its reason, so callers (the session, `weft devices`) need
// no #ifdef of their own.
//
//   const CudaInfo& cuda = GetCudaInfo();
//   if (!cuda.status.ok()) std::puts(cuda.status.message());  // why no GPU
//   for (const CudaDeviceInfo& d : cuda.devices) ...
#ifndef WEFT_DEVICE_DEVICE_INFO_H_
#define WEFT_DEVICE_DEVICE_INFO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace weft {

struct CpuInfo {
  std::string model;        // /proc/cpuinfo's "model name"; may be empty
  int logical_cores = 0;    // hardware threads the OS reports
  int default_threads = 0;  // what SessionOptions.threads = -1 gives
  // The SIMD instruction sets the C++ code was compiled for (-march):
  // "AVX-512 (F, BW, DQ, VL), AVX2, FMA, ...", and what Eigen vectorizes with.
  std::string compiled_simd;
  std::string eigen_simd;
  // Whether this CPU can run that code: empty when it can, else the missing
  // extensions ("this CPU lacks avx512f").
  std::string missing_simd;
  // The path the CPU kernels dispatch to at run time (device/cpu_isa.h):
  // "avx512", "avx2" or "baseline"; the best one this CPU supports; and why
  // the kernels take theirs ("detected", "forced by WEFT_CPU_ISA=avx2").
  std::string kernel_path;
  std::string detected_path;
  std::string kernel_path_reason;
  // Whether large host buffers ask for transparent huge pages, and why
  // (core/huge_pages.h).
  bool huge_pages = false;
  std::string huge_pages_reason;
};

// Probed on every call (cheap: /proc/cpuinfo and cpuid).
CpuInfo GetCpuInfo();

struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;
  std::string pci_bus_id;
  int cc_major = 0;  // compute capability
  int cc_minor = 0;
  // Bytes. Free memory is not probed here: that needs a context on the
  // device, which costs hundreds of MB of its memory, and discovery should
  // not take that from GPUs nobody asked for.
  int64_t total_memory = 0;
  int multiprocessors = 0;
  // Code in this binary that runs on the GPU: native code (SASS) for its
  // architecture, or PTX the driver can JIT-compile for it.
  bool has_sass = false;
  bool has_ptx = false;
  // OK when this binary carries code for the GPU; otherwise why not (no
  // code for its compute capability). Whether the code actually loads is
  // checked when a CudaDevice is created on it.
  Status usable;
};

struct CudaInfo {
  // False when weft was built without the CUDA parts.
  bool built_with_cuda = false;
  // CUDA versions as 1000 * major + 10 * minor (13000 = 13.0). `runtime` is
  // the runtime weft links (statically) and needs a driver at least as new;
  // `driver` is what the installed driver supports, 0 when there is none.
  int runtime_version = 0;
  int driver_version = 0;
  // The architectures compiled in, as CMake lists them
  // ("80-real,90-real,90-virtual"); empty without CUDA.
  std::string compiled_architectures;
  // OK when at least one GPU was found. Otherwise FailedPrecondition saying
  // which: built without CUDA, no driver, a driver older than the runtime,
  // no device, the toolkit's stub libcuda, ... (see device_info.cc).
  Status status;
  std::vector<CudaDeviceInfo> devices;
};

// Probes once per process (the first call initializes the CUDA driver, which
// takes from milliseconds to a second) and returns the same object after.
// Thread-safe.
const CudaInfo& GetCudaInfo();

// OK when CUDA device `ordinal` exists and is usable; otherwise the reason,
// worded for a user who asked for "cuda:<ordinal>": "no CUDA device: no
// NVIDIA driver is installed (libcuda.so.1 could not be loaded) ...".
Status CheckCudaDevice(int ordinal);

// "13.0" from 13000; "none" for 0.
std::string CudaVersionString(int version);

// Parses a CMake architecture list ("80-real,90-real,90-virtual" or with ';')
// and says whether it carries native code (SASS) for compute capability
// major.minor, and PTX the driver can JIT-compile for it. SASS built for
// sm_XY runs on sm_XZ with Z >= Y (same major version); PTX for compute_XY
// runs on any capability >= X.Y. Plain "90" means both real and virtual.
void MatchCudaArchitectures(const std::string& architectures, int major,
                            int minor, bool* has_sass, bool* has_ptx);

}  // namespace weft

#endif  // WEFT_DEVICE_DEVICE_INFO_H_
