// WEFT_CHECK: for broken internal invariants only (programming errors inside
// weft). Anything a user can cause returns a Status instead.
#ifndef WEFT_CORE_LOGGING_H_
#define WEFT_CORE_LOGGING_H_

namespace weft::internal {
[[noreturn]] void CheckFailed(const char* file, int line, const char* cond,
                              const char* message);
}  // namespace weft::internal

#define WEFT_CHECK(cond)                                                     \
  do {                                                                       \
    if (__builtin_expect(!(cond), 0)) {                                      \
      ::weft::internal::CheckFailed(__FILE__, __LINE__, #cond, nullptr);     \
    }                                                                        \
  } while (0)

#define WEFT_CHECK_MSG(cond, message)                                        \
  do {                                                                       \
    if (__builtin_expect(!(cond), 0)) {                                      \
      ::weft::internal::CheckFailed(__FILE__, __LINE__, #cond, (message));   \
    }                                                                        \
  } while (0)

#endif  // WEFT_CORE_LOGGING_H_
