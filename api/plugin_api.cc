#include "api/plugin_api.h"

#include <cstdint>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/c_status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "device/device.h"
#include "kernels/op_kernel.h"
#include "ops/attr_value.h"
#include "ops/op_def_builder.h"
#include "ops/shape_inference.h"

#ifndef WEFT_VERSION_STRING
#error "WEFT_VERSION_STRING must be defined by the build"
#endif

// The opaque handles of plugin.h, as weft sees them. Shape, construction and
// attr handles are weft's own objects cast to the opaque type; these two
// carry more than one object.
struct weft_op_builder {
  weft_plugin* plugin;
  weft::OpDefBuilder builder;
  weft_shape_fn shape_fn = nullptr;
  void* shape_user_data = nullptr;
};

namespace weft {
// What a kernel registration keeps of its builder: the library's callbacks.
struct PluginKernelCallbacks {
  weft_kernel_create_fn create = nullptr;
  weft_kernel_compute_fn compute = nullptr;
  weft_kernel_destroy_fn destroy = nullptr;
  void* user_data = nullptr;
};
}  // namespace weft

struct weft_kernel_builder {
  weft_plugin* plugin;
  std::string op;
  std::string device_type;
  // Accumulated per attr: the ABI adds one dtype per call.
  std::map<std::string, std::vector<weft::DataType>> constraints;
  std::vector<std::string> host_memory;
  int32_t priority = 0;
  weft::PluginKernelCallbacks callbacks;
  std::string error;  // the first misuse, reported by kernel_register
};

namespace weft {
class PluginKernelCore;
}  // namespace weft

struct weft_kernel_context {
  weft::OpKernelContext* ctx;
  const weft::PluginKernelCore* kernel;
};

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// ---- handle casts ---------------------------------------------------------

InferenceContext* Shape(weft_shape_context* c) {
  return reinterpret_cast<InferenceContext*>(c);
}
const InferenceContext* Shape(const weft_shape_context* c) {
  return reinterpret_cast<const InferenceContext*>(c);
}
const AttrMap& Attrs(const weft_attrs* a) {
  return *reinterpret_cast<const AttrMap*>(a);
}
const weft_attrs* AttrsHandle(const AttrMap& a) {
  return reinterpret_cast<const weft_attrs*>(&a);
}
const OpKernelConstruction* Construction(const weft_kernel_construction* c) {
  return reinterpret_cast<const OpKernelConstruction*>(c);
}
const Tensor* TensorOf(const weft_kernel_tensor* t) {
  return reinterpret_cast<const Tensor*>(t);
}

// Callbacks from a library must not take weft down: a C++ exception that
// reaches weft (from a library that does not use plugin.hpp's guards)
// becomes an error.
Status ExceptionStatus(absl::string_view what, absl::string_view where) {
  return errors::Internal(where, " threw an exception: ", what);
}

// Records the first failure of a load.
void Fail(weft_plugin* p, const Status& s) {
  if (p->status.ok()) p->status = s;
}

bool Declared(weft_plugin* p, absl::string_view call) {
  if (p->declared && p->declared_version <= kPluginApiVersion) return true;
  Fail(p, errors::FailedPrecondition(
              call,
              " was called before declare_api_version succeeded; a library "
              "must declare the plugin API version it was built for first"));
  return false;
}

std::string Str(const char* s) { return s == nullptr ? std::string() : s; }

// ---- header ---------------------------------------------------------------

int DeclareApiVersion(weft_plugin* p, uint32_t version) {
  if (p == nullptr) return 0;
  p->declared = true;
  p->declared_version = version;
  if (version == 0) {
    Fail(p, errors::InvalidArgument("declared plugin API version 0, which "
                                    "does not exist"));
    return 0;
  }
  return version <= kPluginApiVersion ? 1 : 0;
}

// ---- statuses -------------------------------------------------------------

weft_status* StatusNew() { return new (std::nothrow) weft_status; }
void StatusDelete(weft_status* s) { delete s; }
void StatusSet(weft_status* s, weft_code code, const char* message) {
  SetCStatus(s, code, Str(message));
}
weft_code StatusCode(const weft_status* s) {
  return s == nullptr ? WEFT_OK : s->code;
}
const char* StatusMessage(const weft_status* s) {
  return s == nullptr ? "" : s->message.c_str();
}

// ---- ops ------------------------------------------------------------------

weft_op_builder* OpNew(weft_plugin* p, const char* name) {
  if (p == nullptr || !Declared(p, "op_new")) return nullptr;
  return new weft_op_builder{p, OpDefBuilder(Str(name))};
}
void OpInput(weft_op_builder* b, const char* spec) {
  if (b != nullptr) b->builder.Input(Str(spec));
}
void OpOutput(weft_op_builder* b, const char* spec) {
  if (b != nullptr) b->builder.Output(Str(spec));
}
void OpAttr(weft_op_builder* b, const char* spec) {
  if (b != nullptr) b->builder.Attr(Str(spec));
}
void OpDoc(weft_op_builder* b, const char* text) {
  if (b != nullptr) b->builder.Doc(Str(text));
}
void OpSetIsStateful(weft_op_builder* b) {
  if (b != nullptr) b->builder.SetIsStateful();
}
void OpSetShapeFn(weft_op_builder* b, weft_shape_fn fn, void* user_data) {
  if (b == nullptr) return;
  b->shape_fn = fn;
  b->shape_user_data = user_data;
}

// The op's ShapeInferenceFn: calls the library's function on the context.
ShapeInferenceFn AdaptShapeFn(weft_shape_fn fn, void* user_data) {
  return [fn, user_data](InferenceContext* c) -> Status {
    weft_status status;
    try {
      fn(reinterpret_cast<weft_shape_context*>(c), user_data, &status);
    } catch (const std::exception& e) {
      return ExceptionStatus(e.what(), "the shape function");
    } catch (...) {
      return ExceptionStatus("(not a std::exception)", "the shape function");
    }
    return FromCStatus(status);
  };
}

void OpRegister(weft_op_builder* b, weft_status* out) {
  if (b == nullptr) {
    SetCStatus(out, errors::InvalidArgument("op_register: null op builder"));
    return;
  }
  std::unique_ptr<weft_op_builder> owned(b);
  weft_plugin* p = b->plugin;
  if (b->shape_fn != nullptr) {
    b->builder.SetShapeFn(AdaptShapeFn(b->shape_fn, b->shape_user_data));
  }
  StatusOr<OpRegistrationData> data = b->builder.Finalize();
  Status s = data.status();
  if (s.ok()) {
    for (const OpRegistrationData& other : p->ops) {
      if (other.op_def.name == data->op_def.name) {
        s = errors::AlreadyExists("op '", data->op_def.name,
                                  "' registered twice by this library");
      }
    }
  }
  if (s.ok()) {
    data->source = p->path;
    p->ops.push_back(*std::move(data));
  }
  Fail(p, s);
  SetCStatus(out, s);
}

// ---- shape inference ------------------------------------------------------

int ShapeNumInputs(const weft_shape_context* c) {
  return Shape(c)->num_inputs();
}
int ShapeNumOutputs(const weft_shape_context* c) {
  return Shape(c)->num_outputs();
}
int ShapeInputRank(const weft_shape_context* c, int input) {
  const InferenceContext* ic = Shape(c);
  if (input < 0 || input >= ic->num_inputs()) return -1;
  return ic->Rank(ic->input(input));
}
int64_t ShapeInputDim(const weft_shape_context* c, int input, int dim) {
  // Dim() may create a dimension object, so it needs the mutable context;
  // reading a known rank's dimension creates nothing.
  InferenceContext* ic = const_cast<InferenceContext*>(Shape(c));
  if (input < 0 || input >= ic->num_inputs()) return -1;
  ShapeHandle s = ic->input(input);
  int32_t rank = ic->Rank(s);
  if (rank == shape_inference::kUnknownRank || dim < 0 || dim >= rank) {
    return -1;
  }
  return ic->Value(ic->Dim(s, dim));
}

Status CheckOutputIndex(const InferenceContext* ic, int output) {
  if (output < 0 || output >= ic->num_outputs()) {
    return errors::InvalidArgument("output index ", output,
                                   " is out of range; the op has ",
                                   ic->num_outputs(), " outputs");
  }
  return Status();
}

void ShapeSetOutput(weft_shape_context* c, int output, int rank,
                    const int64_t* dims, weft_status* out) {
  InferenceContext* ic = Shape(c);
  Status s = CheckOutputIndex(ic, output);
  if (s.ok() && rank == -1) {
    ic->set_output(output, ic->UnknownShape());
  } else if (s.ok()) {
    if (rank < 0 || rank > kMaxRank) {
      s = errors::InvalidArgument("output ", output, ": rank ", rank,
                                  " is not in [0, ", kMaxRank, "]");
    } else if (rank > 0 && dims == nullptr) {
      s = errors::InvalidArgument("output ", output, ": rank ", rank,
                                  " but no dims given");
    } else {
      std::vector<int64_t> d(dims, dims + rank);
      auto partial = PartialTensorShape::Build(d);
      ShapeHandle handle;
      if (partial.ok()) {
        s = ic->MakeShapeFromPartialTensorShape(*partial, &handle);
      } else {
        s = AddContext(partial.status(), absl::StrCat("output ", output));
      }
      if (s.ok()) ic->set_output(output, handle);
    }
  }
  SetCStatus(out, s);
}

void ShapeSetOutputToInput(weft_shape_context* c, int output, int input,
                           weft_status* out) {
  InferenceContext* ic = Shape(c);
  Status s = CheckOutputIndex(ic, output);
  if (s.ok() && (input < 0 || input >= ic->num_inputs())) {
    s = errors::InvalidArgument("input index ", input,
                                " is out of range; the node has ",
                                ic->num_inputs(), " inputs");
  }
  if (s.ok()) ic->set_output(output, ic->input(input));
  SetCStatus(out, s);
}

const weft_attrs* ShapeAttrs(const weft_shape_context* c) {
  return AttrsHandle(Shape(c)->attrs());
}

// ---- attrs ----------------------------------------------------------------

template <typename T>
void ReadAttr(const weft_attrs* a, const char* name, T* value,
              weft_status* out) {
  T v{};
  Status s = GetNodeAttr(Attrs(a), Str(name), &v);
  if (s.ok() && value != nullptr) *value = v;
  SetCStatus(out, s);
}

void AttrInt(const weft_attrs* a, const char* name, int64_t* value,
             weft_status* out) {
  ReadAttr(a, name, value, out);
}
void AttrFloat(const weft_attrs* a, const char* name, float* value,
               weft_status* out) {
  ReadAttr(a, name, value, out);
}
void AttrBool(const weft_attrs* a, const char* name, int* value,
              weft_status* out) {
  bool b = false;
  Status s = GetNodeAttr(Attrs(a), Str(name), &b);
  if (s.ok() && value != nullptr) *value = b ? 1 : 0;
  SetCStatus(out, s);
}
void AttrType(const weft_attrs* a, const char* name, weft_dtype* value,
              weft_status* out) {
  DataType t = DT_INVALID;
  Status s = GetNodeAttr(Attrs(a), Str(name), &t);
  if (s.ok() && value != nullptr) *value = static_cast<weft_dtype>(t);
  SetCStatus(out, s);
}

// String and list reads hand out pointers into the attr map; the typed
// getter is still called so that errors read as everywhere else.
void AttrString(const weft_attrs* a, const char* name, const char** data,
                size_t* size, weft_status* out) {
  std::string unused;
  Status s = GetNodeAttr(Attrs(a), Str(name), &unused);
  if (s.ok()) {
    const AttrValue& v = Attrs(a).find(Str(name))->second;
    if (data != nullptr) *data = v.s.c_str();
    if (size != nullptr) *size = v.s.size();
  }
  SetCStatus(out, s);
}
void AttrIntList(const weft_attrs* a, const char* name, const int64_t** values,
                 int64_t* count, weft_status* out) {
  std::vector<int64_t> unused;
  Status s = GetNodeAttr(Attrs(a), Str(name), &unused);
  if (s.ok()) {
    const AttrValue& v = Attrs(a).find(Str(name))->second;
    if (values != nullptr) *values = v.list->i.data();
    if (count != nullptr) *count = static_cast<int64_t>(v.list->i.size());
  }
  SetCStatus(out, s);
}
void AttrFloatList(const weft_attrs* a, const char* name, const float** values,
                   int64_t* count, weft_status* out) {
  std::vector<float> unused;
  Status s = GetNodeAttr(Attrs(a), Str(name), &unused);
  if (s.ok()) {
    const AttrValue& v = Attrs(a).find(Str(name))->second;
    if (values != nullptr) *values = v.list->f.data();
    if (count != nullptr) *count = static_cast<int64_t>(v.list->f.size());
  }
  SetCStatus(out, s);
}

}  // namespace

// ---- kernels --------------------------------------------------------------

// The library's callbacks and the state `create` returned, shared by the
// synchronous and asynchronous adapters.
class PluginKernelCore {
 public:
  PluginKernelCore(OpKernelConstruction* ctx, const PluginKernelCallbacks& def)
      : compute_(def.compute),
        destroy_(def.destroy),
        attrs_(ctx->def().attr),
        state_(def.user_data) {
    if (def.create == nullptr) return;
    weft_status status;
    state_ = nullptr;
    try {
      state_ = def.create(reinterpret_cast<weft_kernel_construction*>(ctx),
                          def.user_data, &status);
    } catch (const std::exception& e) {
      ctx->SetStatus(ExceptionStatus(e.what(), "the kernel's create"));
      return;
    } catch (...) {
      ctx->SetStatus(
          ExceptionStatus("(not a std::exception)", "the kernel's create"));
      return;
    }
    owns_state_ = true;
    if (status.code != WEFT_OK) ctx->SetStatus(FromCStatus(status));
  }
  PluginKernelCore(const PluginKernelCore&) = delete;
  PluginKernelCore& operator=(const PluginKernelCore&) = delete;

  ~PluginKernelCore() {
    if (owns_state_ && destroy_ != nullptr && state_ != nullptr) {
      try {
        destroy_(state_);
      } catch (...) {
        // Nothing to report to: the kernel is going away.
      }
    }
  }

  // Runs compute; false when it reported an error (already in ctx).
  bool Run(OpKernelContext* ctx) const {
    weft_kernel_context handle{ctx, this};
    weft_status status;
    try {
      compute_(state_, &handle, &status);
    } catch (const std::exception& e) {
      ctx->SetStatus(ExceptionStatus(e.what(), "the kernel's compute"));
      return false;
    } catch (...) {
      ctx->SetStatus(
          ExceptionStatus("(not a std::exception)", "the kernel's compute"));
      return false;
    }
    if (status.code != WEFT_OK) {
      ctx->SetStatus(FromCStatus(status));
      return false;
    }
    return ctx->status().ok();
  }

  const AttrMap& attrs() const { return attrs_; }

 private:
  const weft_kernel_compute_fn compute_;
  const weft_kernel_destroy_fn destroy_;
  // Compute may read attrs; the node does not outlive construction.
  const AttrMap attrs_;
  void* state_;
  bool owns_state_ = false;
};

namespace {

class PluginKernel final : public OpKernel {
 public:
  PluginKernel(OpKernelConstruction* ctx, const PluginKernelCallbacks& def)
      : OpKernel(ctx), core_(ctx, def) {}
  void Compute(OpKernelContext* ctx) const override { core_.Run(ctx); }

 private:
  PluginKernelCore core_;
};

// On an asynchronous device compute only enqueues; the outputs are ready
// once the stream has run what it enqueued.
class AsyncPluginKernel final : public AsyncOpKernel {
 public:
  AsyncPluginKernel(OpKernelConstruction* ctx, const PluginKernelCallbacks& def)
      : AsyncOpKernel(ctx), core_(ctx, def) {}
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) const override {
    DeviceContext* dc = ctx->op_device_context();
    if (!core_.Run(ctx) || dc == nullptr) {
      done();
      return;
    }
    dc->ThenExecute([ctx, done = std::move(done)](Status s) {
      if (!s.ok()) ctx->SetStatus(s);
      done();
    });
  }

 private:
  PluginKernelCore core_;
};

weft_kernel_builder* KernelNew(weft_plugin* p, const char* op,
                               const char* device_type) {
  if (p == nullptr || !Declared(p, "kernel_new")) return nullptr;
  auto* b = new weft_kernel_builder;
  b->plugin = p;
  b->op = Str(op);
  b->device_type = Str(device_type);
  return b;
}

void KernelTypeConstraint(weft_kernel_builder* b, const char* attr,
                          weft_dtype dtype_arg) {
  if (b == nullptr) return;
  // A C plugin may pass any int here; reading it as the C++ enum, whose
  // values end at 31, would be undefined before it is checked.
  int32_t dtype;
  static_assert(sizeof dtype == sizeof dtype_arg, "weft_dtype is an int");
  std::memcpy(&dtype, &dtype_arg, sizeof dtype);
  if (!IsValidDataType(dtype)) {
    if (b->error.empty()) {
      b->error = absl::StrCat("type_constraint on attr '", Str(attr),
                              "': ", static_cast<int>(dtype), " is no dtype");
    }
    return;
  }
  b->constraints[Str(attr)].push_back(static_cast<DataType>(dtype));
}

void KernelHostMemory(weft_kernel_builder* b, const char* arg) {
  if (b != nullptr) b->host_memory.push_back(Str(arg));
}

void KernelPriority(weft_kernel_builder* b, int32_t priority) {
  if (b != nullptr) b->priority = priority;
}

void KernelSetCallbacks(weft_kernel_builder* b, weft_kernel_create_fn create,
                        weft_kernel_compute_fn compute,
                        weft_kernel_destroy_fn destroy, void* user_data) {
  if (b == nullptr) return;
  b->callbacks = {create, compute, destroy, user_data};
}

void KernelRegister(weft_kernel_builder* b, weft_status* out) {
  if (b == nullptr) {
    SetCStatus(out, errors::InvalidArgument("kernel_register: null builder"));
    return;
  }
  std::unique_ptr<weft_kernel_builder> owned(b);
  weft_plugin* p = b->plugin;
  KernelDefBuilder builder(b->op);
  builder.Device(b->device_type).Priority(b->priority);
  for (const auto& [attr, types] : b->constraints) {
    builder.TypeConstraint(attr, types);
  }
  for (const std::string& arg : b->host_memory) builder.HostMemory(arg);
  StatusOr<KernelDef> def = builder.Build();
  Status s = def.status();
  if (s.ok() && b->device_type.empty()) {
    s = errors::InvalidArgument("kernel for op '", b->op,
                                "': no device type given");
  }
  if (s.ok() && !b->error.empty()) {
    s = errors::InvalidArgument("kernel ", SummarizeKernelDef(*def),
                                " for op '", b->op, "': ", b->error);
  }
  if (s.ok() && b->callbacks.compute == nullptr) {
    s = errors::InvalidArgument("kernel ", SummarizeKernelDef(*def),
                                " for op '", b->op,
                                "': no compute callback set");
  }
  if (s.ok()) {
    for (const auto& other : p->kernels) {
      if (SameKernelSlot(other.def, *def)) {
        s = errors::AlreadyExists("kernel ", SummarizeKernelDef(*def),
                                  " for op '", b->op,
                                  "' registered twice by this library");
      }
    }
  }
  if (s.ok()) {
    KernelFactory factory =
        [callbacks = b->callbacks](
            OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
      if (ctx->device()->is_async()) {
        return std::make_unique<AsyncPluginKernel>(ctx, callbacks);
      }
      return std::make_unique<PluginKernel>(ctx, callbacks);
    };
    p->kernels.push_back({*std::move(def), std::move(factory)});
  }
  Fail(p, s);
  SetCStatus(out, s);
}

// ---- kernel construction --------------------------------------------------

const weft_attrs* ConstructionAttrs(const weft_kernel_construction* c) {
  return AttrsHandle(Construction(c)->def().attr);
}
const char* ConstructionNodeName(const weft_kernel_construction* c) {
  return Construction(c)->name().c_str();
}
int ConstructionNumInputs(const weft_kernel_construction* c) {
  return Construction(c)->num_inputs();
}
int ConstructionNumOutputs(const weft_kernel_construction* c) {
  return Construction(c)->num_outputs();
}
weft_dtype ConstructionInputType(const weft_kernel_construction* c, int i) {
  const OpKernelConstruction* k = Construction(c);
  if (i < 0 || i >= k->num_inputs()) return WEFT_INVALID;
  return static_cast<weft_dtype>(k->input_type(i));
}
weft_dtype ConstructionOutputType(const weft_kernel_construction* c, int i) {
  const OpKernelConstruction* k = Construction(c);
  if (i < 0 || i >= k->num_outputs()) return WEFT_INVALID;
  return static_cast<weft_dtype>(k->output_type(i));
}

// ---- kernel execution -----------------------------------------------------

int CtxNumInputs(const weft_kernel_context* c) { return c->ctx->num_inputs(); }
int CtxNumOutputs(const weft_kernel_context* c) {
  return c->ctx->num_outputs();
}

const weft_kernel_tensor* CtxInput(const weft_kernel_context* c, int index) {
  if (index < 0 || index >= c->ctx->num_inputs()) return nullptr;
  return reinterpret_cast<const weft_kernel_tensor*>(&c->ctx->input(index));
}

Status CheckOutput(const OpKernelContext* ctx, int index) {
  if (index < 0 || index >= ctx->num_outputs()) {
    return errors::InvalidArgument("output index ", index,
                                   " is out of range; the op has ",
                                   ctx->num_outputs(), " outputs");
  }
  return Status();
}

weft_kernel_tensor* CtxAllocateOutput(weft_kernel_context* c, int index,
                                      int rank, const int64_t* dims,
                                      weft_status* out) {
  Status s = CheckOutput(c->ctx, index);
  if (s.ok() && (rank < 0 || rank > kMaxRank || (rank > 0 && !dims))) {
    s = errors::InvalidArgument(
        "allocate_output ", index, ": rank ", rank,
        rank > 0 && !dims ? " with no dims" : " is out of range");
  }
  Tensor* t = nullptr;
  if (s.ok()) {
    auto shape = TensorShape::Build(absl::Span<const int64_t>(
        dims, static_cast<size_t>(rank > 0 ? rank : 0)));
    s = shape.ok() ? c->ctx->allocate_output(index, *shape, &t)
                   : AddContext(shape.status(),
                                absl::StrCat("allocate_output ", index));
  }
  SetCStatus(out, s);
  if (!s.ok()) {
    // A library that ignores the status still fails the node.
    c->ctx->SetStatus(s);
    return nullptr;
  }
  return reinterpret_cast<weft_kernel_tensor*>(t);
}

void CtxSetOutputToInput(weft_kernel_context* c, int output, int input,
                         weft_status* out) {
  OpKernelContext* ctx = c->ctx;
  Status s = CheckOutput(ctx, output);
  if (s.ok() && (input < 0 || input >= ctx->num_inputs())) {
    s = errors::InvalidArgument("input index ", input,
                                " is out of range; the node has ",
                                ctx->num_inputs(), " inputs");
  }
  if (s.ok() &&
      ctx->input(input).dtype() != ctx->expected_output_dtype(output)) {
    s = errors::InvalidArgument(
        "set_output_to_input: input ", input, " is ",
        DataTypeName(ctx->input(input).dtype()), " but output ", output, " is ",
        DataTypeName(ctx->expected_output_dtype(output)));
  }
  if (s.ok()) ctx->set_output(output, ctx->input(input));
  SetCStatus(out, s);
  if (!s.ok()) ctx->SetStatus(s);
}

const weft_attrs* CtxAttrs(const weft_kernel_context* c) {
  return AttrsHandle(c->kernel->attrs());
}

void CtxParallelFor(const weft_kernel_context* c, int64_t n,
                    int64_t cost_per_unit, weft_parallel_fn fn, void* arg) {
  if (fn == nullptr || n <= 0) return;
  c->ctx->ParallelFor(n, cost_per_unit, [fn, arg](int64_t begin, int64_t end) {
    fn(arg, begin, end);
  });
}

void* CtxStream(const weft_kernel_context* c) {
  DeviceContext* dc = c->ctx->op_device_context();
  return dc == nullptr ? nullptr : dc->stream();
}

const char* CtxDeviceType(const weft_kernel_context* c) {
  return c->ctx->device()->device_type().c_str();
}

// ---- tensors --------------------------------------------------------------

weft_dtype TensorDtype(const weft_kernel_tensor* t) {
  return static_cast<weft_dtype>(TensorOf(t)->dtype());
}
int TensorNumDims(const weft_kernel_tensor* t) { return TensorOf(t)->dims(); }
int64_t TensorDim(const weft_kernel_tensor* t, int index) {
  const Tensor* x = TensorOf(t);
  if (index < 0 || index >= x->dims()) return -1;
  return x->dim_size(index);
}
int64_t TensorNumElements(const weft_kernel_tensor* t) {
  return TensorOf(t)->NumElements();
}
size_t TensorByteSize(const weft_kernel_tensor* t) {
  return TensorOf(t)->TotalBytes();
}
void* TensorData(const weft_kernel_tensor* t) {
  return TensorOf(t)->raw_data();
}

weft_plugin_api MakeTable() {
  weft_plugin_api api{};
  api.api_version = kPluginApiVersion;
  api.struct_size = sizeof(weft_plugin_api);
  api.weft_version = WEFT_VERSION_STRING;
  api.declare_api_version = DeclareApiVersion;

  api.status_new = StatusNew;
  api.status_delete = StatusDelete;
  api.status_set = StatusSet;
  api.status_code = StatusCode;
  api.status_message = StatusMessage;

  api.op_new = OpNew;
  api.op_input = OpInput;
  api.op_output = OpOutput;
  api.op_attr = OpAttr;
  api.op_doc = OpDoc;
  api.op_set_is_stateful = OpSetIsStateful;
  api.op_set_shape_fn = OpSetShapeFn;
  api.op_register = OpRegister;

  api.shape_num_inputs = ShapeNumInputs;
  api.shape_num_outputs = ShapeNumOutputs;
  api.shape_input_rank = ShapeInputRank;
  api.shape_input_dim = ShapeInputDim;
  api.shape_set_output = ShapeSetOutput;
  api.shape_set_output_to_input = ShapeSetOutputToInput;
  api.shape_attrs = ShapeAttrs;

  api.attr_int = AttrInt;
  api.attr_float = AttrFloat;
  api.attr_bool = AttrBool;
  api.attr_type = AttrType;
  api.attr_string = AttrString;
  api.attr_int_list = AttrIntList;
  api.attr_float_list = AttrFloatList;

  api.kernel_new = KernelNew;
  api.kernel_type_constraint = KernelTypeConstraint;
  api.kernel_host_memory = KernelHostMemory;
  api.kernel_priority = KernelPriority;
  api.kernel_set_callbacks = KernelSetCallbacks;
  api.kernel_register = KernelRegister;

  api.construction_attrs = ConstructionAttrs;
  api.construction_node_name = ConstructionNodeName;
  api.construction_num_inputs = ConstructionNumInputs;
  api.construction_num_outputs = ConstructionNumOutputs;
  api.construction_input_type = ConstructionInputType;
  api.construction_output_type = ConstructionOutputType;

  api.ctx_num_inputs = CtxNumInputs;
  api.ctx_num_outputs = CtxNumOutputs;
  api.ctx_input = CtxInput;
  api.ctx_allocate_output = CtxAllocateOutput;
  api.ctx_set_output_to_input = CtxSetOutputToInput;
  api.ctx_attrs = CtxAttrs;
  api.ctx_parallel_for = CtxParallelFor;
  api.ctx_stream = CtxStream;
  api.ctx_device_type = CtxDeviceType;

  api.tensor_dtype = TensorDtype;
  api.tensor_num_dims = TensorNumDims;
  api.tensor_dim = TensorDim;
  api.tensor_num_elements = TensorNumElements;
  api.tensor_byte_size = TensorByteSize;
  api.tensor_data = TensorData;
  return api;
}

}  // namespace

const weft_plugin_api* PluginApiTable() {
  static const weft_plugin_api table = MakeTable();
  return &table;
}

}  // namespace weft
