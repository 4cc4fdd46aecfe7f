// weft_status, the error object of weft's C interfaces (include/weft/
// c_api.h, include/weft/plugin.h), and its conversions to and from Status.
// It keeps the message as a NUL-terminated std::string because C callers
// read it as a const char*, which absl::Status::message() cannot give.
#ifndef WEFT_API_C_STATUS_H_
#define WEFT_API_C_STATUS_H_

#include <exception>
#include <new>
#include <string>

#include "core/status.h"
#include "weft/c_types.h"

struct weft_status {
  weft_code code = WEFT_OK;
  std::string message;
};

namespace weft {

// An out-of-range code (from a plugin) becomes WEFT_UNKNOWN.
weft_code ToCCode(absl::StatusCode code);
absl::StatusCode FromCCode(int code);

// Does nothing when `out` is null (the plugin ABI allows null statuses).
void SetCStatus(weft_status* out, const Status& status);
void SetCStatus(weft_status* out, weft_code code, absl::string_view message);
Status FromCStatus(const weft_status& status);

// Runs `fn`, the body of a C entry point named `call`, turning an escaped
// exception into a status: nothing crosses the C ABI.
template <typename Fn>
void Guard(weft_status* status, absl::string_view call, Fn&& fn) {
  try {
    fn();
  } catch (const std::bad_alloc&) {
    SetCStatus(status, errors::ResourceExhausted(call, ": out of memory"));
  } catch (const std::exception& e) {
    SetCStatus(status,
               errors::Internal(call, ": unexpected exception: ", e.what()));
  } catch (...) {
    SetCStatus(status, errors::Internal(call, ": unexpected exception"));
  }
}

inline void Ok(weft_status* status) { SetCStatus(status, Status()); }

// A C string argument; NULL reads as "".
inline std::string Str(const char* s) {
  return s == nullptr ? std::string() : s;
}

}  // namespace weft

#endif  // WEFT_API_C_STATUS_H_
