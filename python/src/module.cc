// weft._weft: the extension module behind the `weft` Python package
// (python/weft/__init__.py re-exports it). What it binds and why the C++
// internals rather than the C API: python/CMakeLists.txt.
#include "nb_casters.h"

#include <string>

#include "api/op_library.h"
#include "arrays.h"
#include "device/device_info.h"
#include "errors.h"
#include "graph_binding.h"
#include "session_binding.h"
#include "sigint_cancellation.h"

#ifndef WEFT_PYTHON_VERSION_STRING
#error "WEFT_PYTHON_VERSION_STRING must be defined by the build"
#endif

namespace nb = nanobind;

namespace weft::python {
namespace {

nb::list Devices() {
  nb::list out;
  const CpuInfo cpu = GetCpuInfo();
  nb::dict c;
  c["name"] = "cpu:0";
  c["kind"] = "cpu";
  c["model"] = cpu.model;
  c["logical_cores"] = cpu.logical_cores;
  c["default_threads"] = cpu.default_threads;
  c["compiled_simd"] = cpu.compiled_simd;
  c["usable"] = cpu.missing_simd.empty();
  c["reason"] = cpu.missing_simd;
  out.append(c);
  const CudaInfo& cuda = GetCudaInfo();
  for (const CudaDeviceInfo& d : cuda.devices) {
    nb::dict g;
    g["name"] = "cuda:" + std::to_string(d.ordinal);
    g["kind"] = "cuda";
    g["model"] = d.name;
    g["compute_capability"] =
        std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
    g["memory_bytes"] = d.total_memory;
    g["multiprocessors"] = d.multiprocessors;
    g["usable"] = d.usable.ok();
    g["reason"] = std::string(d.usable.message());
    out.append(g);
  }
  return out;
}

std::string CudaUnavailableReason() {
  const CudaInfo& cuda = GetCudaInfo();
  return cuda.status.ok() ? std::string() : std::string(cuda.status.message());
}

}  // namespace
}  // namespace weft::python

NB_MODULE(_weft, m) {
  using namespace weft::python;
  InitSigintCancellation();
  m.attr("__version__") = WEFT_PYTHON_VERSION_STRING;

  nb::object spec = nb::module_::import_("collections")
                        .attr("namedtuple")("TensorSpec", "name dtype shape",
                                            nb::arg("module") = "weft");
  spec.attr("__doc__") =
      "A graph tensor: name ('node' or 'node:i'), dtype (a numpy.dtype, or "
      "weft's name for dtypes NumPy lacks) and shape (a tuple with None for "
      "unknown sizes, or None for an unknown rank).";
  m.attr("TensorSpec") = spec;

  BindGraph(m);
  BindSession(m);

  m.def(
      "load_op_library",
      [](const std::string& path) {
        weft::Status status;
        {
          nb::gil_scoped_release release;
          status = weft::LoadOpLibrary(path);
        }
        ThrowIfError(status, PyExc_FileNotFoundError);
      },
      nb::arg("path"),
      "Loads an op library (a shared object built against weft/plugin.h) "
      "and registers its ops and kernels for every later Graph.load and "
      "Session. Loading the same library twice is a no-op. Raises "
      "FileNotFoundError when there is no such file, RuntimeError or "
      "ValueError naming the library otherwise (not a weft plugin, built for "
      "a newer plugin API, an op already registered).");
  m.def("devices", &Devices,
        "The devices weft can run on, as dicts: the CPU first (name 'cpu:0', "
        "model, logical_cores, default_threads, compiled_simd), then every "
        "CUDA GPU found (name 'cuda:N', model, compute_capability, "
        "memory_bytes, multiprocessors); 'usable' and 'reason' say whether "
        "weft can run there and why not. weft.cuda_unavailable_reason() says "
        "why no GPU is listed.");
  m.def("cuda_unavailable_reason", &CudaUnavailableReason,
        "Why weft has no usable CUDA GPU here (built without CUDA, no driver, "
        "no device, ...), or '' when it has one.");
  m.def("empty", &EmptyAligned, nb::arg("shape"), nb::arg("dtype") = "float32",
        "An uninitialized C-contiguous array in 64-byte-aligned memory that "
        "weft owns: feeding it to a run costs no copy (ordinary NumPy arrays "
        "are 16-byte aligned and are copied once per run).");
}
