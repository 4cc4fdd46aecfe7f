#include "executor/device_selection.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "device/device_info.h"

namespace weft {

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
    if (rest.empty()) return request;
    if (absl::ConsumePrefix(&rest, ":") &&
        absl::SimpleAtoi(rest, &request.cuda_ordinal) &&
        request.cuda_ordinal >= 0 && !absl::StartsWith(rest, "+")) {
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
      // GPU placement does not exist yet, so a usable GPU would get no node
      // either; the CPU it is.
      return std::string("cpu");
    case DeviceRequest::Kind::kCuda: {
      Status usable = CheckCudaDevice(request.cuda_ordinal);
      if (!usable.ok()) {
        return AddContext(usable, absl::StrCat("device '", device, "'"));
      }
      const CudaDeviceInfo& d = GetCudaInfo().devices[request.cuda_ordinal];
      return errors::Unimplemented(
          "device '", device, "': cuda:", d.ordinal, " (", d.name,
          ") is usable, but this weft cannot place graph nodes on CUDA "
          "devices yet; use device 'cpu' or 'auto'");
    }
  }
  return std::string("cpu");
}

}  // namespace weft
