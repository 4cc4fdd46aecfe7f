// The embedding C API (include/weft/c_api.h) over weft's C++ internals.
// Every entry point catches everything: no exception may reach a C caller.
#include "weft/c_api.h"

#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "api/c_api_graph.h"
#include "api/c_status.h"
#include "api/op_library.h"
#include "api/plugin_api.h"
#include "core/allocator.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "executor/session.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"

#ifndef WEFT_VERSION_STRING
#error "WEFT_VERSION_STRING must be defined by the build"
#endif

struct weft_tensor {
  weft::Tensor tensor;
};

struct weft_session {
  std::unique_ptr<weft::Session> session;
};

// What the setters recorded; the session checks it when it is created.
struct weft_session_options {
  int threads = -1;
  std::string device = "cpu";
  bool optimize = true;
  bool cache_host_memory = true;
  int64_t host_memory_limit_bytes = 0;
  void* cuda_stream = nullptr;
  bool allow_tf32 = false;
  int64_t device_memory_limit_bytes = 0;
  bool capture_device_graphs = false;
};

namespace weft {
namespace {

// Validates a dtype and shape given to weft_tensor_new/wrap and the byte
// count that must match them.
StatusOr<TensorShape> CheckTensorArgs(absl::string_view call, weft_dtype dtype,
                                      const int64_t* dims, int num_dims,
                                      size_t num_bytes) {
  if (!IsValidDataType(dtype)) {
    return errors::InvalidArgument(call, ": ", static_cast<int>(dtype),
                                   " is no dtype");
  }
  DataType dt = static_cast<DataType>(dtype);
  if (DataTypeSize(dt) == 0) {
    return errors::InvalidArgument(
        call, ": dtype ", DataTypeName(dt),
        " has no plain-bytes layout; the C API supports numeric and bool "
        "tensors only");
  }
  if (num_dims < 0 || num_dims > kMaxRank) {
    return errors::InvalidArgument(call, ": num_dims ", num_dims,
                                   " is not in [0, ", kMaxRank, "]");
  }
  if (num_dims > 0 && dims == nullptr) {
    return errors::InvalidArgument(call, ": num_dims is ", num_dims,
                                   " but dims is NULL");
  }
  auto built = TensorShape::Build(
      absl::Span<const int64_t>(dims, static_cast<size_t>(num_dims)));
  if (!built.ok()) return AddContext(built.status(), call);
  const TensorShape& shape = *built;
  // kMaxElements elements of 8 bytes would wrap a size_t to a small count
  // (2^61 doubles to 0), which a wrong num_bytes could then match.
  if (static_cast<uint64_t>(shape.num_elements()) >
      SIZE_MAX / DataTypeSize(dt)) {
    return errors::InvalidArgument(call, ": a ", DataTypeName(dt),
                                   " tensor of shape ", shape.DebugString(),
                                   " needs more bytes than a size_t holds");
  }
  const size_t want =
      static_cast<size_t>(shape.num_elements()) * DataTypeSize(dt);
  if (num_bytes != want) {
    return errors::InvalidArgument(call, ": ", num_bytes, " bytes given for a ",
                                   DataTypeName(dt), " tensor of shape ",
                                   shape.DebugString(), ", which needs ", want);
  }
  return shape;
}

// The buffer of a wrapped tensor. TensorBuffer asks it for memory once (and
// gets the caller's buffer) and gives it back once, when the last tensor
// sharing the buffer is gone: then the caller's deallocator runs and this
// object, made for that one buffer, deletes itself.
class CallerBuffer final : public Allocator {
 public:
  CallerBuffer(void* data, size_t bytes, weft_deallocator deallocator,
               void* arg)
      : data_(data), bytes_(bytes), deallocator_(deallocator), arg_(arg) {}

  std::string Name() const override { return "caller buffer"; }
  MemorySpace memory_space() const override { return MemorySpace::kHost; }
  void* AllocateRaw(size_t, size_t) override { return data_; }
  void DeallocateRaw(void*, size_t) override {
    if (deallocator_ != nullptr) deallocator_(data_, bytes_, arg_);
    delete this;
  }
  AllocatorStats GetStats() const override { return {}; }

 private:
  void* const data_;
  const size_t bytes_;
  const weft_deallocator deallocator_;
  void* const arg_;
};

StatusOr<std::shared_ptr<const Graph>> BuildGraph(
    StatusOr<GraphDef> def, const std::string& source,
    const weft_graph_options* options) {
  WEFT_RETURN_IF_ERROR(def.status());
  ImportOptions import_options;
  import_options.source_name = source;
  WEFT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                        ImportGraphDef(*std::move(def), import_options));
  return InferCGraphShapes(std::move(graph), source, options);
}

}  // namespace

StatusOr<std::shared_ptr<const Graph>> InferCGraphShapes(
    std::unique_ptr<Graph> graph, const std::string& source,
    const weft_graph_options* options) {
  ShapeInferenceOptions shape_options;
  shape_options.source_name = source;
  if (options != nullptr) {
    for (const auto& in : options->input_shapes) {
      PartialTensorShape shape;
      if (!in.unknown_rank) {
        auto built = PartialTensorShape::Build(in.dims);
        if (!built.ok()) {
          return AddContext(
              built.status(),
              absl::StrCat(source, ": input shape for '", in.name, "'"));
        }
        shape = *built;
      }
      shape_options.input_shapes[in.name] = shape;
    }
  }
  WEFT_RETURN_IF_ERROR(InferShapes(graph.get(), shape_options));
  return std::shared_ptr<const Graph>(std::move(graph));
}

namespace {

weft_graph* MakeGraph(StatusOr<GraphDef> def, std::string source,
                      const weft_graph_options* options, weft_status* status) {
  auto graph = BuildGraph(std::move(def), source, options);
  if (!graph.ok()) {
    SetCStatus(status, graph.status());
    return nullptr;
  }
  std::unique_ptr<weft_graph> g =
      NewCGraph(*std::move(graph), std::move(source));
  Ok(status);
  return g.release();
}

}  // namespace
}  // namespace weft

using weft::Guard;
using weft::Ok;
using weft::SetCStatus;
using weft::Str;
namespace errors = weft::errors;

extern "C" {

// ---- the library ----------------------------------------------------------

const char* weft_version(void) { return WEFT_VERSION_STRING; }

uint32_t weft_plugin_api_version(void) { return weft::kPluginApiVersion; }

void weft_load_op_library(const char* path, weft_status* status) {
  Guard(status, "weft_load_op_library",
        [&] { SetCStatus(status, weft::LoadOpLibrary(Str(path))); });
}

// ---- status ---------------------------------------------------------------

weft_status* weft_status_new(void) { return new (std::nothrow) weft_status; }

void weft_status_delete(weft_status* status) { delete status; }

weft_code weft_status_code(const weft_status* status) {
  return status == nullptr ? WEFT_OK : status->code;
}

const char* weft_status_message(const weft_status* status) {
  return status == nullptr ? "" : status->message.c_str();
}

void weft_status_set(weft_status* status, weft_code code, const char* message) {
  try {
    SetCStatus(status, code, Str(message));
  } catch (...) {
    // Out of memory for the message: keep the code at least.
    if (status != nullptr) status->code = code;
  }
}

// ---- dtypes ---------------------------------------------------------------

const char* weft_dtype_name(weft_dtype dtype) {
  // Built once; DataTypeName returns a std::string, C wants static text.
  static const std::vector<std::string>* names = [] {
    auto* v = new std::vector<std::string>;
    for (int32_t i = 0; i <= weft::DT_UINT64; ++i) {
      v->push_back(weft::IsValidDataType(i)
                       ? weft::DataTypeName(static_cast<weft::DataType>(i))
                       : "invalid");
    }
    return v;
  }();
  int32_t i = static_cast<int32_t>(dtype);
  if (i < 0 || i >= static_cast<int32_t>(names->size())) return "invalid";
  return (*names)[i].c_str();
}

size_t weft_dtype_size(weft_dtype dtype) {
  if (!weft::IsValidDataType(dtype)) return 0;
  return weft::DataTypeSize(static_cast<weft::DataType>(dtype));
}

// ---- tensors --------------------------------------------------------------

weft_tensor* weft_tensor_new(weft_dtype dtype, const int64_t* dims,
                             int num_dims, const void* data, size_t num_bytes,
                             weft_status* status) {
  weft_tensor* result = nullptr;
  Guard(status, "weft_tensor_new", [&] {
    auto shape = weft::CheckTensorArgs("weft_tensor_new", dtype, dims, num_dims,
                                       num_bytes);
    if (!shape.ok()) return SetCStatus(status, shape.status());
    auto t = weft::Tensor::Allocate(weft::DefaultCpuAllocator(),
                                    static_cast<weft::DataType>(dtype), *shape);
    if (!t.ok()) return SetCStatus(status, t.status());
    if (num_bytes > 0) {
      if (data != nullptr) {
        std::memcpy(t->raw_data(), data, num_bytes);
      } else {
        std::memset(t->raw_data(), 0, num_bytes);
      }
    }
    result = new weft_tensor{*std::move(t)};
    Ok(status);
  });
  return result;
}

weft_tensor* weft_tensor_wrap(weft_dtype dtype, const int64_t* dims,
                              int num_dims, void* data, size_t num_bytes,
                              weft_deallocator deallocator, void* arg,
                              weft_status* status) {
  weft_tensor* result = nullptr;
  Guard(status, "weft_tensor_wrap", [&] {
    auto shape = weft::CheckTensorArgs("weft_tensor_wrap", dtype, dims,
                                       num_dims, num_bytes);
    if (!shape.ok()) return SetCStatus(status, shape.status());
    if (num_bytes > 0 && data == nullptr) {
      return SetCStatus(
          status, errors::InvalidArgument("weft_tensor_wrap: data is NULL for ",
                                          num_bytes, " bytes"));
    }
    const auto dt = static_cast<weft::DataType>(dtype);
    const bool aligned =
        reinterpret_cast<uintptr_t>(data) % weft::kTensorAlignment == 0;
    if (num_bytes == 0 || !aligned) {
      // Kernels read tensors through aligned Eigen maps: copy.
      auto t = weft::Tensor::Allocate(weft::DefaultCpuAllocator(), dt, *shape);
      if (!t.ok()) return SetCStatus(status, t.status());
      if (num_bytes > 0) std::memcpy(t->raw_data(), data, num_bytes);
      result = new weft_tensor{*std::move(t)};
      if (deallocator != nullptr) deallocator(data, num_bytes, arg);
      return Ok(status);
    }
    auto* buffer = new weft::CallerBuffer(data, num_bytes, deallocator, arg);
    auto t = weft::Tensor::Allocate(buffer, dt, *shape);
    if (!t.ok()) {
      // Allocate gave the buffer back only if it took it: it did not.
      delete buffer;
      return SetCStatus(status, t.status());
    }
    result = new weft_tensor{*std::move(t)};
    Ok(status);
  });
  return result;
}

void weft_tensor_delete(weft_tensor* tensor) { delete tensor; }

weft_dtype weft_tensor_dtype(const weft_tensor* tensor) {
  return tensor == nullptr ? WEFT_INVALID
                           : static_cast<weft_dtype>(tensor->tensor.dtype());
}

int weft_tensor_num_dims(const weft_tensor* tensor) {
  return tensor == nullptr ? 0 : tensor->tensor.dims();
}

int64_t weft_tensor_dim(const weft_tensor* tensor, int index) {
  if (tensor == nullptr || index < 0 || index >= tensor->tensor.dims()) {
    return -1;
  }
  return tensor->tensor.dim_size(index);
}

int64_t weft_tensor_num_elements(const weft_tensor* tensor) {
  return tensor == nullptr ? 0 : tensor->tensor.NumElements();
}

size_t weft_tensor_byte_size(const weft_tensor* tensor) {
  return tensor == nullptr ? 0 : tensor->tensor.TotalBytes();
}

void* weft_tensor_data(const weft_tensor* tensor) {
  return tensor == nullptr ? nullptr : tensor->tensor.raw_data();
}

// ---- graphs ---------------------------------------------------------------

weft_graph_options* weft_graph_options_new(void) {
  return new (std::nothrow) weft_graph_options;
}

void weft_graph_options_delete(weft_graph_options* options) { delete options; }

void weft_graph_options_set_input_shape(weft_graph_options* options,
                                        const char* name, const int64_t* dims,
                                        int num_dims) {
  if (options == nullptr) return;
  try {
    weft_graph_options::InputShape in;
    in.name = Str(name);
    in.unknown_rank = num_dims < 0;
    if (num_dims > 0 && dims != nullptr) in.dims.assign(dims, dims + num_dims);
    // A positive num_dims with no dims reads as that many unknown dims.
    if (num_dims > 0 && dims == nullptr) in.dims.assign(num_dims, -1);
    for (auto& existing : options->input_shapes) {
      if (existing.name == in.name) {
        existing = std::move(in);
        return;
      }
    }
    options->input_shapes.push_back(std::move(in));
  } catch (...) {
    // Out of memory: the shape is not recorded; loading proceeds without.
  }
}

weft_graph* weft_graph_load_file(const char* path,
                                 const weft_graph_options* options,
                                 weft_status* status) {
  weft_graph* result = nullptr;
  Guard(status, "weft_graph_load_file", [&] {
    if (path == nullptr) {
      return SetCStatus(status, errors::InvalidArgument(
                                    "weft_graph_load_file: path is NULL"));
    }
    result = weft::MakeGraph(weft::LoadGraphDef(path), path, options, status);
  });
  return result;
}

weft_graph* weft_graph_load_buffer(const void* data, size_t size,
                                   const char* source_name,
                                   const weft_graph_options* options,
                                   weft_status* status) {
  weft_graph* result = nullptr;
  Guard(status, "weft_graph_load_buffer", [&] {
    std::string source = source_name ? source_name : "<memory>";
    if (data == nullptr && size > 0) {
      return SetCStatus(status,
                        errors::InvalidArgument(source, ": data is NULL"));
    }
    absl::string_view bytes(static_cast<const char*>(data), size);
    result = weft::MakeGraph(weft::ParseGraphDef(bytes, source), source,
                             options, status);
  });
  return result;
}

void weft_graph_delete(weft_graph* graph) { delete graph; }

int weft_graph_num_nodes(const weft_graph* graph) {
  return graph == nullptr ? 0 : static_cast<int>(graph->graph->nodes().size());
}

// ---- sessions -------------------------------------------------------------

weft_session_options* weft_session_options_new(void) {
  return new (std::nothrow) weft_session_options;
}

void weft_session_options_delete(weft_session_options* options) {
  delete options;
}

void weft_session_options_set_threads(weft_session_options* options,
                                      int num_threads) {
  if (options != nullptr) options->threads = num_threads;
}

void weft_session_options_set_device(weft_session_options* options,
                                     const char* device) {
  if (options == nullptr) return;
  try {
    options->device = device == nullptr ? "" : device;
  } catch (...) {
    // Out of memory: the device stays as it was.
  }
}

void weft_session_options_set_optimize(weft_session_options* options,
                                       int enabled) {
  if (options != nullptr) options->optimize = enabled != 0;
}

void weft_session_options_set_host_memory_cache(weft_session_options* options,
                                                int enabled) {
  if (options != nullptr) options->cache_host_memory = enabled != 0;
}

void weft_session_options_set_host_memory_limit(weft_session_options* options,
                                                int64_t bytes) {
  if (options != nullptr) options->host_memory_limit_bytes = bytes;
}

void weft_session_options_set_cuda_stream(weft_session_options* options,
                                          void* cuda_stream) {
  if (options != nullptr) options->cuda_stream = cuda_stream;
}

void weft_session_options_set_allow_tf32(weft_session_options* options,
                                         int enabled) {
  if (options != nullptr) options->allow_tf32 = enabled != 0;
}

void weft_session_options_set_device_memory_limit(weft_session_options* options,
                                                  int64_t bytes) {
  if (options != nullptr) options->device_memory_limit_bytes = bytes;
}

void weft_session_options_set_capture_device_graphs(
    weft_session_options* options, int enabled) {
  if (options != nullptr) options->capture_device_graphs = enabled != 0;
}

weft_session* weft_session_new_with_options(const weft_graph* graph,
                                            const weft_session_options* options,
                                            weft_status* status) {
  weft_session* result = nullptr;
  Guard(status, "weft_session_new_with_options", [&] {
    if (graph == nullptr) {
      return SetCStatus(status,
                        errors::InvalidArgument(
                            "weft_session_new_with_options: graph is NULL"));
    }
    const weft_session_options defaults;
    const weft_session_options& given = options ? *options : defaults;
    weft::SessionOptions session_options;
    session_options.threads = given.threads;
    session_options.device = given.device;
    session_options.optimize = given.optimize;
    session_options.cache_host_memory = given.cache_host_memory;
    session_options.host_memory_limit_bytes = given.host_memory_limit_bytes;
    session_options.cuda_stream = given.cuda_stream;
    session_options.allow_tf32 = given.allow_tf32;
    session_options.device_memory_limit_bytes = given.device_memory_limit_bytes;
    session_options.capture_device_graphs = given.capture_device_graphs;
    session_options.source_name = graph->source_name;
    auto session = weft::Session::Create(graph->graph, session_options);
    if (!session.ok()) return SetCStatus(status, session.status());
    result = new weft_session{*std::move(session)};
    Ok(status);
  });
  return result;
}

weft_session* weft_session_new(const weft_graph* graph, int num_threads,
                               weft_status* status) {
  weft_session_options options;
  options.threads = num_threads;
  return weft_session_new_with_options(graph, &options, status);
}

void weft_session_delete(weft_session* session) { delete session; }

void weft_session_run(const weft_session* session,
                      const char* const* feed_names,
                      const weft_tensor* const* feeds, int num_feeds,
                      const char* const* fetch_names, int num_fetches,
                      weft_tensor** outputs, weft_status* status) {
  if (outputs != nullptr) {
    for (int i = 0; i < num_fetches; ++i) outputs[i] = nullptr;
  }
  Guard(status, "weft_session_run", [&] {
    if (session == nullptr || num_feeds < 0 || num_fetches < 0 ||
        (num_feeds > 0 && (feed_names == nullptr || feeds == nullptr)) ||
        (num_fetches > 0 && (fetch_names == nullptr || outputs == nullptr))) {
      return SetCStatus(
          status, errors::InvalidArgument(
                      "weft_session_run: a NULL session, or NULL arrays for "
                      "a non-zero number of feeds or fetches"));
    }
    std::vector<std::pair<std::string, weft::Tensor>> in;
    in.reserve(num_feeds);
    for (int i = 0; i < num_feeds; ++i) {
      if (feed_names[i] == nullptr || feeds[i] == nullptr) {
        return SetCStatus(
            status, errors::InvalidArgument("weft_session_run: feed ", i,
                                            " has a NULL name or tensor"));
      }
      in.emplace_back(feed_names[i], feeds[i]->tensor);
    }
    std::vector<std::string> fetches;
    fetches.reserve(num_fetches);
    for (int i = 0; i < num_fetches; ++i) {
      if (fetch_names[i] == nullptr) {
        return SetCStatus(status,
                          errors::InvalidArgument("weft_session_run: fetch ", i,
                                                  " has a NULL name"));
      }
      fetches.emplace_back(fetch_names[i]);
    }
    auto out = session->session->Run(in, fetches);
    if (!out.ok()) return SetCStatus(status, out.status());
    for (int i = 0; i < num_fetches; ++i) {
      const weft::Tensor& t = (*out)[i];
      if (weft::DataTypeSize(t.dtype()) == 0 ||
          t.memory_space() != weft::MemorySpace::kHost) {
        return SetCStatus(
            status,
            errors::Unimplemented(
                "weft_session_run: fetch '", fetches[i], "' is a ",
                weft::DataTypeName(t.dtype()),
                t.memory_space() == weft::MemorySpace::kHost
                    ? " tensor, which the C API cannot return (numeric and "
                      "bool tensors only)"
                    : " tensor in device memory"));
      }
    }
    std::vector<std::unique_ptr<weft_tensor>> made;
    for (int i = 0; i < num_fetches; ++i) {
      made.push_back(
          std::make_unique<weft_tensor>(weft_tensor{std::move((*out)[i])}));
    }
    for (int i = 0; i < num_fetches; ++i) outputs[i] = made[i].release();
    Ok(status);
  });
}

}  // extern "C"
