// C++ sugar for writing a weft op library: header-only, compiled into the
// library, so the library still talks to weft through the C table of
// weft/plugin.h alone and may use any compiler, C++ standard (17 or later)
// or _GLIBCXX_USE_CXX11_ABI setting. It reads like in-tree weft (and
// TensorFlow) code:
//
//   #include "weft/plugin.hpp"
//   using namespace weft::plugin;
//
//   REGISTER_OP("ZeroOut")
//       .Input("to_zero: T")
//       .Output("zeroed: T")
//       .Attr("T: {int32, float}")
//       .SetShapeFn(UnchangedShape);
//
//   template <typename T>
//   class ZeroOutOp : public OpKernel {
//    public:
//     using OpKernel::OpKernel;
//     void Compute(OpKernelContext* ctx) const override {
//       const Tensor input = ctx->input(0);
//       Tensor* output = nullptr;
//       OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
//       ...
//     }
//   };
//   REGISTER_KERNEL_BUILDER(
//       Name("ZeroOut").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
//       ZeroOutOp<int32_t>);
//
// The registration macros record into lists inside the library when it is
// opened; this header also defines the library's weft_plugin_init (a weak
// symbol, so any number of the library's files may include it), which
// declares WEFT_PLUGIN_API_VERSION and replays the lists through the table.
// Define WEFT_PLUGIN_NO_INIT before including it to write weft_plugin_init
// yourself and call weft::plugin::RegisterAll from it.
//
// Everything here has hidden visibility, so two libraries built from this
// header, even with different compilers or ABI settings, never share or
// interpose each other's copies. Link the library against the CMake target
// weft::plugin, which also compiles it with -fvisibility=hidden: a weft op
// library exports weft_plugin_init and nothing else.
//
// Errors: Status values, as in weft. Exceptions thrown by a shape function,
// kernel constructor or Compute are caught here and become errors of the
// node; none reaches weft.
#ifndef WEFT_PLUGIN_HPP_
#define WEFT_PLUGIN_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "weft/plugin.h"

#if defined(__GNUC__) || defined(__clang__)
#define WEFT_PLUGIN_HIDDEN_ __attribute__((visibility("hidden")))
#else
#define WEFT_PLUGIN_HIDDEN_
#endif

namespace weft {
namespace plugin {
inline namespace v1 WEFT_PLUGIN_HIDDEN_ {

using DataType = weft_dtype;

inline constexpr char DEVICE_CPU[] = "CPU";
inline constexpr char DEVICE_CUDA[] = "CUDA";

// DataTypeToEnum<float>::value == WEFT_FLOAT.
template <typename T>
struct DataTypeToEnum;
#define WEFT_PLUGIN_DTYPE_(T, V)         \
  template <>                            \
  struct DataTypeToEnum<T> {             \
    static constexpr DataType value = V; \
  }
WEFT_PLUGIN_DTYPE_(float, WEFT_FLOAT);
WEFT_PLUGIN_DTYPE_(double, WEFT_DOUBLE);
WEFT_PLUGIN_DTYPE_(int8_t, WEFT_INT8);
WEFT_PLUGIN_DTYPE_(int16_t, WEFT_INT16);
WEFT_PLUGIN_DTYPE_(int32_t, WEFT_INT32);
WEFT_PLUGIN_DTYPE_(int64_t, WEFT_INT64);
WEFT_PLUGIN_DTYPE_(uint8_t, WEFT_UINT8);
WEFT_PLUGIN_DTYPE_(uint16_t, WEFT_UINT16);
WEFT_PLUGIN_DTYPE_(uint32_t, WEFT_UINT32);
WEFT_PLUGIN_DTYPE_(uint64_t, WEFT_UINT64);
WEFT_PLUGIN_DTYPE_(bool, WEFT_BOOL);
#undef WEFT_PLUGIN_DTYPE_

class Status {
 public:
  Status() = default;
  Status(weft_code code, std::string message)
      : code_(code), message_(code == WEFT_OK ? "" : std::move(message)) {}
  static Status OK() { return Status(); }

  bool ok() const { return code_ == WEFT_OK; }
  weft_code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  weft_code code_ = WEFT_OK;
  std::string message_;
};

inline Status InvalidArgument(std::string message) {
  return Status(WEFT_INVALID_ARGUMENT, std::move(message));
}
inline Status NotFound(std::string message) {
  return Status(WEFT_NOT_FOUND, std::move(message));
}
inline Status FailedPrecondition(std::string message) {
  return Status(WEFT_FAILED_PRECONDITION, std::move(message));
}
inline Status OutOfRange(std::string message) {
  return Status(WEFT_OUT_OF_RANGE, std::move(message));
}
inline Status Unimplemented(std::string message) {
  return Status(WEFT_UNIMPLEMENTED, std::move(message));
}
inline Status Internal(std::string message) {
  return Status(WEFT_INTERNAL, std::move(message));
}

namespace internal {

// The table weft handed to this library; set by RegisterAll.
inline const weft_plugin_api*& Api() {
  static const weft_plugin_api* api = nullptr;
  return api;
}

// A weft_status for the duration of one table call.
class CallStatus {
 public:
  CallStatus() : s_(Api()->status_new()) {}
  ~CallStatus() { Api()->status_delete(s_); }
  CallStatus(const CallStatus&) = delete;
  CallStatus& operator=(const CallStatus&) = delete;
  weft_status* get() { return s_; }
  Status ToStatus() const {
    if (s_ == nullptr) return Status(WEFT_RESOURCE_EXHAUSTED, "out of memory");
    return Status(Api()->status_code(s_), Api()->status_message(s_));
  }

 private:
  weft_status* s_;
};

inline void Report(const Status& s, weft_status* out) {
  if (!s.ok()) Api()->status_set(out, s.code(), s.message().c_str());
}

inline std::string ExceptionMessage(const char* where) {
  try {
    throw;
  } catch (const std::exception& e) {
    return std::string(where) + " threw an exception: " + e.what();
  } catch (...) {
    return std::string(where) + " threw an exception";
  }
}

// Typed attr reads, shared by the three contexts.
class AttrReader {
 public:
  explicit AttrReader(const weft_attrs* attrs) : attrs_(attrs) {}

  Status Get(const char* name, int64_t* value) const {
    CallStatus s;
    Api()->attr_int(attrs_, name, value, s.get());
    return s.ToStatus();
  }
  Status Get(const char* name, int32_t* value) const {
    int64_t v = 0;
    Status s = Get(name, &v);
    if (s.ok() && (v < INT32_MIN || v > INT32_MAX)) {
      return InvalidArgument(std::string("attr '") + name + "' is " +
                             std::to_string(v) + ", which does not fit int32");
    }
    if (s.ok()) *value = static_cast<int32_t>(v);
    return s;
  }
  Status Get(const char* name, float* value) const {
    CallStatus s;
    Api()->attr_float(attrs_, name, value, s.get());
    return s.ToStatus();
  }
  Status Get(const char* name, bool* value) const {
    CallStatus s;
    int v = 0;
    Api()->attr_bool(attrs_, name, &v, s.get());
    if (s.ToStatus().ok()) *value = v != 0;
    return s.ToStatus();
  }
  Status Get(const char* name, DataType* value) const {
    CallStatus s;
    Api()->attr_type(attrs_, name, value, s.get());
    return s.ToStatus();
  }
  Status Get(const char* name, std::string* value) const {
    CallStatus s;
    const char* data = nullptr;
    size_t size = 0;
    Api()->attr_string(attrs_, name, &data, &size, s.get());
    if (s.ToStatus().ok()) value->assign(data, size);
    return s.ToStatus();
  }
  Status Get(const char* name, std::vector<int64_t>* value) const {
    CallStatus s;
    const int64_t* data = nullptr;
    int64_t count = 0;
    Api()->attr_int_list(attrs_, name, &data, &count, s.get());
    if (s.ToStatus().ok()) value->assign(data, data + count);
    return s.ToStatus();
  }
  Status Get(const char* name, std::vector<float>* value) const {
    CallStatus s;
    const float* data = nullptr;
    int64_t count = 0;
    Api()->attr_float_list(attrs_, name, &data, &count, s.get());
    if (s.ToStatus().ok()) value->assign(data, data + count);
    return s.ToStatus();
  }

 private:
  const weft_attrs* attrs_;
};

}  // namespace internal

// ---- shape functions ------------------------------------------------------

class ShapeContext {
 public:
  explicit ShapeContext(weft_shape_context* c) : c_(c) {}

  int num_inputs() const { return internal::Api()->shape_num_inputs(c_); }
  int num_outputs() const { return internal::Api()->shape_num_outputs(c_); }
  // -1 when unknown.
  int InputRank(int input) const {
    return internal::Api()->shape_input_rank(c_, input);
  }
  int64_t InputDim(int input, int dim) const {
    return internal::Api()->shape_input_dim(c_, input, dim);
  }

  // dims: -1 for an unknown dimension.
  Status SetOutput(int output, const std::vector<int64_t>& dims) {
    internal::CallStatus s;
    internal::Api()->shape_set_output(c_, output, static_cast<int>(dims.size()),
                                      dims.data(), s.get());
    return s.ToStatus();
  }
  Status SetOutputUnknownRank(int output) {
    internal::CallStatus s;
    internal::Api()->shape_set_output(c_, output, -1, nullptr, s.get());
    return s.ToStatus();
  }
  // The output has exactly the input's shape (unknown dims stay linked).
  Status SetOutputToInput(int output, int input) {
    internal::CallStatus s;
    internal::Api()->shape_set_output_to_input(c_, output, input, s.get());
    return s.ToStatus();
  }

  template <typename T>
  Status GetAttr(const char* name, T* value) const {
    return internal::AttrReader(internal::Api()->shape_attrs(c_))
        .Get(name, value);
  }

 private:
  weft_shape_context* c_;
};

using ShapeFn = std::function<Status(ShapeContext&)>;

// Output 0 has input 0's shape.
inline Status UnchangedShape(ShapeContext& c) {
  return c.SetOutputToInput(0, 0);
}

// ---- kernels --------------------------------------------------------------

// A tensor inside a kernel: an input (do not write it) or an output.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(const weft_kernel_tensor* t) : t_(t) {}

  DataType dtype() const {
    return t_ ? internal::Api()->tensor_dtype(t_) : WEFT_INVALID;
  }
  int dims() const { return t_ ? internal::Api()->tensor_num_dims(t_) : 0; }
  int64_t dim_size(int i) const {
    return t_ ? internal::Api()->tensor_dim(t_, i) : -1;
  }
  std::vector<int64_t> shape() const {
    std::vector<int64_t> s(static_cast<size_t>(dims()));
    for (size_t i = 0; i < s.size(); ++i) s[i] = dim_size(static_cast<int>(i));
    return s;
  }
  int64_t NumElements() const {
    return t_ ? internal::Api()->tensor_num_elements(t_) : 0;
  }
  size_t TotalBytes() const {
    return t_ ? internal::Api()->tensor_byte_size(t_) : 0;
  }
  void* raw_data() const {
    return t_ ? internal::Api()->tensor_data(t_) : nullptr;
  }
  // Typed elements (row-major); nullptr when T is not the dtype.
  template <typename T>
  T* data() {
    return dtype() == DataTypeToEnum<T>::value ? static_cast<T*>(raw_data())
                                               : nullptr;
  }
  template <typename T>
  const T* data() const {
    return dtype() == DataTypeToEnum<T>::value
               ? static_cast<const T*>(raw_data())
               : nullptr;
  }

 private:
  const weft_kernel_tensor* t_ = nullptr;
};

class OpKernelConstruction {
 public:
  explicit OpKernelConstruction(weft_kernel_construction* c) : c_(c) {}

  const char* name() const {
    return internal::Api()->construction_node_name(c_);
  }
  int num_inputs() const {
    return internal::Api()->construction_num_inputs(c_);
  }
  int num_outputs() const {
    return internal::Api()->construction_num_outputs(c_);
  }
  DataType input_type(int i) const {
    return internal::Api()->construction_input_type(c_, i);
  }
  DataType output_type(int i) const {
    return internal::Api()->construction_output_type(c_, i);
  }
  template <typename T>
  Status GetAttr(const char* name, T* value) const {
    return internal::AttrReader(internal::Api()->construction_attrs(c_))
        .Get(name, value);
  }

  // Keeps the first error; weft prefixes it with the node.
  void SetStatus(const Status& s) {
    if (status_.ok()) status_ = s;
  }
  const Status& status() const { return status_; }

 private:
  weft_kernel_construction* c_;
  Status status_;
};

class OpKernelContext {
 public:
  explicit OpKernelContext(weft_kernel_context* c) : c_(c) {}

  int num_inputs() const { return internal::Api()->ctx_num_inputs(c_); }
  int num_outputs() const { return internal::Api()->ctx_num_outputs(c_); }
  Tensor input(int i) const {
    return Tensor(internal::Api()->ctx_input(c_, i));
  }

  // Allocates output i with the op's dtype for it; *out stays valid during
  // Compute.
  Status allocate_output(int i, const std::vector<int64_t>& shape,
                         Tensor** out) {
    internal::CallStatus s;
    const weft_kernel_tensor* t = internal::Api()->ctx_allocate_output(
        c_, i, static_cast<int>(shape.size()), shape.data(), s.get());
    Status result = s.ToStatus();
    if (!result.ok()) return result;
    outputs_.emplace_back(t);
    *out = &outputs_.back();
    return result;
  }
  // Output `output` shares input `input`'s buffer.
  Status set_output_to_input(int output, int input) {
    internal::CallStatus s;
    internal::Api()->ctx_set_output_to_input(c_, output, input, s.get());
    return s.ToStatus();
  }

  template <typename T>
  Status GetAttr(const char* name, T* value) const {
    return internal::AttrReader(internal::Api()->ctx_attrs(c_))
        .Get(name, value);
  }

  // Calls fn(begin, end) over disjoint ranges covering [0, n) on the
  // session's intra-op threads; `cost_per_unit` is the rough cost of one
  // unit in CPU cycles. An exception from fn becomes this node's error.
  template <typename Fn>
  void ParallelFor(int64_t n, int64_t cost_per_unit, Fn&& fn) {
    struct Call {
      std::remove_reference_t<Fn>* fn;
      std::atomic<bool> failed{false};
      std::mutex mu;
      std::string error;
    } call;
    call.fn = &fn;
    internal::Api()->ctx_parallel_for(
        c_, n, cost_per_unit,
        [](void* arg, int64_t begin, int64_t end) {
          auto* c = static_cast<Call*>(arg);
          try {
            (*c->fn)(begin, end);
          } catch (...) {
            std::string message = internal::ExceptionMessage("ParallelFor");
            std::lock_guard<std::mutex> lock(c->mu);
            if (!c->failed.exchange(true)) c->error = std::move(message);
          }
        },
        &call);
    if (call.failed) SetStatus(Internal(call.error));
  }

  // The device stream (a cudaStream_t for CUDA kernels); null on the CPU.
  void* stream() const { return internal::Api()->ctx_stream(c_); }
  const char* device_type() const {
    return internal::Api()->ctx_device_type(c_);
  }

  void SetStatus(const Status& s) {
    if (status_.ok()) status_ = s;
  }
  const Status& status() const { return status_; }

 private:
  weft_kernel_context* c_;
  // Deque: outputs handed out stay at fixed addresses.
  std::deque<Tensor> outputs_;
  Status status_;
};

class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction*) {}
  virtual ~OpKernel() = default;
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  // One execution; may run concurrently with itself (keep per-run state in
  // locals).
  virtual void Compute(OpKernelContext* ctx) const = 0;
};

// ---- registration ---------------------------------------------------------

namespace internal {

struct OpEntry {
  std::string name;
  std::vector<std::string> inputs, outputs, attrs;
  std::string doc;
  bool stateful = false;
  ShapeFn shape_fn;
};

struct KernelEntry {
  std::string op;
  std::string device;
  std::vector<std::pair<std::string, DataType>> constraints;
  std::vector<std::string> host_memory;
  int32_t priority = 0;
  weft_kernel_create_fn create = nullptr;
};

// Filled by the static registrars when the library is opened. Deques keep
// entries at fixed addresses: weft holds pointers to them as user data.
inline std::deque<OpEntry>& Ops() {
  static std::deque<OpEntry> ops;
  return ops;
}
inline std::deque<KernelEntry>& Kernels() {
  static std::deque<KernelEntry> kernels;
  return kernels;
}

inline void ShapeTrampoline(weft_shape_context* c, void* user,
                            weft_status* out) {
  Status s;
  try {
    ShapeContext ctx(c);
    s = static_cast<OpEntry*>(user)->shape_fn(ctx);
  } catch (...) {
    s = Internal(ExceptionMessage("the shape function"));
  }
  Report(s, out);
}

template <typename Kernel>
void* CreateKernel(weft_kernel_construction* c, void*, weft_status* out) {
  static_assert(std::is_base_of<OpKernel, Kernel>::value,
                "a kernel class derives from weft::plugin::OpKernel");
  OpKernel* kernel = nullptr;
  Status s;
  try {
    OpKernelConstruction ctx(c);
    kernel = new Kernel(&ctx);
    s = ctx.status();
  } catch (...) {
    s = Internal(ExceptionMessage("the kernel constructor"));
  }
  Report(s, out);
  return kernel;
}

inline void ComputeKernel(void* kernel, weft_kernel_context* c,
                          weft_status* out) {
  Status s;
  try {
    OpKernelContext ctx(c);
    static_cast<const OpKernel*>(kernel)->Compute(&ctx);
    s = ctx.status();
  } catch (...) {
    s = Internal(ExceptionMessage("Compute"));
  }
  Report(s, out);
}

inline void DestroyKernel(void* kernel) {
  delete static_cast<OpKernel*>(kernel);
}

// What REGISTER_OP's chained calls build.
class OpBuilder {
 public:
  explicit OpBuilder(const char* name) { entry_.name = name; }
  OpBuilder& Input(std::string spec) {
    entry_.inputs.push_back(std::move(spec));
    return *this;
  }
  OpBuilder& Output(std::string spec) {
    entry_.outputs.push_back(std::move(spec));
    return *this;
  }
  OpBuilder& Attr(std::string spec) {
    entry_.attrs.push_back(std::move(spec));
    return *this;
  }
  OpBuilder& Doc(std::string text) {
    entry_.doc += text;
    return *this;
  }
  OpBuilder& SetIsStateful() {
    entry_.stateful = true;
    return *this;
  }
  OpBuilder& SetShapeFn(ShapeFn fn) {
    entry_.shape_fn = std::move(fn);
    return *this;
  }
  const OpEntry& entry() const { return entry_; }

 private:
  OpEntry entry_;
};

class OpRegistrar {
 public:
  OpRegistrar(const OpBuilder& builder) {  // NOLINT: REGISTER_OP converts
    Ops().push_back(builder.entry());
  }
};

template <typename Kernel>
class KernelRegistrar;

}  // namespace internal

// What REGISTER_KERNEL_BUILDER's first argument is written against.
class Name {
 public:
  explicit Name(const char* op) { entry_.op = op; }
  Name& Device(const char* device_type) {
    entry_.device = device_type;
    return *this;
  }
  template <typename T>
  Name& TypeConstraint(const char* attr) {
    return TypeConstraint(attr, DataTypeToEnum<T>::value);
  }
  Name& TypeConstraint(const char* attr, DataType dtype) {
    entry_.constraints.emplace_back(attr, dtype);
    return *this;
  }
  Name& HostMemory(const char* arg) {
    entry_.host_memory.push_back(arg);
    return *this;
  }
  Name& Priority(int32_t priority) {
    entry_.priority = priority;
    return *this;
  }

 private:
  template <typename Kernel>
  friend class internal::KernelRegistrar;
  internal::KernelEntry entry_;
};

namespace internal {
template <typename Kernel>
class KernelRegistrar {
 public:
  explicit KernelRegistrar(const Name& name) {
    KernelEntry entry = name.entry_;
    entry.create = &CreateKernel<Kernel>;
    Kernels().push_back(std::move(entry));
  }
};
}  // namespace internal

// Declares the API version and hands everything registered in this library
// to weft. What weft_plugin_init does.
inline void RegisterAll(weft_plugin* p, const weft_plugin_api* api) {
  if (!api->declare_api_version(p, WEFT_PLUGIN_API_VERSION)) return;
  internal::Api() = api;
  // Failures need no handling here: weft fails the load on any of them.
  for (internal::OpEntry& op : internal::Ops()) {
    weft_op_builder* b = api->op_new(p, op.name.c_str());
    for (const std::string& s : op.inputs) api->op_input(b, s.c_str());
    for (const std::string& s : op.outputs) api->op_output(b, s.c_str());
    for (const std::string& s : op.attrs) api->op_attr(b, s.c_str());
    if (!op.doc.empty()) api->op_doc(b, op.doc.c_str());
    if (op.stateful) api->op_set_is_stateful(b);
    if (op.shape_fn) {
      api->op_set_shape_fn(b, &internal::ShapeTrampoline, &op);
    }
    api->op_register(b, nullptr);
  }
  for (const internal::KernelEntry& k : internal::Kernels()) {
    weft_kernel_builder* b = api->kernel_new(p, k.op.c_str(), k.device.c_str());
    for (const auto& c : k.constraints) {
      api->kernel_type_constraint(b, c.first.c_str(), c.second);
    }
    for (const std::string& arg : k.host_memory) {
      api->kernel_host_memory(b, arg.c_str());
    }
    api->kernel_priority(b, k.priority);
    api->kernel_set_callbacks(b, k.create, &internal::ComputeKernel,
                              &internal::DestroyKernel, nullptr);
    api->kernel_register(b, nullptr);
  }
}

}  // namespace WEFT_PLUGIN_HIDDEN_
}  // namespace plugin
}  // namespace weft

#define WEFT_PLUGIN_CONCAT_INNER_(a, b) a##b
#define WEFT_PLUGIN_CONCAT_(a, b) WEFT_PLUGIN_CONCAT_INNER_(a, b)

// WEFT_REGISTER_OP("Name").Input(...).Output(...).Attr(...).SetShapeFn(fn);
#define WEFT_REGISTER_OP(name)                                  \
  [[maybe_unused]] static ::weft::plugin::internal::OpRegistrar \
  WEFT_PLUGIN_CONCAT_(weft_plugin_op_, __COUNTER__) =           \
      ::weft::plugin::internal::OpBuilder(name)

// WEFT_REGISTER_KERNEL_BUILDER(Name("Op").Device(DEVICE_CPU)..., Class);
#define WEFT_REGISTER_KERNEL_BUILDER(kernel_builder, ...)            \
  [[maybe_unused]] static ::weft::plugin::internal::KernelRegistrar< \
      __VA_ARGS__>                                                   \
  WEFT_PLUGIN_CONCAT_(weft_plugin_kernel_,                           \
                      __COUNTER__)(::weft::plugin::kernel_builder)

// Inside a kernel constructor or Compute: record `status` and return when
// `cond` is false / when the status is an error.
#define WEFT_OP_REQUIRES(ctx, cond, status) \
  do {                                      \
    if (!(cond)) {                          \
      (ctx)->SetStatus(status);             \
      return;                               \
    }                                       \
  } while (0)
#define WEFT_OP_REQUIRES_OK(ctx, ...)                         \
  do {                                                        \
    const ::weft::plugin::Status _weft_plugin_s(__VA_ARGS__); \
    if (!_weft_plugin_s.ok()) {                               \
      (ctx)->SetStatus(_weft_plugin_s);                       \
      return;                                                 \
    }                                                         \
  } while (0)

// The TensorFlow spellings, unless something else already defines them.
#ifndef REGISTER_OP
#define REGISTER_OP(name) WEFT_REGISTER_OP(name)
#endif
#ifndef REGISTER_KERNEL_BUILDER
#define REGISTER_KERNEL_BUILDER(kernel_builder, ...) \
  WEFT_REGISTER_KERNEL_BUILDER(kernel_builder, __VA_ARGS__)
#endif
#ifndef OP_REQUIRES
#define OP_REQUIRES(ctx, cond, status) WEFT_OP_REQUIRES(ctx, cond, status)
#endif
#ifndef OP_REQUIRES_OK
#define OP_REQUIRES_OK(ctx, ...) WEFT_OP_REQUIRES_OK(ctx, __VA_ARGS__)
#endif

#ifndef WEFT_PLUGIN_NO_INIT
// The library's entry point. Weak, so every file of the library may include
// this header; the linker keeps one copy.
extern "C" WEFT_PLUGIN_VISIBLE __attribute__((weak)) void weft_plugin_init(
    weft_plugin* plugin, const weft_plugin_api* api) {
  ::weft::plugin::RegisterAll(plugin, api);
}
#endif

#endif  // WEFT_PLUGIN_HPP_
