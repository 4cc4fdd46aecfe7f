#include "executor/device_selection.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "device/device_factory.h"
#include "device/device_info.h"
#ifdef WEFT_HAVE_CUDA
#include "device/cuda/cuda_device.h"
#endif

namespace weft {
namespace {

// "" or ":N" with N >= 0 into `ordinal`.
bool ParseOrdinal(absl::string_view rest, int* ordinal) {
  *ordinal = 0;
  if (rest.empty()) return true;
  return absl::ConsumePrefix(&rest, ":") && !absl::StartsWith(rest, "+") &&
         absl::SimpleAtoi(rest, ordinal) && *ordinal >= 0;
}

}  // namespace

StatusOr<DeviceRequest> ParseDeviceRequest(absl::string_view device) {
  DeviceRequest request;
  if (device == "cpu") return request;
  if (device == "auto") {
    request.kind = DeviceRequest::Kind::kAuto;
    return request;
  }
  absl::string_view rest = device;
  if (absl::ConsumePrefix(&rest, "cuda")) {
    request.kind = DeviceRequest::Kind::kCuda;
    if (ParseOrdinal(rest, &request.cuda_ordinal)) return request;
  } else {
    absl::string_view name = device.substr(0, device.find(':'));
    if (!name.empty() && FindDeviceFactory(name) != nullptr &&
        ParseOrdinal(device.substr(name.size()), &request.cuda_ordinal)) {
      request.kind = DeviceRequest::Kind::kRegistered;
      request.factory = std::string(name);
      return request;
    }
  }
  return errors::InvalidArgument("device '", device,
                                 "': expected cpu, cuda, cuda:N (N >= 0) or "
                                 "auto");
}

StatusOr<std::string> ResolveSessionDevice(absl::string_view device) {
  WEFT_ASSIGN_OR_RETURN(DeviceRequest request, ParseDeviceRequest(device));
  switch (request.kind) {
    case DeviceRequest::Kind::kCpu:
      return std::string("cpu");
    case DeviceRequest::Kind::kAuto:
      if (CheckCudaDevice(0).ok()) return std::string("cuda:0");
      return std::string("cpu");
    case DeviceRequest::Kind::kCuda: {
      Status usable = CheckCudaDevice(request.cuda_ordinal);
      if (!usable.ok()) {
        return AddContext(usable, absl::StrCat("device '", device, "'"));
      }
      return absl::StrCat("cuda:", request.cuda_ordinal);
    }
    case DeviceRequest::Kind::kRegistered:
      return absl::StrCat(request.factory, ":", request.cuda_ordinal);
  }
  return std::string("cpu");
}

Status CheckAcceleratorOptions(absl::string_view resolved_device,
                               const AcceleratorOptions& options) {
  const bool cuda = absl::StartsWith(resolved_device, "cuda:");
  if (options.cuda_stream != nullptr && !cuda) {
    return errors::InvalidArgument(
        "cuda_stream is set but the session runs on '", resolved_device,
        "': a host stream needs device 'cuda' or 'cuda:N' (or 'auto' on a "
        "machine with a usable GPU)");
  }
  if (options.allow_tf32 && !cuda) {
    return errors::InvalidArgument(
        "allow_tf32 is set but the session runs on '", resolved_device,
        "': TF32 is a CUDA tensor-core format");
  }
  if (options.memory_limit_bytes < 0) {
    return errors::InvalidArgument("device_memory_limit_bytes ",
                                   options.memory_limit_bytes,
                                   " is negative; 0 means no limit");
  }
  return Status();
}

StatusOr<std::unique_ptr<Device>> CreateSessionAccelerator(
    absl::string_view device, Allocator* host_allocator,
    const AcceleratorOptions& accelerator_options) {
  WEFT_ASSIGN_OR_RETURN(std::string resolved, ResolveSessionDevice(device));
  WEFT_ASSIGN_OR_RETURN(DeviceRequest request, ParseDeviceRequest(device));
  WEFT_RETURN_IF_ERROR(
      AddContext(CheckAcceleratorOptions(resolved, accelerator_options),
                 absl::StrCat("device '", device, "'")));
  if (resolved == "cpu") return std::unique_ptr<Device>();
  if (request.kind == DeviceRequest::Kind::kRegistered) {
    DeviceFactoryArgs args;
    args.ordinal = request.cuda_ordinal;
    args.host_allocator = host_allocator;
    auto created = (*FindDeviceFactory(request.factory))(args);
    if (!created.ok()) {
      return AddContext(created.status(),
                        absl::StrCat("device '", device, "'"));
    }
    return std::move(*created);
  }
#ifdef WEFT_HAVE_CUDA
  CudaDeviceOptions options;
  options.ordinal =
      request.kind == DeviceRequest::Kind::kCuda ? request.cuda_ordinal : 0;
  options.compute_stream =
      static_cast<cudaStream_t>(accelerator_options.cuda_stream);
  options.allow_tf32 = accelerator_options.allow_tf32;
  options.memory_limit = accelerator_options.memory_limit_bytes;
  auto created = CudaDevice::Create(options);
  if (!created.ok()) {
    return AddContext(created.status(), absl::StrCat("device '", device, "'"));
  }
  return std::unique_ptr<Device>(std::move(*created));
#else
  // Unreachable: discovery reports no usable CUDA device in a build without
  // CUDA, so ResolveSessionDevice has failed or chosen the CPU.
  return errors::Internal("device '", device,
                          "': this weft was built without CUDA");
#endif
}

}  // namespace weft
