// The vector paths' sigmoid of floats; see sigmoid_float.h.
#include "kernels/cpu/sigmoid_float.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

#include "device/cpu_isa.h"

namespace weft {
namespace {

#define WEFT_FLOAT_BODY "kernels/cpu/sigmoid_float.inc"
#include "kernels/cpu/float_paths.inc"

}  // namespace

bool SwishFloatOnVectorPath(const float* in, float* out, int64_t n,
                            float beta) {
  return RunOnVectorPath([&] { avx512::SigmoidRun<true>(in, out, n, beta); },
                         [&] { avx2::SigmoidRun<true>(in, out, n, beta); });
}

bool SigmoidFloatOnVectorPath(const float* in, float* out, int64_t n) {
  return RunOnVectorPath([&] { avx512::SigmoidRun<false>(in, out, n, 1.0f); },
                         [&] { avx2::SigmoidRun<false>(in, out, n, 1.0f); });
}

}  // namespace weft
