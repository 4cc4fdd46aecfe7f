// Status helpers on top of absl::Status. Errors carry their context as a
// prefix chain ("graph.pb: node 'a' (MatMul): ..."), added as they travel up.
#ifndef WEFT_CORE_STATUS_H_
#define WEFT_CORE_STATUS_H_

#include "absl/strings/string_view.h"
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace weft {

using Status = absl::Status;
template <typename T>
using StatusOr = absl::StatusOr<T>;

// Returns `status` with "<context>: " put before its message; the code and
// payloads stay. OK stays OK.
Status AddContext(const Status& status, absl::string_view context);

namespace errors {

template <typename... Args>
Status InvalidArgument(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(args...));
}
template <typename... Args>
Status NotFound(const Args&... args) {
  return absl::NotFoundError(absl::StrCat(args...));
}
template <typename... Args>
Status AlreadyExists(const Args&... args) {
  return absl::AlreadyExistsError(absl::StrCat(args...));
}
template <typename... Args>
Status FailedPrecondition(const Args&... args) {
  return absl::FailedPreconditionError(absl::StrCat(args...));
}
template <typename... Args>
Status OutOfRange(const Args&... args) {
  return absl::OutOfRangeError(absl::StrCat(args...));
}
template <typename... Args>
Status Unimplemented(const Args&... args) {
  return absl::UnimplementedError(absl::StrCat(args...));
}
template <typename... Args>
Status Internal(const Args&... args) {
  return absl::InternalError(absl::StrCat(args...));
}
template <typename... Args>
Status ResourceExhausted(const Args&... args) {
  return absl::ResourceExhaustedError(absl::StrCat(args...));
}

}  // namespace errors
}  // namespace weft

#define WEFT_STATUS_CONCAT_INNER_(a, b) a##b
#define WEFT_STATUS_CONCAT_(a, b) WEFT_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function when `expr` yields a non-OK status.
#define WEFT_RETURN_IF_ERROR(expr)                      \
  do {                                                  \
    ::absl::Status _weft_status = (expr);               \
    if (!_weft_status.ok()) return _weft_status;        \
  } while (0)

// Same, with "<context...>: " prepended to the message.
#define WEFT_RETURN_IF_ERROR_CTX(expr, ...)                               \
  do {                                                                    \
    ::absl::Status _weft_status = (expr);                                 \
    if (!_weft_status.ok()) {                                             \
      return ::weft::AddContext(_weft_status, ::absl::StrCat(__VA_ARGS__)); \
    }                                                                     \
  } while (0)

// WEFT_ASSIGN_OR_RETURN(auto x, MakeX()); declares or assigns on success.
#define WEFT_ASSIGN_OR_RETURN(lhs, expr) \
  WEFT_ASSIGN_OR_RETURN_IMPL_(           \
      WEFT_STATUS_CONCAT_(_weft_statusor_, __LINE__), lhs, expr)
#define WEFT_ASSIGN_OR_RETURN_IMPL_(var, lhs, expr) \
  auto var = (expr);                                \
  if (!var.ok()) return std::move(var).status();    \
  lhs = std::move(var).value()

#endif  // WEFT_CORE_STATUS_H_
