#include "kernels/op_kernel.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/mutex.h"

namespace weft {
namespace {

// Prefixes `status` with `label` unless it already starts with it (a status
// the context produced itself, passed back through OP_REQUIRES_OK).
Status WithNodeLabel(const Status& status, absl::string_view label) {
  if (status.ok()) return status;
  absl::string_view msg = status.message();
  if (absl::StartsWith(msg, label) &&
      absl::StartsWith(msg.substr(label.size()), ": ")) {
    return status;
  }
  return AddContext(status, label);
}

// Memory spaces per flat input (output): host for HostMemory args, else the
// device allocator's space.
void ComputeMemorySpaces(const std::vector<OpDef::ArgDef>& args,
                         const std::vector<std::pair<int, int>>& ranges,
                         size_t num_flat, const KernelDef* kernel_def,
                         MemorySpace device_space,
                         std::vector<MemorySpace>* spaces) {
  spaces->assign(num_flat, device_space);
  if (kernel_def == nullptr || kernel_def->host_memory_args.empty()) return;
  for (size_t k = 0; k < args.size() && k < ranges.size(); ++k) {
    if (!kernel_def->IsHostMemoryArg(args[k].name)) continue;
    for (int i = ranges[k].first; i < ranges[k].second; ++i) {
      if (i >= 0 && static_cast<size_t>(i) < num_flat) {
        (*spaces)[i] = MemorySpace::kHost;
      }
    }
  }
}

bool HasArg(const std::vector<OpDef::ArgDef>& args, absl::string_view name) {
  for (const OpDef::ArgDef& a : args) {
    if (a.name == name) return true;
  }
  return false;
}

std::string ArgNames(const std::vector<OpDef::ArgDef>& args) {
  std::vector<absl::string_view> names;
  for (const OpDef::ArgDef& a : args) names.push_back(a.name);
  return absl::StrCat("[", absl::StrJoin(names, ", "), "]");
}

const char* MemorySpaceName(MemorySpace space) {
  return space == MemorySpace::kHost ? "host" : "device";
}

}  // namespace

std::string NodeLabel(absl::string_view node_name, absl::string_view op) {
  return absl::StrCat("node '", node_name, "' (", op, ")");
}

// ---------------------------------------------------------------------------
// OpKernelConstruction

OpKernelConstruction::OpKernelConstruction(Device* device, const NodeDef& node,
                                           const OpDef& op_def,
                                           const NodeTypes& types,
                                           const KernelDef* kernel_def)
    : device_(device),
      node_(node),
      op_def_(op_def),
      types_(types),
      kernel_def_(kernel_def) {
  if (types.input_ranges.size() != op_def.input_arg.size() ||
      types.output_ranges.size() != op_def.output_arg.size()) {
    SetStatus(errors::Internal(
        "the node's resolved signature has ", types.input_ranges.size(),
        " input and ", types.output_ranges.size(), " output args but op '",
        op_def.name, "' declares ", op_def.input_arg.size(), " and ",
        op_def.output_arg.size()));
  }
  if (kernel_def != nullptr) {
    for (const std::string& arg : kernel_def->host_memory_args) {
      if (!HasArg(op_def.input_arg, arg) && !HasArg(op_def.output_arg, arg)) {
        SetStatus(errors::InvalidArgument(
            "kernel ", SummarizeKernelDef(*kernel_def),
            " declares HostMemory('", arg, "'), but op '", op_def.name,
            "' has no such input or output; "
            "inputs are ",
            ArgNames(op_def.input_arg), ", outputs are ",
            ArgNames(op_def.output_arg)));
      }
    }
  }
  const MemorySpace device_space = device->allocator()->memory_space();
  ComputeMemorySpaces(op_def.input_arg, types.input_ranges,
                      types.input_types.size(), kernel_def, device_space,
                      &input_memory_spaces_);
  ComputeMemorySpaces(op_def.output_arg, types.output_ranges,
                      types.output_types.size(), kernel_def, device_space,
                      &output_memory_spaces_);
  // Constants are host tensors: an input read in device memory gets an
  // uploaded copy (executor/plan.h), not the constant itself.
  const ConstantInputScope* scope = ConstantInputScope::Current();
  if (scope != nullptr && scope->node() == &node &&
      scope->constants().size() == input_memory_spaces_.size()) {
    for (size_t i = 0; i < input_memory_spaces_.size(); ++i) {
      const Tensor* c = scope->constants()[i];
      if (c != nullptr && (input_memory_spaces_[i] == MemorySpace::kHost ||
                           device_space == MemorySpace::kHost)) {
        constant_inputs_.resize(input_memory_spaces_.size(), nullptr);
        constant_inputs_[i] = c;
      }
    }
  }
}

namespace {
thread_local const ConstantInputScope* tls_constant_scope = nullptr;
}  // namespace

ConstantInputScope::ConstantInputScope(
    const NodeDef* node, absl::Span<const Tensor* const> constants)
    : node_(node), constants_(constants), outer_(tls_constant_scope) {
  tls_constant_scope = this;
}

ConstantInputScope::~ConstantInputScope() { tls_constant_scope = outer_; }

const ConstantInputScope* ConstantInputScope::Current() {
  return tls_constant_scope;
}

void OpKernelConstruction::SetStatus(const Status& status) {
  if (status.ok() || !status_.ok()) return;
  status_ = WithNodeLabel(status, NodeLabel(node_.name, node_.op));
}

// ---------------------------------------------------------------------------
// OpKernel

OpKernel::OpKernel(OpKernelConstruction* ctx)
    : name_(ctx->name()),
      type_string_(ctx->type_string()),
      node_label_(NodeLabel(ctx->name(), ctx->type_string())),
      input_types_(ctx->input_types()),
      output_types_(ctx->output_types()),
      input_memory_spaces_(ctx->input_memory_spaces()),
      output_memory_spaces_(ctx->output_memory_spaces()) {
  const OpDef& op_def = ctx->op_def();
  const NodeTypes& types = ctx->node_types();
  for (size_t k = 0;
       k < op_def.input_arg.size() && k < types.input_ranges.size(); ++k) {
    input_args_.push_back({op_def.input_arg[k].name,
                           types.input_ranges[k].first,
                           types.input_ranges[k].second});
  }
  for (size_t k = 0;
       k < op_def.output_arg.size() && k < types.output_ranges.size(); ++k) {
    output_args_.push_back({op_def.output_arg[k].name,
                            types.output_ranges[k].first,
                            types.output_ranges[k].second});
  }
}

OpKernel::~OpKernel() = default;

Status OpKernel::FindRange(const std::vector<ArgRange>& args,
                           absl::string_view kind, absl::string_view arg,
                           int* start, int* stop) const {
  for (const ArgRange& a : args) {
    if (a.name == arg) {
      *start = a.start;
      *stop = a.stop;
      return Status();
    }
  }
  std::vector<absl::string_view> names;
  for (const ArgRange& a : args) names.push_back(a.name);
  return errors::InvalidArgument(
      node_label_, ": op '", type_string_, "' has no ", kind, " named '", arg,
      "'; its ", kind, "s are [", absl::StrJoin(names, ", "), "]");
}

Status OpKernel::InputRange(absl::string_view arg, int* start,
                            int* stop) const {
  return FindRange(input_args_, "input", arg, start, stop);
}

Status OpKernel::OutputRange(absl::string_view arg, int* start,
                             int* stop) const {
  return FindRange(output_args_, "output", arg, start, stop);
}

// ---------------------------------------------------------------------------
// AsyncOpKernel

void AsyncOpKernel::Compute(OpKernelContext* ctx) const {
  Notification finished;
  ComputeAsync(ctx, [&finished] { finished.Notify(); });
  finished.WaitForNotification();
}

// ---------------------------------------------------------------------------
// OpKernelContext

OpKernelContext::OpKernelContext(const Params* params) : params_(params) {
  WEFT_CHECK(params->device != nullptr && params->kernel != nullptr);
}

Status OpKernelContext::NodeError(const Status& status) const {
  return WithNodeLabel(status, params_->kernel->node_label());
}

void OpKernelContext::SetStatus(const Status& status) {
  if (status.ok() || !status_.ok()) return;
  status_ = NodeError(status);
}

Status OpKernelContext::input(absl::string_view arg,
                              const Tensor** tensor) const {
  int start = 0;
  int stop = 0;
  WEFT_RETURN_IF_ERROR(params_->kernel->InputRange(arg, &start, &stop));
  if (stop - start != 1) {
    return NodeError(
        errors::InvalidArgument("input '", arg, "' is a list of ", stop - start,
                                " tensors; read it with input_list"));
  }
  *tensor = &input(start);
  return Status();
}

Status OpKernelContext::input_list(
    absl::string_view arg, absl::Span<const Tensor* const>* list) const {
  int start = 0;
  int stop = 0;
  WEFT_RETURN_IF_ERROR(params_->kernel->InputRange(arg, &start, &stop));
  if (start < 0 || stop > num_inputs() || start > stop) {
    return NodeError(errors::Internal("input '", arg, "' covers inputs [",
                                      start, ", ", stop, ") but the node has ",
                                      num_inputs()));
  }
  *list = params_->inputs.subspan(start, stop - start);
  return Status();
}

Status OpKernelContext::allocate_output(int index, const TensorShape& shape,
                                        Tensor** out) {
  if (index < 0 || index >= num_outputs()) {
    return NodeError(errors::Internal("allocate_output: output ", index,
                                      " out of range; the node has ",
                                      num_outputs(), " outputs"));
  }
  const DataType dtype = expected_output_dtype(index);
  const MemorySpace space = params_->kernel->output_memory_space(index);
  Allocator* allocator = params_->device->GetAllocator(space);
  StatusOr<Tensor> t = Tensor::Allocate(allocator, dtype, shape);
  if (!t.ok()) {
    if (t.status().code() != absl::StatusCode::kResourceExhausted) {
      return NodeError(t.status());
    }
    const size_t elem = DataTypeSize(dtype);
    const AllocatorStats stats = allocator->GetStats();
    return NodeError(errors::ResourceExhausted(
        "out of memory allocating output ", index, " (", DataTypeName(dtype),
        " ", shape.DebugString(), ", ",
        elem == 0
            ? std::string("unknown")
            : absl::StrCat(static_cast<uint64_t>(shape.num_elements()) * elem),
        " bytes) in ", MemorySpaceName(space), " memory of device ",
        params_->device->name(), "; allocator '", allocator->Name(), "' has ",
        stats.bytes_in_use, " bytes in use",
        stats.bytes_reserved > 0
            ? absl::StrCat(", ", stats.bytes_reserved, " reserved")
            : std::string(),
        stats.bytes_limit > 0
            ? absl::StrCat(" of its limit of ", stats.bytes_limit)
            : std::string()));
  }
  params_->outputs[index] = *std::move(t);
  *out = &params_->outputs[index];
  return Status();
}

Status OpKernelContext::allocate_temp(DataType dtype, const TensorShape& shape,
                                      Tensor* out, MemorySpace space) {
  Allocator* allocator = params_->device->GetAllocator(space);
  StatusOr<Tensor> t = Tensor::Allocate(allocator, dtype, shape);
  if (!t.ok()) {
    return NodeError(AddContext(t.status(), "allocating a temporary"));
  }
  *out = *std::move(t);
  return Status();
}

void OpKernelContext::set_output(int index, Tensor tensor) {
  if (index < 0 || index >= num_outputs()) {
    SetStatus(errors::Internal("set_output: output ", index,
                               " out of range; the node has ", num_outputs(),
                               " outputs"));
    return;
  }
  if (tensor.dtype() != expected_output_dtype(index)) {
    SetStatus(errors::Internal("set_output: output ", index, " is declared ",
                               DataTypeName(expected_output_dtype(index)),
                               " but the kernel produced ",
                               DataTypeName(tensor.dtype())));
    return;
  }
  params_->outputs[index] = std::move(tensor);
}

bool OpKernelContext::forward_input_to_output_with_shape(
    int input_index, int output_index, const TensorShape& shape, Tensor** out) {
  if (input_index < 0 || input_index >= num_inputs() || output_index < 0 ||
      output_index >= num_outputs()) {
    return false;
  }
  const auto& forwardable = params_->forwardable_inputs;
  if (static_cast<size_t>(input_index) >= forwardable.size() ||
      !forwardable[input_index]) {
    return false;
  }
  const Tensor* in = params_->inputs[input_index];
  if (in == nullptr || !in->RefCountIsOne() ||
      in->dtype() != expected_output_dtype(output_index) ||
      in->NumElements() != shape.num_elements() ||
      in->memory_space() !=
          params_->kernel->output_memory_space(output_index)) {
    return false;
  }
  // The same slot read through another input of this node (Add(x, x)) must
  // not be overwritten while that input is still being read.
  for (int j = 0; j < num_inputs(); ++j) {
    if (j != input_index && params_->inputs[j] == in) return false;
  }
  StatusOr<Tensor> view = in->Reshaped(shape);
  if (!view.ok()) return false;
  params_->outputs[output_index] = *std::move(view);
  *out = &params_->outputs[output_index];
  return true;
}

Status OpKernelContext::forward_input_or_allocate_output(
    absl::Span<const int> candidate_inputs, int output_index,
    const TensorShape& shape, Tensor** out, int* forwarded_input) {
  for (int input_index : candidate_inputs) {
    if (forward_input_to_output_with_shape(input_index, output_index, shape,
                                           out)) {
      if (forwarded_input != nullptr) *forwarded_input = input_index;
      return Status();
    }
  }
  if (forwarded_input != nullptr) *forwarded_input = -1;
  return allocate_output(output_index, shape, out);
}

}  // namespace weft
