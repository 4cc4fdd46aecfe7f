/* The vocabulary both of weft's C interfaces share: the embedding API
 * (weft/c_api.h) and the op-library ABI (weft/plugin.h).
 *
 * Plain C, no includes beyond <stddef.h> and <stdint.h>: these headers are
 * what keeps a host program or an op library independent of the compiler,
 * standard library and C++ ABI weft itself was built with. Numeric values
 * never change; new values are only ever added.
 */
#ifndef WEFT_C_TYPES_H_
#define WEFT_C_TYPES_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
/* The mark on every function libweft exports. libweft is compiled with
 * hidden visibility, so only functions declared with it are exported. */
#define WEFT_API __attribute__((visibility("default")))
#else
#define WEFT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes, with the numeric values of TensorFlow's (and absl's) status
 * codes. */
typedef enum weft_code {
  WEFT_OK = 0,
  WEFT_CANCELLED = 1,
  WEFT_UNKNOWN = 2,
  WEFT_INVALID_ARGUMENT = 3,
  WEFT_DEADLINE_EXCEEDED = 4,
  WEFT_NOT_FOUND = 5,
  WEFT_ALREADY_EXISTS = 6,
  WEFT_PERMISSION_DENIED = 7,
  WEFT_RESOURCE_EXHAUSTED = 8,
  WEFT_FAILED_PRECONDITION = 9,
  WEFT_ABORTED = 10,
  WEFT_OUT_OF_RANGE = 11,
  WEFT_UNIMPLEMENTED = 12,
  WEFT_INTERNAL = 13,
  WEFT_UNAVAILABLE = 14,
  WEFT_DATA_LOSS = 15,
  WEFT_UNAUTHENTICATED = 16
} weft_code;

/* Element types, with TensorFlow's DataType values, so a graph file's dtype
 * fields mean the same thing here. */
typedef enum weft_dtype {
  WEFT_INVALID = 0,
  WEFT_FLOAT = 1,
  WEFT_DOUBLE = 2,
  WEFT_INT32 = 3,
  WEFT_UINT8 = 4,
  WEFT_INT16 = 5,
  WEFT_INT8 = 6,
  WEFT_STRING = 7,
  WEFT_COMPLEX64 = 8,
  WEFT_INT64 = 9,
  WEFT_BOOL = 10,
  WEFT_QINT8 = 11,
  WEFT_QUINT8 = 12,
  WEFT_QINT32 = 13,
  WEFT_BFLOAT16 = 14,
  WEFT_QINT16 = 15,
  WEFT_QUINT16 = 16,
  WEFT_UINT16 = 17,
  WEFT_COMPLEX128 = 18,
  WEFT_HALF = 19,
  WEFT_RESOURCE = 20,
  WEFT_VARIANT = 21,
  WEFT_UINT32 = 22,
  WEFT_UINT64 = 23
} weft_dtype;

/* The most dimensions a tensor or shape may have. */
#define WEFT_MAX_RANK 254

/* An error code and message. Owned by whoever created it; the embedding API
 * creates them with weft_status_new(), the plugin ABI hands borrowed ones to
 * a plugin's callbacks. */
typedef struct weft_status weft_status;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* WEFT_C_TYPES_H_ */
