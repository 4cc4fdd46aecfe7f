// OpKernel: one node's implementation on one device. A session constructs a
// kernel once per node (reading attrs, checking them; a failure surfaces when
// the session is created) and then calls Compute once per run, possibly from
// several runs at the same time: Compute is const and keeps per-run state in
// its OpKernelContext only.
//
//   template <typename T>
//   class ScaleOp : public OpKernel {
//    public:
//     explicit ScaleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
//       OP_REQUIRES_OK(ctx, ctx->GetAttr("factor", &factor_));
//     }
//     void Compute(OpKernelContext* ctx) const override {
//       const Tensor& x = ctx->input(0);
//       Tensor* y = nullptr;
//       OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
//                               {0}, 0, x.shape(), &y));
//       y->flat<T>() = x.flat<T>() * static_cast<T>(factor_);
//     }
//    private:
//     float factor_;
//   };
//
// Errors. Every status that OpKernelConstruction and OpKernelContext hold or
// return names the node, "node 'dense/MatMul' (MatMul): ...": SetStatus adds
// that prefix to what a kernel reports, so kernels write only what went
// wrong and callers (the session) add only their own context (the graph
// file).
//
// Asynchronous kernels (a GPU kernel waiting on its stream) derive from
// AsyncOpKernel and call `done` once their outputs are ready.
#ifndef WEFT_KERNELS_OP_KERNEL_H_
#define WEFT_KERNELS_OP_KERNEL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/allocator.h"
#include "core/logging.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "device/device.h"
#include "kernels/kernel_def.h"
#include "ops/attr_value.h"
#include "ops/node_def.h"
#include "ops/op_def.h"
#include "ops/op_def_util.h"

namespace weft {

class AsyncOpKernel;

// "node 'dense/MatMul' (MatMul)": how every kernel-level error starts.
std::string NodeLabel(absl::string_view node_name, absl::string_view op);

// What a kernel's constructor sees. Lives only during construction.
class OpKernelConstruction {
 public:
  // `node` is validated (attr defaults filled) and `types` is its resolved
  // signature for `op_def`. `kernel_def` (null outside the registry) supplies
  // the HostMemory args: those args are in host memory, all others in the
  // device allocator's memory space; a HostMemory name that is no input or
  // output of the op is an error kept in status(). All pointers must outlive
  // this object; none is kept by the kernel.
  OpKernelConstruction(Device* device, const NodeDef& node, const OpDef& op_def,
                       const NodeTypes& types, const KernelDef* kernel_def);
  OpKernelConstruction(const OpKernelConstruction&) = delete;
  OpKernelConstruction& operator=(const OpKernelConstruction&) = delete;

  const std::string& name() const { return node_.name; }
  const std::string& type_string() const { return node_.op; }
  const NodeDef& def() const { return node_; }
  const OpDef& op_def() const { return op_def_; }
  const NodeTypes& node_types() const { return types_; }
  // Null when the kernel was not created through the registry.
  const KernelDef* kernel_def() const { return kernel_def_; }
  Device* device() const { return device_; }
  const std::string& device_type() const { return device_->device_type(); }

  int num_inputs() const { return static_cast<int>(types_.input_types.size()); }
  int num_outputs() const {
    return static_cast<int>(types_.output_types.size());
  }
  DataType input_type(int i) const { return types_.input_types[i]; }
  DataType output_type(int i) const { return types_.output_types[i]; }
  const std::vector<DataType>& input_types() const {
    return types_.input_types;
  }
  const std::vector<DataType>& output_types() const {
    return types_.output_types;
  }
  const std::vector<MemorySpace>& input_memory_spaces() const {
    return input_memory_spaces_;
  }
  const std::vector<MemorySpace>& output_memory_spaces() const {
    return output_memory_spaces_;
  }

  bool HasAttr(absl::string_view attr) const {
    return node_.attr.find(attr) != node_.attr.end();
  }
  // Typed attr read (see GetNodeAttr in ops/attr_value.h for the types).
  template <typename T>
  Status GetAttr(absl::string_view attr, T* value) const {
    return GetNodeAttr(node_.attr, attr, value);
  }

  // Keeps the first error, prefixed with the node (see the file comment).
  // The registry does not keep a kernel whose construction failed.
  void SetStatus(const Status& status);
  const Status& status() const { return status_; }

  // Constant inputs: work a kernel may do once on a weight instead of in
  // every run (packing a filter for the GEMM). Non-null when the kernel is
  // made for a session (BuildPlan, ConstantInputScope below) and input i is
  // read from a session constant in this kernel's memory space (a Const
  // node the session evaluated, host memory for CPU kernels): the tensor
  // that input i is in every run that does not feed that Const. The tensor
  // never changes; a kernel may keep a reference to it (a Tensor copy) or
  // data derived from it, made here once and read-only in Compute, shared
  // by concurrent runs. What it keeps stays for the kernel's life (packed
  // weights: about one more copy of them).
  //
  // The same kernel may serve a signature that feeds the Const, so a kernel
  // must check in Compute that its input still is the constant (the same
  // buffer and shape: ConstantInputMatches) before using what it derived,
  // and otherwise compute from the input as it would without a constant.
  // Null everywhere for kernels made outside a session (tests, constant
  // folding): they take their per-run path.
  const Tensor* constant_input(int i) const {
    return i < static_cast<int>(constant_inputs_.size()) ? constant_inputs_[i]
                                                         : nullptr;
  }

 private:
  Device* const device_;
  const NodeDef& node_;
  const OpDef& op_def_;
  const NodeTypes& types_;
  const KernelDef* const kernel_def_;
  std::vector<MemorySpace> input_memory_spaces_;
  std::vector<MemorySpace> output_memory_spaces_;
  std::vector<const Tensor*> constant_inputs_;  // empty: none
  Status status_;
};

// Whether `input` is `constant` (OpKernelConstruction::constant_input): the
// same buffer under the same shape. A pointer and a shape compare, for
// Compute.
inline bool ConstantInputMatches(const Tensor& input, const Tensor& constant) {
  return input.SharesBufferWith(constant) && input.shape() == constant.shape();
}

// What OpKernelConstruction::constant_input reports, for the kernels of one
// node made on this thread while the scope lives: `constants` has one entry
// per input of the node (null where the input is no session constant).
// BuildPlan opens one around each kernel it asks the session for, which
// creates the kernel through the registry on this thread. A construction
// for another NodeDef (a kernel made inside another's construction) sees
// none; scopes nest (a control-flow kernel building its bodies' plans).
// Costs nothing at run time: kernels are made when a plan is built.
class ConstantInputScope {
 public:
  // `node` and `constants` must outlive the scope.
  ConstantInputScope(const NodeDef* node,
                     absl::Span<const Tensor* const> constants);
  ~ConstantInputScope();
  ConstantInputScope(const ConstantInputScope&) = delete;
  ConstantInputScope& operator=(const ConstantInputScope&) = delete;

  // The innermost scope on this thread, or null.
  static const ConstantInputScope* Current();
  const NodeDef* node() const { return node_; }
  absl::Span<const Tensor* const> constants() const { return constants_; }

 private:
  const NodeDef* const node_;
  const absl::Span<const Tensor* const> constants_;
  const ConstantInputScope* const outer_;
};

class OpKernelContext;

class OpKernel {
 public:
  // Copies what Compute needs from `ctx`; the construction may end after.
  explicit OpKernel(OpKernelConstruction* ctx);
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;
  virtual ~OpKernel();

  // One execution. Reports failure through ctx->SetStatus (OP_REQUIRES);
  // must be safe to call concurrently with itself.
  virtual void Compute(OpKernelContext* ctx) const = 0;

  // Non-null for kernels that complete asynchronously.
  virtual const AsyncOpKernel* AsAsync() const { return nullptr; }

  // Whether the executor should give this kernel its own task. Cheap kernels
  // (Identity, shape ops on small tensors) return false and run inline on
  // the thread that made them ready.
  virtual bool IsExpensive() const { return true; }

  const std::string& name() const { return name_; }
  const std::string& type_string() const { return type_string_; }
  // NodeLabel(name(), type_string()), kept so errors cost no formatting of
  // their own.
  const std::string& node_label() const { return node_label_; }

  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  const std::vector<DataType>& input_types() const { return input_types_; }
  const std::vector<DataType>& output_types() const { return output_types_; }
  // Where each input must be and each output is allocated: host memory for
  // HostMemory args, else the device's memory. The executor copies inputs
  // between spaces where a producer and a consumer disagree.
  MemorySpace input_memory_space(int i) const {
    return input_memory_spaces_[i];
  }
  MemorySpace output_memory_space(int i) const {
    return output_memory_spaces_[i];
  }

  // The flat index range [*start, *stop) of the op's input (output) arg
  // `arg`; InvalidArgument naming the node and the op's args when there is
  // no such arg.
  Status InputRange(absl::string_view arg, int* start, int* stop) const;
  Status OutputRange(absl::string_view arg, int* start, int* stop) const;

 private:
  struct ArgRange {
    std::string name;
    int start;
    int stop;
  };
  Status FindRange(const std::vector<ArgRange>& args, absl::string_view kind,
                   absl::string_view arg, int* start, int* stop) const;

  const std::string name_;
  const std::string type_string_;
  const std::string node_label_;
  const std::vector<DataType> input_types_;
  const std::vector<DataType> output_types_;
  const std::vector<MemorySpace> input_memory_spaces_;
  const std::vector<MemorySpace> output_memory_spaces_;
  std::vector<ArgRange> input_args_;
  std::vector<ArgRange> output_args_;
};

// A kernel that finishes after ComputeAsync returns: it enqueues work (on a
// device stream, another thread) and calls `done` exactly once when its
// outputs are set or an error is in the context. The context must stay alive
// until `done` runs.
class AsyncOpKernel : public OpKernel {
 public:
  using DoneCallback = std::function<void()>;

  explicit AsyncOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  virtual void ComputeAsync(OpKernelContext* ctx, DoneCallback done) const = 0;

  // Runs ComputeAsync and blocks until `done`, for callers that need a
  // result now. The executor calls ComputeAsync instead.
  void Compute(OpKernelContext* ctx) const final;

  const AsyncOpKernel* AsAsync() const final { return this; }
};

// Per-execution state of one node: its inputs, its outputs, the device and
// the outcome. Built by the executor on the hot path, so it allocates
// nothing itself; everything it points at belongs to the caller.
class OpKernelContext {
 public:
  struct Params {
    Device* device = nullptr;
    // The stream to enqueue on for async devices; null on the CPU.
    DeviceContext* device_context = nullptr;
    const OpKernel* kernel = nullptr;
    // kernel->num_inputs() tensors.
    absl::Span<const Tensor* const> inputs;
    // Per input: the executor will not read this input's slot again after
    // this kernel, so its buffer may become an output when no other tensor
    // shares it. Empty: no input may be forwarded. (An input pointer that
    // appears twice in `inputs`, as in Add(x, x), is never forwarded.)
    absl::Span<const bool> forwardable_inputs;
    // kernel->num_outputs() slots that receive the outputs.
    absl::Span<Tensor> outputs;
  };

  // `params` must outlive the context.
  explicit OpKernelContext(const Params* params);
  OpKernelContext(const OpKernelContext&) = delete;
  OpKernelContext& operator=(const OpKernelContext&) = delete;

  const OpKernel& op_kernel() const { return *params_->kernel; }
  Device* device() const { return params_->device; }
  DeviceContext* op_device_context() const { return params_->device_context; }

  int num_inputs() const { return static_cast<int>(params_->inputs.size()); }
  int num_outputs() const { return static_cast<int>(params_->outputs.size()); }

  // Input `index`; the index must be below num_inputs().
  const Tensor& input(int index) const {
    WEFT_CHECK(index >= 0 && index < num_inputs());
    return *params_->inputs[index];
  }
  DataType input_dtype(int index) const {
    return params_->kernel->input_type(index);
  }
  DataType expected_output_dtype(int index) const {
    return params_->kernel->output_type(index);
  }
  // The single input of arg `arg`; InvalidArgument when the op has no such
  // arg or it holds a list (use input_list).
  Status input(absl::string_view arg, const Tensor** tensor) const;
  // All inputs of arg `arg` ("values: N * T").
  Status input_list(absl::string_view arg,
                    absl::Span<const Tensor* const>* list) const;

  // Allocates output `index` with the op's dtype for it, in the output's
  // memory space, and stores it in the output slot. ResourceExhausted when
  // the allocator cannot supply the bytes (naming output, shape, dtype,
  // bytes and device).
  Status allocate_output(int index, const TensorShape& shape, Tensor** out);
  // Scratch memory that is no output; freed when `out` is.
  Status allocate_temp(DataType dtype, const TensorShape& shape, Tensor* out,
                       MemorySpace space = MemorySpace::kDevice);
  // Stores a tensor the kernel made (a forwarded or reshaped input, a
  // constant). A dtype other than the op's output dtype is a kernel bug and
  // becomes an Internal error in status().
  void set_output(int index, Tensor tensor);
  Tensor* mutable_output(int index) {
    WEFT_CHECK(index >= 0 && index < num_outputs());
    return &params_->outputs[index];
  }

  // Makes output `output_index` share input `input_index`'s buffer, viewed
  // with `shape`, when that is safe: the executor marked the input
  // forwardable, no other tensor holds its buffer, and dtype, element count
  // and memory space match the output. Returns false (touching nothing)
  // otherwise.
  bool forward_input_to_output_with_shape(int input_index, int output_index,
                                          const TensorShape& shape,
                                          Tensor** out);
  // Forwards the first of `candidate_inputs` that can be, else allocates.
  // `forwarded_input`, when given, receives the input used or -1.
  Status forward_input_or_allocate_output(
      absl::Span<const int> candidate_inputs, int output_index,
      const TensorShape& shape, Tensor** out, int* forwarded_input = nullptr);

  // Intra-op parallelism of the device (Device::ParallelFor).
  void ParallelFor(
      int64_t n, int64_t cost_per_unit,
      const std::function<void(int64_t begin, int64_t end)>& fn) const {
    params_->device->ParallelFor(n, cost_per_unit, fn);
  }

  // Keeps the first error, prefixed with the node.
  void SetStatus(const Status& status);
  const Status& status() const { return status_; }

 private:
  Status NodeError(const Status& status) const;

  const Params* const params_;
  Status status_;
};

}  // namespace weft

// Inside Compute or a kernel constructor: if `cond` is false, put `status`
// (usually errors::InvalidArgument(...)) in the context and return.
#define OP_REQUIRES(CTX, COND, STATUS) \
  do {                                 \
    if (!(COND)) {                     \
      (CTX)->SetStatus(STATUS);        \
      return;                          \
    }                                  \
  } while (0)

// Returns after recording a non-OK status expression.
#define OP_REQUIRES_OK(CTX, ...)                  \
  do {                                            \
    const ::absl::Status _weft_op_s(__VA_ARGS__); \
    if (!_weft_op_s.ok()) {                       \
      (CTX)->SetStatus(_weft_op_s);               \
      return;                                     \
    }                                             \
  } while (0)

// The same inside ComputeAsync: also calls `CALLBACK` (the done callback)
// before returning, as an async kernel must on every path.
#define OP_REQUIRES_ASYNC(CTX, COND, STATUS, CALLBACK) \
  do {                                                 \
    if (!(COND)) {                                     \
      (CTX)->SetStatus(STATUS);                        \
      (CALLBACK)();                                    \
      return;                                          \
    }                                                  \
  } while (0)

#define OP_REQUIRES_OK_ASYNC(CTX, STATUS, CALLBACK) \
  do {                                              \
    const ::absl::Status _weft_op_s(STATUS);        \
    if (!_weft_op_s.ok()) {                         \
      (CTX)->SetStatus(_weft_op_s);                 \
      (CALLBACK)();                                 \
      return;                                       \
    }                                               \
  } while (0)

#endif  // WEFT_KERNELS_OP_KERNEL_H_
