#include "core/logging.h"

#include <cstdio>
#include <cstdlib>

namespace weft::internal {

void CheckFailed(const char* file, int line, const char* cond,
                 const char* message) {
  std::fprintf(stderr, "weft: internal check failed at %s:%d: %s%s%s\n", file,
               line, cond, message ? ": " : "", message ? message : "");
  std::abort();
}

}  // namespace weft::internal
