#include "api/c_status.h"

namespace weft {

weft_code ToCCode(absl::StatusCode code) {
  int value = static_cast<int>(code);
  if (value < WEFT_OK || value > WEFT_UNAUTHENTICATED) return WEFT_UNKNOWN;
  return static_cast<weft_code>(value);
}

absl::StatusCode FromCCode(int code) {
  if (code < WEFT_OK || code > WEFT_UNAUTHENTICATED) {
    return absl::StatusCode::kUnknown;
  }
  return static_cast<absl::StatusCode>(code);
}

void SetCStatus(weft_status* out, const Status& status) {
  if (out == nullptr) return;
  out->code = ToCCode(status.code());
  out->message = std::string(status.message());
}

void SetCStatus(weft_status* out, weft_code code, absl::string_view message) {
  if (out == nullptr) return;
  out->code = ToCCode(FromCCode(code));
  if (out->code == WEFT_OK) {
    out->message.clear();
  } else {
    out->message = std::string(message);
  }
}

Status FromCStatus(const weft_status& status) {
  if (status.code == WEFT_OK) return Status();
  std::string message = status.message;
  if (message.empty()) message = "(no message)";
  return Status(FromCCode(status.code), message);
}

}  // namespace weft
