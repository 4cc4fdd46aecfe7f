// The C enums of include/weft/c_types.h mirror C++ ones value for value, so
// that the C API and the plugin ABI convert between them with a static_cast
// (api/c_status.cc, c_api.cc, c_api_graph_info.cc, plugin_api.cc). Checked
// here, at compile time, in one place: a value added or changed on one side
// only fails the build.
#include "absl/status/status.h"
#include "core/types.h"
#include "weft/c_types.h"

namespace weft {
namespace {

// weft_code: absl::StatusCode (TensorFlow's status codes).
static_assert(static_cast<int>(WEFT_OK) ==
                  static_cast<int>(absl::StatusCode::kOk),
              "weft_code WEFT_OK differs from absl::StatusCode::kOk");
static_assert(
    static_cast<int>(WEFT_CANCELLED) ==
        static_cast<int>(absl::StatusCode::kCancelled),
    "weft_code WEFT_CANCELLED differs from absl::StatusCode::kCancelled");
static_assert(static_cast<int>(WEFT_UNKNOWN) ==
                  static_cast<int>(absl::StatusCode::kUnknown),
              "weft_code WEFT_UNKNOWN differs from absl::StatusCode::kUnknown");
static_assert(static_cast<int>(WEFT_INVALID_ARGUMENT) ==
                  static_cast<int>(absl::StatusCode::kInvalidArgument),
              "weft_code WEFT_INVALID_ARGUMENT differs from "
              "absl::StatusCode::kInvalidArgument");
static_assert(static_cast<int>(WEFT_DEADLINE_EXCEEDED) ==
                  static_cast<int>(absl::StatusCode::kDeadlineExceeded),
              "weft_code WEFT_DEADLINE_EXCEEDED differs from "
              "absl::StatusCode::kDeadlineExceeded");
static_assert(
    static_cast<int>(WEFT_NOT_FOUND) ==
        static_cast<int>(absl::StatusCode::kNotFound),
    "weft_code WEFT_NOT_FOUND differs from absl::StatusCode::kNotFound");
static_assert(static_cast<int>(WEFT_ALREADY_EXISTS) ==
                  static_cast<int>(absl::StatusCode::kAlreadyExists),
              "weft_code WEFT_ALREADY_EXISTS differs from "
              "absl::StatusCode::kAlreadyExists");
static_assert(static_cast<int>(WEFT_PERMISSION_DENIED) ==
                  static_cast<int>(absl::StatusCode::kPermissionDenied),
              "weft_code WEFT_PERMISSION_DENIED differs from "
              "absl::StatusCode::kPermissionDenied");
static_assert(static_cast<int>(WEFT_RESOURCE_EXHAUSTED) ==
                  static_cast<int>(absl::StatusCode::kResourceExhausted),
              "weft_code WEFT_RESOURCE_EXHAUSTED differs from "
              "absl::StatusCode::kResourceExhausted");
static_assert(static_cast<int>(WEFT_FAILED_PRECONDITION) ==
                  static_cast<int>(absl::StatusCode::kFailedPrecondition),
              "weft_code WEFT_FAILED_PRECONDITION differs from "
              "absl::StatusCode::kFailedPrecondition");
static_assert(static_cast<int>(WEFT_ABORTED) ==
                  static_cast<int>(absl::StatusCode::kAborted),
              "weft_code WEFT_ABORTED differs from absl::StatusCode::kAborted");
static_assert(
    static_cast<int>(WEFT_OUT_OF_RANGE) ==
        static_cast<int>(absl::StatusCode::kOutOfRange),
    "weft_code WEFT_OUT_OF_RANGE differs from absl::StatusCode::kOutOfRange");
static_assert(static_cast<int>(WEFT_UNIMPLEMENTED) ==
                  static_cast<int>(absl::StatusCode::kUnimplemented),
              "weft_code WEFT_UNIMPLEMENTED differs from "
              "absl::StatusCode::kUnimplemented");
static_assert(
    static_cast<int>(WEFT_INTERNAL) ==
        static_cast<int>(absl::StatusCode::kInternal),
    "weft_code WEFT_INTERNAL differs from absl::StatusCode::kInternal");
static_assert(
    static_cast<int>(WEFT_UNAVAILABLE) ==
        static_cast<int>(absl::StatusCode::kUnavailable),
    "weft_code WEFT_UNAVAILABLE differs from absl::StatusCode::kUnavailable");
static_assert(
    static_cast<int>(WEFT_DATA_LOSS) ==
        static_cast<int>(absl::StatusCode::kDataLoss),
    "weft_code WEFT_DATA_LOSS differs from absl::StatusCode::kDataLoss");
static_assert(static_cast<int>(WEFT_UNAUTHENTICATED) ==
                  static_cast<int>(absl::StatusCode::kUnauthenticated),
              "weft_code WEFT_UNAUTHENTICATED differs from "
              "absl::StatusCode::kUnauthenticated");

// weft_dtype: DataType (TensorFlow's DataType values).
static_assert(static_cast<int>(WEFT_INVALID) == static_cast<int>(DT_INVALID),
              "weft_dtype WEFT_INVALID differs from DT_INVALID");
static_assert(static_cast<int>(WEFT_FLOAT) == static_cast<int>(DT_FLOAT),
              "weft_dtype WEFT_FLOAT differs from DT_FLOAT");
static_assert(static_cast<int>(WEFT_DOUBLE) == static_cast<int>(DT_DOUBLE),
              "weft_dtype WEFT_DOUBLE differs from DT_DOUBLE");
static_assert(static_cast<int>(WEFT_INT32) == static_cast<int>(DT_INT32),
              "weft_dtype WEFT_INT32 differs from DT_INT32");
static_assert(static_cast<int>(WEFT_UINT8) == static_cast<int>(DT_UINT8),
              "weft_dtype WEFT_UINT8 differs from DT_UINT8");
static_assert(static_cast<int>(WEFT_INT16) == static_cast<int>(DT_INT16),
              "weft_dtype WEFT_INT16 differs from DT_INT16");
static_assert(static_cast<int>(WEFT_INT8) == static_cast<int>(DT_INT8),
              "weft_dtype WEFT_INT8 differs from DT_INT8");
static_assert(static_cast<int>(WEFT_STRING) == static_cast<int>(DT_STRING),
              "weft_dtype WEFT_STRING differs from DT_STRING");
static_assert(static_cast<int>(WEFT_COMPLEX64) ==
                  static_cast<int>(DT_COMPLEX64),
              "weft_dtype WEFT_COMPLEX64 differs from DT_COMPLEX64");
static_assert(static_cast<int>(WEFT_INT64) == static_cast<int>(DT_INT64),
              "weft_dtype WEFT_INT64 differs from DT_INT64");
static_assert(static_cast<int>(WEFT_BOOL) == static_cast<int>(DT_BOOL),
              "weft_dtype WEFT_BOOL differs from DT_BOOL");
static_assert(static_cast<int>(WEFT_QINT8) == static_cast<int>(DT_QINT8),
              "weft_dtype WEFT_QINT8 differs from DT_QINT8");
static_assert(static_cast<int>(WEFT_QUINT8) == static_cast<int>(DT_QUINT8),
              "weft_dtype WEFT_QUINT8 differs from DT_QUINT8");
static_assert(static_cast<int>(WEFT_QINT32) == static_cast<int>(DT_QINT32),
              "weft_dtype WEFT_QINT32 differs from DT_QINT32");
static_assert(static_cast<int>(WEFT_BFLOAT16) == static_cast<int>(DT_BFLOAT16),
              "weft_dtype WEFT_BFLOAT16 differs from DT_BFLOAT16");
static_assert(static_cast<int>(WEFT_QINT16) == static_cast<int>(DT_QINT16),
              "weft_dtype WEFT_QINT16 differs from DT_QINT16");
static_assert(static_cast<int>(WEFT_QUINT16) == static_cast<int>(DT_QUINT16),
              "weft_dtype WEFT_QUINT16 differs from DT_QUINT16");
static_assert(static_cast<int>(WEFT_UINT16) == static_cast<int>(DT_UINT16),
              "weft_dtype WEFT_UINT16 differs from DT_UINT16");
static_assert(static_cast<int>(WEFT_COMPLEX128) ==
                  static_cast<int>(DT_COMPLEX128),
              "weft_dtype WEFT_COMPLEX128 differs from DT_COMPLEX128");
static_assert(static_cast<int>(WEFT_HALF) == static_cast<int>(DT_HALF),
              "weft_dtype WEFT_HALF differs from DT_HALF");
static_assert(static_cast<int>(WEFT_RESOURCE) == static_cast<int>(DT_RESOURCE),
              "weft_dtype WEFT_RESOURCE differs from DT_RESOURCE");
static_assert(static_cast<int>(WEFT_VARIANT) == static_cast<int>(DT_VARIANT),
              "weft_dtype WEFT_VARIANT differs from DT_VARIANT");
static_assert(static_cast<int>(WEFT_UINT32) == static_cast<int>(DT_UINT32),
              "weft_dtype WEFT_UINT32 differs from DT_UINT32");
static_assert(static_cast<int>(WEFT_UINT64) == static_cast<int>(DT_UINT64),
              "weft_dtype WEFT_UINT64 differs from DT_UINT64");

}  // namespace
}  // namespace weft
