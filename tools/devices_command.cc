// weft devices: the CPU and every GPU weft could run on, or the reason there
// is none. Exits 0 either way: having no GPU is an answer, not a failure.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "device/device_info.h"
#include "tools/cli.h"

#if WEFT_HAVE_CUDA
#include "device/cuda/cublas_loader.h"
#endif

namespace weft::cli {
namespace {

constexpr char kHelp[] =
    "usage: weft devices [--json]\n"
    "\n"
    "Lists the devices this weft can run graphs on: the CPU (model, cores,\n"
    "the SIMD instruction sets the binary was compiled for, and the kernel\n"
    "path it dispatches to at run time: avx512, avx2 or baseline, lowered\n"
    "with WEFT_CPU_ISA=avx2|baseline; whether large buffers use huge pages,\n"
    "set with WEFT_HUGE_PAGES=0|1) and every CUDA\n"
    "GPU (name, compute capability, memory, whether the binary carries code\n"
    "for it), with the CUDA driver and runtime versions. When there is no\n"
    "usable GPU it says why: weft built without CUDA, no NVIDIA driver, a\n"
    "driver older than the runtime, no device, ...\n"
    "\n"
    "  --json   print one JSON object instead of text\n";

std::string GiB(int64_t bytes) {
  return absl::StrFormat("%.1f GiB", static_cast<double>(bytes) / (1 << 30));
}

// Which code of the binary the GPU runs, in words.
std::string CodeSummary(const CudaDeviceInfo& d) {
  if (d.has_sass) return "native code (SASS)";
  if (d.has_ptx) return "PTX, JIT-compiled by the driver on first use";
  return "none";
}

// Whether cuBLAS (MatMul) can be loaded; "" when weft has no CUDA.
std::string CublasSummary(bool* ok) {
  *ok = false;
#if WEFT_HAVE_CUDA
  StatusOr<const CublasApi*> api = LoadCublas();
  if (!api.ok()) return std::string(api.status().message());
  *ok = true;
  return absl::StrFormat("%d.%d.%d", (*api)->version / 10000,
                         (*api)->version / 100 % 100, (*api)->version % 100);
#else
  return "";
#endif
}

std::string Text(const CpuInfo& cpu, const CudaInfo& cuda) {
  std::string out = absl::StrCat(
      "cpu:0   ", cpu.model.empty() ? "unknown CPU" : cpu.model, "\n",
      "        ", cpu.logical_cores, " logical cores; sessions use ",
      cpu.default_threads, " threads by default\n",
      "        compiled for: ", cpu.compiled_simd, "\n",
      "        Eigen vectorizes with: ", cpu.eigen_simd, "\n",
      "        kernel path: ", cpu.kernel_path, " (", cpu.kernel_path_reason,
      "; this CPU supports ", cpu.detected_path, ")\n",
      "        huge pages for large buffers: ", cpu.huge_pages ? "yes" : "no",
      " (", cpu.huge_pages_reason, ")\n");
  if (!cpu.missing_simd.empty()) {
    absl::StrAppend(&out, "        warning: ", cpu.missing_simd, "\n");
  }
  if (!cuda.built_with_cuda) {
    absl::StrAppend(&out, "cuda    none: ", cuda.status.message(), "\n");
    return out;
  }
  absl::StrAppend(
      &out, "cuda    runtime ", CudaVersionString(cuda.runtime_version),
      " (linked), driver ", CudaVersionString(cuda.driver_version),
      "; GPU code for architectures ", cuda.compiled_architectures, "\n");
  bool blas_ok = false;
  std::string blas = CublasSummary(&blas_ok);
  absl::StrAppend(&out, "        cuBLAS: ", blas_ok ? blas : "unavailable: ",
                  blas_ok ? "" : blas, "\n");
  if (!cuda.status.ok()) {
    absl::StrAppend(&out, "        none: ", cuda.status.message(), "\n");
    return out;
  }
  for (const CudaDeviceInfo& d : cuda.devices) {
    absl::StrAppend(&out, "cuda:", d.ordinal, "  ", d.name,
                    ", compute capability ", d.cc_major, ".", d.cc_minor, ", ",
                    d.multiprocessors, " SMs, ", GiB(d.total_memory),
                    d.pci_bus_id.empty() ? "" : ", PCI ", d.pci_bus_id, "\n",
                    "        code in this binary: ", CodeSummary(d), "\n");
    if (!d.usable.ok()) {
      absl::StrAppend(&out, "        not usable: ", d.usable.message(), "\n");
    }
  }
  return out;
}

std::string Json(const CpuInfo& cpu, const CudaInfo& cuda) {
  std::string out = "{\"cpu\": {\"model\": ";
  AppendJsonString(&out, cpu.model);
  absl::StrAppend(&out, ", \"logical_cores\": ", cpu.logical_cores,
                  ", \"default_threads\": ", cpu.default_threads,
                  ", \"compiled_simd\": ");
  AppendJsonString(&out, cpu.compiled_simd);
  out += ", \"eigen_simd\": ";
  AppendJsonString(&out, cpu.eigen_simd);
  out += ", \"missing_simd\": ";
  AppendJsonString(&out, cpu.missing_simd);
  out += ", \"kernel_path\": ";
  AppendJsonString(&out, cpu.kernel_path);
  out += ", \"detected_path\": ";
  AppendJsonString(&out, cpu.detected_path);
  out += ", \"kernel_path_reason\": ";
  AppendJsonString(&out, cpu.kernel_path_reason);
  absl::StrAppend(&out, ", \"huge_pages\": ", cpu.huge_pages ? "true" : "false",
                  ", \"huge_pages_reason\": ");
  AppendJsonString(&out, cpu.huge_pages_reason);
  absl::StrAppend(&out, "}, \"cuda\": {\"built_with_cuda\": ",
                  cuda.built_with_cuda ? "true" : "false",
                  ", \"runtime_version\": ");
  AppendJsonString(&out, CudaVersionString(cuda.runtime_version));
  out += ", \"driver_version\": ";
  AppendJsonString(&out, CudaVersionString(cuda.driver_version));
  out += ", \"architectures\": ";
  AppendJsonString(&out, cuda.compiled_architectures);
  bool blas_ok = false;
  std::string blas = CublasSummary(&blas_ok);
  absl::StrAppend(&out, ", \"cublas_available\": ", blas_ok ? "true" : "false",
                  ", \"cublas\": ");
  AppendJsonString(&out, blas);
  absl::StrAppend(&out,
                  ", \"available\": ", cuda.status.ok() ? "true" : "false",
                  ", \"reason\": ");
  AppendJsonString(&out, cuda.status.ok() ? "" : cuda.status.message());
  out += ", \"devices\": [";
  for (size_t i = 0; i < cuda.devices.size(); ++i) {
    const CudaDeviceInfo& d = cuda.devices[i];
    absl::StrAppend(&out, i > 0 ? ", " : "", "{\"name\": ");
    AppendJsonString(&out, absl::StrCat("cuda:", d.ordinal));
    out += ", \"model\": ";
    AppendJsonString(&out, d.name);
    out += ", \"pci_bus_id\": ";
    AppendJsonString(&out, d.pci_bus_id);
    absl::StrAppend(&out, ", \"compute_capability\": \"", d.cc_major, ".",
                    d.cc_minor, "\", \"multiprocessors\": ", d.multiprocessors,
                    ", \"memory_bytes\": ", d.total_memory,
                    ", \"has_sass\": ", d.has_sass ? "true" : "false",
                    ", \"has_ptx\": ", d.has_ptx ? "true" : "false",
                    ", \"usable\": ", d.usable.ok() ? "true" : "false",
                    ", \"reason\": ");
    AppendJsonString(&out, d.usable.ok() ? "" : d.usable.message());
    out += "}";
  }
  out += "]}}\n";
  return out;
}

}  // namespace

int DevicesMain(const std::vector<std::string>& argv) {
  Args args(argv);
  args.Flag("help", false);
  args.Flag("json", false);
  if (Status s = args.Parse(); !s.ok()) {
    return UsageError("devices", s.message());
  }
  if (args.Has("help")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (!args.positional().empty()) {
    return UsageError("devices", "takes no arguments");
  }
  const CpuInfo cpu = GetCpuInfo();
  const CudaInfo& cuda = GetCudaInfo();
  std::string out = args.Has("json") ? Json(cpu, cuda) : Text(cpu, cuda);
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace weft::cli
