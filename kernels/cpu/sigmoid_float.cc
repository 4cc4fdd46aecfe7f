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
  switch (ActiveCpuIsa()) {
    case CpuIsa::kAvx512:
      avx512::SigmoidRun<true>(in, out, n, beta);
      return true;
    case CpuIsa::kAvx2:
      avx2::SigmoidRun<true>(in, out, n, beta);
      return true;
    case CpuIsa::kBaseline:
      break;
  }
  return false;
}

bool SigmoidFloatOnVectorPath(const float* in, float* out, int64_t n) {
  switch (ActiveCpuIsa()) {
    case CpuIsa::kAvx512:
      avx512::SigmoidRun<false>(in, out, n, 1.0f);
      return true;
    case CpuIsa::kAvx2:
      avx2::SigmoidRun<false>(in, out, n, 1.0f);
      return true;
    case CpuIsa::kBaseline:
      break;
  }
  return false;
}

}  // namespace weft
