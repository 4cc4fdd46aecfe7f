// The vector paths' exp of floats; see exp_float.h.
#include "kernels/cpu/exp_float.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

#include "device/cpu_isa.h"

namespace weft {
namespace {

#define WEFT_FLOAT_BODY "kernels/cpu/exp_float.inc"
#include "kernels/cpu/float_paths.inc"

}  // namespace

bool ExpFloatOnVectorPath(const float* in, float* out, int64_t n) {
  return RunOnVectorPath([&] { avx512::ExpRun(in, out, n); },
                         [&] { avx2::ExpRun(in, out, n); });
}

}  // namespace weft
