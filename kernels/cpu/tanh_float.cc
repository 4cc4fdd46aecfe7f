// The vector paths' tanh of floats; see tanh_float.h.
#include "kernels/cpu/tanh_float.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

#include "device/cpu_isa.h"

namespace weft {
namespace {

#define WEFT_FLOAT_BODY "kernels/cpu/tanh_float.inc"
#include "kernels/cpu/float_paths.inc"

}  // namespace

bool TanhFloatOnVectorPath(const float* in, float* out, int64_t n) {
  return RunOnVectorPath([&] { avx512::TanhRun(in, out, n); },
                         [&] { avx2::TanhRun(in, out, n); });
}

}  // namespace weft
