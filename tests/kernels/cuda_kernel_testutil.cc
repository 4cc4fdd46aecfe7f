#include "tests/kernels/cuda_kernel_testutil.h"

#include <future>
#include <memory>
#include <utility>

#include "device/device_info.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "ops/op_registry.h"
#include "tests/kernels/kernel_testutil.h"

#if WEFT_HAVE_CUDA
#include "device/cuda/cuda_device.h"
#endif

namespace weft::test {
namespace {

#if WEFT_HAVE_CUDA
// Blocks until an asynchronous step reports its outcome.
class Waiter {
 public:
  std::function<void(Status)> Callback() {
    auto promise = std::make_shared<std::promise<Status>>();
    futures_.push_back(promise->get_future());
    return [promise](Status s) { promise->set_value(std::move(s)); };
  }
  Status Wait() {
    Status first;
    for (auto& f : futures_) {
      Status s = f.get();
      if (first.ok()) first = s;
    }
    futures_.clear();
    return first;
  }

 private:
  std::vector<std::future<Status>> futures_;
};
#endif

}  // namespace

StatusOr<Device*> TestCudaDevice() {
#if WEFT_HAVE_CUDA
  static StatusOr<CudaDevice*>* const device = [] {
    auto created = CudaDevice::Create(CudaDeviceOptions());
    if (!created.ok()) return new StatusOr<CudaDevice*>(created.status());
    return new StatusOr<CudaDevice*>(created->release());
  }();
  if (!device->ok()) return device->status();
  return static_cast<Device*>(**device);
#else
  return GetCudaInfo().status;
#endif
}

std::string CudaTestSkipReason() {
  StatusOr<Device*> device = TestCudaDevice();
  return device.ok() ? std::string() : std::string(device.status().message());
}

CudaOpRunner::CudaOpRunner(std::string op, AttrMap attrs)
    : op_(std::move(op)), attrs_(std::move(attrs)) {}

StatusOr<std::vector<Tensor>> CudaOpRunner::Run(
    const std::vector<Tensor>& inputs) {
  WEFT_ASSIGN_OR_RETURN(Device * device, TestCudaDevice());
#if !WEFT_HAVE_CUDA
  (void)device;
  (void)inputs;
  return errors::FailedPrecondition("weft was built without CUDA");
#else
  std::vector<DataType> input_types;
  for (const Tensor& t : inputs) input_types.push_back(t.dtype());
  NodeDef node;
  NodeTypes types;
  WEFT_RETURN_IF_ERROR(MakeTestNode(op_, attrs_, input_types, &node, &types));
  WEFT_ASSIGN_OR_RETURN(const OpRegistrationData* reg,
                        OpRegistry::Global()->LookUp(op_));
  WEFT_ASSIGN_OR_RETURN(
      std::unique_ptr<OpKernel> kernel,
      KernelRegistry::Global()->CreateKernel(node, reg->op_def, types, device));
  DeviceContext* context = device->device_context();

  // Upload: device inputs get device memory and a copy; HostMemory inputs
  // are passed as they are.
  std::vector<Tensor> staged(inputs.size());
  Waiter uploads;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (kernel->input_memory_space(static_cast<int>(i)) == MemorySpace::kHost) {
      staged[i] = inputs[i];
      continue;
    }
    WEFT_ASSIGN_OR_RETURN(
        staged[i], Tensor::Allocate(device->allocator(), inputs[i].dtype(),
                                    inputs[i].shape()));
    context->CopyHostToDevice(inputs[i], &staged[i], uploads.Callback());
  }
  WEFT_RETURN_IF_ERROR(uploads.Wait());

  std::vector<const Tensor*> input_ptrs;
  for (const Tensor& t : staged) input_ptrs.push_back(&t);
  // The staged copies are this runner's alone, so kernels may forward them
  // into outputs, as the executor lets them.
  std::unique_ptr<bool[]> forwardable(new bool[staged.size() + 1]);
  for (size_t i = 0; i < staged.size(); ++i) forwardable[i] = true;
  std::vector<Tensor> outputs(kernel->num_outputs());
  OpKernelContext::Params params;
  params.device = device;
  params.device_context = context;
  params.kernel = kernel.get();
  params.inputs = input_ptrs;
  params.forwardable_inputs =
      absl::Span<const bool>(forwardable.get(), staged.size());
  params.outputs = absl::MakeSpan(outputs);
  OpKernelContext ctx(&params);
  if (const AsyncOpKernel* async = kernel->AsAsync()) {
    std::promise<void> done;
    async->ComputeAsync(&ctx, [&done] { done.set_value(); });
    done.get_future().wait();
  } else {
    kernel->Compute(&ctx);
  }
  WEFT_RETURN_IF_ERROR(ctx.status());
  WEFT_RETURN_IF_ERROR(device->Sync());

  // Download every output that lives in device memory.
  std::vector<Tensor> host(outputs.size());
  Waiter downloads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].IsInitialized()) {
      return errors::Internal(kernel->node_label(), ": kernel left output ", i,
                              " unset");
    }
    if (outputs[i].memory_space() == MemorySpace::kHost) {
      host[i] = outputs[i];
      continue;
    }
    host[i] = Tensor(outputs[i].dtype(), outputs[i].shape());
    context->CopyDeviceToHost(outputs[i], &host[i], downloads.Callback());
  }
  WEFT_RETURN_IF_ERROR(downloads.Wait());
  WEFT_RETURN_IF_ERROR(device->Sync());
  return host;
#endif
}

}  // namespace weft::test
