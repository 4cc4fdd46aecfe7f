// The vector paths' GELU of floats; see gelu_float.h.
#include "kernels/cpu/gelu_float.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

#include "device/cpu_isa.h"

namespace weft {
namespace {

#define WEFT_FLOAT_BODY "kernels/cpu/gelu_float.inc"
#include "kernels/cpu/float_paths.inc"

}  // namespace

bool GeluFloatOnVectorPath(const float* in, float* out, int64_t n,
                           bool approximate) {
  return RunOnVectorPath(
      [&] {
        approximate ? avx512::GeluRun<true>(in, out, n)
                    : avx512::GeluRun<false>(in, out, n);
      },
      [&] {
        approximate ? avx2::GeluRun<true>(in, out, n)
                    : avx2::GeluRun<false>(in, out, n);
      });
}

}  // namespace weft
