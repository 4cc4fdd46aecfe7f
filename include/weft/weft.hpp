// weft's C++ embedding API: RAII classes over the C API in weft/c_api.h.
//
//   weft::Graph graph = weft::Graph::Load("model.pb", {{"x", {1, 4}}});
//   weft::Session session(graph, /*num_threads=*/4);
//   weft::Tensor x = weft::Tensor::FromVector<float>({1, 4}, {1, 2, 3, 4});
//   std::vector<weft::Tensor> out = session.Run({{"x", x}}, {"probs"});
//   std::vector<float> probs = out[0].ToVector<float>();
//   for (const weft::TensorInfo& in : graph.Inputs()) ...  // what to feed
//
// Header-only on purpose: it is compiled into the host program with the
// host's own compiler and standard library, and talks to libweft through C
// calls only, so the host's C++ ABI settings (_GLIBCXX_USE_CXX11_ABI, -std,
// compiler version) never have to match weft's. The classes live in the
// inline namespace weft::v1, so their linker names differ from weft's
// internal classes of the same names even when libweft is linked
// statically.
//
// Errors: every fallible call takes an optional `Status* status`. Given, the
// call reports failure there and returns an empty object; omitted, failure
// throws weft::Error (or, built without exceptions, prints the message and
// aborts).
#ifndef WEFT_WEFT_HPP_
#define WEFT_WEFT_HPP_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "weft/c_api.h"

namespace weft {
inline namespace v1 {

using DataType = weft_dtype;

// The dtype of a C++ element type: DataTypeOf<float>::value == WEFT_FLOAT.
template <typename T>
struct DataTypeOf;
#define WEFT_HPP_DTYPE_(T, V)            \
  template <>                            \
  struct DataTypeOf<T> {                 \
    static constexpr DataType value = V; \
  }
WEFT_HPP_DTYPE_(float, WEFT_FLOAT);
WEFT_HPP_DTYPE_(double, WEFT_DOUBLE);
WEFT_HPP_DTYPE_(int8_t, WEFT_INT8);
WEFT_HPP_DTYPE_(int16_t, WEFT_INT16);
WEFT_HPP_DTYPE_(int32_t, WEFT_INT32);
WEFT_HPP_DTYPE_(int64_t, WEFT_INT64);
WEFT_HPP_DTYPE_(uint8_t, WEFT_UINT8);
WEFT_HPP_DTYPE_(uint16_t, WEFT_UINT16);
WEFT_HPP_DTYPE_(uint32_t, WEFT_UINT32);
WEFT_HPP_DTYPE_(uint64_t, WEFT_UINT64);
WEFT_HPP_DTYPE_(bool, WEFT_BOOL);
#undef WEFT_HPP_DTYPE_

class Status {
 public:
  Status() = default;
  Status(weft_code code, std::string message)
      : code_(code), message_(code == WEFT_OK ? "" : std::move(message)) {}

  bool ok() const { return code_ == WEFT_OK; }
  weft_code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  weft_code code_ = WEFT_OK;
  std::string message_;
};

class Error : public std::runtime_error {
 public:
  explicit Error(const Status& status)
      : std::runtime_error(status.message()), code_(status.code()) {}
  weft_code code() const { return code_; }

 private:
  weft_code code_;
};

namespace internal {

// A weft_status for the duration of one C call.
class CStatus {
 public:
  CStatus() : s_(weft_status_new()) {}
  ~CStatus() { weft_status_delete(s_); }
  CStatus(const CStatus&) = delete;
  CStatus& operator=(const CStatus&) = delete;
  weft_status* get() { return s_; }
  Status ToStatus() const {
    if (s_ == nullptr) return Status(WEFT_RESOURCE_EXHAUSTED, "out of memory");
    return Status(weft_status_code(s_), weft_status_message(s_));
  }

 private:
  weft_status* s_;
};

// Hands `s` to the caller: into *out when given, else as an exception.
// Returns s.ok().
inline bool Report(const Status& s, Status* out) {
  if (out != nullptr) {
    *out = s;
    return s.ok();
  }
  if (s.ok()) return true;
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  throw Error(s);
#else
  std::fprintf(stderr, "weft: %s\n", s.message().c_str());
  std::abort();
#endif
}

struct TensorDeleter {
  void operator()(weft_tensor* t) const { weft_tensor_delete(t); }
};
struct GraphDeleter {
  void operator()(weft_graph* g) const { weft_graph_delete(g); }
};
struct SessionDeleter {
  void operator()(weft_session* s) const { weft_session_delete(s); }
};

}  // namespace internal

inline const char* Version() { return weft_version(); }

// Loads an op library (see weft_load_op_library); a second load of the same
// file does nothing.
inline Status LoadOpLibrary(const std::string& path, Status* status = nullptr) {
  internal::CStatus s;
  weft_load_op_library(path.c_str(), s.get());
  Status result = s.ToStatus();
  internal::Report(result, status);
  return result;
}

// A dense tensor in host memory; move-only. An empty Tensor (default
// constructed, or returned from a failed call) holds nothing.
class Tensor {
 public:
  Tensor() = default;
  // Adopts a tensor from the C API.
  explicit Tensor(weft_tensor* t) : t_(t) {}

  // A tensor of `dtype` and `dims` with a copy of `data` (zeros when null),
  // which must hold num_elements * weft_dtype_size(dtype) bytes.
  static Tensor Make(DataType dtype, const std::vector<int64_t>& dims,
                     const void* data = nullptr, Status* status = nullptr) {
    // Unsigned, so that absurd dims wrap instead of overflowing; libweft
    // checks the dims themselves and refuses them.
    uint64_t n = 1;
    for (int64_t d : dims) n *= d < 0 ? 0 : static_cast<uint64_t>(d);
    size_t bytes = static_cast<size_t>(n) * weft_dtype_size(dtype);
    internal::CStatus s;
    weft_tensor* t =
        weft_tensor_new(dtype, dims.data(), static_cast<int>(dims.size()), data,
                        bytes, s.get());
    internal::Report(s.ToStatus(), status);
    return Tensor(t);
  }

  template <typename T>
  static Tensor FromVector(const std::vector<int64_t>& dims,
                           const std::vector<T>& values,
                           Status* status = nullptr) {
    static_assert(!std::is_same<T, bool>::value,
                  "std::vector<bool> is not contiguous; use Make");
    uint64_t n = 1;  // unsigned: see Make
    for (int64_t d : dims) n *= d < 0 ? 0 : static_cast<uint64_t>(d);
    if (n != static_cast<uint64_t>(values.size())) {
      internal::Report(
          Status(WEFT_INVALID_ARGUMENT,
                 "Tensor::FromVector: " + std::to_string(values.size()) +
                     " values for a shape of " + std::to_string(n) +
                     " elements"),
          status);
      return Tensor();
    }
    internal::CStatus s;
    weft_tensor* t = weft_tensor_new(
        DataTypeOf<T>::value, dims.data(), static_cast<int>(dims.size()),
        values.data(), values.size() * sizeof(T), s.get());
    internal::Report(s.ToStatus(), status);
    return Tensor(t);
  }

  template <typename T>
  static Tensor Scalar(T value, Status* status = nullptr) {
    return Make(DataTypeOf<T>::value, {}, &value, status);
  }

  // Wraps the caller's buffer without copying (see weft_tensor_wrap).
  static Tensor Wrap(DataType dtype, const std::vector<int64_t>& dims,
                     void* data, size_t num_bytes, weft_deallocator deallocator,
                     void* arg, Status* status = nullptr) {
    internal::CStatus s;
    weft_tensor* t =
        weft_tensor_wrap(dtype, dims.data(), static_cast<int>(dims.size()),
                         data, num_bytes, deallocator, arg, s.get());
    internal::Report(s.ToStatus(), status);
    return Tensor(t);
  }

  explicit operator bool() const { return t_ != nullptr; }

  DataType dtype() const { return weft_tensor_dtype(t_.get()); }
  int num_dims() const { return weft_tensor_num_dims(t_.get()); }
  int64_t dim(int index) const { return weft_tensor_dim(t_.get(), index); }
  std::vector<int64_t> dims() const {
    std::vector<int64_t> d(static_cast<size_t>(num_dims()));
    for (size_t i = 0; i < d.size(); ++i) d[i] = dim(static_cast<int>(i));
    return d;
  }
  int64_t num_elements() const { return weft_tensor_num_elements(t_.get()); }
  size_t byte_size() const { return weft_tensor_byte_size(t_.get()); }
  void* raw_data() const { return weft_tensor_data(t_.get()); }

  // Typed elements; nullptr when T is not the tensor's dtype.
  template <typename T>
  T* data() const {
    if (!t_ || dtype() != DataTypeOf<T>::value) return nullptr;
    return static_cast<T*>(raw_data());
  }

  template <typename T>
  std::vector<T> ToVector(Status* status = nullptr) const {
    const T* p = data<T>();
    if (p == nullptr) {
      internal::Report(
          Status(WEFT_INVALID_ARGUMENT,
                 std::string("Tensor::ToVector: the tensor is ") +
                     (t_ ? weft_dtype_name(dtype()) : "empty") + ", not " +
                     weft_dtype_name(DataTypeOf<T>::value)),
          status);
      return {};
    }
    internal::Report(Status(), status);
    return std::vector<T>(p, p + num_elements());
  }

  const weft_tensor* get() const { return t_.get(); }
  weft_tensor* release() { return t_.release(); }

 private:
  std::unique_ptr<weft_tensor, internal::TensorDeleter> t_;
};

// One tensor of a graph, as Graph::Inputs(), Outputs() and Output() give
// it (see "what a graph takes and gives" in c_api.h).
struct TensorInfo {
  std::string name;  // "node" or "node:k", as a run feeds or fetches it
  std::string op;    // the producing node's op, e.g. "Placeholder"
  DataType dtype = WEFT_INVALID;
  // The rank, or -1 when unknown; then `dims` is empty.
  int num_dims = -1;
  // One size per dimension, -1 where the size is unknown (e.g. the batch).
  std::vector<int64_t> dims;
  // A PlaceholderWithDefault: a run may leave it unfed.
  bool has_default = false;

  static TensorInfo FromC(const weft_tensor_info* info) {
    TensorInfo t;
    if (info == nullptr) return t;
    t.name = weft_tensor_info_name(info);
    t.op = weft_tensor_info_op(info);
    t.dtype = weft_tensor_info_dtype(info);
    t.num_dims = weft_tensor_info_num_dims(info);
    for (int i = 0; i < t.num_dims; ++i) {
      t.dims.push_back(weft_tensor_info_dim(info, i));
    }
    t.has_default = weft_tensor_info_has_default(info) != 0;
    return t;
  }
};

// A loaded, validated, shape-inferred graph. Copies share it.
class Graph {
 public:
  // Placeholder name -> dims (-1 for unknown), refining the file's shapes.
  using InputShapes = std::map<std::string, std::vector<int64_t>>;

  Graph() = default;

  static Graph Load(const std::string& path, const InputShapes& shapes = {},
                    Status* status = nullptr) {
    internal::CStatus s;
    Options options(shapes);
    weft_graph* g = weft_graph_load_file(path.c_str(), options.get(), s.get());
    internal::Report(s.ToStatus(), status);
    return Graph(g);
  }

  // One signature of a SavedModel directory (weft_graph_load_saved_model):
  // empty `signature` / `tags` mean "serving_default" / "serve". Inputs()
  // and Outputs() are then the signature's keys, and runs use the keys.
  static Graph LoadSavedModel(const std::string& dir,
                              const std::string& signature = "",
                              const std::string& tags = "",
                              const InputShapes& shapes = {},
                              Status* status = nullptr) {
    internal::CStatus s;
    Options options(shapes);
    weft_graph* g = weft_graph_load_saved_model(
        dir.c_str(), tags.c_str(), signature.c_str(), options.get(), s.get());
    internal::Report(s.ToStatus(), status);
    return Graph(g);
  }

  static Graph FromBuffer(const void* data, size_t size,
                          const std::string& source_name = "<memory>",
                          const InputShapes& shapes = {},
                          Status* status = nullptr) {
    internal::CStatus s;
    Options options(shapes);
    weft_graph* g = weft_graph_load_buffer(data, size, source_name.c_str(),
                                           options.get(), s.get());
    internal::Report(s.ToStatus(), status);
    return Graph(g);
  }

  explicit operator bool() const { return g_ != nullptr; }
  int num_nodes() const { return weft_graph_num_nodes(g_.get()); }

  // What a run may feed: every placeholder, in node order.
  std::vector<TensorInfo> Inputs() const {
    std::vector<TensorInfo> v;
    for (int i = 0; i < weft_graph_num_inputs(g_.get()); ++i) {
      v.push_back(TensorInfo::FromC(weft_graph_input(g_.get(), i)));
    }
    return v;
  }
  // What nothing in the graph consumes: its results, in node order.
  std::vector<TensorInfo> Outputs() const {
    std::vector<TensorInfo> v;
    for (int i = 0; i < weft_graph_num_outputs(g_.get()); ++i) {
      v.push_back(TensorInfo::FromC(weft_graph_output(g_.get(), i)));
    }
    return v;
  }
  // Any node output by name, "node" or "node:k"; an empty TensorInfo (no
  // name) when there is no such tensor.
  TensorInfo Output(const std::string& name, Status* status = nullptr) const {
    internal::CStatus s;
    const weft_tensor_info* info =
        weft_graph_find_tensor(g_.get(), name.c_str(), s.get());
    internal::Report(s.ToStatus(), status);
    return TensorInfo::FromC(info);
  }
  const weft_graph* get() const { return g_.get(); }

 private:
  explicit Graph(weft_graph* g) {
    if (g != nullptr) g_.reset(g, internal::GraphDeleter());
  }

  class Options {
   public:
    explicit Options(const InputShapes& shapes) {
      if (shapes.empty()) return;
      o_ = weft_graph_options_new();
      for (const auto& entry : shapes) {
        weft_graph_options_set_input_shape(
            o_, entry.first.c_str(), entry.second.data(),
            static_cast<int>(entry.second.size()));
      }
    }
    ~Options() { weft_graph_options_delete(o_); }
    Options(const Options&) = delete;
    Options& operator=(const Options&) = delete;
    const weft_graph_options* get() const { return o_; }

   private:
    weft_graph_options* o_ = nullptr;
  };

  std::shared_ptr<weft_graph> g_;
};

// The runnable signature keys of a SavedModel directory's meta graph
// tagged `tags` ("" for "serve"), sorted; empty on error.
inline std::vector<std::string> SavedModelSignatures(
    const std::string& dir, const std::string& tags = "",
    Status* status = nullptr) {
  internal::CStatus s;
  std::vector<std::string> keys;
  weft_saved_model_info* info =
      weft_saved_model_info_read(dir.c_str(), tags.c_str(), s.get());
  for (int i = 0; i < weft_saved_model_info_num_signatures(info); ++i) {
    keys.emplace_back(weft_saved_model_info_signature(info, i));
  }
  weft_saved_model_info_delete(info);
  internal::Report(s.ToStatus(), status);
  return keys;
}

// One feed of a run: a tensor name ("x", "node:1") and the tensor, which
// must outlive the call.
struct Feed {
  Feed(std::string name, const Tensor& tensor)
      : name(std::move(name)), tensor(&tensor) {}
  std::string name;
  const Tensor* tensor;
};

// A graph prepared for running. Run is safe to call from several threads.
class Session {
 public:
  // The settings of weft_session_options (c_api.h says what each means).
  struct Options {
    int threads = -1;
    std::string device = "cpu";
    bool optimize = true;
    bool cache_host_memory = true;
    int64_t host_memory_limit_bytes = 0;
    void* cuda_stream = nullptr;  // a cudaStream_t
    bool allow_tf32 = false;
    int64_t device_memory_limit_bytes = 0;
    bool capture_device_graphs = false;
  };

  Session() = default;
  // `num_threads`: 0 runs on the calling thread only, -1 one per core.
  explicit Session(const Graph& graph, int num_threads = -1,
                   Status* status = nullptr) {
    internal::CStatus s;
    s_.reset(weft_session_new(graph.get(), num_threads, s.get()));
    internal::Report(s.ToStatus(), status);
  }

  Session(const Graph& graph, const Options& options,
          Status* status = nullptr) {
    internal::CStatus s;
    std::unique_ptr<weft_session_options, void (*)(weft_session_options*)> o(
        weft_session_options_new(), weft_session_options_delete);
    if (o == nullptr) {
      internal::Report(Status(WEFT_RESOURCE_EXHAUSTED,
                              "weft_session_options_new: out of memory"),
                       status);
      return;
    }
    weft_session_options_set_threads(o.get(), options.threads);
    weft_session_options_set_device(o.get(), options.device.c_str());
    weft_session_options_set_optimize(o.get(), options.optimize ? 1 : 0);
    weft_session_options_set_host_memory_cache(
        o.get(), options.cache_host_memory ? 1 : 0);
    weft_session_options_set_host_memory_limit(o.get(),
                                               options.host_memory_limit_bytes);
    weft_session_options_set_cuda_stream(o.get(), options.cuda_stream);
    weft_session_options_set_allow_tf32(o.get(), options.allow_tf32 ? 1 : 0);
    weft_session_options_set_device_memory_limit(
        o.get(), options.device_memory_limit_bytes);
    weft_session_options_set_capture_device_graphs(
        o.get(), options.capture_device_graphs ? 1 : 0);
    s_.reset(weft_session_new_with_options(graph.get(), o.get(), s.get()));
    internal::Report(s.ToStatus(), status);
  }

  explicit operator bool() const { return s_ != nullptr; }

  // One tensor per fetch, in order; empty on failure.
  std::vector<Tensor> Run(const std::vector<Feed>& feeds,
                          const std::vector<std::string>& fetches,
                          Status* status = nullptr) const {
    std::vector<const char*> feed_names, fetch_names;
    std::vector<const weft_tensor*> feed_tensors;
    for (const Feed& f : feeds) {
      feed_names.push_back(f.name.c_str());
      feed_tensors.push_back(f.tensor->get());
    }
    for (const std::string& f : fetches) fetch_names.push_back(f.c_str());
    std::vector<weft_tensor*> raw(fetches.size(), nullptr);
    internal::CStatus s;
    weft_session_run(s_.get(), feed_names.data(), feed_tensors.data(),
                     static_cast<int>(feeds.size()), fetch_names.data(),
                     static_cast<int>(fetches.size()), raw.data(), s.get());
    std::vector<Tensor> out;
    if (!internal::Report(s.ToStatus(), status)) return out;
    for (weft_tensor* t : raw) out.emplace_back(t);
    return out;
  }

  const weft_session* get() const { return s_.get(); }

 private:
  std::unique_ptr<weft_session, internal::SessionDeleter> s_;
};

}  // namespace v1
}  // namespace weft

#endif  // WEFT_WEFT_HPP_
